package kernels

import (
	"fmt"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// Control flow on the CPU. A while or cond is one kernel that runs its
// compiled sub-modules (lower.Instr.Subs, each its own executable with its
// own fusions and buffer plan) from Go: a loop step is one run of the body
// executable, whose fused kernels then process whole arrays, so the loop
// returns to Go once per iteration, never per element.
//
// A while keeps its carry in two sets of buffers, A and B, made once per
// run state (so once per executable in steady use): a step reads the
// carry from one set and writes the next carry into the other, then the
// two swap; the sub-executables' own scratch is theirs, kept across runs.
// No step allocates: the pointer slices handed to the sub-executables are
// built once with the buffers. The final carry is copied into the
// kernel's result buffers. A cond runs the chosen branch writing straight
// into the result buffers.

// controlKernel runs one control fusion.
type controlKernel struct {
	root    *lower.Instr
	subs    []*cpuExec
	args    []int // the source of each operand
	outs    []int // the buffer of each result, -1 when nothing reads it
	bytes   []int // each result's size in bytes
	nconsts []int // captured operands per sub-module
	n       int   // carries (while) or operands (cond)
	state   int   // index of its state in runState.ctrl
	// inPlace marks the carries the body only updates in place with a
	// dynamic_update_slice (scan's stacked outputs): one buffer serves as
	// the step's input and output, so a step writes its slice instead of
	// copying the whole array.
	inPlace []bool
}

// ctrlState is a control kernel's memory in one run state.
type ctrlState struct {
	carry [2][]unsafe.Pointer // while: the two carry sets; cond: [0] are the results
	mem   [][]byte
	pred  []bool
	// Pointer slices for the sub-executables, by the carry set read.
	condIn, bodyIn [2][]unsafe.Pointer
	predOut        []unsafe.Pointer
	branchIn       [][]unsafe.Pointer
}

func (x *cpuExec) compileControl(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	c := root.Params.Control
	if len(root.Subs) != len(c.Subs) || len(root.Subs) == 0 {
		return nil, fmt.Errorf("kernels: %s %s: its sub-programs were not compiled (lower.Compile compiles them)", root.Name(), root.Op)
	}
	k := &controlKernel{root: root, nconsts: c.NConsts, state: x.nctrl}
	x.nctrl++
	for _, sm := range root.Subs {
		e, err := x.cpu.compile(sm, x.checks)
		if err != nil {
			return nil, err
		}
		// A carry updated in place has two buffers, the parameter's and
		// the output's, that this kernel points at one memory
		// (inPlaceCarries): only program order keeps its readers before
		// its update, so the sub-program runs in it (see schedule).
		e.stages = nil
		k.subs = append(k.subs, e)
	}
	for _, a := range root.Args {
		k.args = append(k.args, x.source(a))
	}
	nres := 0
	switch root.Op {
	case trace.OpWhile:
		k.n = len(root.Args) - c.NConsts[0] - c.NConsts[1]
		nres = k.n
	case trace.OpCond:
		k.n = len(root.Args) - 1 - sumInts(c.NConsts)
		nres = len(root.Subs[0].Outputs)
	default:
		return nil, fmt.Errorf("kernels: %s is not a control-flow op", root.Op)
	}
	k.outs = make([]int, nres)
	k.bytes = make([]int, nres)
	for i := range k.outs {
		k.outs[i] = -1
	}
	for _, o := range f.Outputs {
		i := 0
		if o.Op == trace.OpResult {
			i = o.Params.Control.Index
		}
		k.outs[i] = x.m.Plan.Of[o]
		k.bytes[i] = o.Size() * o.DType.Size()
	}
	sub0 := root.Subs[len(root.Subs)-1] // the body, or a branch: its outputs are the results
	for i, o := range sub0.Outputs {
		k.bytes[i] = o.Size() * o.DType.Size()
	}
	if root.Op == trace.OpWhile {
		k.inPlace = inPlaceCarries(sub0, k.n)
	}
	return k, nil
}

// inPlaceCarries marks the carries i whose body result is a
// dynamic_update_slice of the carry itself written to output i's own
// buffer, where every other reader of the carry (a product reading past
// a convert of it included) runs in an earlier kernel:
// the update can then happen in the carry's buffer (the kernel skips the
// copy of an operand onto itself). Scan's stacked outputs are such
// carries, and so are reverse mode's accumulated cotangents of a scan's
// xs (window += update) and of its stacked outputs (window = 0).
func inPlaceCarries(body *lower.Module, n int) []bool {
	users := map[*lower.Instr][]*lower.Instr{}
	for _, in := range body.Instrs {
		for _, a := range in.Args {
			users[a] = append(users[a], in)
		}
	}
	outputs := map[*lower.Instr]int{}
	for _, o := range body.Outputs {
		outputs[o]++
	}
	// The position of the last fusion computing each instruction: one
	// recomputed in several (lower's duplication rule) reads its operands
	// in each of them.
	kernel := map[*lower.Instr]int{}
	for fi, f := range body.Fusions {
		for _, in := range f.Instrs {
			kernel[in] = fi
		}
	}
	// readers are the instructions reading in's buffer: its users, and
	// through reshapes (which alias it) theirs — and the products reading
	// a widening convert of it, which may read past the convert, straight
	// from in's buffer (halfOperand, int8Operand).
	var readers func(in *lower.Instr) []*lower.Instr
	readers = func(in *lower.Instr) []*lower.Instr {
		var out []*lower.Instr
		for _, u := range users[in] {
			if u.Op == trace.OpReshape {
				if outputs[u] > 0 {
					return nil // an output aliasing the carry: not in place
				}
				out = append(out, readers(u)...)
				continue
			}
			out = append(out, u)
			if u.Op == trace.OpConvert {
				for _, d := range users[u] {
					if d.Op.Info().Class == trace.ClassDot {
						out = append(out, d)
					}
				}
			}
		}
		return out
	}
	marks := make([]bool, n)
	for i := range min(n, len(body.Outputs), len(body.Params)) {
		o, p := body.Outputs[i], body.Params[i]
		b, ok := body.Plan.Of[o]
		if o.Op != trace.OpDynamicUpdateSlice || o.Args[0] != p || outputs[o] != 1 || outputs[p] != 0 || len(users[o]) != 0 ||
			!ok || body.Plan.Buffers[b].Output != i {
			continue
		}
		rs := readers(p)
		marks[i] = rs != nil
		for _, u := range rs {
			if k, ok := kernel[u]; u != o && (!ok || k >= kernel[o]) {
				marks[i] = false
			}
		}
	}
	return marks
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// alignedBytes allocates n bytes aligned to regAlign.
func alignedBytes(n int) ([]byte, unsafe.Pointer) {
	mem := make([]byte, n+regAlign)
	off := (regAlign - int(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%regAlign)) % regAlign
	return mem, unsafe.Pointer(&mem[off])
}

// stateOf returns the kernel's state in rs, made on first use.
func (k *controlKernel) stateOf(rs *runState) *ctrlState {
	for len(rs.ctrl) <= k.state {
		rs.ctrl = append(rs.ctrl, nil)
	}
	if s := rs.ctrl[k.state]; s != nil {
		return s
	}
	s := &ctrlState{}
	sets := 1
	if k.root.Op == trace.OpWhile {
		sets = 2
	}
	for set := range sets {
		s.carry[set] = make([]unsafe.Pointer, len(k.bytes))
		for i, n := range k.bytes {
			if set == 1 && i < len(k.inPlace) && k.inPlace[i] {
				s.carry[1][i] = s.carry[0][i] // updated in place: one buffer
				continue
			}
			mem, p := alignedBytes(n)
			s.mem = append(s.mem, mem)
			s.carry[set][i] = p
		}
	}
	c := k.root.Params.Control
	switch k.root.Op {
	case trace.OpWhile:
		s.pred = make([]bool, 1)
		s.predOut = []unsafe.Pointer{unsafe.Pointer(&s.pred[0])}
		for set := range 2 {
			s.condIn[set] = append(append([]unsafe.Pointer{}, s.carry[set]...), make([]unsafe.Pointer, c.NConsts[0])...)
			s.bodyIn[set] = append(append([]unsafe.Pointer{}, s.carry[set]...), make([]unsafe.Pointer, c.NConsts[1])...)
		}
	case trace.OpCond:
		for _, nc := range c.NConsts {
			s.branchIn = append(s.branchIn, make([]unsafe.Pointer, k.n+nc))
		}
	}
	rs.ctrl[k.state] = s
	return s
}

func (k *controlKernel) run(x *cpuExec, rs *runState) {
	s := k.stateOf(rs)
	src := func(i int) unsafe.Pointer { return rs.srcs[k.args[i]] }
	if k.root.Op == trace.OpCond {
		k.runCond(rs, s, src)
		return
	}
	c := k.root.Params.Control
	nc := c.NConsts[0]
	// The loop's inputs past its carries are the Run's arrays (values
	// it reads from outside): dropped when it ends, stopped or not, so
	// that the run state holds no caller's array between Runs.
	defer func() {
		for set := range 2 {
			clear(s.condIn[set][k.n:])
			clear(s.bodyIn[set][k.n:])
		}
	}()
	for set := range 2 {
		for j := range nc {
			s.condIn[set][k.n+j] = src(k.n + j)
		}
		for j := range c.NConsts[1] {
			s.bodyIn[set][k.n+j] = src(k.n + nc + j)
		}
	}
	cur := 0
	for i := range k.n {
		copyBytes(s.carry[cur][i], src(i), k.bytes[i])
	}
	cond, body := k.subs[0], k.subs[1]
	for !rs.stopped() { // a cancelled run stops between iterations
		if !cond.runPtrs(s.predOut, s.condIn[cur], rs.stop, rs.chk) {
			return
		}
		if !s.pred[0] || rs.stopped() {
			break
		}
		if !body.runPtrs(s.carry[1-cur], s.bodyIn[cur], rs.stop, rs.chk) {
			return
		}
		cur = 1 - cur
	}
	for i, b := range k.outs {
		if b >= 0 {
			copyBytes(rs.srcs[b], s.carry[cur][i], k.bytes[i])
		}
	}
}

func (k *controlKernel) runCond(rs *runState, s *ctrlState, src func(int) unsafe.Pointer) {
	c := k.root.Params.Control
	i := int(*(*int32)(src(0)))
	i = max(0, min(i, len(k.subs)-1)) // in range by construction; clamped as lax.switch
	in := s.branchIn[i]
	defer clear(in) // the Run's arrays: hold none between Runs
	for j := range k.n {
		in[j] = src(1 + j)
	}
	at := 1 + k.n
	for b := range i {
		at += c.NConsts[b]
	}
	for j := range c.NConsts[i] {
		in[k.n+j] = src(at + j)
	}
	outs := s.carry[0]
	if !k.subs[i].runPtrs(outs, in, rs.stop, rs.chk) {
		return
	}
	for r, b := range k.outs {
		if b >= 0 {
			copyBytes(rs.srcs[b], outs[r], k.bytes[r])
		}
	}
}

func copyBytes(dst, src unsafe.Pointer, n int) {
	if n > 0 && dst != src {
		copy(view[byte](dst, n), view[byte](src, n))
	}
}

// runPtrs runs the executable on raw pointers (a control kernel's
// carries), without the checks of Run: the caller built them from the
// module's own types. stop is the calling run's stopper (see run).
//
// In checked mode the sub-program reports to chk, its parent Run's
// record; runPtrs returns false when a check failed (nothing is copied
// out then).
func (x *cpuExec) runPtrs(outs, ins []unsafe.Pointer, stop *stopper, chk *checkRecord) bool {
	rs := x.getState()
	rs.stop, rs.chk = stop, chk
	for _, b := range x.m.Plan.Buffers {
		switch {
		case b.Param >= 0:
			rs.srcs[b.ID] = ins[b.Param]
		case b.Output >= 0:
			rs.srcs[b.ID] = outs[b.Output]
		}
	}
	if !x.runKernels(rs) {
		rs.chk = nil
		x.putState(rs)
		return false
	}
	rs.chk = nil
	x.finish(rs, func(i int) unsafe.Pointer { return outs[i] }, func(i int) unsafe.Pointer { return ins[i] })
	x.putState(rs)
	return true
}
