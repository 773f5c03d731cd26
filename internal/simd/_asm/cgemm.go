package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Complex GEMM micro-kernels: the c64 and c128 tile c[rows×cols] (+)=
// a-panel · b-panel over kc steps, each complex product rounded as
// NumPy's complex multiply (re = ar·br − ai·bi, im = ar·bi + ai·br, every
// product, difference and sum rounded; no FMA) and then added, part by
// part, to the accumulator, so every element is the same chain of
// roundings at every tier.
//
// Layouts (package gemm packs them): step l of the a panel is rows (re,
// im) pairs, a[l*2*rows + 2r], a[l*2*rows + 2r + 1], broadcast once each
// per step; step l of the b panel is the real parts of its cols lanes,
// then their imaginary parts (b[l*2*cols + p], b[l*2*cols + cols + p]).
// c is interleaved complex, row-major, ldc complex elements per row.
//
// The accumulators are planar (accR, accI per row and vector). Storing
// interleaves them with VUNPCKLPS/VUNPCKHPS (PD), which pair lanes within
// each 128-bit lane; so that the two halves come out as consecutive runs
// of columns, lane p of a vector of n lanes holds column cgemmLane(p, n,
// size) of its n (simd.GemmCKernel.Lanes), and loading takes a tile back
// apart with VSHUFPS (PD), which is the inverse. The AVX-512 kernels hold
// 4 rows × 2 vectors of accR and accI (16 of the 32 ZMM registers), the
// AVX2 ones 4 rows × 1 vector (8 of 16 YMM).
var cgemmShapes = []gemmShape{
	{"cgemm4x32F32", "float32", 4, 4, 2, avx512},
	{"cgemm4x8F32", "float32", 4, 4, 1, avx2},
	{"cgemm4x16F64", "float64", 8, 4, 2, avx512},
	{"cgemm4x4F64", "float64", 8, 4, 1, avx2},
}

func registerCGEMM() {
	registerShapes(cgemmShapes, "kc int, a, b, c []ELEM, ldc int, load bool", cgemmKernel)
}

func cgemmKernel(s isa, g gemmShape) {
	label := func(l string) string { return fmt.Sprintf("%s%s_%s", g.name, s.name, l) }
	mul, sub, add, bcast, move := VMULPS, VSUBPS, VADDPS, VBROADCASTSS, VMOVUPS
	unpackLo, unpackHi := VUNPCKLPS, VUNPCKHPS
	shuffle := func(real bool, hi, lo, dst Op) {
		imm := uint8(0x88) // the even (real) elements of each 128-bit lane
		if !real {
			imm = 0xdd
		}
		VSHUFPS(U8(imm), hi, lo, dst)
	}
	if g.size == 8 {
		mul, sub, add, bcast, move = VMULPD, VSUBPD, VADDPD, VBROADCASTSD, VMOVUPD
		unpackLo, unpackHi = VUNPCKLPD, VUNPCKHPD
		shuffle = func(real bool, hi, lo, dst Op) {
			imm := uint8(0x00)
			if !real {
				imm = 0xff
			}
			VSHUFPD(U8(imm), hi, lo, dst)
		}
	}
	kc, a, b, c, ldc, p := GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	Load(Param("kc"), kc)
	Load(Param("a").Base(), a)
	Load(Param("b").Base(), b)
	Load(Param("c").Base(), c)
	Load(Param("ldc"), ldc)
	shift := uint8(3) // bytes per complex element: 2·size
	if g.size == 8 {
		shift = 4
	}
	SHLQ(U8(shift), ldc)
	accR, accI := make([][]reg.VecVirtual, g.rows), make([][]reg.VecVirtual, g.rows)
	for r := range accR {
		for range g.vecs {
			accR[r] = append(accR[r], s.vec())
			accI[r] = append(accI[r], s.vec())
		}
	}
	w := s.bytes
	load := GP8()
	Load(Param("load"), load)
	TESTB(load, load)
	JEQ(LabelRef(label("zero")))
	MOVQ(c, p)
	for r := range accR {
		for v := range accR[r] {
			lo, hi := s.vec(), s.vec()
			move(Mem{Base: p, Disp: 2 * v * w}, lo)
			move(Mem{Base: p, Disp: (2*v + 1) * w}, hi)
			shuffle(true, hi, lo, accR[r][v])
			shuffle(false, hi, lo, accI[r][v])
		}
		ADDQ(ldc, p)
	}
	JMP(LabelRef(label("test")))
	Label(label("zero"))
	for r := range accR {
		for v := range accR[r] {
			s.xor(accR[r][v], accR[r][v], accR[r][v])
			s.xor(accI[r][v], accI[r][v], accI[r][v])
		}
	}
	Label(label("test"))
	TESTQ(kc, kc)
	JEQ(LabelRef(label("store")))
	Label(label("loop"))
	bR, bI := make([]reg.VecVirtual, g.vecs), make([]reg.VecVirtual, g.vecs)
	for v := range bR {
		bR[v], bI[v] = s.vec(), s.vec()
		move(Mem{Base: b, Disp: v * w}, bR[v])
		move(Mem{Base: b, Disp: (g.vecs + v) * w}, bI[v])
	}
	for r := range accR {
		ar, ai := s.vec(), s.vec()
		bcast(Mem{Base: a, Disp: 2 * r * g.size}, ar)
		bcast(Mem{Base: a, Disp: (2*r + 1) * g.size}, ai)
		for v := range accR[r] {
			re, q := s.vec(), s.vec()
			mul(bR[v], ar, re)              // ar·br
			mul(bI[v], ai, q)               // ai·bi
			sub(q, re, re)                  // ar·br − ai·bi
			add(re, accR[r][v], accR[r][v]) // accR + that
			im, t := s.vec(), s.vec()
			mul(bI[v], ar, im)              // ar·bi
			mul(bR[v], ai, t)               // ai·br
			add(t, im, im)                  // ar·bi + ai·br
			add(im, accI[r][v], accI[r][v]) // accI + that
		}
	}
	ADDQ(U32(2*g.rows*g.size), a)
	ADDQ(U32(2*g.vecs*w), b)
	DECQ(kc)
	JNE(LabelRef(label("loop")))
	Label(label("store"))
	MOVQ(c, p)
	for r := range accR {
		for v := range accR[r] {
			lo, hi := s.vec(), s.vec()
			unpackLo(accI[r][v], accR[r][v], lo) // (re, im) of the first half of the vector's columns
			unpackHi(accI[r][v], accR[r][v], hi)
			move(lo, Mem{Base: p, Disp: 2 * v * w})
			move(hi, Mem{Base: p, Disp: (2*v + 1) * w})
		}
		ADDQ(ldc, p)
	}
	VZEROUPPER()
	RET()
}

