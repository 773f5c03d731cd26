package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
)

// convBatch is the plan of a float convolution with few output positions
// per batch element and a long contraction — the kernel cotangent of a
// convolution (trace's convTransposeRHS: the input convolved with the
// output cotangent, its batch the input's features, its "kernel" the
// whole output image) is the common one. Im2col in blocks of positions
// would give the GEMM a handful of rows, each patch row tens of thousands
// of steps long; instead the micro-kernel's rows are batch elements:
//
//  1. the lhs is copied once as X in panels of batch elements (12·4 + 8 + 8
//     for 64 on 12-row tiles: batchPanels; 14·4 + 8 on the 14-row tiles
//     used against an rhs read in place, simd.GemmF32Tall), each panel
//     [padded spatial…][c][r] with r its MR rows innermost (zeros in the
//     padding and past the batch), so that for a fixed output position
//     and a fixed kernel position outside the last spatial dim, the steps
//     along the last kernel dim and the input features (kb = k_last · cin
//     of the K order) are one contiguous run of the micro-kernel's packed
//     a panel (ra 1, sa MR), and the copy moves runs of the lhs's batch
//     (a kernel cotangent's batch is the input's contiguous features);
//  2. the kernel is packed as W[kk][o] (kk the contract's K order) in
//     panels of the micro-kernel's NR columns (zero past og), each panel
//     contiguous — unless the kernel's output features are contiguous and
//     whole NR panels and the tier has the two-stride micro-kernel
//     (simd.GemmKernel.Run2, AVX-512 f32): then the products read it in
//     place, a run's steps along the last kernel dim one stride apart and
//     its input features another (a kernel cotangent's output cotangent:
//     no W);
//  3. each worker takes a share of the output tiles (an output position ×
//     a panel) and, for each kernel-position run q in order,
//     calls the micro-kernel on every tile of its share and every NR
//     columns of W: kb steps continuing from the tile the previous run
//     stored (a private f32/f64 accumulator), so each element is still
//     accumulated over kk in order from +0, one FMA per step — the
//     contract's bits, as the im2col path's — while W's run of kb rows
//     stays in L2 across the share;
//  4. the accumulator is copied into the output's layout.
//
// The lines form (convLinesFits) reads X[b][padded spatial…][c] (batch
// element b a plane apart, no panels) with
// output positions as the rows, rowStep apart — or, inPlace (an
// NHWC-like lhs), no X: the rows are read from the lhs itself, or from a
// private patch with the padding's zeros near its edges.
//
// Nothing is allocated per Run once the slots and worker scratch have
// grown to size.
type convBatch struct {
	pad    []int // padded spatial extents
	ps     []int // strides of X's spatial dims (ps[last] = cin)
	plane  int   // elements of X per batch element (not a multiple of 2 KiB, so rows do not alias in L1)
	kb     int   // steps per micro-kernel call: k_last · cin
	qoff   []int // X offset of kernel-position run q (the kernel dims before the last)
	roff   []int // rhs offset of kernel-position run q's first kernel position
	posoff []int // X offset of output position r
	outoff []int // output offset of output position r (its spatial part)
	rows   int   // Π pad[i] for i < last: the copy's units
	slotX  int
	// lines: the micro-kernel's rows are output positions along the last
	// spatial dim instead (convLinesFits), rowStep apart in X; posoff and
	// outoff are then per line (output positions whose last index is 0).
	lines   bool
	rowStep int
	// inPlace: a lines convBatch whose lhs positions along the last dim
	// are cin apart (NHWC-like) has no X: its tiles read the lhs in
	// place, those whose window reaches into the padding through a
	// private patch; lineY holds each line's output position in the
	// dims before the last.
	inPlace bool
	lineY   []int
}

// convBatchFits says whether k runs as a convBatch: f32/f64 compute
// (f16/bf16 widened first), one group, at least one spatial dim, no lhs
// dilation, no negative padding, no rhs dilation along the last spatial
// dim, few output positions, enough batch elements to fill tiles and a
// contraction long enough for the copy to pay.
func convBatchFits(k *convKernel) bool {
	if k.bf16 { // the bf16 rule's pairs run on the bf16 GEMM (conv_bf16.go)
		return false
	}
	if cd := computeDType(k.dtype); cd != tensor.F32 && cd != tensor.F64 {
		return false
	}
	if k.ns == 0 || k.g != 1 || k.rd[k.ns-1] != 1 {
		return false
	}
	for i := range k.ns {
		if k.ld[i] != 1 || k.lo[i] < 0 {
			return false
		}
	}
	return k.npos <= 64 && k.nb >= 8 && k.kk >= 1024
}

