package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// mappedKernel runs a mapped loop fusion (lower.Regions): a loop fusion
// holding slices, concatenates, revs, transposes or broadcasts. Each
// region (a box of the output within which every concatenate reads one
// operand) runs over rows of its innermost dim; in a row every leaf is a
// view of its buffer at a pointer offset — contiguous, broadcast along the
// row, or walked with a constant stride — so the elementwise body of a
// plain loop fusion (the same steps, hence the same bits) runs on each
// row, in chunks of a block. roll(u, 1) = concatenate(u[n-1:], u[:n-1])
// feeding an add is one pass over u in two regions whose leaves are u at
// offsets n-1 and -1: no copy of u is made. A fused iota is a leaf read
// from no buffer: its counts along the chunk are computed into the
// worker's scratch (up to iotaSpan of them, in L1) and the body reads them
// there; such a region runs a span of chunks at a time, every slot at
// the span's first element (runIotaChunk).
//
// Work items are (region, row, chunk) triples, split across workers as a
// loop's blocks are.
type mappedKernel struct {
	regions []*mappedRegion
	start   []int // region r's items are [start[r], start[r+1])
	n       int   // elements of the output
}

// mappedRegion is one region compiled.
type mappedRegion struct {
	body   *body   // nil: a copy region (its value is one leaf)
	store  unaryFn // narrows the body's result into the output; nil if written in place
	vm     *mapVM  // the body as one pass over tiles (mapvm.go), or nil
	outer  []int   // extents of the box's outer dims (collapsed)
	rowLen int
	block  int // elements per chunk
	chunks int // per row
	leaves []mappedLeaf
	out    mappedLeaf // the output, as a leaf of the plan buffer written
	// A copy region: the leaf's row stride, and the gather walking it.
	copyStride int
	gather     func(dst, src unsafe.Pointer, g *strided, lo, n int)
	g          *strided
	iotas      bool // some leaf is an iota: the region runs chunk by chunk
}

// mappedLeaf is a buffer read (or written) at src + (origin + Σ
// outer[k]·strides[k] + i·row) elements, for element i of a row.
type mappedLeaf struct {
	src     int // the exec's source index
	size    int // bytes per element
	origin  int
	strides []int // over the collapsed outer dims
	row     int
	// iota: the leaf is a fused iota of dtype iota (src is -1): its value
	// at element i of a row is the count origin + Σ outer[k]·strides[k] +
	// i·row, computed into the worker's scratch (iotaCounts), not loaded.
	iota   tensor.DType
	isIota bool
}

func (x *cpuExec) compileMapped(f *lower.Fusion) (kernel, error) {
	out := x.m.Plan.Of[f.Outputs[0]]
	if g := lower.WithoutFirstChosen(f); g != nil && !x.cpu.noFuse {
		// A max_pool's forward pass: its value is the window's extremum
		// itself, to the bit; only derivatives need the selects.
		f = g
	}
	regions, err := lower.Regions(f)
	if err != nil {
		return nil, err
	}
	root := f.Outputs[0]
	k := &mappedKernel{n: root.Size()}
	items := 0
	for _, r := range regions {
		mr, err := x.compileRegion(root, out, r)
		if err != nil {
			return nil, err
		}
		k.regions = append(k.regions, mr)
		k.start = append(k.start, items)
		rows := 1
		for _, e := range mr.outer {
			rows *= e
		}
		items += rows * mr.chunks
	}
	k.start = append(k.start, items)
	return k, nil
}

