package kernels

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// convKernel runs conv_general_dilated as im2col in blocks followed by a
// matrix product, for any layout the dimension numbers name. Per Run:
//
//  1. f16/bf16 operands are widened to f32 (slot part 0 and 1);
//  2. the kernel is packed as W[g][kk][o] (slot 2), kk = (kernel position
//     in row-major order)·I + input feature: the contract's K order;
//  3. work units are (batch element, block of output positions): each
//     builds its patch matrix P[r][kk] (zeros for padding and dilation
//     holes) in its worker's scratch, then for each group computes
//     C = P·W[g] with every element accumulated over kk in order from +0,
//     one fused multiply-add per step: internal/gemm for f32/f64 (its
//     contract is dot_general's, the same), a wrapping loop for integers
//     (convMatMul); and
//     stores C into the output's layout (f16/bf16 through an f32 copy of
//     the output, narrowed once at the end, in slot 3).
//
// Nothing is allocated per Run once the slots and worker scratch have
// grown to size.
type convKernel struct {
	dtype      tensor.DType
	lhs, rhs   int // sources
	out        int
	slotA      int // widened operands
	slotB      int // packed kernel, f32 output of narrow dtypes
	ns         int
	nb, g      int // batch, feature groups
	cin, og    int // input features per group, output features per group
	in, k, o   []int
	st, lo     []int
	ld, rd     []int
	lsB, lsC   int
	lsS        []int
	rsO, rsI   int
	rsS        []int
	osB, osC   int
	osS        []int
	kpos       []int         // kernel position multi-indices, row-major, ns per position
	npos       int           // output positions per batch element
	kk         int           // K = kernel positions × cin
	runs       bool          // convIm2colRuns applies
	relayout   *convRelayout // non-nil: lhs is copied as [batch, spatial…, features] into slotR first
	slotR      int
	ldc        int // > 0: output position r's features start at r·ldc (+ batch and group offsets), contiguous
	rows       int // output positions per block
	lhsN, rhsN int
	outN       int
	epi        *epilogue    // the fused elementwise consumers, or nil
	batch      *convBatch   // non-nil: the convolution runs as a convBatch (conv_batch.go)
	i8         bool         // byte operands on the int8 GEMM (conv_int8.go)
	aUnsigned  bool         // with i8: the lhs is uint8
	bFlip      bool         // with i8: the rhs is uint8, packed as w − 128 and corrected
	i8Float    tensor.DType // with i8 and no VNNI kernel: F32 or F64, the float GEMM's exact sums (convI8Float)
	bf16       bool         // bf16 operands: the bf16 rule on gemm.BF16Call (conv_bf16.go)
}

