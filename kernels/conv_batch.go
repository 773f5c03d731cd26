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
//  1. the lhs is copied once in panels of the micro-kernel's MR batch
//     elements, X[panel][padded spatial…][c][r] (r the batch element
//     within the panel; a remainder of rows on the micro-kernel's Low
//     form, each panel as wide as its kernel's rows; zeros in the
//     padding and past the batch), so that for a fixed output position and a fixed kernel
//     position outside the last spatial dim, the steps along the last
//     kernel dim and the input features (kb = k_last · cin of the K
//     order) are one contiguous run of X: the micro-kernel reads a tile's
//     rows as one packed stream (row stride 1, step stride the width);
//  2. the kernel is packed as W[kk][o] (kk the contract's K order) in
//     panels of the micro-kernel's NR columns (zero past og), each panel
//     contiguous;
//  3. each unit of work is a group of output positions of one panel (a
//     tile each: an output position × the panel's batch elements) and,
//     for each kernel-position run q in order and each chunk of it short
//     enough for the chunk of a W panel to stay in L1, calls the
//     micro-kernel on every tile of the group:
//     the chunk's steps continuing from the tile the previous chunk
//     stored (a private f32/f64 accumulator), so each element is still
//     accumulated over kk in order from +0, one FMA per step — the
//     contract's bits, as the im2col path's;
//  4. the accumulator is copied into the output's layout.
//
// The lines form reads X[b][padded spatial…][c] instead, its rows
// (output positions) rowStep apart in one batch element's plane — or,
// inPlace (NHWC-like lhs), no X: the rows are read from the lhs itself,
// rowStep apart, or from a private patch with the padding's zeros near
// the edges.
//
// Nothing is allocated per Run once the slots and worker scratch have
// grown to size.
type convBatch struct {
	pad    []int // padded spatial extents
	ps     []int // strides of X's spatial dims (ps[last] = cin)
	plane  int   // lines: elements of X per batch element (not a multiple of 2 KiB, so rows do not alias in L1); else per batch element of a panel
	kb     int   // steps per micro-kernel call: k_last · cin
	qoff   []int // X offset of kernel-position run q (the kernel dims before the last)
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
	if lines && bb.plane*size%2048 == 0 {
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
	ogp      int // og rounded up to NR
	copies   int // the first phase's copy units (rows of X; none for inPlace lines)
	pan      []convPanel[T]
	groups   int // not lines: product units per panel, each a range of output positions
	tiles    int // lines: batch × lines × perLine
	perLine  int // lines: tiles per line
}

// convPanel is one panel of a batch-major convBatch's X: batch elements
// [b0, b0+rows), at base in X, w wide (the rows of its micro-kernel mk;
// those past rows are zero).
type convPanel[T gemm.Float] struct {
	base, w, b0, rows int
	mk                *simd.GemmKernel[T]
}

// panels lays out j.pan for nb batch elements in panels of the
// micro-kernel's MR rows and returns X's size. A remainder of a few rows
// goes with the last whole panel into two panels on the kernel's Low form
// (64 on 12-row tiles: 12·4 + 8 + 8, not 12·5 + 4), so that the panels,
// which are also the product phase's units, come out near one size.
func (j *convBatchJob[T]) panels(nb, plane int) int {
	mr := j.mk.MR
	n, r := nb/mr, nb%mr
	j.pan = j.pan[:0]
	add := func(rows int) {
		m := j.mk.For(rows)
		b0, base := 0, 0
		if len(j.pan) > 0 {
			l := j.pan[len(j.pan)-1]
			b0, base = l.b0+l.rows, l.base+l.w*plane
		}
		j.pan = append(j.pan, convPanel[T]{base: base, w: m.MR, b0: b0, rows: rows, mk: m})
	}
	split := r > 0 && n > 0 && j.mk.Low != nil && mr+r <= 2*j.mk.Low.MR
	if split {
		n--
	}
	for range n {
		add(mr)
	}
	switch {
	case split:
		add(j.mk.Low.MR)
		add(mr + r - j.mk.Low.MR)
	case r > 0:
		add(r)
	}
	l := j.pan[len(j.pan)-1]
	return l.base + l.w*plane
}

// convBatchRun computes the convolution into out (the output, or an
// epilogue's product, or the f32 copy of a narrow output).
func convBatchRun[T gemm.Float](k *convKernel, x *cpuExec, rs *runState, out, lp, rp unsafe.Pointer) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	bb := k.batch
	j := slotJob[convBatchJob[T]](rs, bb.slotX)
	j.k, j.mk = k, gemmKernel[T]()
	mr, nr := j.mk.MR, j.mk.NR
	j.ogp = (k.og + nr - 1) / nr * nr
	workers := max(1, x.cpu.workers())
	var xn, units int
	if bb.lines {
		// Tiles of MR positions along each line; a short last tile runs
		// on the kernel's Low form where it has one, else its rows past
		// the line read (in bounds: the slack) and are dropped. Lines'
		// W is small (a kernel, in L2): every tile is a unit.
		j.perLine = (k.o[k.ns-1] + mr - 1) / mr
		j.tiles = k.nb * len(bb.posoff) * j.perLine
		xn = k.nb*bb.plane + mr*bb.rowStep + bb.kb
		j.copies, units = bb.rows, j.tiles
		if bb.inPlace {
			xn, j.copies = 0, 0
		}
	} else {
		// About three units per worker (each streams all of W once, and
		// a worker the machine delays leaves its later units to the
		// others): each panel's output positions in as many groups as
		// that takes, one group per unit.
		xn = j.panels(k.nb, bb.plane)
		np := len(j.pan)
		j.groups = min(k.npos, (3*workers+np-1)/np)
		j.copies = bb.rows
		units = np * j.groups
	}
	j.lhs, j.rhs = view[T](lp, k.lhsN), view[T](rp, k.rhsN)
	wn := k.kk * j.ogp
	j.xp = view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(bb.slotX, 0, xn*size+16))), xn)
	j.w = view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 0, wn*size+16))), wn)
	j.out = view[T](out, k.outN)
	// The copy of the lhs (rows of padded positions) and the packing of
	// the kernel (one unit per kernel position), then the products.
	j.phase = 0
	x.parallel(rs, j.copies+len(k.kpos)/k.ns, xn+wn, j)
	j.phase = 1
	x.parallel(rs, units, k.nb*k.npos*k.kk*k.og, j)
	j.lhs, j.rhs, j.xp, j.w, j.out = nil, nil, nil, nil, nil // hold no caller's array
}

