package gemm

import (
	"math"
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// BF16Call is one batched bf16 product c[b] = a[b] · bm[b] with f32
// results, laid out as Call's, a and b holding bf16 bit patterns. Each
// element of c follows the bf16 dot rule (docs/SPEC.md §3): k taken in
// pairs (2j, 2j+1) from +0, an odd K padded with one zero product at the
// end, each pair one simd.BF16Step — VDPBF16PS's lane: the odd product
// first, subnormal inputs read as zeros, tiny results flushed. Blocks of
// k hold whole pairs and continue from the tile the previous block
// stored, and each element is computed by one thread, so the tier, the
// blocking and the number of threads do not change a bit.
//
// Packing absorbs strides and transposes: a's panel holds its 12 rows
// one after another, each a run of 32-bit words of two k values (k even
// in the low half: a row-major a's row as stored), b's panels the 32
// columns' pairs per step ([k/2][n][2]).
type BF16Call struct {
	Batch, M, N, K     int
	A                  []uint16
	BatchA, RowA, ColA int
	B                  []uint16
	BatchB, RowB, ColB int
	C                  []float32
	BatchC, LDC        int
	Stop               Stopper // as Call.Stop
}

const bf16MR, bf16NR = simd.GemmBF16MR, simd.GemmBF16NR

// bf16Blocking is the k block (even, in k values) and column block: the
// 12×KC a panel takes about an eighth of L1 and the KC×NC b block half of
// L2 — chosen when the f32 GEMM's blocks were a quarter of L1 and half of
// L2, as a shorter k block than its for twice its columns, so a was
// packed half as often (per column block): a bf16 step does twice an f32
// step's work in the same time, which makes packing weigh twice as much
// (1024³: 0.58 → 0.53 of the f32 time on one core). The f32 GEMM's blocks
// have since grown (see blocking) and these have not been re-measured.
var bf16Blocking = sync.OnceValues(func() (kc, nc int) {
	l1, l2 := caches()
	kc = min(1024, max(64, l1/8/(bf16MR*2)&^7))
	nc = max(bf16NR, l2/2/(kc*2)/bf16NR*bf16NR)
	return kc, nc
})

// Parts is Call.Parts for the bf16 tile.
func (g *BF16Call) Parts(workers int) int {
	return splitParts(g.Batch, g.M, g.N, bf16MR, bf16NR, workers)
}

// RunPart computes piece p of parts.
func (g *BF16Call) RunPart(p, parts int) {
	b, i0, i1, j0, j1 := g.Region(p, parts)
	if _, fast := simd.GemmBF16(); !fast && (simd.Level() == simd.AVX2 || simd.Level() == simd.AVX512) {
		if g.flushedF32(b, i0, i1, j0, j1) {
			return
		}
	}
	ws := bf16Pool.Get().(*bf16Workspace)
	defer bf16Pool.Put(ws)
	g.block(ws, b, i0, i1, j0, j1)
}

// Region is piece p of parts' part of c: batch b, rows [i0, i1) and
// columns [j0, j1) — the elements RunPart(p, parts) writes.
func (g *BF16Call) Region(p, parts int) (b, i0, i1, j0, j1 int) {
	return partOf(g.Batch, g.M, g.N, bf16MR, bf16NR, p, parts)
}

// Run computes the whole call on the calling goroutine.
func (g *BF16Call) Run() {
	parts := g.Parts(1)
	for p := range parts {
		g.RunPart(p, parts)
	}
}

type bf16Workspace struct {
	a, b []uint32
	tile []float32
}

var bf16Pool = sync.Pool{New: func() any {
	kc, nc := bf16Blocking()
	return &bf16Workspace{a: make([]uint32, kc/2*bf16MR), b: make([]uint32, kc/2*ceilDiv(nc, bf16NR)*bf16NR),
		tile: make([]float32, bf16MR*bf16NR)}
}}

func (g *BF16Call) block(ws *bf16Workspace, bi, i0, i1, j0, j1 int) {
	bf16Blocks(g, ws, g.C[bi*g.BatchC:], g.LDC, g.K, bi, i0, i1, j0, j1, g.Stop)
}

// bf16Source is what the bf16 blocking loop (bf16Blocks) packs its panels
// from: BF16Call's bf16 operands, or FP8Call's 8-bit floats unpacked to
// bf16 on the way (each packs batch bi's operands, as BF16Call.packA and
// packB lay out their panels).
type bf16Source interface {
	packA(dst []uint32, bi, ic, mb, pc, kb int)
	packB(dst []uint32, bi, pc, kb, jc, nb int)
}

// bf16Blocks computes rows [i0, i1) × columns [j0, j1) of c (batch bi's
// result, row stride ldc) over kk k values on the bf16 micro-kernel,
// packing the panels from src.
func bf16Blocks(src bf16Source, ws *bf16Workspace, c []float32, ldc, kk, bi, i0, i1, j0, j1 int, stop Stopper) {
	k, _ := simd.GemmBF16()
	kcMax, ncMax := bf16Blocking()
	if kk == 0 {
		for i := i0; i < i1; i++ {
			clear(c[i*ldc+j0 : i*ldc+j1])
		}
		return
	}
	for jc := j0; jc < j1; jc += ncMax {
		nb := min(ncMax, j1-jc)
		for pc := 0; pc < kk; pc += kcMax {
			kb := min(kcMax, kk-pc)
			kb2 := ceilDiv(kb, 2)
			src.packB(ws.b, bi, pc, kb, jc, nb)
			for ic := i0; ic < i1; ic += bf16MR {
				if stop != nil && stop.Stopped() {
					return // the run was cancelled: c holds unspecified values
				}
				mb := min(bf16MR, i1-ic)
				src.packA(ws.a, bi, ic, mb, pc, kb)
				ap := ws.a[:kb2*bf16MR] // row r at ap[r*kb2:]
				for jr := 0; jr < nb; jr += bf16NR {
					nbr := min(bf16NR, nb-jr)
					bp := ws.b[jr*kb2 : (jr+bf16NR)*kb2]
					off := ic*ldc + jc + jr
					if mb == bf16MR && nbr == bf16NR {
						k.Run(kb2, ap, kb2, bp, c[off:off+(bf16MR-1)*ldc+bf16NR], ldc, pc > 0)
						continue
					}
					if pc > 0 {
						for r := range mb {
							copy(ws.tile[r*bf16NR:r*bf16NR+nbr], c[off+r*ldc:off+r*ldc+nbr])
						}
					}
					k.Run(kb2, ap, kb2, bp, ws.tile, bf16NR, pc > 0)
					for r := range mb {
						copy(c[off+r*ldc:off+r*ldc+nbr], ws.tile[r*bf16NR:r*bf16NR+nbr])
					}
				}
			}
		}
	}
}

// packB packs columns [jc, jc+nb) × k [pc, pc+kb) of batch bi's b as 32-column
// panels of words (k values 2l and 2l+1 of one column), zero past the
// edges: panel p at dst[p*kb2*32:], step l of it at [l*32:].
func (g *BF16Call) packB(dst []uint32, bi, pc, kb, jc, nb int) {
	b := g.B[bi*g.BatchB:]
	kb2 := ceilDiv(kb, 2)
	for jp := 0; jp < nb; jp += bf16NR {
		w := min(bf16NR, nb-jp)
		panel := dst[jp*kb2 : (jp+bf16NR)*kb2]
		for l := range kb2 {
			row := panel[l*bf16NR : l*bf16NR+bf16NR]
			lo := (pc+2*l)*g.RowB + (jc+jp)*g.ColB
			hasHi := 2*l+1 < kb
			switch {
			case g.ColB == 1 && hasHi:
				simd.InterleaveBF16(row[:w], b[lo:lo+w], b[lo+g.RowB:lo+g.RowB+w])
			case hasHi:
				for j := range w {
					row[j] = uint32(b[lo+j*g.ColB]) | uint32(b[lo+g.RowB+j*g.ColB])<<16
				}
			default: // the zero padding of an odd K
				for j := range w {
					row[j] = uint32(b[lo+j*g.ColB])
				}
			}
			clear(row[w:])
		}
	}
}

// packA packs rows [ic, ic+mb) × k [pc, pc+kb) of batch bi's a as one row-major
// panel of words (k values 2l and 2l+1 of row r at dst[r*kb2+l]), zero
// past the edges. A row-major a's rows are copies: two bf16s as stored are
// the word, little-endian.
func (g *BF16Call) packA(dst []uint32, bi, ic, mb, pc, kb int) {
	a := g.A[bi*g.BatchA:]
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
			copy(row[:kb], a[src:src+kb])
		} else {
			for l := range kb {
				row[l] = a[src+l*g.ColA]
			}
		}
		if kb%2 == 1 {
			row[kb] = 0 // an odd K's zero padding
		}
	}
}

