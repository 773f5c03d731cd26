package kernels

import (
	"math"
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The indexing kernels (gather, the scatters, the dynamic slices) read
// their indices at run time: for every index vector, windowStarts computes
// the flat operand offset of its window once (−1 when a fill gather or a
// dropping scatter skips it), into per-run scratch; the data then moves
// along runs of the result (or of the updates) as the copy kernels do.
// Semantics are internal/reference's (index.go): clamping, fill and drop
// per whole window, scatter updates in row-major order.

// loadIndex reads element i of an integer array as int64 (a uint64 above
// MaxInt64 reads as MaxInt64: out of bounds either way).
func loadIndex(p unsafe.Pointer, d tensor.DType, i int) int64 {
	if d.IsNarrow() { // a sub-byte integer is its value in one byte (i8 or u8)
		d = computeDType(d)
	}
	switch d {
	case tensor.I8:
		return int64(*(*int8)(unsafe.Add(p, i)))
	case tensor.I16:
		return int64(*(*int16)(unsafe.Add(p, 2*i)))
	case tensor.I32:
		return int64(*(*int32)(unsafe.Add(p, 4*i)))
	case tensor.I64:
		return *(*int64)(unsafe.Add(p, 8*i))
	case tensor.U8:
		return int64(*(*uint8)(unsafe.Add(p, i)))
	case tensor.U16:
		return int64(*(*uint16)(unsafe.Add(p, 2*i)))
	case tensor.U32:
		return int64(*(*uint32)(unsafe.Add(p, 4*i)))
	case tensor.U64:
		return int64(min(*(*uint64)(unsafe.Add(p, 8*i)), math.MaxInt64))
	}
	panic("kernels: index of dtype " + d.String())
}

// clampStart places a window of size w at s in a dim of size n: the
// clamped start and whether s itself fits.
func clampStart(s int64, n, w int) (int, bool) {
	hi := int64(n - w)
	return int(min(max(s, 0), hi)), s >= 0 && s <= hi
}

// windowStarts finds the operand offset of every window of a gather or
// scatter.
type windowStarts struct {
	idxDT    tensor.DType
	idx      int   // source of the indices
	batch    []int // the indices' batch shape (all dims but the last)
	k        int   // index vector length
	startMap []int // operand dim of each vector element
	opBatch  []int // operand batching dims …
	idxBatch []int // … and the index dims they take their coordinate from
	operand  []int
	window   []int       // window size per operand dim
	st       []int       // operand strides
	skip     bool        // a window that does not fit gets −1 (fill, drop)
	nb       int         // number of windows
	slot     int         // scratch slot of the offsets
	check    *indexCheck // checked mode: report a window that does not fit
}

func newWindowStarts(x *cpuExec, operand, indices *lower.Instr, window, startMap, opBatch, idxBatch []int, skip bool) *windowStarts {
	batch := indices.Shape[:len(indices.Shape)-1]
	return &windowStarts{
		idxDT: indices.DType, idx: x.source(indices), batch: slices.Clone(batch), k: indices.Shape[len(indices.Shape)-1],
		startMap: startMap, opBatch: opBatch, idxBatch: idxBatch, operand: operand.Shape, window: window,
		st: numerics.RowMajorStrides(operand.Shape), skip: skip, nb: shapeSize(batch), slot: x.newSlot(),
	}
}

func shapeSize(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// offsets is this run's window offsets (filled by compute).
func (w *windowStarts) offsets(rs *runState) []int64 {
	mem := rs.slotBytes(w.slot, 0, w.nb*8)
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(mem))), w.nb)
}

// compute fills the window offsets for this run.
func (w *windowStarts) compute(rs *runState) {
	base := w.offsets(rs)
	idx := rs.srcs[w.idx]
	var coordBuf [maxRank]int
	coord := coordBuf[:0]
	if len(w.batch) > maxRank {
		coord = make([]int, 0, len(w.batch))
	}
	coord = coord[:len(w.batch)]
	for g := range base {
		off, fits := 0, true
		for j, d := range w.startMap {
			v := loadIndex(idx, w.idxDT, g*w.k+j)
			s, ok := clampStart(v, w.operand[d], w.window[d])
			off += s * w.st[d]
			if !ok && fits && w.check != nil {
				w.check.report(rs, g*w.k+j, v, d)
				return // the Run fails: its offsets are not read
			}
			fits = fits && ok
		}
		for j, d := range w.opBatch {
			off += coord[w.idxBatch[j]] * w.st[d]
		}
		if w.skip && !fits {
			off = -1
		}
		base[g] = int64(off)
		for j := len(coord) - 1; j >= 0; j-- {
			if coord[j]++; coord[j] < w.batch[j] {
				break
			}
			coord[j] = 0
		}
	}
}

