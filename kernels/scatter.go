package kernels

import (
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// scatterKernel runs a scatter: the operand is copied to the result, then
// the updates are combined into it in row-major order of the updates, a
// run of the last dim at a time. When a window dim of the updates lies on
// an operand dim that no index moves (its start is always 0), workers
// split that dim into chunks: their targets are disjoint and every element
// still sees its updates in order, so the bits do not depend on the split.
type scatterKernel struct {
	w        *windowStarts
	it       indexIter // over the updates (the split dim at the chunk size)
	tail     indexIter // the same with the last, shorter chunk
	copy     copyJob
	upd, out int
	size     int // element bytes
	nu       int // update elements
	dt       tensor.DType
	combine  trace.Op // OpInvalid: replace
	chunks   int      // chunks of the split dim; 0: no split
	chunk    int      // its elements per chunk
	splitWS  int      // its stride in the operand
	splitUS  int      // its stride in the updates
}

// scatterChunks is how many chunks a split dim is cut into at most (a few
// per worker), and scatterMinChunk the fewest elements of a chunk, so that
// a split last dim still combines runs long enough for the vector kernels
// (an embedding gradient of 256 columns ran 4× slower in runs of 16).
const (
	scatterChunks   = 16
	scatterMinChunk = 64
)

func (x *cpuExec) compileScatter(root *lower.Instr) (kernel, error) {
	operand, indices, updates := root.Args[0], root.Args[1], root.Args[2]
	p := root.Params.Index
	d := p.Scatter
	window := trace.ScatterWindow(len(operand.Shape), updates.Shape, d)
	k := &scatterKernel{upd: x.source(updates), out: x.m.Plan.Of[root], size: root.DType.Size(), nu: updates.Size(),
		dt: root.DType, combine: root.Op.ScatterCombiner()}
	k.copy = copyJob{dst: k.out, src: x.source(operand), n: root.Size() * k.size}
	k.w = newWindowStarts(x, operand, indices, window, d.ScatterDimsToOperandDims, d.OperandBatchingDims, d.ScatterIndicesBatchingDims, p.Mode != trace.ModeClip)
	k.w.check = x.indexCheck(root, operand)
	wmap := windowMap(len(updates.Shape), d.UpdateWindowDims, trace.WindowDims(len(operand.Shape), d.InsertedWindowDims, d.OperandBatchingDims))
	gs, ws := iterDims(updates.Shape, wmap, k.w.st)
	us := numerics.RowMajorStrides(updates.Shape)
	shape := slices.Clone(updates.Shape)
	tail := shape
	for j, od := range wmap {
		if od >= 0 && !slices.Contains(d.ScatterDimsToOperandDims, od) && shape[j] >= 2 {
			n := shape[j]
			k.chunk = max((n+scatterChunks-1)/scatterChunks, min(n, scatterMinChunk))
			k.chunks = (n + k.chunk - 1) / k.chunk
			k.splitWS, k.splitUS = ws[j]*k.chunk, us[j]*k.chunk
			shape[j], tail = k.chunk, slices.Clone(shape)
			tail[j] = n - (k.chunks-1)*k.chunk
			break
		}
	}
	k.it, k.tail = newIndexIter(shape, gs, ws, us), newIndexIter(tail, gs, ws, us)
	return k, nil
}

func (k *scatterKernel) run(x *cpuExec, rs *runState) {
	k.copy.run(x, rs)
	if k.nu == 0 || k.copy.n == 0 { // no window fits an empty operand
		return
	}
	k.w.compute(rs)
	if rs.chk != nil && rs.chk.failed.Load() {
		return
	}
	if k.chunks == 0 {
		k.apply(rs, x.worker0(rs), &k.it, 0, 0)
		return
	}
	x.parallel(rs, k.chunks, k.nu, k)
}

func (k *scatterKernel) runRange(rs *runState, w *worker, lo, hi int) {
	for c := lo; c < hi; c++ {
		it := &k.it
		if c == k.chunks-1 {
			it = &k.tail
		}
		k.apply(rs, w, it, c*k.splitWS, c*k.splitUS)
	}
}

// apply combines the updates of the iteration it (one chunk of the split
// dim, or all of them), whose operand and updates offsets are so and su.
func (k *scatterKernel) apply(rs *runState, w *worker, it *indexIter, so, su int) {
	base := k.w.offsets(rs)
	out, upd := rs.srcs[k.out], rs.srcs[k.upd]
	at := func(b int64, off, u, m int) {
		if b >= 0 {
			k.combineRun(w, unsafe.Add(out, (int(b)+off+so)*k.size), unsafe.Add(upd, (u+su)*k.size), m)
		}
	}
	if len(it.shape) == 0 {
		at(base[0], 0, 0, 1)
		return
	}
	n := 1
	for _, d := range it.shape {
		n *= d
	}
	var buf [maxRank]int
	p := it.newPos(&buf)
	it.start(&p, 0)
	r := len(it.shape) - 1
	last, gs, ws, us := it.shape[r], it.gs[r], it.ws[r], it.us[r]
	for i := 0; i < n; i += last {
		if gs == 0 && ws == 1 && us == 1 {
			at(base[p.g], p.off, p.up, last)
		} else {
			g, off, u := p.g, p.off, p.up
			for range last {
				at(base[g], off, u, 1)
				g, off, u = g+gs, off+ws, u+us
			}
		}
		it.step(&p, last)
	}
}

// combineRun combines n contiguous updates at u into the result at o.
func (k *scatterKernel) combineRun(w *worker, o, u unsafe.Pointer, n int) {
	if k.combine == trace.OpInvalid {
		copy(view[byte](o, n*k.size), view[byte](u, n*k.size))
		return
	}
	f := binaryTable[k.combine][kernelDType(k.dt)]
	if k.dt.IsNarrow() {
		f = narrowBinary(k.combine, k.dt)
	}
	if wide := widenFn(k.dt); wide != nil { // f16, bf16: combine in f32, round once
		a := w.temp(8 * n)
		b := unsafe.Add(a, 4*n)
		wide(a, o, n)
		wide(b, u, n)
		f(a, a, b, n)
		narrowFn(k.dt)(o, a, n)
		return
	}
	f(o, o, u, n)
}

// copyJob copies n bytes from source src to source dst, in parallel when
// large.
type copyJob struct {
	dst, src, n int
}

const copyJobChunk = copyChunk * 8 // bytes per work item

func (c *copyJob) run(x *cpuExec, rs *runState) {
	if c.n > 0 && rs.srcs[c.dst] != rs.srcs[c.src] { // the same buffer: an update in place (a loop's carry)
		x.parallel(rs, (c.n+copyJobChunk-1)/copyJobChunk, c.n/8, c)
	}
}

func (c *copyJob) runRange(rs *runState, _ *worker, lo, hi int) {
	dst, src := rs.srcs[c.dst], rs.srcs[c.src]
	a, b := lo*copyJobChunk, min(hi*copyJobChunk, c.n)
	copy(view[byte](unsafe.Add(dst, a), b-a), view[byte](unsafe.Add(src, a), b-a))
}