// registerCGEMMPack registers the complex kernels' b-panel packing: kb
// steps of a row-major complex b (row stride rs complex elements), each
// step's NR interleaved (re, im) pairs taken apart into the panel's real
// parts and then its imaginary parts, in the kernel's lane order — the
// VSHUFPS (PD) split the kernel's tile load does. One body per shape (the
// ISA's vector width and vectors per step).
func registerCGEMMPack() {
	packs := make([]gemmShape, len(cgemmShapes))
	for i, g := range cgemmShapes {
		g.name = "cpack" + g.name[len("cgemm"):] // cpack4x32F32
		packs[i] = g
	}
	registerShapes(packs, "dst, src []ELEM, rs, kb int", cgemmPack)
}

func cgemmPack(s isa, g gemmShape) {
	label := func(l string) string { return fmt.Sprintf("%s%s_%s", g.name, s.name, l) }
	move := VMOVUPS
	shuffle := func(real bool, hi, lo, dst Op) {
		imm := uint8(0x88)
		if !real {
			imm = 0xdd
		}
		VSHUFPS(U8(imm), hi, lo, dst)
	}
	shift := uint8(3)
	if g.size == 8 {
		move = VMOVUPD
		shuffle = func(real bool, hi, lo, dst Op) {
			imm := uint8(0x00)
			if !real {
				imm = 0xff
			}
			VSHUFPD(U8(imm), hi, lo, dst)
		}
		shift = 4
	}
	dst, src, rs, kb := GP64(), GP64(), GP64(), GP64()
	Load(Param("dst").Base(), dst)
	Load(Param("src").Base(), src)
	Load(Param("rs"), rs)
	SHLQ(U8(shift), rs)
	Load(Param("kb"), kb)
	w := s.bytes
	TESTQ(kb, kb)
	JEQ(LabelRef(label("done")))
	Label(label("loop"))
	for v := range g.vecs {
		lo, hi, re, im := s.vec(), s.vec(), s.vec(), s.vec()
		move(Mem{Base: src, Disp: 2 * v * w}, lo)
		move(Mem{Base: src, Disp: (2*v + 1) * w}, hi)
		shuffle(true, hi, lo, re)
		shuffle(false, hi, lo, im)
		move(re, Mem{Base: dst, Disp: v * w})
		move(im, Mem{Base: dst, Disp: (g.vecs + v) * w})
	}
	ADDQ(rs, src)
	ADDQ(U32(2*g.vecs*w), dst)
	DECQ(kb)
	JNE(LabelRef(label("loop")))
	Label(label("done"))
	VZEROUPPER()
	RET()
}
