package kernels

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// dotKernel runs dot_general as batched matrix products [B, M, K] ·
// [B, K, N] → [B, M, N], the result in the output's row-major layout. f32
// and f64 run on internal/gemm's packed micro-kernels, which read each
// operand through its batch, row and column strides — a transposed
// operand costs nothing — and accumulate every element over k in order
// with one FMA per product, as the package doc says; operands whose
// batch, free or contracting dims do not merge into one stride each are
// gathered first. f16 operands run on the f32 kernels read as stored
// (gemm.Call's A16 and B16: widened exactly while packed, no widened
// copy), into f32 accumulators that are rounded to f16 once, block by
// block as the GEMM finishes them (halfFinisher); an f32 product reads
// an f16 operand past the convert that widened it (halfOperand: mixed
// f16 × f32, preferred_element_type=f32). bf16 operands (with a bf16
// result, or an f32 one by preferred_element_type) run on gemm.BF16Call —
// VDPBF16PS, the f32 kernels under DAZ/FTZ, or the Go twin — read as stored: the bf16 rule of the package
// doc. c64 and c128 run on gemm.CCall (runGemmC), read through their
// strides like f32. Other dtypes use plain loops.
type dotKernel struct {
	b, m, kk, n int
	lhs, rhs    operandLayout
	out         int
	dtype       tensor.DType
	slot        int
	int8        bool // lhs and rhs are int8 (see int8Operand)
	aUnsigned   bool // with int8: lhs is uint8
	bf16        bool // lhs and rhs are bf16: the bf16 GEMM
	fp8         bool // with bf16: lhs and rhs are read past their converts from 8-bit floats fa, fb (fp8Operand)
	fa, fb      tensor.FloatFormat
	f16         bool      // lhs, rhs and result are f16: the f32 GEMM reading f16 operands
	epi         *epilogue // the fused elementwise consumers, or nil
	swap        bool      // the product runs swapped (see narrowN), cᵀ in slot swapSlot
	swapSlot    int
}

// operandLayout is how one operand is read: directly from its source, or
// gathered into the canonical order first.
type operandLayout struct {
	src     int
	dtype   tensor.DType
	size    int      // elements of the source
	gather  *strided // nil: the source is read in place
	strides [3]int   // batch, row and column strides when read in place
	raw     bool     // read as stored, not widened (the bf16 GEMM's operands, and f16 ones)
	// nibbles: an int8 product's operand read in place from program input
	// param, an i4 or u4 (kind), which the int8 GEMM reads packed when
	// the caller passes it packed (runGemmI8).
	nibbles bool
	param   int
	kind    gemm.IntKind
}

// setNibbles marks an int8 product's operand read in place from an i4 or
// u4 program input (through reshapes) as readable packed.
func (l *operandLayout) setNibbles(in *lower.Instr) {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	if l.gather != nil || in.Op != trace.OpParam {
		return
	}
	switch in.DType {
	case tensor.I4:
		l.nibbles, l.param, l.kind = true, in.Param, gemm.Int4
	case tensor.U4:
		l.nibbles, l.param, l.kind = true, in.Param, gemm.Uint4
	}
}

// widen is how the operand is widened to its compute form; nil if not.
func (l *operandLayout) widen() unaryFn {
	if l.raw {
		return nil
	}
	return widenFn(l.dtype)
}

