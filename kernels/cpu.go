package kernels

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// CPUOptions tune the CPU backend. The zero value is the default.
type CPUOptions struct {
	// Workers bounds the goroutines one Run uses; 0 means GOMAXPROCS.
	Workers int
	// Block is the number of elements a fused loop computes per step; 0
	// means the default. Results do not depend on it.
	Block int
	// ParallelMin is the number of elements below which a kernel runs on
	// the calling goroutine only; 0 means the default (2^16). Set to any
	// other value it is exact (the tests' 1 makes every kernel split),
	// and products split at it too. At the default, a kernel of more
	// than a sixteenth of it (4,096 elements) splits too while a pool
	// helper is spinning and helping (handing work to it costs well under a
	// microsecond, waking a parked one tens), and an f32 or f64 product splits at 2^22 multiply-adds (bf16
	// and int8 ones at twice and four times that; a sixteenth of it with
	// a helper spinning). Workers: 1 keeps every kernel on one goroutine.
	ParallelMin int
	// GroupAll runs every group of independent products, loops and
	// reductions side by side (in the programs whose kernels group.go
	// may reorder), each whole on one worker, whatever their size, and
	// whether or not a pool helper is spinning: for the tests, which cross
	// that path on tiny programs. By default only small kernels run side
	// by side, and only while a helper spins. Results do not depend on it.
	GroupAll bool
}

const (
	// defaultBlock: 1024 elements ran E2 (5 steps, i8 and f16 inputs, a
	// streamed f16 output) about 15-20% faster than 2048 or 768 and E3 (a
	// chain of transcendentals) no slower (BenchmarkZZBlock, 16M elements,
	// interleaved runs): the block's registers and its inputs, with the
	// next block's prefetched, stay in the 48 KiB L1.
	defaultBlock       = 1024
	defaultParallelMin = 1 << 16
	// groupElems is the reduction group: a fixed aligned run of leaves whose
	// sum is a subtree of the summation tree (see the package doc), so any
	// power of two times leafElems gives the same bits. It is also the block
	// of a reduction's body: 1024 (8 KiB of f64 per register, in L1) ran E4
	// about 10% faster than 4096 or 2048, and 512 no faster.
	groupElems = 1024
	leafElems  = 128
)

// CPU is the CPU backend. It needs nothing installed and is safe for
// concurrent use.
type CPU struct {
	opts CPUOptions
	// For the tests: noFuse turns the peephole pass off (peephole.go), and
	// the forward max_pool shortcut (lower.WithoutFirstChosen); ntMin
	// is the output size in bytes from which stores stream.
	noFuse bool
	ntMin  int
}

// NewCPU returns a CPU backend with the given options.
func NewCPU(opts CPUOptions) *CPU {
	if opts.Block <= 0 {
		opts.Block = defaultBlock
	}
	if opts.ParallelMin <= 0 {
		opts.ParallelMin = defaultParallelMin
	}
	return &CPU{opts: opts, ntMin: ntMinBytes}
}

func (c *CPU) peepholeOptions() peepholeOptions { return peepholeOptions{off: c.noFuse} }

var defaultCPU = NewCPU(CPUOptions{})

// DefaultCPU returns the shared CPU backend with default options.
func DefaultCPU() *CPU { return defaultCPU }

// Name returns "cpu".
func (c *CPU) Name() string { return "cpu" }

