package opencl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Executable is a compiled module on one device. Device buffers (the
// module's plan, its constant arrays and reduction scratch) are allocated
// once, at Compile, and reused by every Run: a Run copies the inputs in,
// enqueues one kernel per fusion on the executable's own in-order queue,
// reads the outputs back and waits once for all of it. Runs are serialized by a mutex, so an Executable
// is safe for concurrent use; use one per goroutine to run in parallel.
type Executable struct {
	res    *execResources
	m      *lower.Module
	source string
	device string
}

// execResources are the OpenCL objects an Executable owns.
type execResources struct {
	mu      sync.Mutex
	cl      *api
	queue   clQueue
	kernels []clKernel
	specs   []kernelSpec
	plan    []clMem // per lower.Buffer; 0 for none
	consts  []clMem
	scratch []clMem
	closed  bool
	counts  *execCounts // the backend's; counted once the executable is built
	// controls are the while and cond steps between kernels (control.go).
	controls []*clControl
}

// release frees the executable's OpenCL objects, once; it reports whether
// this call did.
func (r *execResources) release() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.closed = true
	if r.counts != nil {
		r.counts.open.Add(-1)
	}
	if r.queue != 0 {
		r.cl.Finish(r.queue)
	}
	for _, c := range r.controls {
		for _, s := range c.subs {
			s.res.release()
		}
	}
	for _, k := range r.kernels {
		r.cl.ReleaseKernel(k)
	}
	for _, set := range [][]clMem{r.plan, r.consts, r.scratch} {
		for _, m := range set {
			if m != 0 {
				r.cl.ReleaseMemObject(m)
			}
		}
	}
	if r.queue != 0 {
		r.cl.ReleaseCommandQueue(r.queue)
	}
	return true
}

const (
	clMemReadWrite         = 1 << 0
	clMemReadOnly          = 1 << 2
	clMemCopyHostPtr       = 1 << 5
	clKernelWorkGroupSize  = 0x11B0
	clQueueOutOfOrderFalse = 0
)

func newExecutable(b *Backend, m *lower.Module, g *generated, prog clProgram) (*Executable, error) {
	cl := b.res.cl
	defer cl.ReleaseProgram(prog) // the kernels hold it from here on
	r := &execResources{cl: cl, specs: g.kernels}
	e := &Executable{res: r, m: m, source: g.source, device: b.dev.info.Name}
	fail := func(err error) (*Executable, error) {
		r.release()
		return nil, err
	}
	var st int32
	r.queue = cl.CreateCommandQueue(b.res.ctx, b.dev.id, clQueueOutOfOrderFalse, &st)
	if st != clSuccess {
		return fail(callError("clCreateCommandQueue", st, "cannot create a command queue"))
	}
	alloc := func(bytes int, flags uint64, host unsafe.Pointer) (clMem, error) {
		if int64(bytes) > b.dev.info.MaxAlloc && b.dev.info.MaxAlloc > 0 {
			return 0, &Error{Kind: KindOutOfMemory, Msg: fmt.Sprintf("a %s buffer exceeds the device's largest allocation (%s)", bytesString(int64(bytes)), bytesString(b.dev.info.MaxAlloc)),
				Hint: "use smaller arrays or the CPU backend"}
		}
		var st int32
		mem := cl.CreateBuffer(b.res.ctx, flags, uintptr(max(bytes, 16)), host, &st)
		if st != clSuccess {
			return 0, callError("clCreateBuffer", st, fmt.Sprintf("cannot allocate %s on %s", bytesString(int64(bytes)), b.dev.info.Name))
		}
		return mem, nil
	}
	r.plan = make([]clMem, len(m.Plan.Buffers))
	for i, buf := range m.Plan.Buffers {
		mem, err := alloc(buf.Size*buf.DType.Size(), clMemReadWrite, nil)
		if err != nil {
			return fail(err)
		}
		r.plan[i] = mem
	}
	for _, c := range g.consts {
		v := c.Params.Value
		ptr, n := dataPointer(v.Data(), v.DType())
		flags := uint64(clMemReadOnly | clMemCopyHostPtr)
		if n == 0 { // an empty constant has no host memory to copy (CL_INVALID_HOST_PTR)
			flags, ptr = clMemReadOnly, nil
		}
		mem, err := alloc(n, flags, ptr)
		runtime.KeepAlive(v)
		if err != nil {
			return fail(err)
		}
		r.consts = append(r.consts, mem)
	}
	for _, n := range g.scratch {
		mem, err := alloc(n, clMemReadWrite, nil)
		if err != nil {
			return fail(err)
		}
		r.scratch = append(r.scratch, mem)
	}
	for i := range r.specs {
		k, err := e.kernel(prog, &r.specs[i], b.dev.id)
		if err != nil {
			return fail(err)
		}
		r.kernels = append(r.kernels, k)
	}
	for _, cs := range g.controls {
		c, err := newControl(b, m, r, cs, alloc)
		if err != nil {
			return fail(err)
		}
		r.controls = append(r.controls, c)
	}
	r.counts = &b.res.execs
	r.counts.open.Add(1)
	runtime.AddCleanup(e, func(r *execResources) {
		if r.release() {
			r.counts.collected.Add(1)
		}
	}, r)
	return e, nil
}