// compileRegion collapses region r's box into outer dims and a row and
// compiles its body over a row.
func (x *cpuExec) compileRegion(root *lower.Instr, out int, r *lower.Region) (*mappedRegion, error) {
	rank := len(root.Shape)
	outStrides := numerics.RowMajorStrides(root.Shape)
	// Dims of the box, each with the strides of the output and every leaf.
	type dim struct {
		ext int
		st  []int // [0]: the output; [1+i]: leaf i
	}
	origin := make([]int, 1+len(r.Leaves))
	for j := range rank {
		origin[0] += r.Lo[j] * outStrides[j]
		for i, l := range r.Leaves {
			origin[1+i] += r.Lo[j] * l.Strides[j]
		}
	}
	for i, l := range r.Leaves {
		origin[1+i] += l.Base
	}
	var dims []dim
	for j := range rank {
		e := r.Hi[j] - r.Lo[j]
		if e == 1 && j < rank-1 {
			continue // the last dim stays: rows are contiguous in the output
		}
		st := []int{outStrides[j]}
		for _, l := range r.Leaves {
			st = append(st, l.Strides[j])
		}
		if n := len(dims); n > 0 {
			prev := &dims[n-1]
			merge := true
			for i := range st {
				merge = merge && prev.st[i] == st[i]*e
			}
			if merge {
				prev.ext *= e
				prev.st = st
				continue
			}
		}
		dims = append(dims, dim{ext: e, st: st})
	}
	if len(dims) == 0 {
		dims = []dim{{ext: 1, st: make([]int, 1+len(r.Leaves))}}
	}
	row := dims[len(dims)-1]
	mr := &mappedRegion{rowLen: row.ext}
	for _, d := range dims[:len(dims)-1] {
		mr.outer = append(mr.outer, d.ext)
	}
	leafOf := func(i, src, size int) mappedLeaf {
		l := mappedLeaf{src: src, size: size, origin: origin[i], row: row.st[i]}
		for _, d := range dims[:len(dims)-1] {
			l.strides = append(l.strides, d.st[i])
		}
		return l
	}
	mr.out = leafOf(0, out, root.DType.Size())
	leafs := map[*lower.Instr]leafRead{}
	slot := map[*lower.Instr]int{}
	for i, l := range r.Leaves {
		if l.Counted {
			ml := leafOf(1+i, -1, l.Src.DType.Size())
			ml.iota, ml.isIota = l.Src.DType, true
			slot[l.In] = len(mr.leaves)
			mr.leaves = append(mr.leaves, ml)
			mr.iotas = true
			leafs[l.In] = leafRead{strides: []int{1}, varying: true} // the scratch, contiguous
			continue
		}
		ml := leafOf(1+i, x.source(l.Src), l.Src.DType.Size())
		slot[l.In] = len(mr.leaves)
		mr.leaves = append(mr.leaves, ml)
		varying := false
		for _, s := range ml.strides {
			varying = varying || s != 0
		}
		leafs[l.In] = leafRead{strides: []int{ml.row}, varying: varying}
	}
	mr.block = min(x.cpu.opts.Block, max(mr.rowLen, 1))
	mr.chunks = max((mr.rowLen+mr.block-1)/mr.block, 1)
	if i, ok := slot[r.Root]; ok && mr.leaves[i].isIota {
		// The region's value is an iota's counts, written to the output.
		mr.leaves = []mappedLeaf{mr.leaves[i]}
		return mr, nil
	}
	if i, ok := slot[r.Root]; ok {
		// Pure data movement: the row is a leaf's elements, moved as bits.
		mr.copyStride = mr.leaves[i].row
		mr.gather = gatherFn(mr.out.size)
		mr.g = &strided{shape: []int{mr.rowLen}, strides: []int{mr.copyStride}}
		if mr.copyStride == 0 {
			mr.g = &strided{}
		}
		mr.leaves = []mappedLeaf{mr.leaves[i]}
		return mr, nil
	}
	members := map[*lower.Instr]bool{}
	for _, in := range r.Instrs {
		if _, leaf := slot[in]; !leaf {
			members[in] = true
		}
	}
	outSlot := len(mr.leaves)
	dst := loc{kind: locBuf, idx: outSlot, size: mr.out.size}
	source := func(in *lower.Instr) int { return slot[in] }
	b, _, err := compileRootsLeafs(members, []*lower.Instr{r.Root}, []int{mr.rowLen}, []int{0}, mr.block, source, []loc{dst}, leafs, !mr.iotas)
	if err != nil {
		return nil, err
	}
	mr.store, _ = x.finishLoopBody(b, r.Root, dst, false)
	mr.body = b
	if x.checks == 0 {
		mr.vm = compileMapVM(b, len(mr.leaves), mr.store)
	}
	return mr, nil
}

func (k *mappedKernel) run(x *cpuExec, rs *runState) {
	x.parallel(rs, k.start[len(k.start)-1], k.n, k)
}