func (x *cpuExec) compileConv(f *lower.Fusion) (kernel, error) {
	root := f.Dot()
	lhs, rhs := root.Args[0], root.Args[1]
	p := root.Params.Conv
	l8, r8, aUnsigned, bFlip := x.convByteOperands(f, root)
	bf := lhs.DType == tensor.BF16 && rhs.DType == tensor.BF16
	// bf16ToF32: the bf16 rule's accumulator is the result.
	bf16ToF32 := bf && root.DType == tensor.F32 && root.Params.HasPreferred
	// Byte operands run on the int8 GEMM (conv_int8.go), reading past
	// their widening converts.
	if l8 != nil {
		x.bypass(f, lhs, l8)
		x.bypass(f, rhs, r8)
		lhs, rhs = l8, r8
	} else if (lhs.DType != root.DType || rhs.DType != root.DType) && !bf16ToF32 {
		return nil, fmt.Errorf("kernels: conv_general_dilated operands %s, %s for a %s result", lhs.DType, rhs.DType, root.DType)
	}
	switch cd := computeDType(root.DType); {
	case cd == tensor.Bool || cd.IsComplex():
		return nil, fmt.Errorf("kernels: cpu has no conv_general_dilated for %s", root.DType)
	}
	ns := p.SpatialRank()
	ls, rs, os := numerics.RowMajorStrides(lhs.Shape), numerics.RowMajorStrides(rhs.Shape), numerics.RowMajorStrides(root.Shape)
	k := &convKernel{
		dtype: root.DType, lhs: x.source(lhs), rhs: x.source(rhs), out: x.m.Plan.Of[root],
		slotA: x.newSlot(), slotB: x.newSlot(), ns: ns,
		nb: lhs.Shape[p.LhsSpec[0]], g: p.FeatureGroupCount,
		cin: rhs.Shape[p.RhsSpec[1]], og: rhs.Shape[p.RhsSpec[0]] / p.FeatureGroupCount,
		st: p.Strides, lo: p.PadLo, ld: p.LhsDilation, rd: p.RhsDilation,
		lsB: ls[p.LhsSpec[0]], lsC: ls[p.LhsSpec[1]], rsO: rs[p.RhsSpec[0]], rsI: rs[p.RhsSpec[1]],
		osB: os[p.OutSpec[0]], osC: os[p.OutSpec[1]],
		lhsN: lhs.Size(), rhsN: rhs.Size(), outN: root.Size(), bf16: bf,
		i8: l8 != nil, aUnsigned: aUnsigned, bFlip: bFlip,
	}
	nk := 1
	k.npos = 1
	for i := range ns {
		k.in = append(k.in, lhs.Shape[p.LhsSpec[2+i]])
		k.k = append(k.k, rhs.Shape[p.RhsSpec[2+i]])
		k.o = append(k.o, root.Shape[p.OutSpec[2+i]])
		k.lsS = append(k.lsS, ls[p.LhsSpec[2+i]])
		k.rsS = append(k.rsS, rs[p.RhsSpec[2+i]])
		k.osS = append(k.osS, os[p.OutSpec[2+i]])
		nk *= k.k[i]
		k.npos *= k.o[i]
	}
	idx := make([]int, ns)
	for range nk {
		k.kpos = append(k.kpos, idx...)
		for i := ns - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < k.k[i] {
				break
			}
			idx[i] = 0
		}
	}
	k.kk = nk * k.cin
	// An input whose features are not contiguous (NCHW) is first copied
	// as [batch, spatial…, features] when that lets im2col copy runs.
	undilated := true
	for _, d := range k.ld {
		undilated = undilated && d == 1
	}
	switch {
	case convBatchFits(k):
		x.planConvBatch(k, false)
	case convLinesFits(k):
		x.planConvBatch(k, true)
	}
	if k.batch == nil && ns > 0 && k.g == 1 && k.lsC != 1 && k.rd[ns-1] == 1 && undilated {
		k.relayout = &convRelayout{b: k.lsB, c: k.lsC, s: slices.Clone(k.lsS)}
		k.slotR = x.newSlot()
		st := k.cin
		for i := ns - 1; i >= 0; i-- {
			k.lsS[i] = st
			st *= k.in[i]
		}
		k.lsB, k.lsC = st, 1
	}
	if k.batch == nil && ns > 0 && k.g == 1 && k.lsC == 1 && k.lsS[ns-1] == k.cin && k.rd[ns-1] == 1 {
		k.runs = true
		for _, d := range k.ld {
			k.runs = k.runs && d == 1
		}
	}
	// NHWC-like outputs (features contiguous, positions row-major after
	// them) take the product in place.
	if k.osC == 1 {
		ldc := k.og * k.g
		ok := k.ns == 0 || k.osS[k.ns-1] == ldc
		for i := 0; ok && i+1 < k.ns; i++ {
			ok = k.osS[i] == k.osS[i+1]*k.o[i+1]
		}
		if ok {
			k.ldc = ldc
		}
	}
	// Blocks of up to 512 output positions (patch rows of at most 2 MiB):
	// each block repacks the kernel in the GEMM, so blocks stay large.
	if k.i8 {
		k.i8Float = convI8Float(k)
	}
	k.rows = max(1, min(512, (2<<20)/max(1, k.kk*k.computeSize())))
	if f.Epilogue() {
		// A block of positions of an NHWC-like output is one run of the
		// output: its worker runs the epilogue on it at once.
		e, err := x.compileEpilogue(f, root, k.ldc > 0 && narrowFn(k.dtype) == nil && k.batch == nil && k.i8Float == 0, 0, 0)
		if err != nil {
			return nil, err
		}
		k.epi = e
	}
	return k, nil
}

