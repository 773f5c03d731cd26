package main

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// GEMM micro-kernels: c[rows×cols] (+)= a-panel · b-panel over kc steps,
// with element (r, l) of a at a[r*ra + l*sa] — package gemm's packed panel
// (ra 1, sa rows), or a matrix read in place — row l of b at b[l*sb:]
// (packed: sb cols), and c row-major with row stride ldc. Every element of c is one vector
// lane that takes its kc products in order, each with one fused
// multiply-add, so a tile's result does not depend on the ISA, the tile
// shape or how package gemm blocks k: it continues from c when load is
// set. The AVX-512 kernels hold 12 rows × 2 vectors of accumulators (24
// of the 32 ZMM registers), the AVX2 kernels 6 × 2 of the 16 YMM registers;
// both broadcast each a element into a register once per step.

type gemmShape struct {
	name       string
	elem       string // Go element type
	size       int    // its bytes
	rows, vecs int
	isa        isa
}

var gemmShapes = []gemmShape{
	{"gemm12x32F32", "float32", 4, 12, 2, avx512},
	{"gemm14x32F32", "float32", 4, 14, 2, avx512}, // tall panels (28 of the 32 ZMM registers)
	{"gemm12x16F32", "float32", 4, 12, 1, avx512}, // narrow products (n ≤ 16)
	{"gemm8x32F32", "float32", 4, 8, 2, avx512},   // bottom edges of 5-8 rows
	{"gemm4x32F32", "float32", 4, 4, 2, avx512},   // bottom edges of 1-4 rows
	{"gemm6x16F32", "float32", 4, 6, 2, avx2},
	{"gemm12x16F64", "float64", 8, 12, 2, avx512},
	{"gemm8x16F64", "float64", 8, 8, 2, avx512},
	{"gemm4x16F64", "float64", 8, 4, 2, avx512},
	{"gemm6x8F64", "float64", 8, 6, 2, avx2},
}

func registerGEMM() {
	registerShapes(gemmShapes, "kc int, a []ELEM, ra, sa int, b []ELEM, sb int, c []ELEM, ldc int, load bool", microKernel)
	registerShapes(gemmShapes2, "k1, k2 int, a []ELEM, b []ELEM, sb1, sb2 int, c []ELEM, ldc int, load bool", microKernel2)
}

// gemmShapes2 are the kernels whose b rows step in two levels
// (GemmKernel.Run2): the f32 AVX-512 tiles, for a convolution's kernel
// cotangent read in place.
var gemmShapes2 = []gemmShape{
	{"gemm14x32F32S2", "float32", 4, 14, 2, avx512},
	{"gemm12x32F32S2", "float32", 4, 12, 2, avx512},
	{"gemm8x32F32S2", "float32", 4, 8, 2, avx512},
	{"gemm4x32F32S2", "float32", 4, 4, 2, avx512},
}

