package gemm

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// I8Call is one batched int8 product c[b] = a[b] · bm[b] with int32
// results, laid out as Call's. Sums wrap modulo 2^32: the result is the
// exact sum's low 32 bits in any order, so it equals any other int32 or
// narrower wrapping dot of the same operands once narrowed.
//
// The kernel (simd.GemmI8: VPDPBUSD on ZMM registers at the AVX512 tier
// with AVX512_VNNI, its VEX form on YMM at the AVX2 tier with AVX-VNNI,
// both on the same 12×32 tile and panels) multiplies unsigned bytes of a by
// signed bytes of b, so a's bytes are packed offset by 128 (a ^ 0x80 =
// a + 128 as unsigned) and each step block subtracts 128·Σ b over its k
// from every element of its column. With AUnsigned, a holds uint8 values
// (pass their memory as []int8): the kernel's own u8 × s8 product, no
// offset and no correction.
type I8Call struct {
	Batch, M, N, K     int
	A                  []int8
	BatchA, RowA, ColA int
	B                  []int8
	BatchB, RowB, ColB int
	C                  []int32
	BatchC, LDC        int
	AUnsigned          bool
	Stop               Stopper // as Call.Stop
}

// aFlip is what packing XORs into a's bytes: the +128 offset of signed
// a, nothing for unsigned a.
func (g *I8Call) aFlip() uint32 {
	if g.AUnsigned {
		return 0
	}
	return 0x80808080
}

const (
	i8MR, i8NR = simd.GemmI8MR, simd.GemmI8NR
	// k values and columns per block: the 12×KC a panel is 6 KiB, a b
	// panel (KC×32) 16 KiB, both in L1; the KC×NC b block is 512 KiB, in
	// L2. NC covers a 1024-wide product in one block, so a is packed once
	// per k block (each a panel is packed once per column block).
	i8KC = 512
	i8NC = 1024
)

// Parts is Call.Parts for the int8 tile.
func (g *I8Call) Parts(workers int) int {
	return splitParts(g.Batch, g.M, g.N, i8MR, i8NR, workers)
}

// RunPart computes piece p of parts.
func (g *I8Call) RunPart(p, parts int) {
	b, i0, i1, j0, j1 := partOf(g.Batch, g.M, g.N, i8MR, i8NR, p, parts)
	ws := i8Pool.Get().(*i8Workspace)
	defer i8Pool.Put(ws)
	g.block(ws, b, i0, i1, j0, j1)
}

// Run computes the whole call on the calling goroutine.
func (g *I8Call) Run() {
	parts := g.Parts(1)
	for p := range parts {
		g.RunPart(p, parts)
	}
}

type i8Workspace struct {
	a    []uint8
	b    []int8
	corr []int32 // 128·Σ b over the block's k, by column
	tile []int32
}

var i8Pool = sync.Pool{New: func() any {
	return &i8Workspace{a: make([]uint8, i8KC*i8MR), b: make([]int8, i8KC*i8NC),
		corr: make([]int32, ceilDiv(i8NC, i8NR)*i8NR), tile: make([]int32, i8MR*i8NR)}
}}

func (g *I8Call) block(ws *i8Workspace, bi, i0, i1, j0, j1 int) {
	i8Blocks(g, ws, g.C[bi*g.BatchC:], g.LDC, g.K, bi, i0, i1, j0, j1, g.Stop)
}

// i8Source is what the int8 blocking loop (i8Blocks) packs its panels
// from: I8Call's int8 operands, or I4Call's 4-bit ones unpacked on the
// way (each packs batch bi's operands as I8Call.packA and packB lay out
// their panels, packB leaving the block's correction in ws.corr).
type i8Source interface {
	packA(dst []uint8, bi, ic, mb, pc, kb int)
	packB(ws *i8Workspace, bi, pc, kb, jc, nb int)
}