func (k *convKernel) run(x *cpuExec, rs *runState) {
	if k.outN == 0 {
		return
	}
	lp, rp := rs.srcs[k.lhs], rs.srcs[k.rhs]
	out, epi := k.epi.target(rs, k.out) // where the product goes
	if epi != nil {
		defer clear(epi.srcs) // hold no caller's array between Runs
	}
	if k.i8 || k.bf16 {
		switch {
		case k.bf16:
			convRunBF16(k, x, rs, out, lp, rp, epi)
		case k.i8Float != 0:
			convRunI8Float(k, x, rs, out, lp, rp)
		default:
			convRunI8(k, x, rs, out, lp, rp, epi)
		}
		if epi != nil && !k.epi.perBlock {
			epi.runAll(x, rs)
		}
		return
	}
	if w := widenFn(k.dtype); w != nil {
		a := unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotA, 0, k.lhsN*4+16)))
		b := unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotA, 1, k.rhsN*4+16)))
		w(a, lp, k.lhsN)
		w(b, rp, k.rhsN)
		lp, rp = a, b
	}
	if k.batch != nil {
		dst, narrow := out, narrowFn(k.dtype)
		if narrow != nil {
			dst = unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 1, k.outN*4+16)))
		}
		if computeDType(k.dtype) == tensor.F64 {
			convBatchRun[float64](k, x, rs, dst, lp, rp)
		} else {
			convBatchRun[float32](k, x, rs, dst, lp, rp)
		}
		if narrow != nil {
			narrow(out, dst, k.outN)
		}
		if epi != nil {
			epi.runAll(x, rs)
		}
		return
	}
	switch computeDType(k.dtype) {
	case tensor.F32:
		convRun(k, x, rs, out, lp, rp, epi, gemmMatMul[float32])
	case tensor.F64:
		convRun(k, x, rs, out, lp, rp, epi, gemmMatMul[float64])
	// Signed integers run as the unsigned type of their width: wrapping
	// products and sums have the same bits either way (two's complement),
	// and four fewer instantiations of the conv code keep a kiln-only
	// program under its size bound (TestSmallProgramIsLean).
	case tensor.I8, tensor.U8:
		convRun(k, x, rs, out, lp, rp, epi, loopMatMul[uint8])
	case tensor.I16, tensor.U16:
		convRun(k, x, rs, out, lp, rp, epi, loopMatMul[uint16])
	case tensor.I32, tensor.U32:
		convRun(k, x, rs, out, lp, rp, epi, loopMatMul[uint32])
	case tensor.I64, tensor.U64:
		convRun(k, x, rs, out, lp, rp, epi, loopMatMul[uint64])
	}
	if epi != nil && !k.epi.perBlock {
		epi.runAll(x, rs)
	}
}

// matMulFn computes c = a·b (row-major m×kk times kk×n, rows of c ldc
// apart) with dot_general's
// contract: each element accumulated over l = 0, 1, … from +0, one
// rounding per step for floats, wrapping for integers.
type matMulFn[T integer | float] func(c, a, b []T, m, kk, n, ldc int)

// gemmMatMul is internal/gemm's packed, register-blocked product (the
// same contract as dot_general's), on the calling worker's thread.
func gemmMatMul[T gemm.Float](c, a, b []T, m, kk, n, ldc int) {
	g := gemm.Call[T]{Batch: 1, M: m, N: n, K: kk, A: a, RowA: kk, ColA: 1, B: b, RowB: n, ColB: 1, C: c, LDC: ldc}
	g.Run()
}

// loopMatMul is the integer product: rows of c accumulated by axpy.
func loopMatMul[T integer](c, a, b []T, m, kk, n, ldc int) {
	convMatMul(c, a, b, m, kk, n, ldc, axpyWrap[T])
}

// axpyWrap is dst[i] += a·x[i], wrapping.
func axpyWrap[T integer](dst []T, a T, x []T) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] += a * v
	}
}

// convMatMul computes c[i][j] = Σ_l a[i][l]·b[l][j] (row-major, m×kk
// times kk×n) with each element accumulated over l = 0, 1, … from +0 by
// axpy's step.
func convMatMul[T integer | float](c, a, b []T, m, kk, n, ldc int, axpy func(dst []T, a T, x []T)) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		clear(row)
		for l, av := range a[i*kk : (i+1)*kk] {
			axpy(row, av, b[l*n:(l+1)*n])
		}
	}
}

// convJob is one Run's convolution over work units (batch element,
// block of output positions); it lives in the run state between Runs.
type convJob[T integer | float] struct {
	k      *convKernel
	lhs, w []T
	out    []T
	blocks int
	mm     matMulFn[T]
	epi    *epilogueRun // run on each block of positions, or nil
}

