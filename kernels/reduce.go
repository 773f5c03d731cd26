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
//
// The partials are per-run scratch, so their number is bounded (maxParts):
// when an output has so many groups that k·groups would pass it (a sum of
// a broadcast over 2^40 elements would want 4 GiB of partials), a chunk
// is an aligned run of span groups (a power of two), which is a subtree
// of the fixed tree, and leaves one partial: the combine over the spans'
// partials then makes the same tree, and the same bits.
type reduceKernel struct {
	body    *body
	k, r    int // outputs, values per output
	per     int // outputs per chunk (r ≤ groupElems)
	ngroups int // partials per output (r > groupElems); 0 otherwise
	groups  int // groups per output (r > groupElems)
	span    int // groups per partial: a power of two, 1 unless groups is large
	red     *reducer
	arg     *argReducer
	accSize int // bytes of one accumulator (compute form of the operand)
	out     int // buffer of the result
	outDT   tensor.DType
	store   unaryFn   // results (compute form, or int64 for arg) → buffer
	slot    int       // index of the partials scratch in the run state
	fast    *leafPass // whole groups straight from the input (see leafPass); nil if not
	// reverse runs the chunks last to first (see alternateStreams): chunk
	// range [lo, hi) of a fork is chunks [n−hi, n−lo), for n chunks.
	reverse bool
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
	b, err := compileBody(f, operand, iter, perm, min(groupElems, max(operand.Size(), 1)), x.source, loc{}, false)
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
		k.arg = argTable[i][kernelDType(od)]
		k.store = convertTable[tensor.I64][root.DType]
	default:
		k.red = reduceTable[root.Op][kernelDType(od)]
		if k.store = narrowFn(root.DType); k.store == nil {
			k.store = copyFn(root.DType)
		}
	}
	if k.red == nil && k.arg == nil {
		return nil, fmt.Errorf("kernels: cpu has no %s for %s", root.Op, od)
	}
	if root.Op == trace.OpReduceSum && !x.cpu.noFuse {
		k.fast = b.leafPass(od)
	}
	if k.r <= groupElems {
		k.per = max(1, groupElems/max(k.r, 1))
	} else {
		k.groups = (k.r + groupElems - 1) / groupElems
		k.span = groupSpan(k.k, k.groups)
		k.ngroups = (k.groups + k.span - 1) / k.span
		k.slot = x.newSlot()
	}
	return k, nil
}

// maxParts bounds a reduction's partial results (per run: at most a MiB
// of accumulators and as much of argmax's indices), whatever the size of
// what it reduces.
var maxParts = 1 << 17 // a variable so that tests can make spans at small sizes

