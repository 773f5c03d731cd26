package opencl

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// Control flow on OpenCL: the host drives the loop. Each sub-module of a
// while or cond (lower.Instr.Subs) is compiled into an executable of its
// own, and the host enqueues its kernels on the running executable's
// queue, so the device runs them in order with everything else. Values
// move between the enclosing module's buffers and the sub-executables'
// parameter and result buffers with device-to-device copies; the only
// host transfers are the loop's predicate (one byte per iteration) and a
// cond's index, read back to choose what runs next. A body result that is
// one of its parameters passed through goes via a staging buffer (a body
// may return its carries permuted); the others are copied straight to the
// parameters, and only to the cond's parameters the cond reads. Every
// step still copies each carry once (the CPU backend updates a scan's
// stacked outputs in place; here a long scan copies its stack per step).
// Results are bit-identical to the CPU backend's: the same kernels run on
// the same values.

// controlStep is a control fusion and its place among the kernels (it
// runs before kernel at).
type controlStep struct {
	at     int
	fusion *lower.Fusion
}

// clControl is a control step of an executable.
type clControl struct {
	controlStep
	root   *lower.Instr
	subs   []*Executable
	args   []clMem   // the operands' buffers in the enclosing executable
	outs   []clMem   // each result's buffer there (0: nothing reads it)
	bytes  []int     // each result's size in bytes
	stage  []clMem   // a while's staging buffers, one per carry
	subOut [][]clMem // each sub-executable's outputs' buffers
	// staged marks the carries whose next value the body passes through
	// from a parameter (they go through stage, as a parameter may be
	// overwritten first); condReads the carries the cond reads at all.
	staged, condReads []bool
	host              []byte // the predicate or the branch index, read back
}

// memOf is the buffer holding in's data in executable r of module m: a
// plan buffer (through reshapes), or for a constant a buffer uploaded now
// (kept in r.consts and released with them).
func memOf(m *lower.Module, r *execResources, in *lower.Instr, alloc func(int, uint64, unsafe.Pointer) (clMem, error)) (clMem, error) {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	if in.Op == trace.OpConst {
		v := in.Params.Value
		ptr, n := dataPointer(v.Data(), v.DType())
		mem, err := alloc(n, clMemReadOnly|clMemCopyHostPtr, ptr)
		runtime.KeepAlive(v)
		if err != nil {
			return 0, err
		}
		r.consts = append(r.consts, mem)
		return mem, nil
	}
	b, ok := m.Plan.Of[in]
	if !ok {
		return 0, &Error{Kind: KindRuntime, Msg: fmt.Sprintf("%s has no buffer", in.Name())}
	}
	return r.plan[b], nil
}

func newControl(b *Backend, m *lower.Module, r *execResources, cs controlStep, alloc func(int, uint64, unsafe.Pointer) (clMem, error)) (*clControl, error) {
	root := cs.fusion.Outputs[0]
	if len(root.Subs) == 0 || len(root.Subs) != len(root.Params.Control.Subs) {
		return nil, &Error{Kind: KindRuntime, Msg: fmt.Sprintf("%s: its sub-programs were not compiled (lower.Compile compiles them)", root.Name())}
	}
	c := &clControl{controlStep: cs, root: root, host: make([]byte, 8)}
	for _, sm := range root.Subs {
		e, err := b.CompileModule(sm)
		if err != nil {
			for _, s := range c.subs {
				s.res.release()
			}
			return nil, err
		}
		c.subs = append(c.subs, e)
	}
	fail := func(err error) (*clControl, error) {
		for _, s := range c.subs {
			s.res.release()
		}
		return nil, err
	}
	for _, a := range root.Args {
		mem, err := memOf(m, r, a, alloc)
		if err != nil {
			return fail(err)
		}
		c.args = append(c.args, mem)
	}
	last := root.Subs[len(root.Subs)-1] // the body, or a branch: its outputs are the results
	c.outs = make([]clMem, len(last.Outputs))
	for _, o := range last.Outputs {
		c.bytes = append(c.bytes, o.Size()*o.DType.Size())
	}
	for _, e := range c.subs {
		var outs []clMem
		for _, o := range e.m.Outputs {
			mem, err := memOf(e.m, e.res, o, alloc) // a constant result is uploaded into e's consts
			if err != nil {
				return fail(err)
			}
			outs = append(outs, mem)
		}
		c.subOut = append(c.subOut, outs)
	}
	for _, o := range cs.fusion.Outputs {
		k := 0
		if o.Op == trace.OpResult {
			k = o.Params.Control.Index
		}
		mem, err := memOf(m, r, o, alloc)
		if err != nil {
			return fail(err)
		}
		c.outs[k] = mem
	}
	if root.Op == trace.OpWhile {
		body, cond := c.subs[1], c.subs[0]
		params := map[clMem]bool{}
		for i := range body.m.Params {
			params[paramMem(body, i)] = true
		}
		reads := readParams(cond.m)
		for k := range c.bytes {
			c.staged = append(c.staged, params[c.subOut[1][k]])
			c.condReads = append(c.condReads, reads[k])
		}
		for _, n := range c.bytes {
			mem, err := alloc(n, clMemReadWrite, nil)
			if err != nil {
				return fail(err)
			}
			r.scratch = append(r.scratch, mem)
			c.stage = append(c.stage, mem)
		}
	}
	return c, nil
}