// convLinesFits says whether k runs as a convBatch whose micro-kernel rows
// are output positions along the last spatial dim (an implicit GEMM: no
// im2col, the rows read in place from the padded copy of the lhs, which
// is the size of the input, not nine times it): f32/f64 compute, NHWC-like
// input and output (features contiguous), one group, no lhs dilation, no
// negative padding, no rhs dilation along the last dim, and runs of at
// least 32 steps.
func convLinesFits(k *convKernel) bool {
	if k.bf16 { // the bf16 rule's pairs run on the bf16 GEMM (conv_bf16.go)
		return false
	}
	if cd := computeDType(k.dtype); cd != tensor.F32 && cd != tensor.F64 {
		return false
	}
	if k.ns == 0 || k.g != 1 || k.lsC != 1 || k.osC != 1 || k.rd[k.ns-1] != 1 {
		return false
	}
	for i := range k.ns {
		if k.ld[i] != 1 || k.lo[i] < 0 {
			return false
		}
	}
	return k.o[k.ns-1] >= 4 && k.k[k.ns-1]*k.cin >= 32
}

// planConvBatch fills k.batch (convBatchFits(k) holds, or, with lines,
// convLinesFits(k)).
func (x *cpuExec) planConvBatch(k *convKernel, lines bool) {
	ns, last := k.ns, k.ns-1
	bb := &convBatch{pad: make([]int, ns), ps: make([]int, ns), kb: k.k[last] * k.cin, slotX: x.newSlot(), rows: 1, lines: lines}
	for i := range ns {
		bb.pad[i] = max(k.lo[i]+k.in[i], (k.o[i]-1)*k.st[i]+(k.k[i]-1)*k.rd[i]+1)
	}
	st := k.cin
	for i := last; i >= 0; i-- {
		bb.ps[i] = st
		st *= bb.pad[i]
	}
	size := computeDType(k.dtype).Size()
	bb.plane = st
	if bb.plane*size%2048 == 0 {
		bb.plane += 64 / size
	}
	for i := range last {
		bb.rows *= bb.pad[i]
	}
	nk := len(k.kpos) / ns
	for kp := 0; kp < nk; kp += k.k[last] {
		off := 0
		for i := range last {
			off += k.kpos[kp*ns+i] * k.rd[i] * bb.ps[i]
		}
		bb.qoff = append(bb.qoff, off)
		roff := 0
		for i := range ns {
			roff += k.kpos[kp*ns+i] * k.rsS[i]
		}
		bb.roff = append(bb.roff, roff)
	}
	bb.rowStep = k.st[last] * k.cin
	bb.inPlace = lines && k.lsS[last] == k.cin
	y := make([]int, ns)
	for r := range k.npos {
		k.position(r, y)
		if lines && y[last] != 0 {
			continue
		}
		if lines {
			bb.lineY = append(bb.lineY, y[:last]...)
		}
		xo, oo := 0, 0
		for i := range ns {
			xo += y[i] * k.st[i] * bb.ps[i]
			oo += y[i] * k.osS[i]
		}
		bb.posoff = append(bb.posoff, xo)
		bb.outoff = append(bb.outoff, oo)
	}
	k.batch = bb
}

// gemmKernel is the tier's micro-kernel for T.
func gemmKernel[T gemm.Float]() simd.GemmKernel[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(simd.GemmF32()).(simd.GemmKernel[T])
	}
	return any(simd.GemmF64()).(simd.GemmKernel[T])
}

// gemmKernelTall is the tier's micro-kernel chain for T's tall panels
// (simd.GemmF32Tall; f64's is its GemmF64).
func gemmKernelTall[T gemm.Float]() simd.GemmKernel[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(simd.GemmF32Tall()).(simd.GemmKernel[T])
	}
	return gemmKernel[T]()
}