// kernel creates one kernel, binds its buffers and fits its work-group
// size to what the compiled kernel allows.
func (e *Executable) kernel(prog clProgram, spec *kernelSpec, dev clDevice) (clKernel, error) {
	r := e.res
	cl := r.cl
	name := append([]byte(spec.name), 0)
	var st int32
	k := cl.CreateKernel(prog, &name[0], &st)
	if st != clSuccess {
		return 0, callError("clCreateKernel", st, "cannot create kernel "+spec.name)
	}
	for i, a := range spec.args {
		var mem clMem
		switch a.kind {
		case argPlan:
			mem = r.plan[a.id]
		case argConst:
			mem = r.consts[a.id]
		case argScratch:
			mem = r.scratch[a.id]
		}
		if st := cl.SetKernelArg(k, uint32(i), unsafe.Sizeof(mem), unsafe.Pointer(&mem)); st != clSuccess {
			cl.ReleaseKernel(k)
			return 0, callError("clSetKernelArg", st, fmt.Sprintf("cannot bind argument %d of %s", i, spec.name))
		}
	}
	var maxWG uintptr
	if cl.GetKernelWorkGroupInfo(k, dev, clKernelWorkGroupSize, unsafe.Sizeof(maxWG), unsafe.Pointer(&maxWG), nil) == clSuccess && maxWG > 0 {
		total := 1
		for _, l := range spec.local {
			total *= l
		}
		if total > int(maxWG) {
			if len(spec.local) != 1 || spec.fixedLocal {
				cl.ReleaseKernel(k)
				return 0, &Error{Kind: KindUnsupported, Msg: fmt.Sprintf("kernel %s needs work-groups of %d, the device allows %d", spec.name, total, maxWG)}
			}
			n := spec.global[0]
			l := int(maxWG)
			for spec.exact && n%l != 0 {
				l--
			}
			spec.local = []int{l}
			spec.global = []int{roundUp(n, l)}
		}
	}
	return k, nil
}

// dataPointer returns the address and byte length of a storage slice.
func dataPointer(data any, d tensor.DType) (unsafe.Pointer, int) {
	v := reflect.ValueOf(data)
	if v.Len() == 0 {
		return nil, 0
	}
	return v.UnsafePointer(), v.Len() * d.Size()
}

// Source returns the generated OpenCL C of the executable's module.
func (e *Executable) Source() string { return e.source }

// Close releases the executable's device buffers, kernels and queue. Run
// after Close returns a KindClosed error. Close is idempotent; a runtime
// cleanup calls it for executables that become unreachable.
func (e *Executable) Close() error {
	e.res.release()
	return nil
}