func (x *cpuExec) compileDot(f *lower.Fusion) (kernel, error) {
	root := f.Dot()
	d := root.Params.Dot
	lhs, rhs := root.Args[0], root.Args[1]
	free := func(rank int, used ...[]int) []int {
		var out []int
		for i := range rank {
			isUsed := false
			for _, u := range used {
				isUsed = isUsed || slices.Contains(u, i)
			}
			if !isUsed {
				out = append(out, i)
			}
		}
		return out
	}
	lf, rf := free(len(lhs.Shape), d.LhsBatch, d.LhsContract), free(len(rhs.Shape), d.RhsBatch, d.RhsContract)
	k := &dotKernel{
		b: prodOf(lhs.Shape, d.LhsBatch), m: prodOf(lhs.Shape, lf), kk: prodOf(lhs.Shape, d.LhsContract), n: prodOf(rhs.Shape, rf),
		out: x.m.Plan.Of[root], dtype: root.DType, slot: x.newSlot(), // out: none with an epilogue
	}
	k.bf16 = lhs.DType == tensor.BF16 && rhs.DType == tensor.BF16
	bf16ToF32 := k.bf16 && root.DType == tensor.F32 && root.Params.HasPreferred
	if (lhs.DType != root.DType || rhs.DType != root.DType) && !bf16ToF32 {
		return nil, fmt.Errorf("kernels: dot_general operands %s, %s for a %s result", lhs.DType, rhs.DType, root.DType)
	}
	l8, lu := x.int8Operand(f, lhs, root.DType, tensor.I8), false
	if l8 == nil {
		l8, lu = x.int8Operand(f, lhs, root.DType, tensor.U8), true
	}
	if r8 := x.int8Operand(f, rhs, root.DType, tensor.I8); l8 != nil && r8 != nil {
		// Products of int8 operands, or uint8 by int8 (either widened by
		// a convert, as a preferred_element_type lowers), on the VNNI
		// kernel: the int32 sum, wrapped to the result type, is the
		// wrapping sum's result.
		k.int8, k.aUnsigned = true, lu
		x.bypass(f, lhs, l8)
		x.bypass(f, rhs, r8)
		lhs, rhs = l8, r8
	}
	if k.bf16 && (root.DType == tensor.BF16 || bf16ToF32) {
		// Narrow float operands converted to bf16 (preferred_element_type
		// bf16, or f32, which lowers to the bf16 dot of the converted
		// operands for formats exact in bf16): the bf16 GEMM reads their
		// codes, unpacking them as it packs.
		la, fa := x.fp8Operand(f, lhs)
		rb, fb := x.fp8Operand(f, rhs)
		if la != nil && rb != nil && narrowOnBF16(fa, fb) {
			k.fp8, k.fa, k.fb = true, fa, fb
			x.bypass(f, lhs, la)
			x.bypass(f, rhs, rb)
			lhs, rhs = la, rb
		}
	}
	k.f16 = lhs.DType == tensor.F16 && rhs.DType == tensor.F16 && root.DType == tensor.F16
	if root.DType == tensor.F32 && !k.int8 && !k.bf16 {
		// f16 operands widened by converts: read past them, as stored.
		if h := x.halfOperand(f, lhs); h != nil {
			x.bypass(f, lhs, h)
			lhs = h
		}
		if h := x.halfOperand(f, rhs); h != nil {
			x.bypass(f, rhs, h)
			rhs = h
		}
	}
	// int8 products read their bytes as stored: a sub-byte integer's
	// byte is its value (storedAs).
	lraw, rraw := k.bf16 || k.int8 || lhs.DType == tensor.F16, k.bf16 || k.int8 || rhs.DType == tensor.F16
	packed := k.int8 || k.bf16 || complexDType(root.DType)
	k.lhs = x.layout(lhs, d.LhsBatch, lf, d.LhsContract, packed || lraw)
	k.rhs = x.layout(rhs, d.RhsBatch, d.RhsContract, rf, packed || rraw)
	k.lhs.raw, k.rhs.raw = lraw, rraw
	if k.int8 {
		k.lhs.setNibbles(lhs)
		k.rhs.setNibbles(rhs)
	}
	if cd := computeDType(root.DType); !gemmDType(cd) && !complexDType(cd) && dotTable[cd] == nil {
		return nil, fmt.Errorf("kernels: cpu has no dot_general for %s", root.DType)
	}
	if !k.int8 && !k.bf16 && gemmDType(root.DType) && k.lhs.gather == nil && k.lhs.strides[1] == 1 &&
		k.n < narrowN && k.m >= 4*narrowN && k.kk > 1 {
		k.swap, k.swapSlot = true, x.newSlot()
	}
	if f.Epilogue() {
		// A swapped product is transposed into place whole, so its
		// epilogue runs after it, not on the GEMM's blocks.
		e, err := x.compileEpilogue(f, root, (gemmDType(root.DType) || k.f16) && !k.int8 && !k.bf16 && !k.swap, k.m, k.n)
		if err != nil {
			return nil, err
		}
		k.epi = e
	}
	return k, nil
}

