package kernels

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// reduceKernel runs a reduce fusion. The operand is evaluated over an
// iteration space with the kept axes first and the reduced axes last, so
// the R values of each of the K outputs are contiguous. Work is cut into
// chunks of at most groupElems values: several whole outputs when R is
// small, one aligned group of one output otherwise (the groups' partial
// results are combined afterwards with the same tree), so the bits never
// depend on how chunks are spread over workers.
type reduceKernel struct {
	body    *body
	k, r    int // outputs, values per output
	per     int // outputs per chunk (r ≤ groupElems)
	ngroups int // groups per output (r > groupElems); 0 otherwise
	red     *reducer
	arg     *argReducer
	accSize int // bytes of one accumulator (compute form of the operand)
	out     int // buffer of the result
	outDT   tensor.DType
	store   unaryFn // results (compute form, or int64 for arg) → buffer
	slot    int     // index of the partials scratch in the run state
}

func (x *cpuExec) compileReduce(f *lower.Fusion) (kernel, error) {
	if k, err := x.compileColSum(f); k != nil || err != nil {
		return k, err
	}
	root := f.Outputs[0]
	operand := root.Args[0]
	axes := root.Params.Axes
	var perm []int
	for i := range operand.Shape {
		if !slices.Contains(axes, i) {
			perm = append(perm, i)
		}
	}
	perm = append(perm, axes...)
	iter := make([]int, len(perm))
	for j, p := range perm {
		iter[j] = operand.Shape[p]
	}
	k := &reduceKernel{r: 1, out: x.m.Plan.Of[root], outDT: root.DType}
	for _, a := range axes {
		k.r *= operand.Shape[a]
	}
	k.k = root.Size()
	b, err := compileBody(f, operand, iter, perm, min(groupElems, max(operand.Size(), 1)), x.source, loc{})
	if err != nil {
		return nil, err
	}
	b.peephole(x.cpu.peepholeOptions())
	x.checkBody(b)
	b.fuseWiden(x.cpu.peepholeOptions())
	b.fuseIntWiden(x.cpu.peepholeOptions())
	k.body = b
	od := operand.DType
	k.accSize = computeDType(od).Size()
	switch root.Op {
	case trace.OpArgMax, trace.OpArgMin:
		i := 0
		if root.Op == trace.OpArgMin {
			i = 1
		}
		k.arg = argTable[i][od]
		k.store = convertTable[tensor.I64][root.DType]
	default:
		k.red = reduceTable[root.Op][od]
		if k.store = narrowFn(root.DType); k.store == nil {
			k.store = copyFn(root.DType)
		}
	}
	if k.red == nil && k.arg == nil {
		return nil, fmt.Errorf("kernels: cpu has no %s for %s", root.Op, od)
	}
	if k.r <= groupElems {
		k.per = max(1, groupElems/max(k.r, 1))
	} else {
		k.ngroups = (k.r + groupElems - 1) / groupElems
		k.slot = x.newSlot()
	}
	return k, nil
}

func (k *reduceKernel) chunks() int {
	if k.ngroups > 0 {
		return k.k * k.ngroups
	}
	return (k.k + k.per - 1) / k.per
}

func (k *reduceKernel) run(x *cpuExec, rs *runState) {
	if k.k == 0 {
		return
	}
	outPtr := rs.srcs[k.out]
	if k.r == 0 {
		w := x.worker0(rs)
		tmp := w.temp(k.k * k.accSize)
		k.red.identity(tmp, k.k)
		k.store(outPtr, tmp, k.k)
		return
	}
	parts, partIdx := k.partials(rs)
	x.parallel(rs, k.chunks(), k.k*k.r, k)
	if k.ngroups == 0 || rs.stopped() {
		// One group per output, or a cancelled run whose partials are
		// not all there (combining them would read them all, for
		// nothing).
		return
	}
	w := x.worker0(rs)
	if k.arg != nil {
		idx := view[int64](w.temp(k.k*8), k.k)
		k.arg.combine(idx, view[int64](unsafe.Pointer(&partIdx[0]), k.k*k.ngroups), unsafe.Pointer(&parts[0]), k.k, k.ngroups, groupElems)
		k.store(outPtr, unsafe.Pointer(&idx[0]), k.k)
		return
	}
	tmp := w.temp(k.k * k.accSize)
	k.red.combine(tmp, unsafe.Pointer(&parts[0]), k.k, k.ngroups)
	k.store(outPtr, tmp, k.k)
}