// Run checks inputs against the module's parameters and returns newly
// allocated outputs.
func (e *Executable) Run(inputs []*tensor.Array) ([]*tensor.Array, error) {
	outs := make([]*tensor.Array, len(e.m.Outputs))
	for i, o := range e.m.Outputs {
		a, err := tensor.Zeros(o.DType, o.Shape...)
		if err != nil {
			return nil, err
		}
		outs[i] = a
	}
	if err := e.RunInto(outs, inputs); err != nil {
		return nil, err
	}
	return outs, nil
}

// RunInto is Run writing into caller-provided outputs, whose dtypes and
// shapes must match the module's outputs and which must not share memory
// with the inputs or each other.
func (e *Executable) RunInto(outputs, inputs []*tensor.Array) error {
	return e.runInto(outputs, inputs, nil)
}

// RunContext is Run stopped when ctx is done (kernels.ContextRunner). The
// host looks at ctx before it enqueues each kernel and on every iteration
// of a while, when it waits for the predicate; kernels already enqueued
// run to their end (a device kernel cannot be interrupted), and the run
// then waits for them, so no command still refers to the caller's arrays
// when it returns.
func (e *Executable) RunContext(ctx context.Context, inputs []*tensor.Array) ([]*tensor.Array, error) {
	if ctx.Done() == nil {
		return e.Run(inputs)
	}
	if err := kernels.ContextError(ctx); err != nil {
		return nil, err
	}
	outs := make([]*tensor.Array, len(e.m.Outputs))
	for i, o := range e.m.Outputs {
		a, err := tensor.Zeros(o.DType, o.Shape...)
		if err != nil {
			return nil, err
		}
		outs[i] = a
	}
	if err := e.RunIntoContext(ctx, outs, inputs); err != nil {
		return nil, err
	}
	return outs, nil
}

// RunIntoContext is RunInto stopped when ctx is done (see RunContext); the
// outputs then hold unspecified values.
func (e *Executable) RunIntoContext(ctx context.Context, outputs, inputs []*tensor.Array) error {
	if ctx.Done() == nil {
		return e.RunInto(outputs, inputs)
	}
	if err := kernels.ContextError(ctx); err != nil {
		return err
	}
	stop := new(atomic.Bool)
	unwatch := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer unwatch()
	err := e.runInto(outputs, inputs, stop)
	if errors.Is(err, errStopped) || err == nil && stop.Load() {
		return kernels.ContextError(ctx)
	}
	return err
}

// errStopped ends a run whose stop flag was set.
var errStopped = errors.New("opencl: run stopped")

// stopped reports whether a run's stop flag (nil: none) is set.
func stopped(stop *atomic.Bool) bool { return stop != nil && stop.Load() }