// i8Blocks computes rows [i0, i1) × columns [j0, j1) of c (batch bi's
// result, row stride ldc) over kk k values on the int8 micro-kernel,
// packing the panels from src.
func i8Blocks(src i8Source, ws *i8Workspace, c []int32, ldc, kk, bi, i0, i1, j0, j1 int, stop Stopper) {
	k, _ := simd.GemmI8()
	if kk == 0 {
		for i := i0; i < i1; i++ {
			clear(c[i*ldc+j0 : i*ldc+j1])
		}
		return
	}
	for jc := j0; jc < j1; jc += i8NC {
		nb := min(i8NC, j1-jc)
		for pc := 0; pc < kk; pc += i8KC {
			kb := min(i8KC, kk-pc)
			kb4 := ceilDiv(kb, 4)
			src.packB(ws, bi, pc, kb, jc, nb)
			for ic := i0; ic < i1; ic += i8MR {
				if stop != nil && stop.Stopped() {
					return // the run was cancelled: c holds unspecified values
				}
				mb := min(i8MR, i1-ic)
				src.packA(ws.a, bi, ic, mb, pc, kb)
				ap := ws.a[:kb4*i8MR*4]
				for jr := 0; jr < nb; jr += i8NR {
					nbr := min(i8NR, nb-jr)
					bp := ws.b[jr*kb4*4 : (jr+i8NR)*kb4*4]
					off := ic*ldc + jc + jr
					dst, ldt := c[off:], ldc
					if mb < i8MR || nbr < i8NR {
						dst, ldt = ws.tile, i8NR
						if pc > 0 {
							for r := range mb {
								copy(ws.tile[r*i8NR:r*i8NR+nbr], c[off+r*ldc:off+r*ldc+nbr])
							}
						}
					}
					k.Run(kb4, ap, bp, dst[:(i8MR-1)*ldt+i8NR], ldt, pc > 0, ws.corr[jr:jr+i8NR])
					if mb < i8MR || nbr < i8NR {
						for r := range mb {
							copy(c[off+r*ldc:off+r*ldc+nbr], ws.tile[r*i8NR:r*i8NR+nbr])
						}
					}
				}
			}
		}
	}
}

// packB packs columns [jc, jc+nb) × k [pc, pc+kb) of batch bi's b as 32-column
// panels of dwords (four k values of one column), zero past the edges, and
// sums the block's columns for the correction (zero past the last
// column). Four contiguous rows of b are interleaved across all panels at
// once (simd.InterleaveI8x4); the last rows of a k block that is no
// multiple of 4 go value by value. A transposed b (columns contiguous)
// goes panel by panel (packTransposedB).
func (g *I8Call) packB(ws *i8Workspace, bi, pc, kb, jc, nb int) {
	b := g.B[bi*g.BatchB:]
	kb4 := ceilDiv(kb, 4)
	stride := kb4 * i8NR * 4 // bytes from one panel to the next
	corr := ws.corr[:ceilDiv(nb, i8NR)*i8NR]
	clear(corr)
	if g.RowB == 1 && g.ColB >= kb {
		g.packTransposedB(ws, b, pc, kb, jc, nb)
		g.scaleCorr(corr)
		return
	}
	at := func(l, j int) int8 {
		if l >= kb {
			return 0
		}
		v := b[(pc+l)*g.RowB+(jc+j)*g.ColB]
		corr[j] += int32(v)
		return v
	}
	for l4 := range kb4 {
		if g.ColB == 1 && 4*l4+4 <= kb {
			var rows [4][]int8
			for t := range rows {
				off := (pc+4*l4+t)*g.RowB + jc
				rows[t] = b[off : off+nb]
			}
			simd.InterleaveI8x4(ws.b[l4*i8NR*4:], corr[:nb], rows[0], rows[1], rows[2], rows[3], stride)
			continue
		}
		for jp := 0; jp < nb; jp += i8NR {
			w := min(i8NR, nb-jp)
			words := unsafe.Slice((*uint32)(unsafe.Pointer(&ws.b[jp*kb4*4+l4*i8NR*4])), i8NR)
			for j := range w {
				l := 4 * l4
				words[j] = uint32(uint8(at(l, jp+j))) | uint32(uint8(at(l+1, jp+j)))<<8 |
					uint32(uint8(at(l+2, jp+j)))<<16 | uint32(uint8(at(l+3, jp+j)))<<24
			}
		}
	}
	if w := nb % i8NR; w != 0 {
		// The last panel's columns past nb are zero.
		last := ws.b[(nb-w)*kb4*4:]
		for l4 := range kb4 {
			clear(last[l4*i8NR*4+w*4 : (l4+1)*i8NR*4])
		}
	}
	g.scaleCorr(corr)
}