// microKernel2 is microKernel over k1·k2 steps whose b rows lie at
// i1·sb1 + i2·sb2 (step i1·k2 + i2) and whose a is a packed panel (ra 1,
// sa rows): an outer loop of k1 and an inner loop of k2 steps (k2 ≥ 1), each step
// microKernel's, in the same order — the same bits as microKernel over a
// packed copy of those rows.
func microKernel2(s isa, g gemmShape) {
	label := func(l string) string { return fmt.Sprintf("%s%s_%s", g.name, s.name, l) }
	shift := uint8(2)
	if g.size == 8 {
		shift = 3
	}
	kc, b := GP64(), GP64()
	Load(Param("k1"), kc)
	Load(Param("b").Base(), b)
	SB2, SB1 := GP64(), GP64()
	Load(Param("sb2"), SB2)
	SHLQ(U8(shift), SB2)
	// SB1 becomes sb1 − k2·sb2 (bytes): the move after an inner loop.
	Load(Param("sb1"), SB1)
	k2 := GP64()
	Load(Param("k2"), k2)
	IMULQ(SB2, k2)
	SHLQ(U8(shift), SB1)
	SUBQ(k2, SB1)
	// a is a packed panel: step l's rows at a[l·rows:], so one pointer
	// with the rows as displacements, moved by a constant per step
	// (microKernel's three pointers and their moves by a register cost
	// issue slots this loop, whose b moves in two levels, cannot spare).
	p0 := GP64()
	Load(Param("a").Base(), p0)
	move, fma, bcast := VMOVUPS, VFMADD231PS, VBROADCASTSS
	if g.size == 8 {
		move, fma, bcast = VMOVUPD, VFMADD231PD, VBROADCASTSD
	}
	acc := make([][]reg.VecVirtual, g.rows)
	for r := range acc {
		acc[r] = make([]reg.VecVirtual, g.vecs)
		for v := range acc[r] {
			acc[r][v] = s.vec()
		}
	}
	// The tile's load or clear and the prefetch of the tile to the
	// right, as microKernel's; c, ldc and p are loaded again for the
	// store, so that they are not live across the loop.
	{
		c, ldc, p := GP64(), GP64(), GP64()
		Load(Param("c").Base(), c)
		Load(Param("ldc"), ldc)
		SHLQ(U8(shift), ldc)
		loadTile(acc, c, ldc, p, s.bytes, label, func(m Mem, x reg.VecVirtual) { move(m, x) }, func(x reg.VecVirtual) { s.xor(x, x, x) })
		width := g.vecs * s.bytes
		MOVQ(c, p)
		ADDQ(U32(width), p)
		for range g.rows {
			for off := 0; off < width; off += 64 {
				PREFETCHT0(Mem{Base: p, Disp: off})
			}
			ADDQ(ldc, p)
		}
	}
	TESTQ(kc, kc)
	JEQ(LabelRef(label("tail")))
	Label(label("outer"))
	n := GP64()
	Load(Param("k2"), n)
	Label(label("loop"))
	gemmStep(s, acc, move, bcast, fma,
		func(r int) Mem { return Mem{Base: p0, Disp: r * g.size} },
		func(v int) Mem { return Mem{Base: b, Disp: v * s.bytes} })
	ADDQ(U32(g.rows*g.size), p0)
	ADDQ(SB2, b)
	DECQ(n)
	JNE(LabelRef(label("loop")))
	ADDQ(SB1, b)
	DECQ(kc)
	JNE(LabelRef(label("outer")))
	Label(label("tail"))
	c, ldc, p := GP64(), GP64(), GP64()
	Load(Param("c").Base(), c)
	Load(Param("ldc"), ldc)
	SHLQ(U8(shift), ldc)
	storeTile(acc, c, ldc, p, s.bytes, label, func(x reg.VecVirtual, m Mem) { move(x, m) })
}

// registerShapes registers a micro-kernel per shape, with the parameters
// params (ELEM standing for the shape's element type), emitted by kernel
// for the shape's ISA only.
func registerShapes(shapes []gemmShape, params string, kernel func(s isa, g gemmShape)) {
	for _, g := range shapes {
		addR(g.name, strings.ReplaceAll(params, "ELEM", g.elem), "", "", func(s isa) {
			if s.name != g.isa.name {
				return
			}
			text(s)
			kernel(s, g)
		})
	}
}