// linesChain is the micro-kernel chain for a lines convBatch whose lines
// hold n output positions: the tall chain (14 rows on AVX-512) where its
// tiles cost less than the tier's kernel's, by lineCost. E6k's and its
// input cotangent's 56 positions go as 14·4 rather than 12·4 + 8: 5%
// faster each, in 7 alternated rounds on the 2-core Xeon
// (go test -bench 'E6kb/input|E6Promoted/E6k/kiln' ./bench).
func linesChain[T gemm.Float](n int) simd.GemmKernel[T] {
	mk, tall := gemmKernel[T](), gemmKernelTall[T]()
	if tall.MR != mk.MR && lineCost(&tall, n) < lineCost(&mk, n) {
		return tall
	}
	return mk
}

// tileSteps is what a micro-kernel call costs beyond its rows, in rows:
// an empirical fit, not a model of the pipeline — the AVX-512 f32 kernels'
// measured single-core rates on 8, 12 and 14 rows (112, 147 and 159
// GFLOP/s) are in the ratios of rows/(rows+18), the work a step does
// whatever its rows (b's loads, the loop) weighing as much as 18 rows'.
const tileSteps = 18

// lineCost is the cost of a line of n output positions on chain mk, as
// lineProducts tiles it: whole MR-row tiles, then the last on the
// chain's shortest form that covers it, each costing its rows (padding
// rows included) and tileSteps.
func lineCost[T gemm.Float](mk *simd.GemmKernel[T], n int) int {
	cost := 0
	for x := 0; x < n; x += mk.MR {
		cost += mk.For(min(mk.MR, n-x)).MR + tileSteps
	}
	return cost
}

// convBatchJob is one Run of a convBatch, in two phases (each one
// parallel job): the copy of the lhs and the packing of the kernel, then
// the products.
type convBatchJob[T gemm.Float] struct {
	k        *convKernel
	phase    int
	lhs, rhs []T
	xp, w    []T
	out      []T
	mk       simd.GemmKernel[T]
	nbp, ogp int  // rows of X: the batch rounded up to MR (batch-major: the panels' widths); og rounded up to NR
	tiles    int  // output positions × panels (lines: batch × lines × perLine)
	shares   int  // the product phase's units
	perLine  int  // lines: tiles per line
	copies   int  // the copy phase's units (rows of padded positions), before the packing's
	inB      bool // batch-major on Run2: the products read the rhs in place, no W
	panels   []batchPanel[T]
	// panelsFor is the micro-kernel chain the panels were planned for.
	panelsFor panelKey[T]
}

// panelKey identifies a tier's micro-kernel chain (its rows, columns and
// smaller forms).
type panelKey[T gemm.Float] struct {
	mr, nr int
	low    *simd.GemmKernel[T]
}

// batchPanel is one panel of batch elements of a batch-major convBatch:
// rows [start, start+rows) on kernel k, packed in X as k.MR-wide vectors
// (rows past the batch zero) from element base on.
type batchPanel[T gemm.Float] struct {
	start, rows, base int
	k                 *simd.GemmKernel[T]
}

// batchPanels splits nb batch elements into panels for mk's chain: whole
// MR-row panels, and where a short remainder would be left on a kernel of
// few rows (64 on 12 rows as 12·5 + 4) one panel fewer of MR rows and two
// of Low's (12·4 + 8 + 8), whose steps run near the full kernel's rate.
func batchPanels[T gemm.Float](nb int, mk *simd.GemmKernel[T]) []batchPanel[T] {
	var ps []batchPanel[T]
	for b := 0; b < nb; {
		n := nb - b
		m := mk.For(n)
		if lo := mk.Low; lo != nil && n > mk.MR && n < 2*mk.MR && n-lo.MR <= lo.MR {
			m = lo
		}
		ps = append(ps, batchPanel[T]{start: b, rows: min(m.MR, n), k: m})
		b += m.MR
	}
	return ps
}