// scaleCorr turns the column sums into the correction the kernel
// subtracts: 128·Σ b for a offset by 128, none for unsigned a.
func (g *I8Call) scaleCorr(corr []int32) {
	if g.AUnsigned {
		clear(corr)
		return
	}
	for j := range corr {
		corr[j] *= 128
	}
}

// packTransposedB is packB for a b whose columns are contiguous (row
// stride 1): a full panel's 32 columns are 32 rows to transpose in dwords
// (simd.PackI8Rows), the k tail and a partial panel go value by value,
// and the column sums come from the packed panel (simd.SumPanelI8; the
// zeros past the edges add nothing).
func (g *I8Call) packTransposedB(ws *i8Workspace, b []int8, pc, kb, jc, nb int) {
	kb4 := ceilDiv(kb, 4)
	for jp := 0; jp < nb; jp += i8NR {
		w := min(i8NR, nb-jp)
		panel := ws.b[jp*kb4*4 : (jp+i8NR)*kb4*4]
		bytes := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(panel))), len(panel))
		full := 0
		if w == i8NR {
			full = kb / 4
			simd.PackI8Rows(bytes, b[(jc+jp)*g.ColB+pc:], g.ColB, full, i8NR, 0)
		}
		for l4 := full; l4 < kb4; l4++ {
			for j := range i8NR {
				for t := range 4 {
					var v int8
					if l := 4*l4 + t; l < kb && j < w {
						v = b[(pc+l)+(jc+jp+j)*g.ColB]
					}
					panel[(l4*i8NR+j)*4+t] = v
				}
			}
		}
		simd.SumPanelI8(kb4, panel, ws.corr[jp:jp+i8NR])
	}
}

// packA packs rows [ic, ic+mb) × k [pc, pc+kb) of batch bi's a (offset by 128 unless
// AUnsigned) as
// one panel of dwords (four k values of one row), zero past the edges: a
// row-major a four bytes at a time.
func (g *I8Call) packA(dst []uint8, bi, ic, mb, pc, kb int) {
	a := g.A[bi*g.BatchA:]
	kb4 := ceilDiv(kb, 4)
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), kb4*i8MR)
	if mb < i8MR {
		clear(words)
	}
	flip := g.aFlip()
	full := 0 // dwords of every row packed by the vector kernel
	switch {
	case mb < i8MR:
	case g.ColA == 1 && g.RowA > 0:
		full = kb / 4
		simd.PackI8Rows(dst, a[ic*g.RowA+pc:], g.RowA, full, i8MR, flip)
	case g.RowA == 1 && g.ColA > 0 && ic+(pc+4*(kb/4)-1)*g.ColA+16 <= len(a):
		// a stored transposed: each k's 12 values are contiguous (the
		// kernel reads 16, so they must be there).
		full = kb / 4
		simd.PackI8Cols12(dst, a[ic+pc*g.ColA:], g.ColA, full, flip)
	}
	for r := range mb {
		src := a[(ic+r)*g.RowA+pc*g.ColA:]
		l4 := full
		if g.ColA == 1 {
			bytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), len(src))
			for ; l4 < kb/4; l4++ {
				words[l4*i8MR+r] = binary.LittleEndian.Uint32(bytes[4*l4:]) ^ flip
			}
		}
		for ; l4 < kb4; l4++ {
			var w uint32
			for t := range 4 {
				if l := 4*l4 + t; l < kb {
					w |= uint32(uint8(src[l*g.ColA])) << (8 * t)
				}
			}
			words[l4*i8MR+r] = w ^ flip
		}
	}
}