func (j *convBatchJob[T]) runRange(rs *runState, wk *worker, lo, hi int) {
	switch {
	case j.phase == 0:
		if c := min(hi, j.copies); lo < c {
			if j.k.batch.lines {
				j.copyLhs(lo, c)
			} else {
				for p := range j.pan {
					j.copyPanel(p, lo, c)
				}
			}
		}
		if lo = max(lo, j.copies); lo < hi {
			j.packKernel(lo-j.copies, hi-j.copies)
		}
	case j.k.batch.lines:
		j.lineProducts(rs, wk, lo, hi)
	default:
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
		if rs.stop != nil && rs.stop.Load() {
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
// before the last) of a lines convBatch's X for every batch element:
// X[b][p…][c] is the lhs element at spatial position p − lo, or zero in
// the padding (the lhs's features are contiguous: convLinesFits).
func (j *convBatchJob[T]) copyLhs(lo, hi int) {
	k, bb := j.k, j.k.batch
	last := k.ns - 1
	run := bb.pad[last] * k.cin // one row of X
	for row := lo; row < hi; row++ {
		xo, src0, in := j.padRow(row)
		for b := range k.nb {
			x := j.xp[b*bb.plane+xo : b*bb.plane+xo+run]
			if !in {
				clear(x)
				continue
			}
			for p := range bb.pad[last] {
				dst := x[p*k.cin : p*k.cin+k.cin]
				if v := p - k.lo[last]; v >= 0 && v < k.in[last] {
					copy(dst, j.lhs[src0+v*k.lsS[last]+b*k.lsB:])
				} else {
					clear(dst)
				}
			}
		}
	}
}

// padRow is padded row row's X offset within a plane (the spatial dims
// before the last), the lhs offset of its unpadded position and whether
// it is one (not padding).
func (j *convBatchJob[T]) padRow(row int) (xo, src int, in bool) {
	k, bb := j.k, j.k.batch
	in = true
	for i := k.ns - 2; i >= 0; i-- {
		p := row % bb.pad[i]
		row /= bb.pad[i]
		xo += p * bb.ps[i]
		v := p - k.lo[i]
		in = in && v >= 0 && v < k.in[i]
		src += v * k.lsS[i]
	}
	return xo, src, in
}

// copyPanel writes rows [lo, hi) of padded positions (of the spatial
// dims before the last) of panel p of a batch-major convBatch's X: the
// panel's row is one contiguous run X[p][row][p_last][c][r] = the lhs
// element of batch element b0 + r at spatial position p − lo, zero in the
// padding and in the rows of the panel's kernel past its batch elements.
// A kernel cotangent's lhs is the input read with its features as the
// batch: a panel's elements are then contiguous in the lhs.
func (j *convBatchJob[T]) copyPanel(p, lo, hi int) {
	k, bb, pn := j.k, j.k.batch, &j.pan[p]
	last, w, nr := k.ns-1, pn.w, pn.rows
	run := bb.pad[last] * k.cin // one row of X per batch element
	for row := lo; row < hi; row++ {
		xo, src0, in := j.padRow(row)
		x := j.xp[pn.base+xo*w : pn.base+(xo+run)*w]
		if !in {
			clear(x)
			continue
		}
		for pl := range bb.pad[last] {
			dst := x[pl*k.cin*w : (pl+1)*k.cin*w]
			v := pl - k.lo[last]
			if v < 0 || v >= k.in[last] {
				clear(dst)
				continue
			}
			src := src0 + v*k.lsS[last] + pn.b0*k.lsB
			for c := range k.cin {
				d := dst[c*w : c*w+w]
				s := src + c*k.lsC
				if k.lsB == 1 {
					copyShort(d[:nr], j.lhs[s:s+nr])
				} else {
					for r := range nr {
						d[r] = j.lhs[s+r*k.lsB]
					}
				}
				clear(d[nr:])
			}
		}
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
					copyShort(dst[:o1-o0], j.rhs[src+o0:src+o1])
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

// kcL1 is the most steps a micro-kernel call of products takes: the
// call's run of a W panel (steps × NR elements) stays within about half
// of a 48 KiB L1 across the share's tiles.
const kcL1 = 24 << 10

// products computes product unit u: output positions [pos0, pos1) (a
// group) of panel p, for each kernel-position run q in order and each
// chunk of it, every position over the chunk's steps, one W panel at a
// time (the chunk of the W panel stays in L1 across the positions).
func (j *convBatchJob[T]) products(rs *runState, wk *worker, u int) {
	k, bb := j.k, j.k.batch
	p, g := u/j.groups, u%j.groups
	pn := &j.pan[p]
	pos0, pos1 := g*k.npos/j.groups, (g+1)*k.npos/j.groups
	m, w := pn.mk, pn.w
	nr, kb := m.NR, bb.kb
	var zero T
	size := int(unsafe.Sizeof(zero))
	tile := w * j.ogp
	accN := (pos1 - pos0) * tile
	acc := view[T](wk.temp(accN*size), accN)
	chunks := (kb*nr*size + kcL1 - 1) / kcL1
	for q, qo := range bb.qoff {
		if rs.stop != nil && rs.stop.Load() {
			return // the run was cancelled: the output is unspecified
		}
		for ch := range chunks {
			k0, k1 := ch*kb/chunks, (ch+1)*kb/chunks
			kc := k1 - k0
			for jr := 0; jr < j.ogp; jr += nr {
				b := j.w[(jr/nr*k.kk+q*kb+k0)*nr:][:kc*nr]
				for pos := pos0; pos < pos1; pos++ {
					off := pn.base + (bb.posoff[pos]+qo+k0)*w
					c := acc[(pos-pos0)*tile+jr:]
					m.Run(kc, j.xp[off:off+kc*w], 1, w, b, nr, c[:(w-1)*j.ogp+nr], j.ogp, q > 0 || ch > 0)
				}
			}
		}
	}
	for pos := pos0; pos < pos1; pos++ {
		for r := range pn.rows {
			src := acc[(pos-pos0)*tile+r*j.ogp:][:k.og]
			off := (pn.b0+r)*k.osB + bb.outoff[pos]
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

// copyShort copies src to dst (as long as src): the packing copies runs
// of a micro-kernel's MR or NR elements, too short for a call of memmove
// to pay, as fixed-size moves where the length is a tile's.
func copyShort[T gemm.Float](dst, src []T) {
	switch len(src) {
	case 4:
		*(*[4]T)(dst) = [4]T(src)
	case 8:
		*(*[8]T)(dst) = [8]T(src)
	case 12:
		*(*[12]T)(dst) = [12]T(src)
	case 16:
		*(*[16]T)(dst) = [16]T(src)
	case 32:
		*(*[32]T)(dst) = [32]T(src)
	default:
		copy(dst, src)
	}
}