// convBatchRun computes the convolution into out (the output, or an
// epilogue's product, or the f32 copy of a narrow output).
func convBatchRun[T gemm.Float](k *convKernel, x *cpuExec, rs *runState, out, lp, rp unsafe.Pointer) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	bb := k.batch
	j := slotJob[convBatchJob[T]](rs, bb.slotX)
	j.k, j.mk = k, gemmKernel[T]()
	if bb.lines {
		j.mk = linesChain[T](k.o[k.ns-1])
	} else if tall := gemmKernelTall[T](); tall.Run2 != nil && k.rsO == 1 && k.og%tall.NR == 0 {
		// Batch-major rows against an rhs that Run2 reads in place
		// (inB, below): the tall chain's panels (64 rows as 14·4 + 8 on
		// AVX-512), whose Run2 runs nearer the FMA peak.
		j.mk = tall
	}
	mr, nr := j.mk.MR, j.mk.NR
	j.nbp = (k.nb + mr - 1) / mr * mr
	j.ogp = (k.og + nr - 1) / nr * nr
	j.tiles = k.npos * (j.nbp / mr)
	slack := 0
	copies := bb.rows
	if bb.lines {
		// Tiles of MR positions along each line; a short last tile runs
		// on the kernel's Low form where it has one, else its rows past
		// the line read (in bounds: the slack; or from the lhs or a
		// patch, inPlace) and are dropped.
		j.nbp, j.perLine = k.nb, (k.o[k.ns-1]+mr-1)/mr
		j.tiles = k.nb * len(bb.posoff) * j.perLine
		slack = mr*bb.rowStep + bb.kb
		if bb.inPlace {
			j.nbp, slack, copies = 0, 0, 0
		}
	}
	if !bb.lines {
		// X holds the batch in panels, each packed as its kernel's
		// MR-wide vectors: the micro-kernel's a panel is one contiguous
		// run (ra 1, sa MR), and the copy moves runs of the lhs's
		// contiguous batch instead of scattering elements to planes.
		// The panels are planned once per micro-kernel chain: a Run at
		// another tier (simd.SetLevel between Runs of one executable) has
		// another MR and Low, and the old panels' widths would overrun
		// its tiles.
		if key := (panelKey[T]{mr, nr, j.mk.Low}); j.panels == nil || j.panelsFor != key {
			j.panels, j.panelsFor = batchPanels(k.nb, &j.mk), key
		}
		j.nbp = 0
		for i := range j.panels {
			j.panels[i].base = j.nbp * bb.plane
			j.nbp += j.panels[i].k.MR
		}
		j.tiles = k.npos * len(j.panels)
		// Where every panel's kernel has Run2 and the rhs's output
		// features are contiguous and whole NR panels, the products
		// read the rhs in place: a run's steps along the kernel's last
		// dim and the input features are two strides, not a packed W.
		j.inB = k.rsO == 1 && k.og%nr == 0
		for _, pn := range j.panels {
			j.inB = j.inB && pn.k.Run2 != nil
		}
	}
	j.lhs, j.rhs = view[T](lp, k.lhsN), view[T](rp, k.rhsN)
	xn, wn := j.nbp*bb.plane+slack, k.kk*j.ogp
	packs := len(k.kpos) / k.ns
	if j.inB {
		packs, wn = 0, 0
	}
	j.xp = view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(bb.slotX, 0, xn*size+16))), xn)
	j.w = view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 0, wn*size+16))), wn)
	j.out = view[T](out, k.outN)
	// The copy of the lhs (rows of padded positions; none inPlace) and
	// the packing of the kernel (one unit per kernel position; none
	// inB) are one parallel phase — they are independent — then the
	// products.
	j.phase, j.copies = 0, copies
	if copies+packs > 0 {
		x.parallel(rs, copies+packs, xn+wn, j)
	}
	j.phase = 2
	// Three shares per worker: each share streams all of W once, and a
	// worker the machine delays leaves its later shares to the others.
	// Lines' W is small (a kernel, in L2): every tile is a unit.
	j.shares = min(j.tiles, 3*max(1, x.cpu.workers()))
	if bb.lines {
		j.shares = j.tiles
	}
	x.parallel(rs, j.shares, k.nb*k.npos*k.kk*k.og, j)
	j.lhs, j.rhs, j.xp, j.w, j.out = nil, nil, nil, nil, nil // hold no caller's array
}

func (j *convBatchJob[T]) runRange(rs *runState, wk *worker, lo, hi int) {
	switch j.phase {
	case 0:
		if c := min(hi, j.copies); lo < c {
			if j.k.batch.lines {
				j.copyLhs(lo, c)
			} else {
				j.copyPanels(lo, c)
			}
		}
		if lo = max(lo, j.copies); lo < hi {
			j.packKernel(lo-j.copies, hi-j.copies)
		}
	default:
		if j.k.batch.lines {
			j.lineProducts(rs, wk, lo, hi)
			return
		}
		for u := lo; u < hi; u++ {
			j.products(rs, wk, u)
		}
	}
}

