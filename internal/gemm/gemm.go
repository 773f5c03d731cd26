// Package gemm multiplies matrices at the speed of the machine: the
// GotoBLAS/BLIS structure around the micro-kernels of internal/simd.
//
// For each block of NC columns of the result and each block of KC steps
// of k, the matching KC×NC block of b is packed into NR-column panels
// (four times L2, at most 4 MiB: it streams from L3, see blocking). An
// MR×KC panel of a (half of L1; packed, or copied row by row, only when
// reading it in place would be slow) runs in the micro-kernel against
// panels of b, producing MR×NR tiles of c in registers: where b's block
// stays in L2, each panel of a against every panel of b; where it does
// not, as BLIS does, the panels of a block of MC rows of a (a quarter of
// L2, mcBlock; packed or read in place, as a single panel is) are
// prepared and each panel of b runs against all of them while it stays
// in the core's caches, so that b's block streams from L3 once per MC
// rows, not once per MR.
// Packing reads any row and column strides, so transposed operands need
// no copy first, and zero-pads the edges, so any m, n and k work; a
// bottom edge of exactly a short kernel's rows (simd.GemmKernel.Low: 4
// or 8 on AVX-512) runs on it in place, any other edge tile through a
// small buffer.
//
// # Accumulation order
//
// Every element of c is Σ_l a[i,l]·b[l,j] with l taken in order from 0,
// starting at +0, each product added with one fused multiply-add (one
// rounding). Blocking k does not change that — a later block continues
// from the tile the earlier one stored — and neither do the tier, the
// tile shape or the number of threads (each element is computed by one
// thread), so results are the same on every machine and at every
// GOMAXPROCS.
//
// bf16 products (BF16Call) take k in pairs instead, each pair one lane of
// VDPBF16PS (simd.BF16Step: the odd product first, subnormals read as
// zeros, tiny results flushed), with the same guarantees: k blocks hold
// whole pairs, and each element is one thread's. int8 products (I8Call)
// wrap in int32, exact in any order. Complex products (CCall, c64 and
// c128 as interleaved pairs of f32 or f64) take k in order too, each
// product rounded as NumPy's complex multiply (no FMA) and added part by
// part: their micro-kernels keep a tile's real and imaginary sums in
// separate registers, b packed with its real and imaginary parts apart.
//
// Narrow operands are unpacked while packed, too: FP8Call reads 8-bit
// float codes through a table of their bf16 bits into BF16Call's panels
// (simd.LookupU16), so its results are BF16Call's on those values, and
// I4Call reads 4-bit integers (two a byte, the low nibble first) into
// I8Call's (simd.UnpackI4, UnpackU4), its results I8Call's on the
// unpacked values; both share their wide twin's blocking loop
// (bf16Blocks, i8Blocks) and micro-kernel.
//
// Binary16 operands (Call.A16, Call.B16) are read as stored: packing
// widens them to the kernel's type, exactly, with F16C's VCVTPH2PS on
// runs along a contiguous dimension (simd.F16ToF32Runs), so an f16
// product is the f32 product of the widened values, bit for bit, with no
// widened copy of an operand made first.
package gemm