// narrowN: a product with fewer result columns than this, whose lhs is
// stored transposed (a weight gradient xᵀ·dy with few outputs), runs
// swapped — cᵀ = bᵀ·aᵀ into scratch, then transposed into c. The narrow
// 12×16 kernel would leave most of its lanes idle on n = 10, and aᵀ, read
// as the swapped product's b, is row-major in place; bᵀ is small to pack.
// Each element is the same in-order chain of fused multiply-adds of the
// same products (fma(b, a, c) = fma(a, b, c)), so the bits do not change.
// E7's ∂w2 (hᵀ·dz, 128×10 over k = 256): 6.8 → 4.6 µs. With an epilogue
// (Adam's moment update) the epilogue runs after the transpose.
const narrowN = 16

func concat(xs ...[]int) []int {
	var out []int
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// layout says how to read operand in as [batch, rows, cols], the three
// groups of its dims in order: in place when each group merges into one
// stride and a gemm kernel reads it (f32/f64, or int8, bf16, f16 and
// complex when packed: their GEMMs run); the plain loops need the canonical row-major
// order, so otherwise a gather into that order.
func (x *cpuExec) layout(in *lower.Instr, batch, rows, cols []int, packed bool) operandLayout {
	l := operandLayout{src: x.source(in), dtype: in.DType, size: in.Size()}
	st := numerics.RowMajorStrides(in.Shape)
	groups := [3][]int{batch, rows, cols}
	merged := true
	for i, g := range groups {
		s, ok := mergedStride(in.Shape, st, g)
		l.strides[i], merged = s, merged && ok
	}
	perm := concat(batch, rows, cols)
	g := &strided{shape: make([]int, len(perm)), strides: make([]int, len(perm))}
	for j, p := range perm {
		g.shape[j], g.strides[j] = in.Shape[p], st[p]
	}
	g.simplify()
	canonical := g.contiguous()
	if canonical || (merged && (gemmDType(in.DType) || packed)) {
		if canonical {
			l.strides = canonicalStrides(in.Shape, rows, cols)
		}
		return l
	}
	l.gather = g
	l.strides = canonicalStrides(in.Shape, rows, cols)
	return l
}

// canonicalStrides are the strides of [batch, rows, cols] stored
// row-major.
func canonicalStrides(shape, rows, cols []int) [3]int {
	r, c := prodOf(shape, rows), prodOf(shape, cols)
	return [3]int{r * c, c, 1}
}

// gemmDType reports whether dtype d is internal/gemm's float type (f16
// and bf16 operands are read as stored too, by their own paths: the
// dotKernel's f16 and bf16 flags).
func gemmDType(d tensor.DType) bool { return d == tensor.F32 || d == tensor.F64 }

// complexDType reports whether d is c64 or c128, whose products run on
// internal/gemm's complex GEMM (gemm.CCall), operands read as stored.
func complexDType(d tensor.DType) bool { return d == tensor.C64 || d == tensor.C128 }

func prodOf(shape, dims []int) int {
	n := 1
	for _, i := range dims {
		n *= shape[i]
	}
	return n
}

// mergedStride is the stride of dims (in order, row-major within the
// group) read as one index, if they merge into one: every dim's stride is
// the next non-unit dim's stride times its size. Unit dims never matter.
func mergedStride(shape, strides, dims []int) (int, bool) {
	s, want := 0, -1
	for i := len(dims) - 1; i >= 0; i-- {
		d := dims[i]
		if shape[d] == 1 {
			continue
		}
		if want >= 0 && strides[d] != want {
			return 0, false
		}
		if want < 0 {
			s = strides[d]
		}
		want = strides[d] * shape[d]
	}
	return s, true
}

// load returns the operand in canonical order and compute form, using
// scratch part j of the kernel's slot when a copy is needed.
func (l *operandLayout) load(rs *runState, slot, j, n int) unsafe.Pointer {
	p := rs.srcs[l.src]
	widen := l.widen()
	if l.gather == nil && widen == nil {
		return p
	}
	size, need := l.dtype.Size(), n*l.dtype.Size()
	if widen != nil {
		need = (need+15)&^15 + n*computeDType(l.dtype).Size()
	}
	dst := unsafe.Pointer(unsafe.SliceData(rs.slotBytes(slot, j, need)))
	if l.gather != nil {
		gatherFn(size)(dst, p, l.gather, 0, n)
		p = dst
	}
	if widen != nil {
		w := unsafe.Add(dst, (n*size+15)&^15)
		widen(w, p, n)
		p = w
	}
	return p
}

func (k *dotKernel) run(x *cpuExec, rs *runState) {
	na, nb := k.lhs.size, k.rhs.size
	if k.lhs.gather != nil || k.lhs.widen() != nil {
		na = k.b * k.m * k.kk
	}
	if k.rhs.gather != nil || k.rhs.widen() != nil {
		nb = k.b * k.kk * k.n
	}
	a := k.lhs.load(rs, k.slot, 0, na)
	b := k.rhs.load(rs, k.slot, 1, nb)
	out, epi := k.epi.target(rs, k.out) // where the product goes
	cd := computeDType(k.dtype)
	c := out
	if cd != k.dtype {
		c = x.worker0(rs).temp(k.b * k.m * k.n * cd.Size())
	}
	epiDone := false // the GEMM ran the epilogue on its blocks
	switch {
	case k.int8:
		runGemmI8(x, rs, k, out, a, b, na, nb)
	case k.fp8:
		runGemmFP8(x, rs, k, out, c, a, b, na, nb) // narrows its own pieces
	case k.bf16:
		runGemmBF16(x, rs, k, out, c, a, b, na, nb) // narrows its own pieces
	case cd == tensor.F32:
		epiDone = runGemm[float32](x, rs, k, out, c, a, b, na, nb, epi) // f16: narrows its own blocks
	case cd == tensor.F64:
		epiDone = runGemm[float64](x, rs, k, out, c, a, b, na, nb, epi)
	case cd == tensor.C64:
		runGemmC[float32](x, rs, k, c, a, b, na, nb)
	case cd == tensor.C128:
		runGemmC[float64](x, rs, k, c, a, b, na, nb)
	default:
		dotTable[cd](x, rs, c, a, b, k.b, k.m, k.kk, k.n)
	}
	if cd != k.dtype && !k.int8 && !k.bf16 && !k.f16 {
		narrowFn(k.dtype)(out, c, k.b*k.m*k.n)
	}
	if epi != nil && !epiDone {
		epi.runAll(x, rs)
	}
	if epi != nil {
		clear(epi.srcs) // hold no caller's array between Runs
	}
}

// gemmJob runs pieces of one product on the workers, and the epilogue
// (when fins is not nil) on each block a piece finishes; an f16 product's
// pieces (halves not empty) narrow each block first.
type gemmJob[T gemm.Float] struct {
	call   gemm.Call[T]
	parts  int
	fins   []partFinisher
	halves []halfFinisher
	// partMax: a piece with at most this many bytes of product runs
	// its epilogue after it (see epiPartMax).
	partMax int
}

func (j *gemmJob[T]) runRange(_ *runState, w *worker, lo, hi int) {
	if j.fins == nil && len(j.halves) == 0 {
		for p := lo; p < hi; p++ {
			j.call.RunPart(p, j.parts)
		}
		return
	}
	if j.fins != nil {
		j.fins[0].r.e.prepare(w, j.fins[0].r.srcs)
	}
	for p := lo; p < hi; p++ {
		var fin gemm.Finisher
		if j.fins != nil {
			j.fins[p].w = w
			fin = &j.fins[p]
		}
		if len(j.halves) > 0 {
			fin = &j.halves[p] // it runs j.fins[p] after narrowing
		}
		b, i0, i1, j0, j1 := j.call.PartBounds(p, j.parts)
		if (i1-i0)*(j1-j0)*int(unsafe.Sizeof(T(0))) > j.partMax {
			j.call.RunPartThen(p, j.parts, fin)
			continue
		}
		// A small piece stays in L2: its epilogue runs after it, over
		// whole rows at once, rather than on each block of MR rows.
		j.call.RunPart(p, j.parts)
		fin.Finished(b, i0, i1, j0, j1)
	}
}

// runGemm runs k's product on internal/gemm into c — f16 operands read as
// stored; an f16 result (k.f16) rounded into out block by block — and
// reports whether it ran epilogue epi (if any) on the blocks it finished.
func runGemm[T gemm.Float](x *cpuExec, rs *runState, k *dotKernel, out, c, a, b unsafe.Pointer, na, nb int, epi *epilogueRun) bool {
	j := slotJob[gemmJob[T]](rs, k.slot)
	if k.swap {
		runSwapped[T](x, rs, k, j, c, a, b, na, nb)
		return false
	}
	j.call = gemm.Call[T]{Batch: k.b, M: k.m, N: k.n, K: k.kk,
		C: view[T](c, k.b*k.m*k.n), BatchC: k.m * k.n, LDC: k.n, Stop: rs.gemmStop()}
	j.call.A, j.call.A16 = operand[T](&k.lhs, a, na)
	j.call.B, j.call.B16 = operand[T](&k.rhs, b, nb)
	j.call.BatchA, j.call.RowA, j.call.ColA = k.lhs.strides[0], k.lhs.strides[1], k.lhs.strides[2]
	j.call.BatchB, j.call.RowB, j.call.ColB = k.rhs.strides[0], k.rhs.strides[1], k.rhs.strides[2]
	workers := x.cpu.workers()
	if rs.solo || !x.wide(k.b*k.m*k.n*k.kk, x.gemmParallelMin()) {
		workers = 1
	}
	j.parts = j.call.Parts(workers)
	j.fins, j.halves, j.partMax = nil, j.halves[:0], 0
	if epi != nil && k.epi.perBlock && j.parts > 0 && wholeRows(&j.call, j.parts) {
		j.fins, j.partMax = epi.finishers(j.parts), x.epiPartMax()
	}
	if k.f16 && j.parts > 0 {
		j.halves = j.halfFinishers(c, out, k.m, k.n)
	}
	x.parallel(rs, j.parts, k.b*k.m*k.n*max(k.kk, 1), j)
	j.release()
	return j.fins != nil
}

// release drops the job's views of the Run's arrays (its operands and
// result), which the run state keeps between Runs: an executable holds no
// caller's array after a Run.
func (j *gemmJob[T]) release() {
	j.call.A, j.call.B, j.call.C, j.call.A16, j.call.B16 = nil, nil, nil, nil, nil
	clear(j.halves)
}

// wholeRows reports whether the pieces of g are bands of whole rows of c.
// The epilogue runs on the blocks of such pieces; pieces split by columns
// would run it a row at a time (E7's 64×128 weight gradient, split so on
// two cores, spent 10 µs so on Adam's three bodies), so their epilogue runs
// after the product, over whole blocks.
func wholeRows[T gemm.Float](g *gemm.Call[T], parts int) bool {
	_, _, _, j0, j1 := g.PartBounds(0, parts)
	return j1-j0 == g.N
}

// operand is the n elements at p of an operand laid out as l, for a
// gemm.Call: as T, or as f16 bits (read as stored, widened while packed).
func operand[T gemm.Float](l *operandLayout, p unsafe.Pointer, n int) ([]T, []uint16) {
	if l.dtype == tensor.F16 {
		return nil, view[uint16](p, n)
	}
	return view[T](p, n), nil
}

// runSwapped runs k as cᵀ = bᵀ·aᵀ into the swap slot, then transposes
// the result into c (see narrowN).
func runSwapped[T gemm.Float](x *cpuExec, rs *runState, k *dotKernel, j *gemmJob[T], c, a, b unsafe.Pointer, na, nb int) {
	n := k.b * k.m * k.n
	ct := view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.swapSlot, 0, n*int(unsafe.Sizeof(T(0)))))), n)
	j.call = gemm.Call[T]{Batch: k.b, M: k.n, N: k.m, K: k.kk, C: ct, BatchC: k.m * k.n, LDC: k.m, Stop: rs.gemmStop()}
	j.call.A, j.call.A16 = operand[T](&k.rhs, b, nb)
	j.call.B, j.call.B16 = operand[T](&k.lhs, a, na)
	j.call.BatchA, j.call.RowA, j.call.ColA = k.rhs.strides[0], k.rhs.strides[2], k.rhs.strides[1]
	j.call.BatchB, j.call.RowB, j.call.ColB = k.lhs.strides[0], k.lhs.strides[2], k.lhs.strides[1]
	workers := x.cpu.workers()
	if rs.solo || !x.wide(n*k.kk, x.gemmParallelMin()) {
		workers = 1
	}
	j.parts, j.fins, j.halves = j.call.Parts(workers), nil, j.halves[:0]
	x.parallel(rs, j.parts, n*k.kk, j)
	j.release()
	cs := view[T](c, n)
	for bi := range k.b {
		src, dst := ct[bi*k.m*k.n:(bi+1)*k.m*k.n], cs[bi*k.m*k.n:(bi+1)*k.m*k.n]
		for jn := range k.n {
			for i, v := range src[jn*k.m : (jn+1)*k.m] {
				dst[i*k.n+jn] = v
			}
		}
	}
}