// lineProducts computes tiles [lo, hi) of a lines convBatch: tile t is MR
// output positions along one line of one batch element, accumulated over
// the kernel-position runs in K order — straight into the output when the
// tile is whole (every row a position, every NR columns features), else
// in a private tile copied out.
func (j *convBatchJob[T]) lineProducts(rs *runState, wk *worker, lo, hi int) {
	k, bb, mk := j.k, j.k.batch, &j.mk
	mr, nr, kb, last := mk.MR, mk.NR, bb.kb, k.ns-1
	lines := len(bb.posoff)
	var zero T
	patchN := 0 // inPlace: a tile's window, (MR−1)·stride + k_last positions
	if bb.inPlace {
		patchN = ((mr-1)*k.st[last] + k.k[last]) * k.cin
	}
	buf := view[T](wk.temp((mr*j.ogp+patchN)*int(unsafe.Sizeof(zero))), mr*j.ogp+patchN)
	tile, patch := buf[:mr*j.ogp], buf[mr*j.ogp:]
	ldo := k.osS[last]
	for t := lo; t < hi; t++ {
		if rs.stopped() {
			return // the run was cancelled: the output is unspecified
		}
		xt := t % j.perLine
		line := t / j.perLine % lines
		b := t / j.perLine / lines
		x0 := xt * mr
		rows := min(mr, k.o[last]-x0)
		m := mk.For(rows) // a short last tile on the Low form, where there is one
		abase := b*bb.plane + bb.posoff[line] + x0*bb.rowStep
		obase := b*k.osB + bb.outoff[line] + x0*ldo
		c, ldc := tile, j.ogp
		direct := rows == m.MR && k.og == j.ogp
		if direct {
			c, ldc = j.out[obase:obase+(rows-1)*ldo+k.og], ldo
		}
		for q, qo := range bb.qoff {
			var a []T
			if bb.inPlace {
				a = j.inPlaceRun(patch, b, line, q, x0, (m.MR-1)*k.st[last]+k.k[last])
			} else {
				a = j.xp[abase+qo : abase+qo+(m.MR-1)*bb.rowStep+kb]
			}
			for jr := 0; jr < j.ogp; jr += nr {
				w := j.w[(jr/nr*k.kk+q*kb)*nr:][:kb*nr]
				m.Run(kb, a, bb.rowStep, 1, w, nr, c[jr:jr+(m.MR-1)*ldc+nr], ldc, q > 0)
			}
		}
		if direct {
			continue
		}
		for r := range rows {
			copy(j.out[obase+r*ldo:obase+r*ldo+k.og], tile[r*j.ogp:r*j.ogp+k.og])
		}
	}
}

// inPlaceRun is the run of kernel-position run q for the tile of an
// inPlace lines convBatch at x0 on line line of batch element b, whose
// rows' windows span span input positions along the last dim: the lhs
// itself where the span lies inside the input, else a copy into patch
// with zeros for the padding (the whole patch when run q's positions in
// the other dims are padding).
func (j *convBatchJob[T]) inPlaceRun(patch []T, b, line, q, x0, span int) []T {
	k, bb := j.k, j.k.batch
	last, cin := k.ns-1, k.cin
	kp := q * k.k[last] // the run's first kernel position
	off, in := b*k.lsB, true
	for i := range last {
		v := bb.lineY[line*last+i]*k.st[i] + k.kpos[kp*k.ns+i]*k.rd[i] - k.lo[i]
		in = in && v >= 0 && v < k.in[i]
		off += v * k.lsS[i]
	}
	u0 := x0*k.st[last] - k.lo[last]
	if in && u0 >= 0 && u0+span <= k.in[last] {
		return j.lhs[off+u0*cin : off+(u0+span)*cin]
	}
	for p := range span {
		dst := patch[p*cin : p*cin+cin]
		if u := u0 + p; in && u >= 0 && u < k.in[last] {
			copy(dst, j.lhs[off+u*cin:])
		} else {
			clear(dst)
		}
	}
	return patch[:span*cin]
}

