package gemm

import (
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// IntKind is how an I4Call operand stores its integers.
type IntKind uint8

const (
	Int8  IntKind = iota // one int8 per byte
	Uint8                // one uint8 per byte (a only: the kernel's b is signed)
	Int4                 // two per byte, the low nibble first, each a two's-complement int4
	Uint4                // two per byte, the low nibble first
)

// nibbles reports whether k packs two values per byte.
func (k IntKind) nibbles() bool { return k == Int4 || k == Uint4 }

// I4Call is I8Call with 4-bit operands: a, b or both hold int4 or uint4
// values packed two per byte, the low nibble first (tensor.IntFormat's
// layout), unpacked to bytes while the panels are packed, so the product
// runs on the int8 micro-kernel (VPDPBUSD) with no unpacked copy of an
// operand made first. Strides and offsets count elements, so element
// (i, l) of a 4-bit a[b] is nibble e = b*BatchA + i*RowA + l*ColA of A:
// byte e/2, its low half when e is even. The results are I8Call's on the
// unpacked values: the exact sums' low 32 bits.
//
// AKind may be any IntKind; BKind may not be Uint8 (the kernel multiplies
// unsigned bytes of a by signed bytes of b; every 4-bit value is a signed
// byte).
type I4Call struct {
	Batch, M, N, K     int
	A                  []uint8
	BatchA, RowA, ColA int
	AKind              IntKind
	B                  []uint8
	BatchB, RowB, ColB int
	BKind              IntKind
	C                  []int32
	BatchC, LDC        int
	Stop               Stopper // as Call.Stop
}

// Parts is Call.Parts for the int8 tile.
func (g *I4Call) Parts(workers int) int {
	return splitParts(g.Batch, g.M, g.N, i8MR, i8NR, workers)
}

// Region is piece p of parts' part of c: batch b, rows [i0, i1) and
// columns [j0, j1) — the elements RunPart(p, parts) writes.
func (g *I4Call) Region(p, parts int) (b, i0, i1, j0, j1 int) {
	return partOf(g.Batch, g.M, g.N, i8MR, i8NR, p, parts)
}

// RunPart computes piece p of parts.
func (g *I4Call) RunPart(p, parts int) {
	b, i0, i1, j0, j1 := g.Region(p, parts)
	ws := i8Pool.Get().(*i8Workspace)
	defer i8Pool.Put(ws)
	i8Blocks(g, ws, g.C[b*g.BatchC:], g.LDC, g.K, b, i0, i1, j0, j1, g.Stop)
}

// Run computes the whole call on the calling goroutine.
func (g *I4Call) Run() {
	parts := g.Parts(1)
	for p := range parts {
		g.RunPart(p, parts)
	}
}

// aUnsigned reports whether a's values are unsigned: the kernel's own
// u8 × s8 product, with no +128 offset and no correction.
func (g *I4Call) aUnsigned() bool { return g.AKind == Uint8 || g.AKind == Uint4 }

// bytes is g as an I8Call over its byte operands (those of IntKind Int8
// or Uint8), for packing them as I8Call does.
func (g *I4Call) bytes() *I8Call {
	return &I8Call{A: bytesAsInt8(g.A), BatchA: g.BatchA, RowA: g.RowA, ColA: g.ColA, B: bytesAsInt8(g.B),
		BatchB: g.BatchB, RowB: g.RowB, ColB: g.ColB, AUnsigned: g.aUnsigned()}
}

func bytesAsInt8(x []uint8) []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// i4Scratch holds unpacked rows: 32 columns of a transposed b's k block
// (the largest user), 12 rows of a's, or four rows of b's columns.
type i4Scratch struct{ rows []int8 }

var i4Pool = sync.Pool{New: func() any { return &i4Scratch{rows: make([]int8, max(i8NR*i8KC, i8MR*i8KC, 4*i8NC))} }}

// packA packs as I8Call.packA does; 4-bit rows are unpacked into a
// scratch panel of 12 rows (zero past the edges) first.
func (g *I4Call) packA(dst []uint8, bi, ic, mb, pc, kb int) {
	if !g.AKind.nibbles() {
		g.bytes().packA(dst, bi, ic, mb, pc, kb)
		return
	}
	sc := i4Pool.Get().(*i4Scratch)
	defer i4Pool.Put(sc)
	kb4 := ceilDiv(kb, 4)
	st := 4 * kb4
	rows := sc.rows[:i8MR*st]
	signed := g.AKind == Int4
	for r := range mb {
		row := rows[r*st : (r+1)*st]
		unpackNibbles(row[:kb], g.A, bi*g.BatchA+(ic+r)*g.RowA+pc*g.ColA, g.ColA, signed)
		clear(row[kb:])
	}
	clear(rows[mb*st:])
	var flip uint32
	if signed {
		flip = 0x80808080
	}
	simd.PackI8Rows(dst, rows, st, kb4, i8MR, flip)
}

// packB packs as I8Call.packB does; 4-bit values are unpacked first: four
// rows of the block's columns at a time (simd.InterleaveI8x4 then
// interleaves them and sums the columns), or, for a b stored transposed,
// a panel's 32 columns along k (simd.PackI8Rows, simd.SumPanelI8).
func (g *I4Call) packB(ws *i8Workspace, bi, pc, kb, jc, nb int) {
	if !g.BKind.nibbles() {
		g.bytes().packB(ws, bi, pc, kb, jc, nb)
		return
	}
	sc := i4Pool.Get().(*i4Scratch)
	defer i4Pool.Put(sc)
	kb4 := ceilDiv(kb, 4)
	stride := kb4 * i8NR * 4 // bytes from one panel to the next
	corr := ws.corr[:ceilDiv(nb, i8NR)*i8NR]
	clear(corr)
	signed := g.BKind == Int4
	base := bi * g.BatchB
	if g.RowB == 1 && g.ColB != 1 {
		st := 4 * kb4
		cols := sc.rows[:i8NR*st]
		for jp := 0; jp < nb; jp += i8NR {
			w := min(i8NR, nb-jp)
			for j := range w {
				col := cols[j*st : (j+1)*st]
				unpackNibbles(col[:kb], g.B, base+pc+(jc+jp+j)*g.ColB, 1, signed)
				clear(col[kb:])
			}
			clear(cols[w*st:])
			panel := ws.b[jp*kb4*4 : (jp+i8NR)*kb4*4]
			simd.PackI8Rows(unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(panel))), len(panel)), cols, st, kb4, i8NR, 0)
			simd.SumPanelI8(kb4, panel, corr[jp:jp+i8NR])
		}
	} else {
		var rows [4][]int8
		for t := range rows {
			rows[t] = sc.rows[t*nb : (t+1)*nb]
		}
		for l4 := range kb4 {
			for t := range rows {
				if l := 4*l4 + t; l < kb {
					unpackNibbles(rows[t], g.B, base+(pc+l)*g.RowB+jc*g.ColB, g.ColB, signed)
				} else {
					clear(rows[t])
				}
			}
			simd.InterleaveI8x4(ws.b[l4*i8NR*4:], corr[:nb], rows[0], rows[1], rows[2], rows[3], stride)
		}
		if w := nb % i8NR; w != 0 {
			// The last panel's columns past nb are zero.
			last := ws.b[(nb-w)*kb4*4:]
			for l4 := range kb4 {
				clear(last[l4*i8NR*4+w*4 : (l4+1)*i8NR*4])
			}
		}
	}
	if g.aUnsigned() {
		clear(corr)
		return
	}
	for j := range corr {
		corr[j] *= 128
	}
}

// unpackNibbles sets dst[i] to the 4-bit value at nibble start+i*stride
// of src (byte e/2 of nibble e, the low half for even e), sign-extended
// when signed: contiguous runs a byte at a time (simd.UnpackI4 or
// UnpackU4), others a value at a time.
func unpackNibbles(dst []int8, src []uint8, start, stride int, signed bool) {
	if len(dst) == 0 {
		return
	}
	nib := func(e int) int8 {
		v := src[e>>1] >> (4 * uint(e&1)) & 0xf
		if signed {
			return int8(v<<4) >> 4
		}
		return int8(v)
	}
	if stride != 1 {
		for i := range dst {
			dst[i] = nib(start + i*stride)
		}
		return
	}
	if start&1 == 1 {
		dst[0] = nib(start)
		dst, start = dst[1:], start+1
	}
	pairs := len(dst) / 2
	if signed {
		simd.UnpackI4(dst[:2*pairs], src[start>>1:start>>1+pairs])
	} else {
		simd.UnpackU4(dst[:2*pairs], src[start>>1:start>>1+pairs])
	}
	if len(dst)&1 == 1 {
		dst[len(dst)-1] = nib(start + 2*pairs)
	}
}