// convRun computes the convolution into out (the output, or an
// epilogue's product).
func convRun[T integer | float](k *convKernel, x *cpuExec, rs *runState, out, lp, rp unsafe.Pointer, epi *epilogueRun, mm matMulFn[T]) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	j := slotJob[convJob[T]](rs, k.slotA)
	j.k, j.mm, j.epi = k, mm, nil
	if epi != nil && k.epi.perBlock {
		j.epi = epi
	}
	j.lhs = view[T](lp, k.lhsN)
	if k.relayout != nil {
		var zero T
		dst := view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotR, 0, k.lhsN*int(unsafe.Sizeof(zero))+16))), k.lhsN)
		convRelayoutCopy(k, dst, j.lhs)
		j.lhs = dst
	}
	wN := k.g * k.kk * k.og
	j.w = view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 0, wN*size+16))), wN)
	convPackKernel(k, j.w, view[T](rp, k.rhsN))
	narrow := narrowFn(k.dtype)
	if narrow != nil {
		j.out = view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 1, k.outN*size+16))), k.outN)
	} else {
		j.out = view[T](out, k.outN)
	}
	j.blocks = (k.npos + k.rows - 1) / k.rows
	work := k.nb * k.npos * max(k.kk, 1) * k.og * k.g
	x.parallel(rs, k.nb*j.blocks, work, j)
	if narrow != nil {
		narrow(out, unsafe.Pointer(unsafe.SliceData(j.out)), k.outN)
	}
	j.lhs, j.w, j.out, j.epi = nil, nil, nil, nil // hold no caller's array
}

// outOffset is the output element of batch element b, group g and output
// position r's first feature (its features k.osC apart); y is scratch of
// the position's rank.
func (k *convKernel) outOffset(b, g, r int, y []int) int {
	k.position(r, y)
	off := b*k.osB + g*k.og*k.osC
	for i, v := range y {
		off += v * k.osS[i]
	}
	return off
}

// convPackKernel packs the kernel rhs as W[g][kk][o] into w.
func convPackKernel[T integer | float](k *convKernel, w, rhs []T) {
	nk := k.kk / max(k.cin, 1)
	for g := range k.g {
		for kp := range nk {
			roff := 0
			for i := range k.ns {
				roff += k.kpos[kp*k.ns+i] * k.rsS[i]
			}
			for c := range k.cin {
				dst := w[(g*k.kk+kp*k.cin+c)*k.og:][:k.og]
				src := roff + c*k.rsI + g*k.og*k.rsO
				for o := range dst {
					dst[o] = rhs[src+o*k.rsO]
				}
			}
		}
	}
}

func (j *convJob[T]) runRange(_ *runState, wk *worker, lo, hi int) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	k := j.k
	pN, cN := k.rows*k.kk, k.rows*k.og
	buf := view[T](wk.temp((pN+cN)*size+k.ns*8+16), pN+cN)
	patch, acc := buf[:pN], buf[pN:]
	// The position scratch follows the patch and accumulator in the
	// worker's temp, 8-byte aligned.
	yp := unsafe.Add(unsafe.Pointer(unsafe.SliceData(buf)), ((pN+cN)*size+7)&^7)
	y := view[int](yp, k.ns)
	if j.epi != nil {
		j.epi.e.prepare(wk, j.epi.srcs)
	}
	for u := lo; u < hi; u++ {
		b, r0 := u/j.blocks, u%j.blocks*k.rows
		r1 := min(r0+k.rows, k.npos)
		m := r1 - r0
		for g := range k.g {
			convIm2col(k, patch, j.lhs, b, g, r0, r1, y)
			w := j.w[g*k.kk*k.og : (g+1)*k.kk*k.og]
			if k.ldc > 0 { // the output's rows are the product's: write in place
				off := b*k.osB + r0*k.ldc + g*k.og
				j.mm(j.out[off:], patch[:m*k.kk], w, m, k.kk, k.og, k.ldc)
				continue
			}
			j.mm(acc[:m*k.og], patch[:m*k.kk], w, m, k.kk, k.og, k.og)
			for r := r0; r < r1; r++ {
				off := k.outOffset(b, g, r, y)
				for o, v := range acc[(r-r0)*k.og : (r-r0+1)*k.og] {
					j.out[off+o*k.osC] = v
				}
			}
		}
		if j.epi != nil { // positions [r0, r1) are one run of the output (ldc > 0)
			j.epi.e.finished(wk, j.epi.srcs, b*k.osB+r0*k.ldc, m*k.ldc)
		}
	}
}