func (c *CPU) workers() int {
	if c.opts.Workers > 0 {
		return c.opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// kernel is one compiled fusion.
type kernel interface {
	run(x *cpuExec, rs *runState)
}

// cpuExec is a module compiled for the CPU.
type cpuExec struct {
	cpu     *CPU
	m       *lower.Module
	kernels []kernel
	fusions []*lower.Fusion // the kernels' fusions
	// stages: the kernels by level, independent small ones grouped to
	// run side by side (group.go); nil runs kernels in order.
	stages []stage
	// Sources: plan buffers first, then constants (whose pointers are fixed).
	nbuf      int
	consts    []*tensor.Array
	constPtrs []unsafe.Pointer
	constIdx  map[*lower.Instr]int
	nslots    int            // per-run scratch slots kernels reserved
	sortPerms map[string]int // sibling sorts' shared permutation slot (sort.go)
	nctrl     int            // control kernels (each keeps a state in runState.ctrl)
	// packedOnly marks the inputs only int8 products read, in place: a
	// packed one is read packed, never unpacked (findPackedOnly).
	packedOnly []bool
	// bypassed holds, per value, the fusions whose kernels read its source
	// in its place (dot.go bypass).
	bypassed map[*lower.Instr]map[*lower.Fusion]bool
	// readsPast holds the fusions whose kernels read an operand's source
	// in its place (bypass), whether or not that operand's own kernel is
	// dropped: they read a buffer that is not among their inputs.
	readsPast map[*lower.Fusion]bool
	// idle holds the state of a finished Run for the next one, spare the
	// states of Runs that overlapped it (see runState).
	idle  atomic.Pointer[runState]
	spare sync.Pool
	// checks are checked mode's checks (check.go): the module's, or for a
	// sub-module its control kernel's executable's.
	checks CheckKind
}

// runState is the memory of one Run: buffer pointers, scratch buffers and
// the workers' registers. An executable keeps one state across garbage
// collections, so steady Runs one after another allocate only their
// outputs and never touch fresh memory: had it been in a sync.Pool, a
// program that collects between Runs would page-fault its scratch in again
// each time (an unfused 10-op chain on 16M f32 took 1.2 s instead of
// 0.13 s that way). The states of Runs that overlap go to a sync.Pool, so
// a burst of concurrent Runs does not pin their scratch for the
// executable's lifetime.
type runState struct {
	srcs    []unsafe.Pointer
	scratch map[int][]byte
	workers []*worker
	slots   [][2][]byte  // kernels' scratch (partials, gathered operands)
	ctrl    []*ctrlState // control kernels' carries
	fork    *forkTask    // the parallel job record fork reuses (see fork)
	stamp   uint64       // counts parallel calls: workers prepare a body once per call (prepareAt)
	jobs    []any        // kernels' per-run job records by slot, reused across runs
	// chk is checked mode's failure record of the Run (own for a Run,
	// the parent's for a control kernel's sub-program), chkSeq the number
	// of the kernel running.
	chk    *checkRecord
	chkSeq int
	own    checkRecord
	// stop is the run's view of its context (see stopper); nil for a run
	// without one. ownStop is this state's own, for its Runs.
	stop    *stopper
	ownStop stopper
	// in are the inputs' data for this run: an input's own storage, or,
	// for a packed one (tensor.Array.IsPacked), its elements unpacked
	// into unpacked[i], which is kept for the next run.
	in       []unsafe.Pointer
	unpacked [][]byte
	packed   [][]byte // the packed inputs' storage (nil for the others)
	// groups: the child states of the executable's kernel groups
	// (group.go); solo: this is such a child state, whose kernels never
	// fork.
	groups []*groupRun
	solo   bool
}

// Compile prepares a fused, buffer-planned module for running.
func (c *CPU) Compile(m *lower.Module) (Executable, error) {
	return c.compile(m, CheckKind(m.Checks))
}

// compile compiles m with the given checks (a sub-module inherits its
// parent's).
func (c *CPU) compile(m *lower.Module, checks CheckKind) (*cpuExec, error) {
	if m.Plan == nil {
		return nil, fmt.Errorf("kernels: module is not fused and planned")
	}
	x := &cpuExec{cpu: c, m: m, nbuf: len(m.Plan.Buffers), constIdx: map[*lower.Instr]int{}, checks: checks}
	for _, in := range m.Instrs {
		if in.Op == trace.OpConst {
			x.constIdx[in] = x.nbuf + len(x.consts)
			x.consts = append(x.consts, in.Params.Value)
			x.constPtrs = append(x.constPtrs, dataPtr(in.Params.Value.Data()))
		}
	}
	for i, o := range m.Outputs {
		for o.Op == trace.OpReshape {
			o = o.Args[0]
		}
		if _, ok := m.Plan.Of[o]; !ok && o.Op != trace.OpConst && o.Op != trace.OpParam {
			return nil, fmt.Errorf("kernels: output %d (%%%d) is computed by no kernel", i, o.ID)
		}
	}
	for _, f := range m.Fusions {
		for _, in := range f.Inputs {
			d := in
			for d.Op == trace.OpReshape {
				d = d.Args[0]
			}
			if _, ok := m.Plan.Of[d]; !ok && d.Op != trace.OpConst {
				return nil, fmt.Errorf("kernels: fusion.%d reads %%%d, which no kernel computes", f.ID, d.ID)
			}
		}
	}
	ks := make([]kernel, len(m.Fusions))
	for i, f := range m.Fusions {
		k, err := x.compileFusion(f)
		if err != nil {
			return nil, err
		}
		if k != nil && checks&CheckNaN != 0 && m.Fusions[i].Kind != lower.FusionControl {
			if c := x.newNaNCheck(m.Fusions[i]); c != nil {
				k = &checkedKernel{k: k, nan: c}
			}
		}
		ks[i] = k
	}
	var fs []*lower.Fusion
	for i, k := range ks {
		if k != nil && !x.unread(m.Fusions[i]) {
			x.kernels = append(x.kernels, k)
			fs = append(fs, m.Fusions[i])
		}
	}
	x.fusions = fs
	alternateStreams(x.kernels, fs)
	x.stages = x.schedule(x.kernels, fs)
	x.packedOnly = x.findPackedOnly(ks)
	return x, nil
}

// packedOperand is the packed storage the int8 GEMM reads operand l
// from, or nil: l is read in place from an i4 or u4 input that the
// caller passed packed.
func (rs *runState) packedOperand(l *operandLayout) []byte {
	if !l.nibbles || l.param >= len(rs.packed) {
		return nil
	}
	return rs.packed[l.param]
}

// findPackedOnly reports, for each program input, whether every kernel
// that reads it reads it as an in-place operand of an int8 product
// (operandLayout.nibbles), which reads a packed input packed: then a
// packed input need not be unpacked for the run. An input read by any
// other kernel, by a fused epilogue, or returned as an output, is
// unpacked; so is every input in checked mode.
func (x *cpuExec) findPackedOnly(ks []kernel) []bool {
	if x.checks != 0 {
		return nil
	}
	strip := func(in *lower.Instr) *lower.Instr {
		for in.Op == trace.OpReshape {
			in = in.Args[0]
		}
		return in
	}
	only := make([]bool, len(x.m.Params))
	buf := make([]int, len(x.m.Params))
	some := false
	for i, p := range x.m.Params {
		b, ok := x.m.Plan.Of[p]
		only[i], buf[i] = ok && (p.DType == tensor.I4 || p.DType == tensor.U4), b
		some = some || only[i]
	}
	if !some {
		return nil
	}
	for _, o := range x.m.Outputs {
		if o = strip(o); o.Op == trace.OpParam {
			only[o.Param] = false
		}
	}
	read := make([]bool, len(x.m.Params)) // by some nibbles operand
	for i, f := range x.m.Fusions {
		if ks[i] == nil || x.unread(f) {
			continue
		}
		for _, in := range f.Inputs {
			if in = strip(in); in.Op == trace.OpParam {
				only[in.Param] = false
			}
		}
		k, ok := ks[i].(*dotKernel) // (checked mode returned above: no wrapper)
		if !ok {
			continue
		}
		for p := range only {
			for _, l := range []*operandLayout{&k.lhs, &k.rhs} {
				if l.src == buf[p] {
					only[p] = only[p] && l.nibbles && l.param == p
					read[p] = true
				}
			}
		}
	}
	for p := range only {
		only[p] = only[p] && read[p]
	}
	return only
}

// source is the index of the data a fusion input reads.
func (x *cpuExec) source(in *lower.Instr) int {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	if i, ok := x.constIdx[in]; ok {
		return i
	}
	return x.m.Plan.Of[in]
}

func (x *cpuExec) compileFusion(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	switch f.Kind {
	case lower.FusionLoop:
		if root.Op == trace.OpConst {
			return nil, nil // outputs read constants directly
		}
		if f.Mapped() {
			return x.compileMapped(f)
		}
		return x.compileLoop(f)
	case lower.FusionReduce:
		return x.compileReduce(f)
	case lower.FusionDot:
		if f.Dot().Op == trace.OpConv {
			return x.compileConv(f)
		}
		return x.compileDot(f)
	case lower.FusionCopy:
		return x.compileCopy(f)
	case lower.FusionControl:
		return x.compileControl(f)
	}
	return nil, fmt.Errorf("kernels: unknown fusion kind %v", f.Kind)
}

// newOutputs allocates the module's outputs, zeroed.
func (x *cpuExec) newOutputs() ([]*tensor.Array, error) {
	outs := make([]*tensor.Array, len(x.m.Outputs))
	for i, o := range x.m.Outputs {
		a, err := tensor.Zeros(o.DType, o.Shape...)
		if err != nil {
			return nil, err
		}
		outs[i] = a
	}
	return outs, nil
}

// Run checks inputs and returns newly allocated outputs.
func (x *cpuExec) Run(inputs []*tensor.Array) ([]*tensor.Array, error) {
	if err := checkInputs(x.m, inputs); err != nil {
		return nil, err
	}
	outs, err := x.newOutputs()
	if err != nil {
		return nil, err
	}
	if err := x.run(outs, inputs); err != nil {
		return nil, err
	}
	return outs, nil
}

// RunContext is Run stopped when ctx is done (see ContextRunner).
func (x *cpuExec) RunContext(ctx context.Context, inputs []*tensor.Array) ([]*tensor.Array, error) {
	if ctx.Done() == nil {
		return x.Run(inputs)
	}
	if err := ContextError(ctx); err != nil {
		return nil, err
	}
	if err := checkInputs(x.m, inputs); err != nil {
		return nil, err
	}
	outs, err := x.newOutputs()
	if err != nil {
		return nil, err
	}
	if err := x.runContext(ctx, outs, inputs); err != nil {
		return nil, err
	}
	return outs, nil
}

// RunIntoContext is RunInto stopped when ctx is done (see ContextRunner).
func (x *cpuExec) RunIntoContext(ctx context.Context, outputs, inputs []*tensor.Array) error {
	if ctx.Done() == nil {
		return x.RunInto(outputs, inputs)
	}
	if err := ContextError(ctx); err != nil {
		return err
	}
	if err := checkInputs(x.m, inputs); err != nil {
		return err
	}
	if err := checkOutputs(x.m, outputs, inputs); err != nil {
		return err
	}
	return x.runContext(ctx, outputs, inputs)
}

// runContext runs watching ctx, and returns ctx's error when the run found
// it done (some kernel may have stopped early).
func (x *cpuExec) runContext(ctx context.Context, outs, inputs []*tensor.Array) error {
	stopped, err := x.runWatching(outs, inputs, ctx.Done())
	if stopped {
		return ContextError(ctx)
	}
	return err
}

// RunInto runs writing into the caller's output arrays.
func (x *cpuExec) RunInto(outputs, inputs []*tensor.Array) error {
	if err := checkInputs(x.m, inputs); err != nil {
		return err
	}
	if err := checkOutputs(x.m, outputs, inputs); err != nil {
		return err
	}
	return x.run(outputs, inputs)
}

func (x *cpuExec) getState() *runState {
	if rs := x.idle.Swap(nil); rs != nil {
		return rs
	}
	if rs, ok := x.spare.Get().(*runState); ok {
		return rs
	}
	rs := &runState{srcs: make([]unsafe.Pointer, x.nbuf+len(x.consts)), scratch: map[int][]byte{}}
	copy(rs.srcs[x.nbuf:], x.constPtrs)
	for _, b := range x.m.Plan.Buffers {
		if b.Param < 0 && b.Output < 0 {
			mem := make([]byte, b.Size*b.DType.Size()+regAlign)
			rs.scratch[b.ID] = mem
			off := (regAlign - int(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%regAlign)) % regAlign
			rs.srcs[b.ID] = unsafe.Pointer(&mem[off])
		}
	}
	return rs
}

// run runs the kernels. In checked mode it returns the first failed
// check's *CheckError (the outputs then hold unspecified values: the
// kernels before the failing one may have written them).
func (x *cpuExec) run(outs, inputs []*tensor.Array) error {
	_, err := x.runWatching(outs, inputs, nil)
	return err
}

// runWatching is run under a context whose Done channel is done (nil: no
// context); stopped reports whether the run found it done, and so ended
// early (the outputs then hold unspecified values).
func (x *cpuExec) runWatching(outs, inputs []*tensor.Array, done <-chan struct{}) (stopped bool, err error) {
	rs := x.getState()
	rs.stop = nil
	if done != nil {
		rs.stop = rs.watch(done)
	}
	rs.bindInputs(inputs, x.packedOnly)
	plan := x.m.Plan
	for _, b := range plan.Buffers {
		switch {
		case b.Param >= 0:
			rs.srcs[b.ID] = rs.in[b.Param]
		case b.Output >= 0:
			rs.srcs[b.ID] = dataPtr(outs[b.Output].Data())
		}
	}
	if x.checks != 0 {
		rs.own.reset()
		rs.chk = &rs.own
	}
	if !x.runKernels(rs) {
		stopped, err = rs.stop != nil && rs.stop.flag.Load(), rs.chk.err
		runtime.KeepAlive(inputs)
		runtime.KeepAlive(outs)
		x.putState(rs)
		return stopped, err
	}
	x.finish(rs, func(i int) unsafe.Pointer { return dataPtr(outs[i].Data()) }, func(i int) unsafe.Pointer { return rs.in[i] })
	stopped = rs.stop != nil && rs.stop.flag.Load() // read before another Run takes rs
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(outs)
	x.putState(rs)
	return stopped, nil
}

// runKernels runs the kernels in order; in checked mode it stops after
// the first kernel whose check failed and returns false.
func (x *cpuExec) runKernels(rs *runState) bool {
	if rs.chk == nil {
		if x.stages != nil {
			x.runStages(rs)
			return true
		}
		for _, k := range x.kernels {
			if rs.stopped() {
				break
			}
			k.run(x, rs)
		}
		return true
	}
	for _, k := range x.kernels {
		if rs.stopped() {
			break
		}
		rs.chkSeq = rs.chk.nseq
		rs.chk.nseq++
		k.run(x, rs)
		if rs.chk.failed.Load() {
			return false
		}
	}
	return true
}

// bindInputs sets rs.in to the inputs' data: a packed sub-byte integer
// input is unpacked, one element a byte as the kernels read it, into
// scratch that rs keeps (the input itself is not written).
//
// An input that only int8 products read in place (packedOnly: they read
// it packed, see runGemmI8) is not unpacked at all.
func (rs *runState) bindInputs(inputs []*tensor.Array, packedOnly []bool) {
	if cap(rs.in) < len(inputs) {
		rs.in = make([]unsafe.Pointer, len(inputs))
	}
	if cap(rs.packed) < len(inputs) {
		rs.packed = make([][]byte, len(inputs))
	}
	rs.in, rs.packed = rs.in[:len(inputs)], rs.packed[:len(inputs)]
	for i, a := range inputs {
		rs.packed[i] = a.PackedBytes()
		if !a.IsPacked() {
			rs.in[i] = dataPtr(a.Data())
			continue
		}
		if i < len(packedOnly) && packedOnly[i] {
			rs.in[i] = nil // no kernel reads the unpacked form
			continue
		}
		for len(rs.unpacked) <= i {
			rs.unpacked = append(rs.unpacked, nil)
		}
		n := a.Size()
		if cap(rs.unpacked[i]) < n {
			rs.unpacked[i] = make([]byte, n)
		}
		buf := rs.unpacked[i][:n]
		f, _ := a.DType().IntFormat()
		tensor.UnpackStorage(f, buf, a.PackedBytes())
		rs.in[i] = nil
		if n > 0 {
			rs.in[i] = unsafe.Pointer(&buf[0])
		}
	}
}

// putState keeps rs for a later Run.
func (x *cpuExec) putState(rs *runState) {
	for _, b := range x.m.Plan.Buffers {
		if b.Param >= 0 || b.Output >= 0 {
			rs.srcs[b.ID] = nil // hold no caller's array
		}
	}
	// Cleared before rs is shared again: another Run may take rs the
	// moment it is idle (a deferred clear raced with that Run's set).
	rs.stop, rs.chk = nil, nil
	rs.ownStop.done = nil
	rs.releaseGroups()
	clear(rs.in) // hold no caller's array
	clear(rs.packed)
	if !x.idle.CompareAndSwap(nil, rs) {
		x.spare.Put(rs)
	}
}

// finish copies the outputs that no kernel wrote: parameters, constants
// and values that are already another output. out(i) and in(i) are the
// data of output and input i.
func (x *cpuExec) finish(rs *runState, out, in func(i int) unsafe.Pointer) {
	for i, o := range x.m.Outputs {
		d := o
		for d.Op == trace.OpReshape {
			d = d.Args[0]
		}
		var src unsafe.Pointer
		switch {
		case d.Op == trace.OpConst:
			src = x.constPtrs[x.constIdx[d]-x.nbuf]
		case d.Op == trace.OpParam:
			src = in(d.Param)
		default:
			b := x.m.Plan.Of[d]
			if x.m.Plan.Buffers[b].Output == i {
				continue
			}
			src = rs.srcs[b]
		}
		n := o.Size() * o.DType.Size()
		if n > 0 {
			copy(view[byte](out(i), n), view[byte](src, n))
		}
	}
}

// rangeJob is work over an index range [lo, hi) that one worker does.
// Kernels implement it themselves, so a small Run builds no closure.
type rangeJob interface {
	runRange(rs *runState, w *worker, lo, hi int)
}

// funcJob adapts a closure, for kernels that allocate per run anyway.
type funcJob func(w *worker, lo, hi int)

func (f funcJob) runRange(_ *runState, w *worker, lo, hi int) { f(w, lo, hi) }

// parallel runs job over [0, n) on several workers when the work (elems)
// is large enough (see fork).
func (x *cpuExec) parallel(rs *runState, n, elems int, job rangeJob) {
	rs.stamp++
	nw := x.cpu.workers()
	if rs.solo || n < 2 || !x.wide(elems, x.cpu.opts.ParallelMin) {
		nw = 1
	}
	nw = min(nw, n)
	for len(rs.workers) < max(nw, 1) {
		rs.workers = append(rs.workers, &worker{})
	}
	if rs.chk != nil {
		for _, w := range rs.workers {
			w.chk, w.chkSeq = rs.chk, rs.chkSeq
		}
	}
	if nw <= 1 {
		if rs.stop != nil {
			runChecked(job, rs, rs.workers[0], 0, n, pieceOf(n, elems))
			return
		}
		job.runRange(rs, rs.workers[0], 0, n)
		return
	}
	x.fork(rs, n, nw, job, elems)
}

// checkOutputs validates caller-provided outputs: dtypes, shapes, backing
// lengths, and no memory shared with an input or another output.
func checkOutputs(m *lower.Module, outs, inputs []*tensor.Array) error {
	if len(outs) != len(m.Outputs) {
		return &ArgError{Index: -1, Msg: fmt.Sprintf("the program has %d outputs, got %d arrays to write", len(m.Outputs), len(outs))}
	}
	for i, o := range m.Outputs {
		a := outs[i]
		switch {
		case a == nil:
			return &ArgError{Index: i, Output: true, Msg: "nil array"}
		case a.DType() != o.DType:
			return &ArgError{Index: i, Output: true, Msg: fmt.Sprintf("dtype %s, the output is %s", a.DType(), o.DType)}
		case !a.HasShape(o.Shape):
			return &ArgError{Index: i, Output: true, Msg: fmt.Sprintf("shape %v, the output is %v", a.Shape(), o.Shape)}
		}
		if a.IsPacked() {
			return &ArgError{Index: i, Output: true, Msg: fmt.Sprintf("a packed %s array: RunInto writes one element a byte; pass an unpacked array and Pack it after", a.DType())}
		}
		if n, ok := sliceLen(a.Data()); !ok || n != o.Size() {
			return &ArgError{Index: i, Output: true, Msg: fmt.Sprintf("backing slice has %d elements, shape %v needs %d", n, o.Shape, o.Size())}
		}
	}
	return CheckDisjoint(outs, inputs)
}

// span is the memory an array's elements occupy.
type span struct{ lo, hi uintptr }

func spanOf(a *tensor.Array) span {
	if b := a.PackedBytes(); b != nil {
		p := uintptr(dataPtr(b))
		return span{p, p + uintptr(len(b))}
	}
	p := uintptr(dataPtr(a.Data()))
	return span{p, p + uintptr(a.Size()*a.DType().Size())}
}

func (s span) overlaps(t span) bool { return s.lo < t.hi && t.lo < s.hi }

// Overlaps reports whether arrays a and b share memory.
func Overlaps(a, b *tensor.Array) bool { return spanOf(a).overlaps(spanOf(b)) }

// CheckDisjoint returns an *ArgError for the first output that shares
// memory with an input or another output: a backend's RunInto would read
// an input after writing over it, or write two results to one place.
// Backends call it in RunInto; the arrays must be non-nil.
func CheckDisjoint(outputs, inputs []*tensor.Array) error {
	var buf [64]span // on the stack: a training step has 30 arrays; more than 64 allocate
	taken := buf[:0]
	for _, a := range inputs {
		taken = append(taken, spanOf(a))
	}
	for i, a := range outputs {
		s := spanOf(a)
		for _, t := range taken {
			if s.overlaps(t) {
				return &ArgError{Index: i, Output: true, Msg: "shares memory with an input or another output"}
			}
		}
		taken = append(taken, s)
	}
	return nil
}