// copyLhs writes rows [lo, hi) of padded positions (of the spatial dims
// before the last) of X for every batch element: X[b][p…][c] is the lhs
// element at spatial position p − lo, or zero in the padding. It goes
// through the batch in blocks of copyBlock elements, so that its writes
// advance along that many planes of X at a time (one page each), not
// along all of them (a kernel cotangent's lhs is the input read with its
// features as the batch: the batch is the input's contiguous dim).
func (j *convBatchJob[T]) copyLhs(lo, hi int) {
	const copyBlock = 16
	k, bb := j.k, j.k.batch
	last := k.ns - 1
	run := bb.pad[last] * k.cin // one row of X
	for row := lo; row < hi; row++ {
		// The row's X offset and lhs offset, and whether it is padding.
		xo, src0, in, rem := 0, 0, true, row
		for i := last - 1; i >= 0; i-- {
			p := rem % bb.pad[i]
			rem /= bb.pad[i]
			xo += p * bb.ps[i]
			v := p - k.lo[i]
			in = in && v >= 0 && v < k.in[i]
			src0 += v * k.lsS[i]
		}
		if !in {
			for b := range k.nb {
				clear(j.xp[b*bb.plane+xo : b*bb.plane+xo+run])
			}
			continue
		}
		for b0 := 0; b0 < k.nb; b0 += copyBlock {
			b1 := min(k.nb, b0+copyBlock)
			for p := range bb.pad[last] {
				v := p - k.lo[last]
				dst := xo + p*k.cin
				if v < 0 || v >= k.in[last] {
					for b := b0; b < b1; b++ {
						clear(j.xp[b*bb.plane+dst : b*bb.plane+dst+k.cin])
					}
					continue
				}
				src := src0 + v*k.lsS[last]
				if k.lsC == 1 {
					for b := b0; b < b1; b++ {
						copy(j.xp[b*bb.plane+dst:b*bb.plane+dst+k.cin], j.lhs[src+b*k.lsB:])
					}
					continue
				}
				for c := range k.cin {
					s, d := src+c*k.lsC, dst+c
					if k.lsB == 1 {
						// b1−b0 values, contiguous in the lhs, to as many
						// planes of X: both ranges checked once, above
						// (the slice expressions), not per element.
						src := j.lhs[s+b0 : s+b1]
						dst := j.xp[b0*bb.plane+d : (b1-1)*bb.plane+d+1]
						scatter(dst, src, bb.plane)
						continue
					}
					for b := b0; b < b1; b++ {
						j.xp[b*bb.plane+d] = j.lhs[s+b*k.lsB]
					}
				}
			}
		}
	}
	if hi == bb.rows {
		clear(j.xp[k.nb*bb.plane : j.nbp*bb.plane]) // the tiles' padding rows
	}
}

// packKernel writes kernel positions [lo, hi) of W, in panels of NR
// output features (the micro-kernel's columns): panel p holds row
// kp·cin + c's features [p·NR, p·NR + NR) at (p·kk + kp·cin + c)·NR,
// zero past og, so each call of the micro-kernel streams one contiguous
// run of W.
func (j *convBatchJob[T]) packKernel(lo, hi int) {
	k, nr := j.k, j.mk.NR
	for kp := lo; kp < hi; kp++ {
		roff := 0
		for i := range k.ns {
			roff += k.kpos[kp*k.ns+i] * k.rsS[i]
		}
		for c := range k.cin {
			src, row := roff+c*k.rsI, kp*k.cin+c
			for p := 0; p*nr < j.ogp; p++ {
				dst := j.w[(p*k.kk+row)*nr:][:nr]
				o0, o1 := p*nr, min(k.og, p*nr+nr)
				if o1 <= o0 {
					clear(dst)
					continue
				}
				if k.rsO == 1 {
					copy(dst, j.rhs[src+o0:src+o1])
				} else {
					for o := o0; o < o1; o++ {
						dst[o-o0] = j.rhs[src+o*k.rsO]
					}
				}
				clear(dst[o1-o0:])
			}
		}
	}
}