// groupSpan is the number of groups each partial covers so that k outputs of
// groups groups each leave at most maxParts partials (or one per output):
// the smallest such power of two.
func groupSpan(k, groups int) int {
	span := 1
	for span < groups && k*((groups+span-1)/span) > maxParts {
		span *= 2
	}
	return span
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
		k.arg.combine(idx, view[int64](unsafe.Pointer(&partIdx[0]), k.k*k.ngroups), unsafe.Pointer(&parts[0]), k.k, k.ngroups, k.span*groupElems)
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
	if k.reverse {
		n := k.chunks()
		lo, hi = n-hi, n-lo
	}
	parts, partIdx := k.partials(rs)
	outPtr, outSize := rs.srcs[k.out], k.outDT.Size()
	w.prepareAt(k.body, rs.srcs, rs.stamp)
	for c := lo; c < hi; c++ {
		if k.span > 1 {
			k.spanPartial(w, rs, c, unsafe.Pointer(&parts[c*k.accSize]), partIdx)
			continue
		}
		if k.ngroups > 0 {
			o, g := c/k.ngroups, c%k.ngroups
			start := o*k.r + g*groupElems
			n := min(groupElems, k.r-g*groupElems)
			dst := unsafe.Pointer(&parts[c*k.accSize])
			if m := min(hi-c, k.r/groupElems-g, leafBatch); k.fast != nil && m > 0 {
				k.fast.groups(dst, w, rs.srcs, start, m) // chunks c … c+m−1: whole groups of output o
				c += m - 1
				continue
			}
			vals := w.eval(k.body, rs.srcs, start, n)
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

// spanPartial writes partial c, the reduction of span groups of one
// output (fewer at the end), at dst (and its index, relative to the span's
// start, in partIdx): each group's partial as runRange makes it, then
// their combine, which for an aligned run of groups is the fixed tree's
// subtree.
func (k *reduceKernel) spanPartial(w *worker, rs *runState, c int, dst unsafe.Pointer, partIdx []byte) {
	o, s := c/k.ngroups, c%k.ngroups
	g0 := s * k.span
	cnt := min(k.span, k.groups-g0)
	if cap(w.spanBuf) < cnt*(k.accSize+8) {
		w.spanBuf = make([]byte, k.span*(k.accSize+8))
	}
	idx := view[int64](unsafe.Pointer(unsafe.SliceData(w.spanBuf)), cnt)
	vals := unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.spanBuf)), cnt*8)
	for i := 0; i < cnt; i++ {
		g := g0 + i
		start := o*k.r + g*groupElems
		n := min(groupElems, k.r-g*groupElems)
		at := unsafe.Add(vals, i*k.accSize)
		if m := min(cnt-i, k.r/groupElems-g, leafBatch); k.fast != nil && m > 0 {
			k.fast.groups(at, w, rs.srcs, start, m) // groups g … g+m−1, whole
			i += m - 1
			continue
		}
		v := w.eval(k.body, rs.srcs, start, n)
		if k.arg != nil {
			k.arg.seg(idx[i:i+1], at, v, 1, n)
		} else {
			k.red.seg(at, v, 1, n)
		}
	}
	if k.arg == nil {
		k.red.combine(dst, vals, 1, cnt)
		return
	}
	win := view[int64](unsafe.Pointer(&partIdx[c*8]), 1)
	k.arg.combine(win, idx, vals, 1, cnt, groupElems)
	copy(unsafe.Slice((*byte)(dst), k.accSize), unsafe.Slice((*byte)(unsafe.Add(vals, int(win[0])/groupElems*k.accSize)), k.accSize))
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

// tapered: a sum whose groups stream from its input (leafPass) takes
// about the same time per group, so fork hands out its last ranges in
// shrinking pieces (taperedJob).
func (k *reduceKernel) tapered() bool { return k.fast != nil && k.ngroups > 0 }

// streamTail is the most elements a kernel between two sums of the same
// input may read and write without ending their pairing in
// alternateStreams: a few scalars (the mean between the two passes of a
// variance), not a pass over memory.
const streamTail = 64

// alternateStreams makes a sum read its input backwards when the last
// streaming kernel before it was a sum reading the same input forwards
// (and forwards when that one ran backwards), with nothing between them
// but kernels reading and writing a few scalars. The second pass of a
// variance, sum((x − mean(x))²), then starts on the blocks the first pass
// read last, which are still in the caches, instead of on the blocks it
// read first, long evicted when x is larger than the caches; and it ends
// on x's first blocks, where the next Run's first pass starts. Each chunk
// writes its partial by index and the partials are combined in the fixed
// tree's order afterwards, so the order the chunks run in changes no bit.
// fs are the kernels' fusions.
func alternateStreams(ks []kernel, fs []*lower.Fusion) {
	var last *reduceKernel
	for i, k := range ks {
		r, ok := k.(*reduceKernel)
		if ok && r.fast != nil && r.ngroups > 0 {
			if last != nil && last.fast.x == r.fast.x {
				r.reverse = !last.reverse
			}
			last = r
			continue
		}
		touched := 0
		for _, o := range fs[i].Outputs {
			touched += o.Size()
		}
		for _, in := range fs[i].Inputs {
			touched += in.Size()
		}
		if touched > streamTail {
			last = nil
		}
	}
}