func microKernel(s isa, g gemmShape) {
	label := func(l string) string { return fmt.Sprintf("%s%s_%s", g.name, s.name, l) }
	kc, b, c, ldc, p := GP64(), GP64(), GP64(), GP64(), GP64()
	Load(Param("kc"), kc)
	Load(Param("b").Base(), b)
	Load(Param("c").Base(), c)
	Load(Param("ldc"), ldc)
	shift := uint8(2)
	if g.size == 8 {
		shift = 3
	}
	SHLQ(U8(shift), ldc)
	// Row r of a at [base + index·scale] with scales 1, 2, 4, 8 of ra
	// (L) or 3ra (L3) from three pointers p0, p3 = p0 + 3L, p6 = p0 + 6L,
	// each moved by sa (S) per step.
	SB := GP64()
	Load(Param("sb"), SB)
	SHLQ(U8(shift), SB)
	L, L3, S := GP64(), GP64(), GP64()
	Load(Param("ra"), L)
	SHLQ(U8(shift), L)
	Load(Param("sa"), S)
	SHLQ(U8(shift), S)
	LEAQ(Mem{Base: L, Index: L, Scale: 2}, L3)
	p0 := GP64()
	Load(Param("a").Base(), p0)
	ptrs, rowAt := rowPointers(p0, L, L3, g.rows)
	move, fma, bcast := VMOVUPS, VFMADD231PS, VBROADCASTSS
	if g.size == 8 {
		move, fma, bcast = VMOVUPD, VFMADD231PD, VBROADCASTSD
	}
	acc := make([][]reg.VecVirtual, g.rows)
	for r := range acc {
		acc[r] = make([]reg.VecVirtual, g.vecs)
		for v := range acc[r] {
			acc[r][v] = s.vec()
		}
	}
	loadTile(acc, c, ldc, p, s.bytes, label, func(m Mem, x reg.VecVirtual) { move(m, x) }, func(x reg.VecVirtual) { s.xor(x, x, x) })
	// The tile to the right is most often the next one the caller runs:
	// ask for its rows now, so their loads (c's rows lie a large stride
	// apart, rarely in L1) overlap this tile's steps. A prefetch never
	// faults, so past the end of c it costs nothing but the request.
	width := g.vecs * s.bytes
	MOVQ(c, p)
	ADDQ(U32(width), p)
	for range g.rows {
		for off := 0; off < width; off += 64 {
			PREFETCHT0(Mem{Base: p, Disp: off})
		}
		ADDQ(ldc, p)
	}
	step := func(aAt func(r int) Mem, bAt func(v int) Mem) { gemmStep(s, acc, move, bcast, fma, aAt, bAt) }
	bRow := func(v int) Mem { return Mem{Base: b, Disp: v * s.bytes} }
	TESTQ(kc, kc)
	JEQ(LabelRef(label("store")))
	// Where a's steps are one element apart (sa 1: a row-major a, read
	// in place or packed in rows), two steps per iteration: the second
	// step's a one element further (a displacement) and its b row SB
	// further (an index), so the pointers move once per two steps.
	CMPQ(S, U32(g.size))
	JNE(LabelRef(label("loop")))
	CMPQ(kc, U32(2))
	JL(LabelRef(label("one")))
	Label(label("pair"))
	step(rowAt, bRow)
	step(func(r int) Mem { m := rowAt(r); m.Disp += g.size; return m },
		func(v int) Mem { return Mem{Base: b, Index: SB, Scale: 1, Disp: v * s.bytes} })
	for _, q := range ptrs {
		ADDQ(U32(2*g.size), q)
	}
	LEAQ(Mem{Base: b, Index: SB, Scale: 2}, b)
	SUBQ(U32(2), kc)
	CMPQ(kc, U32(2))
	JGE(LabelRef(label("pair")))
	Label(label("one"))
	TESTQ(kc, kc)
	JEQ(LabelRef(label("store")))
	step(rowAt, bRow)
	JMP(LabelRef(label("store")))
	Label(label("loop"))
	step(rowAt, bRow)
	for _, q := range ptrs {
		ADDQ(S, q)
	}
	ADDQ(SB, b)
	DECQ(kc)
	JNE(LabelRef(label("loop")))
	storeTile(acc, c, ldc, p, s.bytes, label, func(x reg.VecVirtual, m Mem) { move(x, m) })
}

// gemmStep emits one step of a micro-kernel: b's vectors (bAt), then for
// each row the broadcast of its a element (aAt) and its FMAs into the
// row's accumulators acc.
func gemmStep(s isa, acc [][]reg.VecVirtual, move, bcast, fma func(...Op), aAt func(r int) Mem, bAt func(v int) Mem) {
	bv := make([]reg.VecVirtual, len(acc[0]))
	for v := range bv {
		bv[v] = s.vec()
		move(bAt(v), bv[v])
	}
	for r := range acc {
		// A broadcast register feeds both vectors' FMAs: one load per
		// a element, where an embedded broadcast would load it per FMA.
		t := s.vec()
		bcast(aAt(r), t)
		for v, x := range acc[r] {
			fma(t, bv[v], x)
		}
	}
}