// flushedF32 computes a piece on the f32 GEMM's assembly kernels where
// the bf16 one is missing (AVX2, or AVX-512 without AVX512_BF16): the
// same chain of fused multiply-adds as the bf16 rule, reordered and read
// under the bf16 step's flushing. Operands are widened to f32 (exact),
// subnormals as zeros of their sign, each pair's two k values swapped so
// the odd product comes first (an odd K's padding zero first in the last
// pair), and the product runs with the thread's DAZ and FTZ set
// (simd.WithDenormalsFlushed), which makes every step
// FTZ(fma(DAZ(a), DAZ(b), DAZ(acc))) — simd.BF16Step's two halves, since a
// flushed accumulator is never subnormal. It reports false where the
// machine has no such mode.
func (g *BF16Call) flushedF32(b, i0, i1, j0, j1 int) bool {
	m, n, kk := i1-i0, j1-j0, g.K+g.K&1
	if m <= 0 || n <= 0 {
		return true
	}
	buf := bf16WidePool.Get().(*[]float32)
	defer bf16WidePool.Put(buf)
	if need := m*kk + kk*n; cap(*buf) < need {
		*buf = make([]float32, need)
	}
	a, bm := (*buf)[:m*kk], (*buf)[m*kk:m*kk+kk*n]
	clear(a)
	clear(bm)
	for i := range m {
		row := a[i*kk : (i+1)*kk]
		for l := range g.K {
			row[l^1] = wideDAZ(g.A[b*g.BatchA+(i0+i)*g.RowA+l*g.ColA])
		}
	}
	for l := range g.K {
		row := bm[(l^1)*n : (l^1+1)*n]
		for j := range n {
			row[j] = wideDAZ(g.B[b*g.BatchB+l*g.RowB+(j0+j)*g.ColB])
		}
	}
	call := Call[float32]{Batch: 1, M: m, N: n, K: kk, A: a, RowA: kk, ColA: 1, B: bm, RowB: n, ColB: 1,
		C: g.C[b*g.BatchC+i0*g.LDC+j0:], LDC: g.LDC}
	return simd.WithDenormalsFlushed(call.Run)
}

// wideDAZ is bf16 bits v as an f32, a subnormal as a zero of its sign.
func wideDAZ(v uint16) float32 {
	if v&0x7f80 == 0 {
		v &= 0x8000
	}
	return math.Float32frombits(uint32(v) << 16)
}

var bf16WidePool = sync.Pool{New: func() any { return new([]float32) }}