// indexIter walks an iteration space (a gather's result, a scatter's
// updates) in row-major order: each dim advances the window index g by
// gs, the operand offset by ws and the offset in the updates by us.
// Adjacent dims that step together in all three are merged and size-1
// dims dropped, so runs are long.
type indexIter struct {
	shape, gs, ws, us []int
}

func newIndexIter(shape, gs, ws, us []int) indexIter {
	var it indexIter
	for j, n := range shape {
		if n == 1 {
			continue
		}
		if k := len(it.shape) - 1; k >= 0 && it.gs[k] == n*gs[j] && it.ws[k] == n*ws[j] && it.us[k] == n*us[j] {
			it.shape[k] *= n
			it.gs[k], it.ws[k], it.us[k] = gs[j], ws[j], us[j]
			continue
		}
		it.shape, it.gs, it.ws, it.us = append(it.shape, n), append(it.gs, gs[j]), append(it.ws, ws[j]), append(it.us, us[j])
	}
	return it
}

// windowMap gives, per dim of an iteration space of the given rank, the
// operand dim it walks: winDims in order at the positions winPos, −1
// (a batch dim) elsewhere.
func windowMap(rank int, winPos, winDims []int) []int {
	out := make([]int, rank)
	w := 0
	for j := range out {
		out[j] = -1
		if slices.Contains(winPos, j) {
			out[j], w = winDims[w], w+1
		}
	}
	return out
}

// iterDims returns, for an iteration space whose dims are either window
// dims (window[j] ≥ 0: operand dim window[j]) or batch dims, the strides
// of g over the batch dims (row-major) and of the operand offset over the
// window dims.
func iterDims(shape []int, window []int, opStrides []int) (gs, ws []int) {
	gs, ws = make([]int, len(shape)), make([]int, len(shape))
	n := 1
	for j := len(shape) - 1; j >= 0; j-- {
		if window[j] >= 0 {
			ws[j] = opStrides[window[j]]
		} else {
			gs[j] = n
			n *= shape[j]
		}
	}
	return gs, ws
}

// pos is a position of an indexIter: its coordinates and offsets.
type pos struct {
	idx        []int
	g, off, up int
}

// start positions an iteration at element lo.
func (it *indexIter) start(p *pos, lo int) {
	p.g, p.off, p.up = 0, 0, 0
	for j := len(it.shape) - 1; j >= 0; j-- {
		p.idx[j] = lo % it.shape[j]
		lo /= it.shape[j]
		p.g += p.idx[j] * it.gs[j]
		p.off += p.idx[j] * it.ws[j]
		p.up += p.idx[j] * it.us[j]
	}
}

// step moves p by m elements along the last dim, carrying into the outer
// dims when the run ends.
func (it *indexIter) step(p *pos, m int) {
	r := len(it.shape) - 1
	p.idx[r] += m
	p.g += m * it.gs[r]
	p.off += m * it.ws[r]
	p.up += m * it.us[r]
	for j := r; j > 0 && p.idx[j] == it.shape[j]; j-- {
		p.g += it.gs[j-1] - p.idx[j]*it.gs[j]
		p.off += it.ws[j-1] - p.idx[j]*it.ws[j]
		p.up += it.us[j-1] - p.idx[j]*it.us[j]
		p.idx[j] = 0
		p.idx[j-1]++
	}
}

// newPos returns a position for it, backed by buf when the rank fits.
func (it *indexIter) newPos(buf *[maxRank]int) pos {
	if r := len(it.shape); r <= maxRank {
		return pos{idx: buf[:r:r]}
	}
	return pos{idx: make([]int, len(it.shape))}
}

// gatherRows copies n result elements from lo: element (g, off) reads the
// operand at base[g] + off, or is fill when base[g] < 0.
func gatherRows[W any](dst, src unsafe.Pointer, base []int64, it *indexIter, fill W, lo, n int) {
	out := unsafe.Slice((*W)(dst), n)
	size := int(unsafe.Sizeof(fill))
	at := func(g, off int) W {
		if b := base[g]; b >= 0 {
			return *(*W)(unsafe.Add(src, (int(b)+off)*size))
		}
		return fill
	}
	if len(it.shape) == 0 {
		v := at(0, 0)
		for i := range out {
			out[i] = v
		}
		return
	}
	if gatherWholeRows(out, src, base, it, fill, lo) {
		return
	}
	var buf [maxRank]int
	p := it.newPos(&buf)
	it.start(&p, lo)
	r := len(it.shape) - 1
	last, gs, ws := it.shape[r], it.gs[r], it.ws[r]
	for i := 0; i < n; {
		m := min(last-p.idx[r], n-i)
		run := out[i : i+m]
		if b := base[p.g]; gs == 0 && ws == 1 && b >= 0 {
			copy(run, unsafe.Slice((*W)(unsafe.Add(src, (int(b)+p.off)*size)), m))
		} else {
			g, off := p.g, p.off
			for k := range run {
				run[k] = at(g, off)
				g += gs
				off += ws
			}
		}
		i += m
		it.step(&p, m)
	}
}