// partials returns the run's scratch for the groups' partial results (and
// their indices, for argmax and argmin); nil when outputs have one group.
func (k *reduceKernel) partials(rs *runState) (parts, idx []byte) {
	if k.ngroups == 0 {
		return nil, nil
	}
	n := k.k * k.ngroups
	parts = rs.slotBytes(k.slot, 0, n*k.accSize)
	if k.arg != nil {
		idx = rs.slotBytes(k.slot, 1, n*8)
	}
	return parts, idx
}

func (k *reduceKernel) runRange(rs *runState, w *worker, lo, hi int) {
	parts, partIdx := k.partials(rs)
	outPtr, outSize := rs.srcs[k.out], k.outDT.Size()
	w.prepareAt(k.body, rs.srcs, rs.stamp)
	for c := lo; c < hi; c++ {
		if k.ngroups > 0 {
			o, g := c/k.ngroups, c%k.ngroups
			start := o*k.r + g*groupElems
			n := min(groupElems, k.r-g*groupElems)
			vals := w.eval(k.body, rs.srcs, start, n)
			dst := unsafe.Pointer(&parts[c*k.accSize])
			if k.arg != nil {
				k.arg.seg(view[int64](unsafe.Pointer(&partIdx[c*8]), 1), dst, vals, 1, n)
			} else {
				k.red.seg(dst, vals, 1, n)
			}
			continue
		}
		o0 := c * k.per
		nout := min(k.per, k.k-o0)
		vals := w.eval(k.body, rs.srcs, o0*k.r, nout*k.r)
		k.finish(w, vals, nout, unsafe.Add(outPtr, o0*outSize))
	}
}

// finish reduces nout whole segments of vals and stores them at dst.
func (k *reduceKernel) finish(w *worker, vals unsafe.Pointer, nout int, dst unsafe.Pointer) {
	if k.arg != nil {
		buf := w.temp(nout * (8 + k.accSize))
		idx := view[int64](buf, nout)
		k.arg.seg(idx, unsafe.Add(buf, nout*8), vals, nout, k.r)
		k.store(dst, buf, nout)
		return
	}
	tmp := w.temp(nout * k.accSize)
	k.red.seg(tmp, vals, nout, k.r)
	k.store(dst, tmp, nout)
}

// temp is a per-worker scratch area of at least n bytes, aligned for any
// element type; it is reused by the next call.
func (w *worker) temp(n int) unsafe.Pointer {
	if cap(w.tmp) < n+regAlign {
		w.tmp = make([]byte, n+regAlign)
	}
	p := unsafe.Pointer(unsafe.SliceData(w.tmp))
	return unsafe.Add(p, (regAlign-int(uintptr(p)%regAlign))%regAlign)
}

func (x *cpuExec) worker0(rs *runState) *worker {
	if len(rs.workers) == 0 {
		rs.workers = append(rs.workers, &worker{})
	}
	w := rs.workers[0]
	w.chk, w.chkSeq = rs.chk, rs.chkSeq
	return w
}

// newSlot reserves a per-run scratch slot for a kernel's partial results.
func (x *cpuExec) newSlot() int {
	x.nslots++
	return x.nslots - 1
}

// slotBytes returns part j of scratch slot i with at least n bytes, 8-byte
// aligned (make of []byte is).
// slotJob is kernel slot i's job record of type J, made on the first run
// of this state and reused after, so a steady-state Run does not allocate.
func slotJob[J any](rs *runState, i int) *J {
	for len(rs.jobs) <= i {
		rs.jobs = append(rs.jobs, nil)
	}
	j, ok := rs.jobs[i].(*J)
	if !ok {
		j = new(J)
		rs.jobs[i] = j
	}
	return j
}

func (rs *runState) slotBytes(i, j, n int) []byte {
	for len(rs.slots) <= i {
		rs.slots = append(rs.slots, [2][]byte{})
	}
	if cap(rs.slots[i][j]) < n {
		rs.slots[i][j] = make([]byte, n)
	}
	return rs.slots[i][j][:n]
}