// products computes share u of the output tiles (an output position × a
// panel, panel-major: tile t is position t mod npos of panel t / npos, so
// a share's tiles read the same panel's rows of X, which stay in cache
// across its positions, rather than every panel's): for each
// kernel-position run q in order, every tile of the share over kb more
// steps.
func (j *convBatchJob[T]) products(rs *runState, wk *worker, u int) {
	k, bb, mk := j.k, j.k.batch, &j.mk
	mr, nr, kb := mk.MR, mk.NR, bb.kb
	t0, t1 := u*j.tiles/j.shares, (u+1)*j.tiles/j.shares
	var zero T
	tile := mr * j.ogp
	accN := (t1 - t0) * tile
	acc := view[T](wk.temp(accN*int(unsafe.Sizeof(zero))), accN)
	for q, qo := range bb.qoff {
		if rs.stopped() {
			return // the run was cancelled: the output is unspecified
		}
		for t := t0; t < t1; t++ {
			pos, pn := t%k.npos, &j.panels[t/k.npos]
			m := pn.k
			off := pn.base + (bb.posoff[pos]+qo)*m.MR
			a := j.xp[off : off+kb*m.MR]
			c := acc[(t-t0)*tile:]
			for jr := 0; jr < j.ogp; jr += nr {
				ct := c[jr : jr+(m.MR-1)*j.ogp+nr]
				if j.inB {
					m.Run2(k.k[k.ns-1], k.cin, a, j.rhs[bb.roff[q]+jr:], k.rsS[k.ns-1], k.rsI, ct, j.ogp, q > 0)
					continue
				}
				w := j.w[(jr/nr*k.kk+q*kb)*nr:][:kb*nr]
				m.Run(kb, a, 1, m.MR, w, nr, ct, j.ogp, q > 0)
			}
		}
	}
	for t := t0; t < t1; t++ {
		pos, pn := t%k.npos, &j.panels[t/k.npos]
		for r := range pn.rows {
			b := pn.start + r
			src := acc[(t-t0)*tile+r*j.ogp:][:k.og]
			off := b*k.osB + bb.outoff[pos]
			if k.osC == 1 {
				copy(j.out[off:off+k.og], src)
				continue
			}
			for o, v := range src {
				j.out[off+o*k.osC] = v
			}
		}
	}
}

// copyPanels writes rows [lo, hi) of padded positions (of the spatial
// dims before the last) of a batch-major X: panel p's element for batch
// row r at padded position index x (in X's units: positions × features)
// is at base + x·MR + r, the lhs element of batch element start + r at
// spatial position p − lo, or zero in the padding and past the batch.
func (j *convBatchJob[T]) copyPanels(lo, hi int) {
	k, bb := j.k, j.k.batch
	last := k.ns - 1
	run := bb.pad[last] * k.cin // one row of X, in X's units
	for row := lo; row < hi; row++ {
		xo, src0, in, rem := 0, 0, true, row
		for i := last - 1; i >= 0; i-- {
			p := rem % bb.pad[i]
			rem /= bb.pad[i]
			xo += p * bb.ps[i]
			v := p - k.lo[i]
			in = in && v >= 0 && v < k.in[i]
			src0 += v * k.lsS[i]
		}
		if !in {
			for _, pn := range j.panels {
				w := pn.k.MR
				clear(j.xp[pn.base+xo*w : pn.base+(xo+run)*w])
			}
			continue
		}
		for p := range bb.pad[last] {
			v := p - k.lo[last]
			xp := xo + p*k.cin
			if v < 0 || v >= k.in[last] {
				for _, pn := range j.panels {
					w := pn.k.MR
					clear(j.xp[pn.base+xp*w : pn.base+(xp+k.cin)*w])
				}
				continue
			}
			src := src0 + v*k.lsS[last]
			for c := range k.cin {
				s := src + c*k.lsC
				for _, pn := range j.panels {
					w := pn.k.MR
					dst := j.xp[pn.base+(xp+c)*w:][:w]
					if k.lsB == 1 {
						copy(dst[:pn.rows], j.lhs[s+pn.start:s+pn.start+pn.rows])
					} else {
						for r := range pn.rows {
							dst[r] = j.lhs[s+(pn.start+r)*k.lsB]
						}
					}
					clear(dst[pn.rows:])
				}
			}
		}
	}
}

// scatter writes src[i] to dst[i·stride] for every i; dst holds
// (len(src)−1)·stride + 1 elements (the caller slices it so).
func scatter[T gemm.Float](dst, src []T, stride int) {
	if len(src) == 0 || len(dst) < (len(src)-1)*stride+1 {
		return
	}
	var zero T
	step := uintptr(stride) * unsafe.Sizeof(zero)
	p := unsafe.Pointer(unsafe.SliceData(dst))
	for i, v := range src {
		*(*T)(unsafe.Add(p, uintptr(i)*step)) = v // within dst: checked above
	}
}