// epiPartMax is the bytes of product up to which a piece of the GEMM runs
// its epilogue after the piece (still in L2) rather than on each finished
// block: a 256×128 layer (E7's size) took 2% longer with the epilogue on
// each of its 22 blocks than as a separate kernel, and about 2% less than
// that with it after the piece (BenchmarkSmallLayerEpilogue, minimum
// times). A
// CPU with blocks smaller than the default (the tests') runs every
// epilogue on the finished blocks, so the tests cross that path at any
// size.
func (x *cpuExec) epiPartMax() int {
	if x.cpu.opts.Block < defaultBlock {
		return 0
	}
	return 256 << 10
}

// gemmParallelMin is the number of multiply-adds below which a product
// runs on one core: 2^22 takes about 16 µs there, and waking a second
// worker costs tens of microseconds on a busy machine (with a helper
// spinning, wide splits a sixteenth of it). A CPU whose ParallelMin is set
// to anything but the default (the tests' tiny-blocks backend, or a
// caller's bound) uses that instead, exactly.
func (x *cpuExec) gemmParallelMin() int {
	if x.cpu.opts.ParallelMin != defaultParallelMin {
		return x.cpu.opts.ParallelMin
	}
	return 1 << 22
}

// dotFn computes c[b] = a[b] · bm[b] for each batch b.
type dotFn func(x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int)