// convIm2colRuns is convIm2col for inputs whose features are contiguous
// and whose last spatial dim steps by exactly the features (NHWC, one
// group, no lhs dilation, rhs dilation 1 along it): a patch row's
// entries for consecutive positions of the kernel's last spatial dim are
// then one run of the input, copied at once.
func convIm2colRuns[T integer | float](k *convKernel, patch, lhs []T, b, r0, r1 int, y []int) {
	ns, cin := k.ns, k.cin
	last := ns - 1
	kw := k.k[last]
	nk := len(k.kpos) / ns
	for r := r0; r < r1; r++ {
		k.position(r, y)
		row := patch[(r-r0)*k.kk : (r-r0+1)*k.kk]
		p0 := y[last]*k.st[last] - k.lo[last] // input position under kernel column 0
		lo, hi := max(0, -p0), min(kw, k.in[last]-p0)
		for kp := 0; kp < nk; kp += kw {
			dst := row[kp*cin : (kp+kw)*cin]
			off, ok := b*k.lsB, lo < hi
			for i := 0; ok && i < last; i++ {
				pos := y[i]*k.st[i] + k.kpos[kp*ns+i]*k.rd[i] - k.lo[i]
				ok = pos >= 0 && pos < k.in[i]
				off += pos * k.lsS[i]
			}
			if !ok {
				clear(dst)
				continue
			}
			clear(dst[:lo*cin])
			src := off + (p0+lo)*cin
			copy(dst[lo*cin:hi*cin], lhs[src:src+(hi-lo)*cin])
			clear(dst[hi*cin:])
		}
	}
}

// convRelayout is the lhs's own batch, feature and spatial strides when
// it is copied into [batch, spatial…, features] order first.
type convRelayout struct {
	b, c int
	s    []int
}

// convRelayoutCopy copies src (strides k.relayout) into dst in
// [batch, spatial…, features] order (strides k.lsB, k.lsS, 1), reading
// along src's innermost spatial dim.
func convRelayoutCopy[T integer | float](k *convKernel, dst, src []T) {
	r := k.relayout
	last := k.ns - 1
	rows := 1
	for i := range last {
		rows *= k.in[i]
	}
	w := k.in[last]
	for b := range k.nb {
		for c := range k.cin {
			for row := range rows {
				soff, doff, rem := b*r.b+c*r.c, b*k.lsB+c, row
				for i := last - 1; i >= 0; i-- {
					yi := rem % k.in[i]
					rem /= k.in[i]
					soff += yi * r.s[i]
					doff += yi * k.lsS[i]
				}
				ss, ds := r.s[last], k.lsS[last]
				for x := range w {
					dst[doff+x*ds] = src[soff+x*ss]
				}
			}
		}
	}
}

// position sets y to the spatial multi-index of output position r.
func (k *convKernel) position(r int, y []int) {
	for i := k.ns - 1; i >= 0; i-- {
		y[i] = r % k.o[i]
		r /= k.o[i]
	}
}

// im2col fills patch rows r0…r1 of batch element b and group g: row r,
// column kp·cin + c is the (dilated, padded) lhs element under kernel
// position kp and input feature c, or zero.
func convIm2col[T integer | float](k *convKernel, patch, lhs []T, b, g, r0, r1 int, y []int) {
	if k.runs {
		convIm2colRuns(k, patch, lhs, b, r0, r1, y)
		return
	}
	var zero T
	for r := r0; r < r1; r++ {
		k.position(r, y)
		row := patch[(r-r0)*k.kk : (r-r0+1)*k.kk]
		nk := len(k.kpos) / max(k.ns, 1)
		if k.ns == 0 {
			nk = 1
		}
		for kp := range nk {
			dst := row[kp*k.cin : (kp+1)*k.cin]
			off, ok := b*k.lsB+g*k.cin*k.lsC, true
			for i := range k.ns {
				pos := y[i]*k.st[i] + k.kpos[kp*k.ns+i]*k.rd[i] - k.lo[i]
				if pos < 0 || pos%k.ld[i] != 0 || pos/k.ld[i] >= k.in[i] {
					ok = false
					break
				}
				off += pos / k.ld[i] * k.lsS[i]
			}
			switch {
			case !ok:
				for c := range dst {
					dst[c] = zero
				}
			case k.lsC == 1:
				copy(dst, lhs[off:off+k.cin])
			default:
				for c := range dst {
					dst[c] = lhs[off+c*k.lsC]
				}
			}
		}
	}
}