// prefetchRows is how many rows ahead gatherWholeRows prefetches: the
// rows are scattered over the operand, so the loads of the next ones are
// started while this one is copied (an embedding lookup ran 2× faster).
const prefetchRows = 4

// gatherWholeRows is the gather of the common [batch, row] result whose
// every row is one contiguous window (an embedding lookup): a tight loop
// over the rows of [lo, lo+len(out)), which must start and end on rows.
// It reports whether the gather had that form.
func gatherWholeRows[W any](out []W, src unsafe.Pointer, base []int64, it *indexIter, fill W, lo int) bool {
	if len(it.shape) != 2 || it.gs[1] != 0 || it.ws[1] != 1 || it.ws[0] != 0 {
		return false
	}
	row, gs := it.shape[1], it.gs[0]
	if lo%row != 0 || len(out)%row != 0 {
		return false
	}
	size := int(unsafe.Sizeof(fill))
	g := lo / row * gs
	for k := 0; k < len(out); k, g = k+row, g+gs {
		if next := g + prefetchRows*gs; next < len(base) && base[next] >= 0 {
			simd.Prefetch(unsafe.Add(src, int(base[next])*size), row*size)
		}
		dst := out[k : k+row]
		if b := base[g]; b >= 0 {
			copy(dst, unsafe.Slice((*W)(unsafe.Add(src, int(b)*size)), row))
		} else {
			for i := range dst {
				dst[i] = fill
			}
		}
	}
	return true
}

// gatherIndexKernel runs a gather.
type gatherIndexKernel struct {
	w        *windowStarts
	it       indexIter
	src, out int
	n, size  int
	chunk    int      // result elements per parallel work item, whole rows
	fill     [16]byte // the fill value's bits
	rows     func(dst, src unsafe.Pointer, base []int64, it *indexIter, fill unsafe.Pointer, lo, n int)
}

// rowsFn returns gatherRows for elements of a byte size.
func rowsFn(size int) func(dst, src unsafe.Pointer, base []int64, it *indexIter, fill unsafe.Pointer, lo, n int) {
	switch size {
	case 1:
		return rowsOf[uint8]
	case 2:
		return rowsOf[uint16]
	case 4:
		return rowsOf[uint32]
	case 8:
		return rowsOf[uint64]
	}
	return rowsOf[word16]
}

func rowsOf[W any](dst, src unsafe.Pointer, base []int64, it *indexIter, fill unsafe.Pointer, lo, n int) {
	gatherRows(dst, src, base, it, *(*W)(fill), lo, n)
}

func (x *cpuExec) compileGather(root *lower.Instr) (kernel, error) {
	operand, indices := root.Args[0], root.Args[1]
	p := root.Params.Index
	d := p.Gather
	k := &gatherIndexKernel{src: x.source(operand), out: x.m.Plan.Of[root], n: root.Size(), size: root.DType.Size()}
	k.w = newWindowStarts(x, operand, indices, p.SliceSizes, d.StartIndexMap, d.OperandBatchingDims, d.StartIndicesBatchingDims, p.Mode == trace.ModeFill)
	k.w.check = x.indexCheck(root, operand)
	if p.Mode == trace.ModeFill && root.Params.Value != nil {
		copy(k.fill[:], view[byte](dataPtr(root.Params.Value.Data()), k.size))
	}
	window := windowMap(len(root.Shape), d.OffsetDims, trace.WindowDims(len(operand.Shape), d.CollapsedSliceDims, d.OperandBatchingDims))
	gs, ws := iterDims(root.Shape, window, k.w.st)
	k.it = newIndexIter(root.Shape, gs, ws, numerics.RowMajorStrides(root.Shape))
	k.rows = rowsFn(k.size)
	k.chunk = copyChunk
	if r := len(k.it.shape); r > 0 && k.it.shape[r-1] > 0 { // an empty result has no rows
		row := k.it.shape[r-1]
		k.chunk = max(1, copyChunk/row) * row
	}
	return k, nil
}

func (k *gatherIndexKernel) run(x *cpuExec, rs *runState) {
	if k.n == 0 {
		return
	}
	k.w.compute(rs)
	if rs.chk != nil && rs.chk.failed.Load() {
		return
	}
	x.parallel(rs, (k.n+k.chunk-1)/k.chunk, k.n, k)
}

func (k *gatherIndexKernel) runRange(rs *runState, _ *worker, lo, hi int) {
	base := k.w.offsets(rs)
	dst, src := rs.srcs[k.out], rs.srcs[k.src]
	for c := lo; c < hi; c++ {
		start := c * k.chunk
		n := min(k.chunk, k.n-start)
		k.rows(unsafe.Add(dst, start*k.size), src, base, &k.it, unsafe.Pointer(&k.fill), start, n)
	}
}
