package gemm

import (
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// FP8Call is one batched product of 8-bit float operands (fp8 — or any
// format of at most 8 bits stored one code per byte) with f32 results,
// laid out as BF16Call's but one byte per element: a's and b's codes are
// read through ATable and BTable, each the bf16 bits of the 256 codes,
// while the panels are packed, so the product runs on the bf16
// micro-kernel with no widened copy of an operand made first.
//
// Every element of c is BF16Call's on the operands' table values (the
// bf16 dot rule, docs/SPEC.md §3), bit for bit, at every tier. The
// caller picks formats for which that is their exact dot in f32 order:
// every code's value exactly a bf16 that is zero, normal, infinite or NaN
// (no subnormal for the rule to read as zero), and the smallest product
// of two nonzero values at least 2⁻¹²⁶ — then every product is exact in
// f32 and every partial sum a multiple of that smallest product, never
// subnormal, so the rule's flushing never acts (kernels checks this per
// pair of formats; f8e8m0fnu's 2⁻¹²⁷ fails it).
type FP8Call struct {
	Batch, M, N, K     int
	A                  []uint8
	BatchA, RowA, ColA int
	ATable             *[256]uint16 // a's code → its value's bf16 bits
	B                  []uint8
	BatchB, RowB, ColB int
	BTable             *[256]uint16 // b's code → its value's bf16 bits
	C                  []float32
	BatchC, LDC        int
	Stop               Stopper // as Call.Stop
}

// Parts is Call.Parts for the bf16 tile.
func (g *FP8Call) Parts(workers int) int {
	return splitParts(g.Batch, g.M, g.N, bf16MR, bf16NR, workers)
}

// Region is piece p of parts' part of c: batch b, rows [i0, i1) and
// columns [j0, j1) — the elements RunPart(p, parts) writes.
func (g *FP8Call) Region(p, parts int) (b, i0, i1, j0, j1 int) {
	return partOf(g.Batch, g.M, g.N, bf16MR, bf16NR, p, parts)
}

// RunPart computes piece p of parts. With the VDPBF16PS kernel the codes
// are unpacked as the panels are packed; without it the piece's rows of a
// and columns of b are unpacked to bf16 first and run as a BF16Call
// (which takes the f32 kernels under DAZ/FTZ or the Go twin), the same
// bits either way.
func (g *FP8Call) RunPart(p, parts int) {
	b, i0, i1, j0, j1 := g.Region(p, parts)
	if _, fast := simd.GemmBF16(); !fast {
		g.widened(b, i0, i1, j0, j1)
		return
	}
	ws := bf16Pool.Get().(*bf16Workspace)
	defer bf16Pool.Put(ws)
	bf16Blocks(g, ws, g.C[b*g.BatchC:], g.LDC, g.K, b, i0, i1, j0, j1, g.Stop)
}

// Run computes the whole call on the calling goroutine.
func (g *FP8Call) Run() {
	parts := g.Parts(1)
	for p := range parts {
		g.RunPart(p, parts)
	}
}

// widened runs rows [i0, i1) × columns [j0, j1) of batch b as a BF16Call
// of the operands unpacked to bf16 (row-major copies of the rows of a and
// the columns of b the piece reads).
func (g *FP8Call) widened(b, i0, i1, j0, j1 int) {
	m, n, kk := i1-i0, j1-j0, g.K
	if m <= 0 || n <= 0 {
		return
	}
	buf := fp8WidePool.Get().(*[]uint16)
	defer fp8WidePool.Put(buf)
	if need := m*kk + kk*n; cap(*buf) < need {
		*buf = make([]uint16, need)
	}
	a, bm := (*buf)[:m*kk], (*buf)[m*kk:m*kk+kk*n]
	for i := range m {
		at := b*g.BatchA + (i0+i)*g.RowA
		if g.ColA == 1 {
			simd.LookupU16(a[i*kk:(i+1)*kk], g.A[at:at+kk], g.ATable)
			continue
		}
		for l := range kk {
			a[i*kk+l] = g.ATable[g.A[at+l*g.ColA]]
		}
	}
	for l := range kk {
		at := b*g.BatchB + l*g.RowB + j0*g.ColB
		if g.ColB == 1 {
			simd.LookupU16(bm[l*n:(l+1)*n], g.B[at:at+n], g.BTable)
			continue
		}
		for j := range n {
			bm[l*n+j] = g.BTable[g.B[at+j*g.ColB]]
		}
	}
	call := BF16Call{Batch: 1, M: m, N: n, K: kk, A: a, RowA: kk, ColA: 1, B: bm, RowB: n, ColB: 1,
		C: g.C[b*g.BatchC+i0*g.LDC+j0:], LDC: g.LDC, Stop: g.Stop}
	call.Run()
}

var fp8WidePool = sync.Pool{New: func() any { return new([]uint16) }}

// packB is BF16Call.packB of b's codes unpacked through BTable: 32-column
// panels of words (k values 2l and 2l+1 of one column), zero past the
// edges. A row-major b's two rows of a step are unpacked across the
// block's columns (simd.LookupU16) and then interleaved panel by panel as
// a bf16 b's rows are.
func (g *FP8Call) packB(dst []uint32, bi, pc, kb, jc, nb int) {
	b, tab := g.B[bi*g.BatchB:], g.BTable
	kb2 := ceilDiv(kb, 2)
	if g.ColB == 1 {
		buf := fp8WidePool.Get().(*[]uint16)
		defer fp8WidePool.Put(buf)
		if cap(*buf) < 2*nb {
			*buf = make([]uint16, 2*nb)
		}
		lo, hi := (*buf)[:nb], (*buf)[nb:2*nb]
		for l := range kb2 {
			at := (pc + 2*l) * g.RowB
			simd.LookupU16(lo, b[at+jc:at+jc+nb], tab)
			if 2*l+1 < kb {
				simd.LookupU16(hi, b[at+g.RowB+jc:at+g.RowB+jc+nb], tab)
			} else {
				clear(hi) // the zero padding of an odd K
			}
			for jp := 0; jp < nb; jp += bf16NR {
				w := min(bf16NR, nb-jp)
				row := dst[jp*kb2+l*bf16NR : jp*kb2+(l+1)*bf16NR]
				simd.InterleaveBF16(row[:w], lo[jp:jp+w], hi[jp:jp+w])
				clear(row[w:])
			}
		}
		return
	}
	for jp := 0; jp < nb; jp += bf16NR {
		w := min(bf16NR, nb-jp)
		panel := dst[jp*kb2 : (jp+bf16NR)*kb2]
		if g.RowB == 1 {
			// Columns contiguous in k (b stored transposed): each column's
			// run of k values fills one word column of the panel.
			for j := range w {
				col := b[(jc+jp+j)*g.ColB+pc:]
				col = col[:kb]
				for l := range kb / 2 {
					panel[l*bf16NR+j] = uint32(tab[col[2*l]]) | uint32(tab[col[2*l+1]])<<16
				}
				if kb%2 == 1 {
					panel[(kb2-1)*bf16NR+j] = uint32(tab[col[kb-1]])
				}
			}
			for l := range kb2 {
				clear(panel[l*bf16NR+w : (l+1)*bf16NR])
			}
			continue
		}
		for l := range kb2 {
			row := panel[l*bf16NR : l*bf16NR+bf16NR]
			lo := (pc+2*l)*g.RowB + (jc+jp)*g.ColB
			if 2*l+1 < kb {
				for j := range w {
					row[j] = uint32(tab[b[lo+j*g.ColB]]) | uint32(tab[b[lo+g.RowB+j*g.ColB]])<<16
				}
			} else { // the zero padding of an odd K
				for j := range w {
					row[j] = uint32(tab[b[lo+j*g.ColB]])
				}
			}
			clear(row[w:])
		}
	}
}

// packA is BF16Call.packA of a's codes unpacked through ATable: one
// row-major panel of words (k values 2l and 2l+1 of row r at
// dst[r*kb2+l]), zero past the edges.
func (g *FP8Call) packA(dst []uint32, bi, ic, mb, pc, kb int) {
	a, tab := g.A[bi*g.BatchA:], g.ATable
	kb2 := ceilDiv(kb, 2)
	dst = dst[:bf16MR*kb2]
	if mb < bf16MR {
		clear(dst)
	}
	half := unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(dst))), 2*len(dst))
	for r := range mb {
		row := half[r*2*kb2 : (r+1)*2*kb2]
		src := (ic+r)*g.RowA + pc*g.ColA
		if g.ColA == 1 {
			simd.LookupU16(row[:kb], a[src:src+kb], tab)
		} else {
			for l := range kb {
				row[l] = tab[a[src+l*g.ColA]]
			}
		}
		if kb%2 == 1 {
			row[kb] = 0 // an odd K's zero padding
		}
	}
}