// runInto is RunInto; stop, if not nil, ends the run early when set.
func (e *Executable) runInto(outputs, inputs []*tensor.Array, stop *atomic.Bool) error {
	if err := checkArrays(e.m.Params, inputs, "input"); err != nil {
		return err
	}
	if err := checkArrays(e.m.Outputs, outputs, "output"); err != nil {
		return err
	}
	if err := kernels.CheckDisjoint(outputs, inputs); err != nil {
		return err
	}
	r := e.res
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return &Error{Kind: KindClosed, Msg: "the executable is closed"}
	}
	cl := r.cl
	// Transfers are enqueued without blocking and the run ends with one
	// clFinish: the host arrays are pinned until then, as the device may
	// read or write them at any point before it.
	var pin runtime.Pinner
	defer pin.Unpin()
	fail := func(err error) error {
		cl.Finish(r.queue) // no command may still refer to the arrays
		return err
	}
	for _, p := range e.m.Params {
		ptr, n := dataPointer(inputs[p.Param].Data(), p.DType)
		if n == 0 {
			continue
		}
		pin.Pin((*byte)(ptr))
		if st := cl.EnqueueWriteBuffer(r.queue, r.plan[e.m.Plan.Of[p]], 0, 0, uintptr(n), ptr, 0, nil, nil); st != clSuccess {
			return fail(callError("clEnqueueWriteBuffer", st, fmt.Sprintf("cannot copy input %d to the device", p.Param)))
		}
	}
	if err := r.enqueueKernels(r.queue, stop); err != nil {
		return fail(err)
	}
	for i, o := range e.m.Outputs {
		src := o
		for src.Op == trace.OpReshape {
			src = src.Args[0]
		}
		switch src.Op {
		case trace.OpParam:
			tensor.ConvertSlice(outputs[i].Data(), inputs[src.Param].Data())
			continue
		case trace.OpConst:
			tensor.ConvertSlice(outputs[i].Data(), src.Params.Value.Data())
			continue
		}
		ptr, n := dataPointer(outputs[i].Data(), o.DType)
		if n == 0 {
			continue
		}
		pin.Pin((*byte)(ptr))
		if st := cl.EnqueueReadBuffer(r.queue, r.plan[e.m.Plan.Of[src]], 0, 0, uintptr(n), ptr, 0, nil, nil); st != clSuccess {
			return fail(callError("clEnqueueReadBuffer", st, fmt.Sprintf("cannot read output %d back", i)))
		}
	}
	if st := cl.Finish(r.queue); st != clSuccess {
		return callError("clFinish", st, "the device failed while running the module")
	}
	return nil
}

// enqueueKernels launches every kernel in order on queue q, and runs the
// control steps between them; the caller holds r.mu. It returns
// errStopped, having enqueued no more, once stop (if not nil) is set.
func (r *execResources) enqueueKernels(q clQueue, stop *atomic.Bool) error {
	var global, local [3]uintptr
	next := 0
	for i, spec := range r.specs {
		for ; next < len(r.controls) && r.controls[next].at == i; next++ {
			if err := r.controls[next].run(r, q, stop); err != nil {
				return err
			}
		}
		if stopped(stop) {
			return errStopped
		}
		for j := range spec.global {
			global[j], local[j] = uintptr(spec.global[j]), uintptr(spec.local[j])
		}
		if st := r.cl.EnqueueNDRangeKernel(q, r.kernels[i], uint32(len(spec.global)), nil, &global[0], &local[0], 0, nil, nil); st != clSuccess {
			return callError("clEnqueueNDRangeKernel", st, "cannot run kernel "+spec.name)
		}
	}
	for ; next < len(r.controls); next++ {
		if err := r.controls[next].run(r, q, stop); err != nil {
			return err
		}
	}
	return nil
}

// checkArrays validates arrays against the instructions they stand for,
// as kernels.ArgError values (inputs by index; outputs with Index -1 and
// the output named in the message).
func checkArrays(want []*lower.Instr, got []*tensor.Array, what string) error {
	if len(got) != len(want) {
		return &kernels.ArgError{Index: -1, Msg: fmt.Sprintf("the program has %d %ss, got %d", len(want), what, len(got))}
	}
	for i, w := range want {
		msg := ""
		a := got[i]
		switch {
		case a == nil:
			msg = "nil array"
		case a.DType() != w.DType:
			msg = fmt.Sprintf("dtype %s, the program was compiled for %s", a.DType(), w.DType)
		case !trace.ShapeEqual(a.Shape(), w.Shape):
			msg = fmt.Sprintf("shape %v, the program was compiled for %v", a.Shape(), w.Shape)
		default:
			if d, ok := tensor.SliceDType(a.Data()); !ok || d != w.DType || reflect.ValueOf(a.Data()).Len() != w.Size() {
				msg = fmt.Sprintf("backing slice does not hold %d %s elements", w.Size(), w.DType)
			}
		}
		switch {
		case msg == "":
		case what == "input":
			return &kernels.ArgError{Index: i, Msg: msg}
		default:
			return &kernels.ArgError{Index: -1, Msg: fmt.Sprintf("%s %d: %s", what, i, msg)}
		}
	}
	return nil
}