// rowPointers addresses rows of a with row stride L (bytes; L3 = 3L)
// from p0: row r at [base + index·scale] with scales 1, 2, 4, 8 of L or
// L3 from up to three pointers p0, p3 = p0 + 3L, p6 = p0 + 6L — four,
// p9 = p0 + 9L, for more than 12 rows — the pointers a kernel moves by
// its step stride.
func rowPointers(p0, L, L3 reg.GPVirtual, rows int) ([]reg.GPVirtual, func(r int) Mem) {
	ptrs := []reg.GPVirtual{p0}
	most := 3
	if rows > 12 {
		most = 4
	}
	for range (rows - 1) / 3 {
		if len(ptrs) == most {
			break
		}
		q := GP64()
		LEAQ(Mem{Base: ptrs[len(ptrs)-1], Index: L3, Scale: 1}, q)
		ptrs = append(ptrs, q)
	}
	rowAt := func(r int) Mem {
		type at struct {
			p, scale int
			l3       bool
		}
		m := map[int]at{0: {0, 0, false}, 1: {0, 1, false}, 2: {0, 2, false}, 3: {1, 0, false}, 4: {0, 4, false},
			5: {1, 2, false}, 6: {2, 0, false}, 7: {2, 1, false}, 8: {0, 8, false}, 9: {1, 2, true}, 10: {2, 4, false}, 11: {1, 8, false},
			12: {3, 1, true}, 13: {3, 4, false}}[r]
		mem := Mem{Base: ptrs[m.p]}
		if m.scale > 0 {
			mem.Index, mem.Scale = L, uint8(m.scale)
			if m.l3 {
				mem.Index = L3
			}
		}
		return mem
	}
	return ptrs, rowAt
}

// loadTile loads the accumulators acc (rows of vectors of width bytes)
// from the tile at c with row stride ldc (bytes) when the kernel's load
// parameter is set, else clears them (zero), and falls through to the
// label "test".
func loadTile[V reg.Register](acc [][]V, c, ldc, p reg.GPVirtual, width int, label func(string) string,
	move func(Mem, V), zero func(V)) {
	load := GP8()
	Load(Param("load"), load)
	TESTB(load, load)
	JEQ(LabelRef(label("zero")))
	MOVQ(c, p)
	for r := range acc {
		for v, x := range acc[r] {
			move(Mem{Base: p, Disp: v * width}, x)
		}
		ADDQ(ldc, p)
	}
	JMP(LabelRef(label("test")))
	Label(label("zero"))
	for r := range acc {
		for _, x := range acc[r] {
			zero(x)
		}
	}
	Label(label("test"))
}

// storeTile is the kernels' end at the label "store": the accumulators
// back to the tile, and return.
func storeTile[V reg.Register](acc [][]V, c, ldc, p reg.GPVirtual, width int, label func(string) string, move func(V, Mem)) {
	Label(label("store"))
	MOVQ(c, p)
	for r := range acc {
		for v, x := range acc[r] {
			move(x, Mem{Base: p, Disp: v * width})
		}
		ADDQ(ldc, p)
	}
	VZEROUPPER()
	RET()
}

