package gemm

import (
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// CCall is one batched complex product c[b] = a[b] · bm[b] — c64 with T
// float32, c128 with T float64 — laid out as Call's, except that A, B
// and C hold interleaved (re, im) pairs of T (Go's complex64 and
// complex128 in memory) and every stride and LDC counts complex
// elements: element (i, l) of a[b] is the pair at 2·(b*BatchA + i*RowA +
// l*ColA).
//
// Every element of c is Σ_l a[i,l]·b[l,j] with l in order from 0,
// starting at +0, each complex product rounded as NumPy's complex
// multiply (re = ar·br − ai·bi, im = ar·bi + ai·br, each product,
// difference and sum rounded; no FMA) and then added part by part. The
// micro-kernels (simd.GemmC64, GemmC128) keep an MR×NR tile of planar
// accumulators across each k block; a later k block continues from the
// tile the earlier one stored, and each element is one thread's, so the
// tier, the blocking and the number of threads do not change a bit.
//
// Packing absorbs strides and transposes: a's panel holds each step's MR
// (re, im) pairs, b's panels each step's NR real parts and then its NR
// imaginary parts, in the kernel's lane order.
type CCall[T Float] Call[T]

// Parts is Call.Parts for the complex tile.
func (g *CCall[T]) Parts(workers int) int {
	k := ckernel[T]()
	return splitParts(g.Batch, g.M, g.N, k.MR, k.NR, workers)
}

// RunPart computes piece p of parts (parts from Parts).
func (g *CCall[T]) RunPart(p, parts int) {
	k := ckernel[T]()
	b, i0, i1, j0, j1 := partOf(g.Batch, g.M, g.N, k.MR, k.NR, p, parts)
	ws := getCWorkspace[T]()
	defer cpool[T]().Put(ws)
	g.block(k, ws, b, i0, i1, j0, j1)
}

// Run computes the whole call on the calling goroutine.
func (g *CCall[T]) Run() {
	parts := g.Parts(1)
	for p := range parts {
		g.RunPart(p, parts)
	}
}

// cblocking is the k and column blocking of complex kernel k: blocking's,
// for elements of two parts.
func cblocking[T Float](k simd.GemmCKernel[T]) (kc, nc int) {
	return blockSizes(k.MR, k.NR, 2*int(unsafe.Sizeof(T(0))))
}

// block computes rows [i0, i1) × columns [j0, j1) of batch b.
func (g *CCall[T]) block(k simd.GemmCKernel[T], ws *workspace[T], b, i0, i1, j0, j1 int) {
	mr, nr := k.MR, k.NR
	kcMax, ncMax := cblocking(k)
	a, bm, c := g.A[2*b*g.BatchA:], g.B[2*b*g.BatchB:], g.C[2*b*g.BatchC:]
	if g.K == 0 {
		for i := i0; i < i1; i++ {
			clear(c[2*(i*g.LDC+j0) : 2*(i*g.LDC+j1)])
		}
		return
	}
	ws.growB(2 * min(kcMax, g.K) * ceilDiv(min(ncMax, j1-j0), nr) * nr)
	for jc := j0; jc < j1; jc += ncMax {
		nb := min(ncMax, j1-jc)
		for pc := 0; pc < g.K; pc += kcMax {
			kb := min(kcMax, g.K-pc)
			load := pc > 0
			packCB(ws.b, bm, g.RowB, g.ColB, pc, kb, jc, nb, k)
			for ic := i0; ic < i1; ic += mr {
				if g.Stop != nil && g.Stop.Stopped() {
					return // the run was cancelled: c holds unspecified values
				}
				mb := min(mr, i1-ic)
				ap := ws.a[:2*kb*mr]
				packCA(ap, a, g.RowA, g.ColA, ic, mb, pc, kb, mr)
				for jr := 0; jr < nb; jr += nr {
					nbr := min(nr, nb-jr)
					bp := ws.b[2*jr*kb : 2*(jr+nr)*kb]
					off := 2 * (ic*g.LDC + jc + jr)
					if mb == mr && nbr == nr {
						k.Run(kb, ap, bp, c[off:off+2*((mr-1)*g.LDC+nr)], g.LDC, load)
						continue
					}
					throughTile(ws.tile, c[off:], g.LDC, mb, nbr, nr, 2, load, func(t []T, ldt int) { k.Run(kb, ap, bp, t, ldt, load) })
				}
			}
		}
	}
}

// packCB writes columns [jc, jc+nb) × steps [pc, pc+kb) of the complex b
// (strides rs, cs in complex elements) as panels of k's NR columns: panel
// p at dst[2*p*kb*nr:], its step l the real parts of the lanes' columns
// (lane q holding column k.Lanes[q] of the panel) at [2*l*nr:] and their
// imaginary parts after them, columns past nb zero. Whole panels of a
// row-major b go through k.Pack (the vector kernels' shuffles).
func packCB[T Float](dst, b []T, rs, cs, pc, kb, jc, nb int, k simd.GemmCKernel[T]) {
	lanes, nr := k.Lanes, k.NR
	for jp := 0; jp < nb; jp += nr {
		w := min(nr, nb-jp)
		panel := dst[2*jp*kb : 2*(jp*kb+kb*nr)]
		if rs == 1 && w == nr {
			// Columns contiguous (b stored transposed): a lane at a time,
			// down its column.
			for q, j := range lanes {
				col := b[2*(pc+(jc+jp+j)*cs) : 2*(pc+(jc+jp+j)*cs+kb)]
				for l := range kb {
					panel[2*l*nr+q], panel[2*l*nr+nr+q] = col[2*l], col[2*l+1]
				}
			}
			continue
		}
		if cs == 1 && w == nr {
			k.Pack(panel, b[2*(pc*rs+jc+jp):], rs, kb)
			continue
		}
		for l := range kb {
			re := panel[2*l*nr : 2*l*nr+nr]
			im := panel[2*l*nr+nr : 2*l*nr+2*nr]
			src := 2 * ((pc+l)*rs + (jc+jp)*cs)
			for q, j := range lanes {
				if j >= w {
					re[q], im[q] = 0, 0
					continue
				}
				re[q], im[q] = b[src+2*j*cs], b[src+2*j*cs+1]
			}
		}
	}
}

// packCA writes rows [ic, ic+mb) × steps [pc, pc+kb) of the complex a
// (strides rs, cs in complex elements) as one panel, step l's (re, im)
// pairs at dst[2*l*mr:], rows past mb zero.
func packCA[T Float](dst, a []T, rs, cs, ic, mb, pc, kb, mr int) {
	switch {
	case mb == 4 && mr == 4 && cs == 1:
		packCA4(dst, a, rs, ic, pc, kb)
		return
	case mb == mr && rs == 1:
		// a stored transposed: a step's MR elements are contiguous.
		for l := range kb {
			src := 2 * (ic + (pc+l)*cs)
			copy(dst[2*l*mr:2*(l+1)*mr], a[src:src+2*mr])
		}
		return
	case mb < mr:
		clear(dst)
	}
	for r := range mb {
		src := a[2*((ic+r)*rs+pc*cs):]
		for l := range kb {
			dst[2*(l*mr+r)], dst[2*(l*mr+r)+1] = src[2*l*cs], src[2*l*cs+1]
		}
	}
}

// packCA4 is packCA for a whole 4-row panel of a row-major a (every
// complex kernel's MR): it walks the 4 rows side by side and writes each
// step's 4 pairs together.
func packCA4[T Float](dst, a []T, rs, ic, pc, kb int) {
	var rows [4][]T
	for r := range rows {
		off := 2 * ((ic+r)*rs + pc)
		rows[r] = a[off : off+2*kb]
	}
	r0, r1, r2, r3 := rows[0], rows[1], rows[2], rows[3]
	dst = dst[:8*kb]
	for l := range kb {
		d := dst[8*l : 8*l+8 : 8*l+8]
		s0, s1, s2, s3 := r0[2*l:2*l+2], r1[2*l:2*l+2], r2[2*l:2*l+2], r3[2*l:2*l+2]
		d[0], d[1], d[2], d[3] = s0[0], s0[1], s1[0], s1[1]
		d[4], d[5], d[6], d[7] = s2[0], s2[1], s3[0], s3[1]
	}
}

// cpools holds complex workspaces per part type and tier.
var cpools [2][3]sync.Pool

func cpool[T Float]() *sync.Pool { return poolIn[T](&cpools) }

func getCWorkspace[T Float]() *workspace[T] {
	if ws, ok := cpool[T]().Get().(*workspace[T]); ok {
		return ws
	}
	k := ckernel[T]()
	kc, nc := cblocking(k)
	return newWorkspace[T](k.MR, k.NR, kc, nc, 2)
}

// ckernel is the complex micro-kernel of the active tier for parts T.
func ckernel[T Float]() simd.GemmCKernel[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(simd.GemmC64()).(simd.GemmCKernel[T])
	}
	return any(simd.GemmC128()).(simd.GemmCKernel[T])
}