import (
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// Float is the element types the micro-kernels take.
type Float interface{ float32 | float64 }

// Call is one batched product c[b] = a[b] · bm[b] for b < Batch, with
// element (i, l) of a[b] at A[b*BatchA + i*RowA + l*ColA], likewise for
// B, and c row-major: element (i, j) of c[b] at C[b*BatchC + i*LDC + j].
// The batches' c must not overlap.
//
// An operand may instead be binary16 bits, A16 or B16 (same layout, A or
// B then unused): it is widened exactly while packed (see packA16), so
// the product is that of the widened values, bit for bit, with no widened
// copy made. (A CCall, whose type is Call's, does not read them.)
type Call[T Float] struct {
	Batch, M, N, K     int
	A                  []T
	A16                []uint16 // if not nil, a's binary16 bits (A unused)
	BatchA, RowA, ColA int
	B                  []T
	B16                []uint16 // if not nil, b's binary16 bits (B unused)
	BatchB, RowB, ColB int
	C                  []T
	BatchC, LDC        int
	// Stop, if not nil, ends the call early once it reports so (a
	// cancelled run): it is asked before each MR-row panel of a block
	// (each panel of b of an MC-row block, see the package doc), every
	// few hundred microseconds of work, and c is then left unspecified.
	Stop Stopper
}

// A Stopper reports whether a call should end early (a cancelled run); a
// call asks before each panel, every few hundred microseconds of work.
type Stopper interface {
	Stopped() bool
}

// Parts splits the call into independent pieces for up to workers
// threads: whole batches when there are enough of them, else bands of
// rows or of columns (whole tiles) of each batch. Each piece writes its
// own elements of c, so they may run in any order and concurrently.
func (g *Call[T]) Parts(workers int) int {
	k := kernelFor[T](g.N)
	return splitParts(g.Batch, g.M, g.N, k.MR, k.NR, workers)
}

// RunPart computes piece p of parts (parts from Parts).
func (g *Call[T]) RunPart(p, parts int) { g.RunPartThen(p, parts, nil) }

// A Finisher is told of each block of c as soon as it is final — the
// last block of k has been added into it — while the block is still in
// the cache, so it can run an epilogue over it (kernels' fused bias adds
// and activations). Blocks are MR rows (fewer at the bottom edge) by up
// to NC columns; the blocks of one piece cover its elements once each.
type Finisher interface {
	Finished(b, i0, i1, j0, j1 int) // batch b, rows [i0, i1), columns [j0, j1)
}

// PartBounds is the block of c piece p of parts computes: batch b, rows
// [i0, i1), columns [j0, j1).
func (g *Call[T]) PartBounds(p, parts int) (b, i0, i1, j0, j1 int) {
	k := kernelFor[T](g.N)
	return partOf(g.Batch, g.M, g.N, k.MR, k.NR, p, parts)
}

// RunPartThen is RunPart, telling fin (if not nil) of every block of c
// the piece finishes, on the calling goroutine.
func (g *Call[T]) RunPartThen(p, parts int, fin Finisher) {
	k := kernelFor[T](g.N)
	b, i0, i1, j0, j1 := partOf(g.Batch, g.M, g.N, k.MR, k.NR, p, parts)
	if g.outerInPlace() {
		// No packing buffer to borrow: E10's 2×256 pieces, each one
		// example's outer product, spent a fifth of their time (about
		// 45 ns a piece) on the workspace pool and block sizes.
		nc := j1 - j0
		if fin != nil {
			_, nc = blocking(k)
		}
		g.outer(k.MR, nc, nil, g.A[b*g.BatchA:], g.B[b*g.BatchB:], g.C[b*g.BatchC:], b, i0, i1, j0, j1, fin)
		return
	}
	ws := getWorkspace[T]()
	defer putWorkspace(ws)
	g.block(k, ws, b, i0, i1, j0, j1, fin)
}

// outerInPlace reports whether g is an outer product (K = 1) whose a
// column and b row outer reads in place, needing no workspace.
func (g *Call[T]) outerInPlace() bool {
	return g.K == 1 && g.A16 == nil && g.B16 == nil && g.RowA == 1 && g.ColB == 1
}

// splitParts is how many pieces a batched product of m×n results in
// mr×nr tiles splits into for up to workers threads: whole batches when
// there are enough of them, else bands of whole tiles of each batch.
func splitParts(batch, m, n, mr, nr, workers int) int {
	if batch*m*n == 0 {
		return 0
	}
	if batch >= workers || workers <= 1 {
		return batch
	}
	per := (workers + batch - 1) / batch
	return batch * min(per, max(ceilDiv(m, mr), ceilDiv(n, nr)))
}

// partOf is piece p of parts: its batch and its rows [i0, i1) and columns
// [j0, j1), in whole tiles. Every piece packs all of the operand along the
// side it does not split — all of b's k×n when rows are split, all of a's
// m×k when columns are — so when both sides give every piece whole tiles,
// the side whose other operand is the smaller is split: columns when
// m < n (dW = xᵀ·dy with a narrow x, E7's 64×128 gradient, took 18 µs
// whole and 15 on two cores split by rows, its 128 KB b packed twice).
// Otherwise the side with more tiles is split.
func partOf(batch, m, n, mr, nr, p, parts int) (b, i0, i1, j0, j1 int) {
	per := parts / batch
	b, q := p/per, p%per
	i0, i1, j0, j1 = 0, m, 0, n
	if per > 1 {
		tm, tn := ceilDiv(m, mr), ceilDiv(n, nr)
		cols := tn >= tm
		if tm >= per && tn >= per {
			cols = m < n
		}
		if cols {
			j0, j1 = band(n, nr, q, per)
		} else {
			i0, i1 = band(m, mr, q, per)
		}
	}
	return b, i0, i1, j0, j1
}

// Run computes the whole call on the calling goroutine.
func (g *Call[T]) Run() {
	parts := g.Parts(1)
	for p := range parts {
		g.RunPart(p, parts)
	}
}

// band is piece q of per of [0, n) in whole units.
func band(n, unit, q, per int) (lo, hi int) {
	units := ceilDiv(n, unit)
	lo = min(n, units*q/per*unit)
	hi = min(n, units*(q+1)/per*unit)
	return lo, hi
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// block computes rows [i0, i1) × columns [j0, j1) of batch b.
func (g *Call[T]) block(k simd.GemmKernel[T], ws *workspace[T], b, i0, i1, j0, j1 int, fin Finisher) {
	mr, nr := k.MR, k.NR
	kcMax, ncMax := blocking(k)
	c := g.C[b*g.BatchC:]
	// The kernel reads panels of a in place — whole MR-row panels, and a
	// bottom edge as many rows as a short kernel's (Low) — when a step's
	// elements are contiguous (a stored column-major), or a row-major a
	// whose rows do not all fall into one L1 set (a row stride that is a
	// multiple of 2 KiB would alias them); otherwise, and for other
	// partial panels, it packs them.
	size := int(unsafe.Sizeof(T(0)))
	inPlace := g.RowA == 1 || (g.ColA == 1 && g.RowA*size%2048 != 0)
	// b is read in place when its rows are contiguous, do not alias, and
	// the whole of it stays in L2 anyway: packing would buy nothing.
	_, l2 := caches()
	bInPlace := g.ColB == 1 && g.RowB*size%2048 != 0 && g.K*(j1-j0)*size <= l2/4
	// Binary16 operands are always packed: packing widens them.
	var a, bm []T
	var a16, b16 []uint16
	if g.A16 != nil {
		a16, inPlace = g.A16[b*g.BatchA:], false
	} else {
		a = g.A[b*g.BatchA:]
	}
	if g.B16 != nil {
		b16, bInPlace = g.B16[b*g.BatchB:], false
		if len(ws.half) < kcMax*nr {
			ws.half = make([]T, kcMax*nr)
		}
	} else {
		bm = g.B[b*g.BatchB:]
	}
	if g.K == 0 {
		for i := i0; i < i1; i++ {
			clear(c[i*g.LDC+j0 : i*g.LDC+j1])
		}
		if fin != nil {
			fin.Finished(b, i0, i1, j0, j1)
		}
		return
	}
	if g.K == 1 && a16 == nil && b16 == nil {
		g.outer(mr, ncMax, ws, a, bm, c, b, i0, i1, j0, j1, fin)
		return
	}
	// Where b's block would not stay in L2 (a quarter of it), rows go in
	// blocks of mc (mcBlock), each block's MR-row panels of a packed (or
	// read in place) once per block of k and then run against each
	// NR-column panel of b in turn, so that the b panel stays in the
	// core's caches (L1, or L2 for a panel wider than L1: 512 f32 steps
	// of 32 columns are 64 KiB) across the block's panels and the block's
	// a in L2: BLIS's order. Running each a panel against every b panel
	// instead streamed all of b's block (megabytes) from L3 for every 12
	// rows: 1024² f32 on one core took 20-24 ms so, 17-18 this way; on
	// two, 12.7-13.3 against 9.6-10.8, and 2048² 125 ms against 75-82
	// (BenchmarkE6, alternated rounds). A block of b that L2 holds is run
	// the other way (mc = MR: each a panel against every b panel, the
	// tiles of c in row order, the micro-kernel's prefetch of the tile to
	// the right useful): 64² took 4.0-4.4 µs so, 4.7-5.7 in blocks.
	mc := mr
	if min(kcMax, g.K)*min(ncMax, j1-j0)*size > l2/4 {
		mc = mcBlock(i1-i0, min(kcMax, g.K), mr, size)
	}
	if fin != nil {
		// The Finisher runs on a block's rows once all its columns are
		// done: keep mc × nc of c in L2 for it.
		ncMax = min(ncMax, max(nr, l2/4/(mc*size)/nr*nr))
	}
	ws.growB(min(kcMax, g.K) * ceilDiv(min(ncMax, j1-j0), nr) * nr)
	panelLen := (kcMax + halfSlack) * mr // one packed panel (packA's row-major form is the longest)
	if n := ceilDiv(mc, mr) * panelLen; len(ws.ablk) < n {
		ws.ablk = make([]T, n)
	}
	pans := ws.pans[:0] // kept in ws (below) so that a steady run allocates nothing
	for jc := j0; jc < j1; jc += ncMax {
		nb := min(ncMax, j1-jc)
		for pc := 0; pc < g.K; pc += kcMax {
			kb := min(kcMax, g.K-pc)
			full := nb / nr * nr // columns of whole panels
			if b16 != nil {
				packB16(ws.b, ws.half, b16, g.RowB, g.ColB, pc, kb, jc, nb, nr)
			} else if !bInPlace {
				packB(ws.b, bm, g.RowB, g.ColB, pc, kb, jc, nb, nr)
			} else if full < nb {
				// Read in place but for the last partial panel, packed
				// (zero-padded) once for every row panel.
				packB(ws.b[full*kb:], bm, g.RowB, g.ColB, pc, kb, jc+full, nb-full, nr)
			}
			if mc == mr {
				// Each a panel against every b panel, in row order. (The
				// tile's dispatch, Run or edge, is written out here and in
				// the block loop below: as a method, which does not inline,
				// its call cost 5% of a 256×128 product over k = 10.)
				for ic := i0; ic < i1; ic += mr {
					if g.Stop != nil && g.Stop.Stopped() {
						return // the run was cancelled: c holds unspecified values
					}
					p := g.panelOf(&k, ws.ablk[:panelLen], a, a16, inPlace, ic, min(mr, i1-ic), pc, kb)
					kr := &k
					if p.low != nil {
						kr = p.low
					}
					for jr := 0; jr < nb; jr += nr {
						nbr := min(nr, nb-jr)
						bp, sb := g.bPanel(ws.b, bm, bInPlace, pc, kb, jc, jr, nbr, nr)
						off := ic*g.LDC + jc + jr
						if p.rows == kr.MR && nbr == nr {
							kr.Run(kb, p.a, p.ra, p.sa, bp, sb, c[off:off+(kr.MR-1)*g.LDC+nr], g.LDC, pc > 0)
							continue
						}
						edge(*kr, ws.tile, kb, p.a, p.ra, p.sa, bp, sb, c[off:], g.LDC, p.rows, nbr, pc > 0)
					}
					if fin != nil && pc+kb == g.K {
						fin.Finished(b, ic, ic+p.rows, jc, jc+nb) // still in cache: MR rows by up to NC columns
					}
				}
				continue
			}
			for ic0 := i0; ic0 < i1; ic0 += mc {
				// A block of rows: its panels, then each b panel against
				// them all.
				ic1 := min(i1, ic0+mc)
				pans = pans[:0]
				for ic := ic0; ic < ic1; ic += mr {
					pans = append(pans, g.panelOf(&k, ws.ablk[len(pans)*panelLen:(len(pans)+1)*panelLen], a, a16, inPlace, ic, min(mr, ic1-ic), pc, kb))
				}
				for jr := 0; jr < nb; jr += nr {
					if g.Stop != nil && g.Stop.Stopped() {
						ws.keepPanels(pans)
						return // the run was cancelled: c holds unspecified values
					}
					nbr := min(nr, nb-jr)
					bp, sb := g.bPanel(ws.b, bm, bInPlace, pc, kb, jc, jr, nbr, nr)
					for i := range pans {
						p := &pans[i]
						kr := &k
						if p.low != nil {
							kr = p.low
						}
						off := p.i*g.LDC + jc + jr
						if p.rows == kr.MR && nbr == nr {
							kr.Run(kb, p.a, p.ra, p.sa, bp, sb, c[off:off+(kr.MR-1)*g.LDC+nr], g.LDC, pc > 0)
							continue
						}
						edge(*kr, ws.tile, kb, p.a, p.ra, p.sa, bp, sb, c[off:], g.LDC, p.rows, nbr, pc > 0)
					}
				}
				if fin != nil && pc+kb == g.K {
					for _, p := range pans {
						fin.Finished(b, p.i, p.i+p.rows, jc, jc+nb) // MR rows by up to NC columns, the block still in L2
					}
				}
			}
		}
	}
	ws.keepPanels(pans)
}

// keepPanels keeps pans' storage in ws for the next call, cleared: a
// panel read in place points into the caller's a, which a pooled
// workspace must not hold.
func (ws *workspace[T]) keepPanels(pans []aPanel[T]) {
	clear(pans[:cap(pans)]) // an earlier, longer block's panels too
	ws.pans = pans[:0]
}

// panelOf is the MR-row panel of a (or a16) at rows [ic, ic+mb) and
// steps [pc, pc+kb) as the kernel reads it: in place (inPlace, and
// whole rows for its kernel), else packed into dst. A bottom edge runs
// on the kernel's shortest form that covers it (simd.GemmKernel.Low), not
// on a padded tile.
func (g *Call[T]) panelOf(k *simd.GemmKernel[T], dst, a []T, a16 []uint16, inPlace bool, ic, mb, pc, kb int) aPanel[T] {
	p := aPanel[T]{i: ic, rows: mb}
	rows := k.MR
	if lo := k.Low; mb < k.MR && lo != nil && lo.MR >= mb {
		p.low = lo.For(mb) // k.For(mb), but never k, which would escape
		rows = p.low.MR
	}
	switch {
	case a16 != nil:
		p.a, p.ra, p.sa = packA16(dst, a16, g.RowA, g.ColA, ic, mb, pc, kb, rows)
	case mb == rows && inPlace:
		off := ic*g.RowA + pc*g.ColA
		p.a, p.ra, p.sa = a[off:off+(kb-1)*g.ColA+(rows-1)*g.RowA+1], g.RowA, g.ColA
	default:
		p.a, p.ra, p.sa = packA(dst, a, g.RowA, g.ColA, ic, mb, pc, kb, rows)
	}
	return p
}

// bPanel is the b panel of columns [jc+jr, jc+jr+nbr) and steps [pc,
// pc+kb) and its row stride: read in place (bInPlace, whole panels), or
// packed in wsb.
func (g *Call[T]) bPanel(wsb, bm []T, bInPlace bool, pc, kb, jc, jr, nbr, nr int) ([]T, int) {
	if bInPlace && nbr == nr {
		off := pc*g.RowB + jc + jr
		return bm[off : off+(kb-1)*g.RowB+nr], g.RowB
	}
	return wsb[jr*kb : (jr+nr)*kb], nr
}

// aPanel is one MR-row panel of a block of a, as the kernel reads it:
// element (r, l) at a[r*ra + l*sa], for rows [i, i+rows), on the block's
// kernel or, for a bottom edge, its short form low.
type aPanel[T Float] struct {
	a      []T
	ra, sa int
	low    *simd.GemmKernel[T]
	i      int
	rows   int
}

// mcBlock is the rows of a's blocks for a piece of m rows whose k blocks
// are kb steps: as many whole MR-row panels as fill a quarter of L2 with
// a's block (the rest holds b's panel stream and c's tiles), evened out
// over the piece so that its last block is not a sliver. On the 2-core
// Xeon (2 MiB L2) 1024² f32 ran at 120-126 GFLOP/s a core with blocks of
// 120 to 252 rows at kb 512, 114 with 480 and 104-109 with 1,356.
func mcBlock(m, kb, mr, size int) int {
	_, l2 := caches()
	mc := max(mr, l2/4/(max(kb, 1)*size)/mr*mr)
	n := ceilDiv(m, mc)                           // blocks
	return max(mr, ceilDiv(ceilDiv(m, n), mr)*mr) // even, in whole panels
}

// outer computes rows [i0, i1) × columns [j0, j1) of batch b of a product
// with one contracting step (K = 1: vmap's per-example weight gradients
// are such outer products) straight into c, each element stored once:
// c[i, j] = fma(a[i, 0], b[0, j], +0), the in-order chain of the package
// doc run for its one step (simd.OuterF32), with no packing, no tile and
// no accumulator to zero. b's row and a's column are read in place when
// contiguous (ws may then be nil), else gathered first (ws); with a
// Finisher, rows go in blocks of mr by up to nc columns, as the GEMM's.
func (g *Call[T]) outer(mr, nc int, ws *workspace[T], a, bm, c []T, b, i0, i1, j0, j1 int, fin Finisher) {
	var brow []T
	if g.ColB == 1 {
		brow = bm[j0:j1]
	} else {
		ws.growB(j1 - j0)
		brow = ws.b[:j1-j0]
		for j := range brow {
			brow[j] = bm[(j0+j)*g.ColB]
		}
	}
	// Without a Finisher the rows go in larger blocks (up to outerBlock
	// bytes of c, and what ws.a holds when gathered): E10's 64×128 and
	// 128×10 gradients then take one kernel call per example, not 6 and 11.
	rows := mr
	if fin == nil {
		rows = max(mr, outerBlock/(int(unsafe.Sizeof(T(0)))*max(1, g.LDC)))
		if g.RowA != 1 {
			rows = min(rows, len(ws.a))
		}
	}
	for ic := i0; ic < i1; ic += rows {
		if g.Stop != nil && g.Stop.Stopped() {
			return // the run was cancelled: c holds unspecified values
		}
		mb := min(rows, i1-ic)
		var acol []T
		if g.RowA == 1 {
			acol = a[ic : ic+mb]
		} else {
			acol = ws.a[:mb]
			for r := range acol {
				acol[r] = a[(ic+r)*g.RowA]
			}
		}
		for jc := j0; jc < j1; jc += nc {
			nb := min(nc, j1-jc)
			outerRows(c[ic*g.LDC+jc:], acol, brow[jc-j0:jc-j0+nb], g.LDC)
			if fin != nil {
				fin.Finished(b, ic, ic+mb, jc, jc+nb)
			}
		}
	}
}

// outerBlock is the most bytes of c outer writes between two looks at
// Stop when it has no Finisher to tell of MR-row blocks.
const outerBlock = 256 << 10

// outerRows is simd.OuterF32 or OuterF64, as T is.
func outerRows[T Float](dst, a, b []T, ldc int) {
	if unsafe.Sizeof(T(0)) == 4 {
		simd.OuterF32(as[float32](dst), as[float32](a), as[float32](b), ldc)
		return
	}
	simd.OuterF64(as[float64](dst), as[float64](a), as[float64](b), ldc)
}

// as views a slice of T as one of U, the same type (T's size picked it).
func as[U, T Float](s []T) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// edge runs the kernel on a partial tile (mb×nbr of the kernel's MR×NR)
// through the buffer tile.
func edge[T Float](k simd.GemmKernel[T], tile []T, kb int, ap []T, ra, sa int, bp []T, sb int, c []T, ldc, mb, nbr int, load bool) {
	throughTile(tile, c, ldc, mb, nbr, k.NR, 1, load, func(t []T, ldt int) { k.Run(kb, ap, ra, sa, bp, sb, t, ldt, load) })
}

// throughTile runs a kernel (run, on a tile with row stride ldt) on the
// partial tile of mb rows and nbr columns at c (row stride ldc) through
// the buffer tile of nr columns, each element width values of T (1; 2
// for complex): c's values copied in first when load is set, the result
// copied back.
func throughTile[T Float](tile, c []T, ldc, mb, nbr, nr, width int, load bool, run func(t []T, ldt int)) {
	row, stride, ct := nbr*width, nr*width, ldc*width
	if load {
		for r := range mb {
			copy(tile[r*stride:r*stride+row], c[r*ct:r*ct+row])
		}
	}
	run(tile, nr)
	for r := range mb {
		copy(c[r*ct:r*ct+row], tile[r*stride:r*stride+row])
	}
}

// packB writes columns [jc, jc+nb) × steps [pc, pc+kb) of b as panels of
// nr columns, panel p at dst[p*kb*nr:], step l of it at [l*nr:], columns
// past nb zero.
func packB[T Float](dst, b []T, rs, cs, pc, kb, jc, nb, nr int) {
	if cs != 1 && rs == 1 {
		packBColumns(dst, b, cs, pc, kb, jc, nb, nr)
		return
	}
	for jp := 0; jp < nb; jp += nr {
		w := min(nr, nb-jp)
		panel := dst[jp*kb : jp*kb+kb*nr]
		for l := range kb {
			row := panel[l*nr : l*nr+nr]
			src := (pc+l)*rs + (jc+jp)*cs
			if cs == 1 {
				copy(row[:w], b[src:src+w])
			} else {
				for j := range w {
					row[j] = b[src+j*cs]
				}
			}
			clear(row[w:])
		}
	}
}

// packBColumns is packB of a b whose steps are contiguous (row stride 1,
// a transposed operand: E7's w2ᵀ in dz·w2ᵀ): each column's kb steps are
// read as one run and written down its panel, not read a step at a time
// across the columns: dz·w2ᵀ (256×10 by 10×128) took 8.1-8.5 µs so on
// one core, 7.7-8.0 this way.
func packBColumns[T Float](dst, b []T, cs, pc, kb, jc, nb, nr int) {
	for jp := 0; jp < nb; jp += nr {
		w := min(nr, nb-jp)
		panel := dst[jp*kb : jp*kb+kb*nr]
		for j := range w {
			col := b[(jc+jp+j)*cs+pc:][:kb]
			for l, v := range col {
				panel[l*nr+j] = v
			}
		}
		if w < nr {
			for l := range kb {
				clear(panel[l*nr+w : l*nr+nr])
			}
		}
	}
}

// packA writes rows [ic, ic+mb) × steps [pc, pc+kb) of a as one panel of
// mr rows (rows past mb zero) and returns it with its row and step
// strides for the kernel. A row-major a's rows are copied whole, a row
// every rowStride elements (memmove speed, and the kernel reads them as
// it reads a in place); otherwise step l is packed at dst[l*mr:].
func packA[T Float](dst, a []T, rs, cs, ic, mb, pc, kb, mr int) (ap []T, ra, sa int) {
	if cs == 1 && rs != 1 {
		st := rowStride(kb, int(unsafe.Sizeof(T(0))))
		for r := range mb {
			src := (ic+r)*rs + pc
			copy(dst[r*st:r*st+kb], a[src:src+kb])
		}
		return rowPanel(dst, st, kb, mb, mr), st, 1
	}
	dst = dst[:kb*mr]
	if mb < mr {
		clear(dst)
	}
	if rs == 1 {
		for l := range kb {
			src := ic + (pc+l)*cs
			copy(dst[l*mr:l*mr+mb], a[src:src+mb])
		}
		return dst, 1, mr
	}
	for r := range mb {
		src := a[(ic+r)*rs+pc*cs:]
		for l := range kb {
			dst[l*mr+r] = src[l*cs]
		}
	}
	return dst, 1, mr
}

// rowPanel finishes an mr-row panel whose first mb rows of kb values were
// written st apart (packA's and packA16's row-major case): the rows past
// mb are cleared, and the panel as the kernel reads it is returned.
func rowPanel[T Float](dst []T, st, kb, mb, mr int) []T {
	for r := mb; r < mr; r++ {
		clear(dst[r*st : r*st+kb])
	}
	return dst[:(mr-1)*st+kb]
}

// workspace is one thread's packing buffers.
type workspace[T Float] struct {
	mr, nr int
	a, b   []T
	tile   []T
	half   []T // a transposed binary16 b's panel, widened (packB16); made when first needed
	ablk   []T // a block's packed panels (Call.block); made when first needed
	pans   []aPanel[T]
}

// pools holds workspaces per element type and tier (the tier, hence the
// tile shape, changes between calls only in tests).
var pools [2][3]sync.Pool

func pool[T Float]() *sync.Pool { return poolIn[T](&pools) }

// poolIn is the pool of ps for element type T and the active tier.
func poolIn[T Float](ps *[2][3]sync.Pool) *sync.Pool {
	t := 0
	if unsafe.Sizeof(T(0)) == 8 {
		t = 1
	}
	return &ps[t][min(int(simd.Level()), 2)]
}

// getWorkspace returns a workspace for the tier's kernels: a and tile
// sized for the widest, kernel[T]; b and ablk grow as a product needs.
func getWorkspace[T Float]() *workspace[T] {
	if ws, ok := pool[T]().Get().(*workspace[T]); ok {
		return ws
	}
	k := kernel[T]()
	kc, nc := blocking(k)
	return newWorkspace[T](k.MR, k.NR, kc, nc, 1)
}

// newWorkspace allocates buffers for an mr×nr kernel blocked kc×nc, of
// elements width values of T each (1; 2 for complex); a's has halfSlack
// more per row, for the rows of a panel copied row by row (rowStride).
// (Call.block packs its panels into ablk, grown per call to a row
// block's panels; a serves complex products and outer's gathered column.)
// b's grows when a product first needs it (growB): a whole block is
// megabytes, most products' blocks far less.
func newWorkspace[T Float](mr, nr, kc, nc, width int) *workspace[T] {
	return &workspace[T]{mr: mr, nr: nr,
		a:    make([]T, (width*kc+halfSlack)*mr),
		tile: make([]T, width*mr*nr)}
}

// growB makes the b buffer hold at least n values of T.
func (ws *workspace[T]) growB(n int) {
	if len(ws.b) < n {
		ws.b = make([]T, n)
	}
}

func putWorkspace[T Float](ws *workspace[T]) { pool[T]().Put(ws) }

func kernel[T Float]() simd.GemmKernel[T] {
	var z T
	switch any(z).(type) {
	case float32:
		return any(simd.GemmF32()).(simd.GemmKernel[T])
	default:
		return any(simd.GemmF64()).(simd.GemmKernel[T])
	}
}

// kernelFor is the kernel for products of n columns: the narrow f32
// kernel when n ≤ 16.
func kernelFor[T Float](n int) simd.GemmKernel[T] {
	var z T
	if _, ok := any(z).(float32); ok && n <= 16 {
		return any(simd.GemmF32Narrow()).(simd.GemmKernel[T])
	}
	return kernel[T]()
}