// gemm12x32I8 is the int8 micro-kernel on AVX512_VNNI: c[12×32] int32
// (+)= a·b over kc4 steps of four k values, with VPDPBUSD adding the four
// products of an unsigned byte of a and a signed byte of b to each int32
// lane. Packed layouts: step l of the a panel is the 12 dwords
// a[(l*12+r)*4+t] (row r, k = 4l+t), of the b panel the 32 dwords
// b[(l*32+j)*4+t]. Integer sums are exact modulo 2^32, so the order does
// not matter. Before storing, the kernel subtracts corr[j] (package
// gemm's offset correction) from every row's column j. Package simd runs
// the AVX-512 body when the CPU has AVX512_VNNI, the AVX2 one (gemmI8AVX2,
// the VEX-encoded VPDPBUSD) when it has AVX-VNNI.
func registerGEMMInt8() {
	addR("gemm12x32I8", "kc4 int, a []uint8, b []int8, c []int32, ldc int, load bool, corr []int32", "", "", func(s isa) {
		if !s.evex {
			gemmI8AVX2(s) // int8avx2.go
			return
		}
		text(s)
		const rows, vecs = 12, 2
		label := func(l string) string { return "gemm12x32I8" + s.name + "_" + l }
		kc, a, b, c, ldc, p := i8Args()
		acc := make([][]reg.VecVirtual, rows)
		for r := range acc {
			acc[r] = []reg.VecVirtual{ZMM(), ZMM()}
		}
		loadTile(acc, c, ldc, p, 64, label, func(m Mem, x reg.VecVirtual) { VMOVDQU32(m, x) }, func(x reg.VecVirtual) { VPXORD(x, x, x) })
		TESTQ(kc, kc)
		JEQ(LabelRef(label("corr")))
		Label(label("loop"))
		bv := []reg.VecVirtual{ZMM(), ZMM()}
		for v := range bv {
			VMOVDQU32(Mem{Base: b, Disp: v * 64}, bv[v])
		}
		for r := range acc {
			t := ZMM()
			VPBROADCASTD(Mem{Base: a, Disp: r * 4}, t)
			for v, x := range acc[r] {
				// avo v0.5.0 has no VPDPBUSD; Go's assembler has: x += u8(t)·s8(b) by dword.
				Instruction(&ir.Instruction{Opcode: "VPDPBUSD", Operands: []Op{bv[v], t, x},
					Inputs: []Op{bv[v], t, x}, Outputs: []Op{x}, ISA: []string{"AVX512_VNNI"}})
			}
		}
		ADDQ(U32(rows*4), a)
		ADDQ(U32(vecs*64), b)
		DECQ(kc)
		JNE(LabelRef(label("loop")))
		Label(label("corr"))
		Load(Param("corr").Base(), p)
		cv := []reg.VecVirtual{ZMM(), ZMM()}
		for v := range cv {
			VMOVDQU32(Mem{Base: p, Disp: v * 64}, cv[v])
		}
		for r := range acc {
			for v, x := range acc[r] {
				VPSUBD(cv[v], x, x)
			}
		}
		storeTile(acc, c, ldc, p, 64, label, func(x reg.VecVirtual, m Mem) { VMOVDQU32(x, m) })
	})
}

// gemm12x32BF16 is the bf16 micro-kernel on AVX512_BF16: c[12×32] f32
// (+)= a·b over kc2 steps of two k values, with VDPBF16PS adding, in each
// f32 lane, the product of the high bf16 halves and then of the low ones,
// each rounded once, inputs and results with subnormals as zeros
// (simd.BF16Step is one lane). Layouts: the a panel is row-major, row r's
// step l the word a[r*ra+l] (k = 2l low, 2l+1 high; packing is a copy of
// row pairs), broadcast through rowPointers; step l of the b panel is the
// 32 words b[l*32+j]. Only the AVX-512 body exists; package simd runs it
// when the CPU has AVX512_BF16.
//
// Neither Go's assembler nor avo knows VDPBF16PS, so it is emitted as
// bytes (vdpbf16ps), which name registers: this kernel uses physical
// vector registers only — the accumulators Z0–Z23, b in Z24 and Z25, the
// broadcast a words in Z26–Z31 in turn.
func registerGEMMBF16() {
	addR("gemm12x32BF16", "kc2 int, a []uint32, ra int, b []uint32, c []float32, ldc int, load bool", "", "", func(s isa) {
		if !s.evex {
			return
		}
		text(s)
		const rows, vecs = 12, 2
		label := func(l string) string { return "gemm12x32BF16" + s.name + "_" + l }
		kc, b, c, ldc, p := GP64(), GP64(), GP64(), GP64(), GP64()
		Load(Param("kc2"), kc)
		Load(Param("b").Base(), b)
		Load(Param("c").Base(), c)
		Load(Param("ldc"), ldc)
		SHLQ(U8(2), ldc)
		L, L3, a := GP64(), GP64(), GP64()
		Load(Param("ra"), L)
		SHLQ(U8(2), L)
		LEAQ(Mem{Base: L, Index: L, Scale: 2}, L3)
		Load(Param("a").Base(), a)
		ptrs, rowAt := rowPointers(a, L, L3, rows)
		acc := make([][]int, rows)
		accR := make([][]reg.VecPhysical, rows)
		for r := range acc {
			acc[r] = []int{2 * r, 2*r + 1}
			accR[r] = []reg.VecPhysical{zmm[2*r], zmm[2*r+1]}
		}
		loadTile(accR, c, ldc, p, 64, label, func(m Mem, x reg.VecPhysical) { VMOVUPS(m, x) }, func(x reg.VecPhysical) { VPXORD(x, x, x) })
		TESTQ(kc, kc)
		JEQ(LabelRef(label("store")))
		Label(label("loop"))
		bv := []int{24, 25}
		for v, z := range bv {
			VMOVDQU32(Mem{Base: b, Disp: v * 64}, zmm[z])
		}
		for r := range acc {
			t := 26 + r%6
			VPBROADCASTD(rowAt(r), zmm[t])
			for v, x := range acc[r] {
				vdpbf16ps(x, t, bv[v])
			}
		}
		for _, q := range ptrs {
			ADDQ(U8(4), q)
		}
		ADDQ(U32(vecs*64), b)
		DECQ(kc)
		JNE(LabelRef(label("loop")))
		storeTile(accR, c, ldc, p, 64, label, func(x reg.VecPhysical, m Mem) { VMOVUPS(x, m) })
	})
}