var dotTable [tensor.NumDTypes]dotFn

// naiveDot is the plain loop for integers: c[i,j] = Σ_l a[i,l]·b[l,j], l
// in order from zero, wrapping.
func naiveDot[T integer](x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int) {
	cs, as, bs := view[T](c, nb*m*n), view[T](a, nb*m*k), view[T](bm, nb*k*n)
	x.parallel(rs, nb*m, nb*m*n*max(k, 1), funcJob(func(_ *worker, lo, hi int) {
		for r := lo; r < hi; r++ {
			bi := r / m
			crow := cs[r*n : (r+1)*n]
			clear(crow)
			arow := as[r*k : (r+1)*k]
			for l, av := range arow {
				brow := bs[(bi*k+l)*n : (bi*k+l+1)*n]
				for j, bv := range brow {
					crow[j] += av * bv
				}
			}
		}
	}))
}

func boolDot(x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int) {
	cs, as, bs := view[bool](c, nb*m*n), view[bool](a, nb*m*k), view[bool](bm, nb*k*n)
	for r := range nb * m {
		bi := r / m
		crow := cs[r*n : (r+1)*n]
		clear(crow)
		for l, av := range as[r*k : (r+1)*k] {
			if !av {
				continue
			}
			for j, bv := range bs[(bi*k+l)*n : (bi*k+l+1)*n] {
				crow[j] = crow[j] || bv
			}
		}
	}
}

func init() {
	dotTable[tensor.Bool] = boolDot
	dotTable[tensor.U8] = naiveDot[uint8]
	dotTable[tensor.U16] = naiveDot[uint16]
	dotTable[tensor.U32] = naiveDot[uint32]
	dotTable[tensor.U64] = naiveDot[uint64]
	dotTable[tensor.I8] = naiveDot[int8]
	dotTable[tensor.I16] = naiveDot[int16]
	dotTable[tensor.I32] = naiveDot[int32]
	dotTable[tensor.I64] = naiveDot[int64]
	// f32, f64: runGemm; c64, c128: runGemmC.
}