// readParams marks the parameters of m an instruction or an output reads.
func readParams(m *lower.Module) []bool {
	read := map[*lower.Instr]bool{}
	for _, in := range m.Instrs {
		for _, a := range in.Args {
			read[a] = true
		}
	}
	for _, o := range m.Outputs {
		read[o] = true
	}
	out := make([]bool, len(m.Params))
	for i, p := range m.Params {
		out[i] = read[p]
	}
	return out
}

// paramMem is the buffer of sub-executable e's parameter i.
func paramMem(e *Executable, i int) clMem { return e.res.plan[e.m.Plan.Of[e.m.Params[i]]] }

func copyMem(r *execResources, q clQueue, dst, src clMem, n int) error {
	if n == 0 || dst == src {
		return nil
	}
	if st := r.cl.EnqueueCopyBuffer(q, src, dst, 0, 0, uintptr(n), 0, nil, nil); st != clSuccess {
		return callError("clEnqueueCopyBuffer", st, "cannot copy a loop's value")
	}
	return nil
}

// readBack reads n bytes of mem into c.host, waiting for them.
func (c *clControl) readBack(r *execResources, q clQueue, mem clMem, n int) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&c.host[0])
	if st := r.cl.EnqueueReadBuffer(q, mem, 1, 0, uintptr(n), unsafe.Pointer(&c.host[0]), 0, nil, nil); st != clSuccess {
		return callError("clEnqueueReadBuffer", st, "cannot read a loop's predicate back")
	}
	return nil
}

// run enqueues the step on q (the host waits on the predicate or index);
// a while looks at stop (the run's, nil for none) on every iteration.
func (c *clControl) run(r *execResources, q clQueue, stop *atomic.Bool) error {
	p := c.root.Params.Control
	if c.root.Op == trace.OpCond {
		return c.runCond(r, q, stop)
	}
	n := len(c.bytes)
	body := c.subs[1]
	cond := c.subs[0]
	// into sets carry k's next value from src in the body's parameter
	// and, if it reads it, the cond's.
	into := func(k int, src clMem) error {
		if err := copyMem(r, q, paramMem(body, k), src, c.bytes[k]); err != nil {
			return err
		}
		if c.condReads[k] {
			return copyMem(r, q, paramMem(cond, k), src, c.bytes[k])
		}
		return nil
	}
	// The carries and the captured values into the sub-executables.
	for k := range n {
		if err := into(k, c.args[k]); err != nil {
			return err
		}
	}
	at := n
	for si, e := range c.subs {
		for j := range p.NConsts[si] {
			if err := copyMem(r, q, paramMem(e, n+j), c.args[at+j], e.m.Params[n+j].Size()*e.m.Params[n+j].DType.Size()); err != nil {
				return err
			}
		}
		at += p.NConsts[si]
	}
	predMem := c.subOut[0][0]
	for {
		if stopped(stop) {
			return errStopped
		}
		if err := cond.res.enqueueKernels(q, stop); err != nil {
			return err
		}
		if err := c.readBack(r, q, predMem, 1); err != nil {
			return err
		}
		if c.host[0] == 0 {
			break
		}
		if err := body.res.enqueueKernels(q, stop); err != nil {
			return err
		}
		// Passed-through carries are read before any parameter is
		// written (the queue runs the copies in order); the others are
		// copied straight from the body's results.
		for k := range n {
			if c.staged[k] {
				if err := copyMem(r, q, c.stage[k], c.subOut[1][k], c.bytes[k]); err != nil {
					return err
				}
			}
		}
		for k := range n {
			if !c.staged[k] {
				if err := into(k, c.subOut[1][k]); err != nil {
					return err
				}
			}
		}
		for k := range n {
			if c.staged[k] {
				if err := into(k, c.stage[k]); err != nil {
					return err
				}
			}
		}
	}
	for k, mem := range c.outs {
		if mem != 0 {
			if err := copyMem(r, q, mem, paramMem(body, k), c.bytes[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *clControl) runCond(r *execResources, q clQueue, stop *atomic.Bool) error {
	p := c.root.Params.Control
	if err := c.readBack(r, q, c.args[0], 4); err != nil {
		return err
	}
	i := int(*(*int32)(unsafe.Pointer(&c.host[0])))
	i = max(0, min(i, len(c.subs)-1)) // in range by construction; clamped as lax.switch
	e := c.subs[i]
	n := len(c.root.Args) - 1
	for _, k := range p.NConsts {
		n -= k
	}
	at := 1 + n
	for k := range i {
		at += p.NConsts[k]
	}
	for j, prm := range e.m.Params {
		src := c.args[1+j]
		if j >= n {
			src = c.args[at+j-n]
		}
		if err := copyMem(r, q, paramMem(e, j), src, prm.Size()*prm.DType.Size()); err != nil {
			return err
		}
	}
	if err := e.res.enqueueKernels(q, stop); err != nil {
		return err
	}
	for k, mem := range c.outs {
		if mem == 0 {
			continue
		}
		if err := copyMem(r, q, mem, c.subOut[i][k], c.bytes[k]); err != nil {
			return err
		}
	}
	return nil
}