func (k *mappedKernel) runRange(rs *runState, w *worker, lo, hi int) {
	for len(w.subs) < len(k.regions) {
		w.subs = append(w.subs, &worker{})
	}
	var outer [maxRank]int
	vm := mapVMAvailable() && !mapVMOff
	for ri, r := range k.regions {
		a, b := max(lo, k.start[ri]), min(hi, k.start[ri+1])
		if a >= b {
			continue
		}
		sw := w.subs[ri]
		sw.chk, sw.chkSeq = w.chk, w.chkSeq
		nslots := len(r.leaves) + 1
		if cap(sw.mslots) < nslots {
			sw.mslots = make([]unsafe.Pointer, nslots)
		}
		slots := sw.mslots[:nslots]
		prepared := false
		for it := a; it < b; it++ {
			local := it - k.start[ri]
			rowIdx, chunk := local/r.chunks, local%r.chunks
			o := outer[:len(r.outer)]
			for d := len(o) - 1; d >= 0; d-- {
				o[d] = rowIdx % r.outer[d]
				rowIdx /= r.outer[d]
			}
			start := chunk * r.block
			n := min(r.block, r.rowLen-start)
			if r.iotas {
				// The rest of the row's chunks in this range, up to
				// iotaSpan elements, run as one span: one fill of the
				// counts and one pass of the body.
				more := min(r.chunks-1-chunk, b-1-it, max(iotaSpan/r.block, 1)-1)
				k.runIotaChunk(rs, sw, r, slots, o, start, min(start+(more+1)*r.block, r.rowLen)-start)
				it += more
				continue
			}
			for i := range r.leaves {
				slots[i] = r.leaves[i].at(rs.srcs, o)
			}
			slots[len(r.leaves)] = r.out.at(rs.srcs, o)
			if r.body == nil {
				r.gather(unsafe.Add(slots[len(r.leaves)], start*r.out.size), slots[0], r.g, start, n)
				continue
			}
			if !prepared {
				sw.prepareAt(r.body, slots, rs.stamp)
				prepared = true
			}
			if r.vm != nil && vm {
				// The rest of the row's chunks in this range run as one
				// pass, up to streamChunk elements (an assembly loop
				// cannot be preempted).
				more := min(r.chunks-1-chunk, b-1-it, max(streamChunk/r.block, 1)-1)
				r.vm.run(sw, r.body, slots, start, min(start+(more+1)*r.block, r.rowLen))
				it += more
				continue
			}
			res := sw.eval(r.body, slots, start, n)
			if r.store != nil {
				r.store(unsafe.Add(slots[len(r.leaves)], start*r.out.size), res, n)
			}
		}
		clear(slots) // the Run's arrays: the worker holds none between Runs
	}
}

// iotaSpan bounds the elements of a row runIotaChunk computes at once
// (their counts stay in L1: 16 KB of f32).
const iotaSpan = 4096

// runIotaChunk runs elements [start, start+n) of region r's row at outer
// index o (n ≤ iotaSpan, or one block), where some leaves are iotas: every
// slot points at the span's first element (an iota's at its counts,
// computed into the worker's scratch), and the body runs over [0, n), a
// block at a time.
func (k *mappedKernel) runIotaChunk(rs *runState, sw *worker, r *mappedRegion, slots []unsafe.Pointer, o []int, start, n int) {
	for len(sw.iotaMem) < len(r.leaves) {
		sw.iotaMem = append(sw.iotaMem, nil)
	}
	for i := range r.leaves {
		l := &r.leaves[i]
		if !l.isIota {
			slots[i] = unsafe.Add(l.at(rs.srcs, o), start*l.row*l.size)
			continue
		}
		c0 := l.origin + start*l.row
		for d, oi := range o {
			c0 += oi * l.strides[d]
		}
		if r.body == nil { // the region's value: written in place
			iotaCounts(l.iota, unsafe.Add(r.out.at(rs.srcs, o), start*r.out.size), n, c0, l.row)
			return
		}
		if need := n * l.size; cap(sw.iotaMem[i]) < need {
			sw.iotaMem[i] = make([]byte, max(need, max(iotaSpan, r.block)*l.size))
		}
		slots[i] = unsafe.Pointer(unsafe.SliceData(sw.iotaMem[i]))
		iotaCounts(l.iota, slots[i], n, c0, l.row)
	}
	out := unsafe.Add(r.out.at(rs.srcs, o), start*r.out.size)
	slots[len(r.leaves)] = out
	sw.prepareAt(r.body, slots, rs.stamp)
	if r.vm != nil && mapVMAvailable() && !mapVMOff {
		r.vm.run(sw, r.body, slots, 0, n)
		return
	}
	for lo := 0; lo < n; lo += r.block {
		m := min(r.block, n-lo)
		res := sw.eval(r.body, slots, lo, m)
		if r.store != nil {
			r.store(unsafe.Add(out, lo*r.out.size), res, m)
		}
	}
}

// at is the leaf's pointer at the start of the row at outer index o.
func (l *mappedLeaf) at(srcs []unsafe.Pointer, o []int) unsafe.Pointer {
	off := l.origin
	for k, i := range o {
		off += i * l.strides[k]
	}
	return unsafe.Add(srcs[l.src], off*l.size)
}