// zmm lists the vector registers by number.
var zmm = []reg.VecPhysical{reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
	reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
	reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23,
	reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31}

// vdpbf16ps emits VDPBF16PS zmm(dst), zmm(src1), zmm(src2) — dst +=
// pairwise src1·src2 — as its EVEX bytes (EVEX.512.F3.0F38.W0 52 /r):
// P0 holds the inverted high bits of dst (R, R') and src2 (B, X) and map
// 0F38, P1 W0, the inverted src1 in vvvv and prefix F3, P2 the 512-bit
// length and src1's inverted bit 4 (V'), ModRM dst and src2.
func vdpbf16ps(dst, src1, src2 int) {
	inv := func(x, bit int) byte { return byte(^x>>bit) & 1 }
	p0 := inv(dst, 3)<<7 | inv(src2, 4)<<6 | inv(src2, 3)<<5 | inv(dst, 4)<<4 | 0b10
	p1 := byte(^src1&15)<<3 | 1<<2 | 0b10
	p2 := byte(0b10)<<5 | inv(src1, 4)<<3
	modrm := byte(0xc0) | byte(dst&7)<<3 | byte(src2&7)
	Comment(fmt.Sprintf("VDPBF16PS Z%d, Z%d, Z%d", src2, src1, dst))
	for _, x := range []byte{0x62, p0, p1, p2, 0x52, modrm} {
		Instruction(&ir.Instruction{Opcode: "BYTE", Operands: []Op{U8(x)}})
	}
}

// interleaveBF16 packs two rows of bf16 bits into the bf16 GEMM's words,
// dst[i] = lo[i] | hi[i]<<16: k values 2l and 2l+1 of 32 columns side by
// side (package gemm's b panels).
func registerInterleaveBF16() {
	add("interleaveBF16", "dst []uint32, lo, hi []uint16", func(s isa) {
		loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
			d, e := s.vec(), s.vec()
			VPMOVZXWD(in[0], d)
			VPMOVZXWD(in[1], e)
			VPSLLD(U8(16), e, e)
			if s.evex {
				VPORD(d, e, d)
			} else {
				VPOR(d, e, d)
			}
			return []Op{d}
		}}.emit(s, out("dst", 4), in("lo", 2), in("hi", 2))
	}).wrap("InterleaveBF16", "computes dst[i] = lo[i] | hi[i]<<16: two rows of bfloat16 bits side by side as the bf16 GEMM's words (k even low).",
		"interleaveBF16Go(dst, lo, hi)")
}
