package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// gemmI8AVX2 is gemm12x32I8's AVX2 body, for CPUs with AVX-VNNI: the same
// 12×32 int32 tile, packed panels and correction as the AVX-512 body, so
// package gemm packs alike at both tiers. Sixteen YMM registers do not
// hold a 12×32 tile, so it is computed as four 6×16 sub-tiles (rows 0-5
// then 6-11, columns 0-15 then 16-31 of each), each over all kc4 steps
// (the panels stay in L1 between them): the accumulators are Y0-Y11 (row
// r's columns 0-7 and 8-15 of the sub-tile in Y(2r), Y(2r+1)), the
// sub-tile's 16 b dwords of a step Y12 and Y13, and the broadcast a dword
// of a row Y14 or Y15 in turn — twelve VPDPBUSD to eight loads a step.
//
// Go's assembler and avo know only the EVEX encoding of VPDPBUSD, which
// on YMM registers needs AVX512VL and faults on AVX-VNNI-only CPUs (Alder
// Lake), so the VEX form is emitted as bytes (vpdpbusdVEX) and the
// kernel names its vector registers.
func gemmI8AVX2(s isa) {
	text(s)
	const rows = 6 // a sub-tile: 6 rows of 16 columns
	label := func(l string) string { return "gemm12x32I8" + s.name + "_" + l }
	kc, a, b, c, ldc, p := i8Args()
	corr := Load(Param("corr").Base(), GP64())
	load := GP8()
	Load(Param("load"), load)
	n, ap, bp := GP64(), GP64(), GP64()
	acc := func(r, v int) reg.VecPhysical { return ymm[2*r+v] }
	for sub := range 4 {
		half, ch := sub/2, sub%2 // rows 6·half…, columns 16·ch…
		lab := func(l string) string { return label(fmt.Sprintf("%d%s", sub, l)) }
		if sub == 2 {
			// c to row 6: six rows of ldc bytes.
			LEAQ(Mem{Base: ldc, Index: ldc, Scale: 2}, p)
			LEAQ(Mem{Base: c, Index: p, Scale: 2}, c)
		}
		cd := 64 * ch // the sub-tile's byte offset in a row of c, b's step and corr
		TESTB(load, load)
		JEQ(LabelRef(lab("zero")))
		MOVQ(c, p)
		for r := range rows {
			for v := range 2 {
				VMOVDQU(Mem{Base: p, Disp: cd + 32*v}, acc(r, v))
			}
			if r < rows-1 {
				ADDQ(ldc, p)
			}
		}
		JMP(LabelRef(lab("steps")))
		Label(lab("zero"))
		for r := range rows {
			for v := range 2 {
				VPXOR(acc(r, v), acc(r, v), acc(r, v))
			}
		}
		Label(lab("steps"))
		MOVQ(kc, n)
		MOVQ(a, ap)
		MOVQ(b, bp)
		TESTQ(n, n)
		JEQ(LabelRef(lab("corr")))
		Label(lab("loop"))
		VMOVDQU(Mem{Base: bp, Disp: cd}, ymm[12])
		VMOVDQU(Mem{Base: bp, Disp: cd + 32}, ymm[13])
		for r := range rows {
			t := 14 + r%2
			VPBROADCASTD(Mem{Base: ap, Disp: 4 * (rows*half + r)}, ymm[t])
			for v := range 2 {
				vpdpbusdVEX(2*r+v, t, 12+v)
			}
		}
		ADDQ(U8(4*12), ap)
		ADDQ(U32(4*32), bp)
		DECQ(n)
		JNE(LabelRef(lab("loop")))
		Label(lab("corr"))
		VMOVDQU(Mem{Base: corr, Disp: cd}, ymm[12])
		VMOVDQU(Mem{Base: corr, Disp: cd + 32}, ymm[13])
		MOVQ(c, p)
		for r := range rows {
			for v := range 2 {
				VPSUBD(ymm[12+v], acc(r, v), acc(r, v))
				VMOVDQU(acc(r, v), Mem{Base: p, Disp: cd + 32*v})
			}
			if r < rows-1 {
				ADDQ(ldc, p)
			}
		}
	}
	VZEROUPPER()
	RET()
}

// i8Args loads gemm12x32I8's step count, the a, b and c pointers and c's
// row stride in bytes, and allocates a scratch pointer.
func i8Args() (kc, a, b, c, ldc, p reg.GPVirtual) {
	kc, a, b, c, ldc, p = GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	Load(Param("kc4"), kc)
	Load(Param("a").Base(), a)
	Load(Param("b").Base(), b)
	Load(Param("c").Base(), c)
	Load(Param("ldc"), ldc)
	SHLQ(U8(2), ldc)
	return kc, a, b, c, ldc, p
}

// ymm lists the AVX2 vector registers by number.
var ymm = []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
	reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}

// vpdpbusdVEX emits VPDPBUSD ymm(dst), ymm(src1), ymm(src2) — in each
// dword lane, dst += the four products of src1's unsigned bytes and
// src2's signed bytes — in its AVX-VNNI encoding, VEX.256.66.0F38.W0 50
// /r: the three-byte VEX prefix C4, then the inverted R (dst's bit 3), X
// and B (src2's bit 3) with map 0F38 (00010), then W0, the inverted src1
// in vvvv, L1 (256 bits) and pp 01 (66), the opcode and a register ModRM.
func vpdpbusdVEX(dst, src1, src2 int) {
	inv := func(x int) byte { return byte(^x>>3) & 1 }
	b1 := inv(dst)<<7 | 1<<6 | inv(src2)<<5 | 0b00010
	b2 := byte(^src1&15)<<3 | 1<<2 | 0b01
	modrm := byte(0xc0) | byte(dst&7)<<3 | byte(src2&7)
	Comment(fmt.Sprintf("VPDPBUSD Y%d, Y%d, Y%d (VEX, AVX-VNNI)", src2, src1, dst))
	for _, x := range []byte{0xc4, b1, b2, 0x50, modrm} {
		Instruction(&ir.Instruction{Opcode: "BYTE", Operands: []Op{U8(x)}})
	}
}

// sumPanelI8AVX2 is sumPanelI8's AVX2 body, for every AVX2 CPU (it needs
// no VNNI): the four signed bytes of each dword summed exactly by
// VPMADDUBSW by bytes of one (pairs into words, |Σ| ≤ 256) and VPMADDWD
// by words of one (into dwords), added to the 32 sums in four YMM
// accumulators.
func sumPanelI8AVX2(s isa) {
	text(s)
	label := func(l string) string { return "sumPanelI8" + s.name + "_" + l }
	kc := Load(Param("kc4"), GP64())
	b := Load(Param("b").Base(), GP64())
	sums := Load(Param("sums").Base(), GP64())
	ones8, ones16 := YMM(), YMM()
	VPCMPEQB(ones8, ones8, ones8)
	VPSRLW(U8(15), ones8, ones16) // words of 1
	VPABSB(ones8, ones8)          // bytes of 1
	acc := []reg.VecVirtual{YMM(), YMM(), YMM(), YMM()}
	for v, x := range acc {
		VMOVDQU(Mem{Base: sums, Disp: 32 * v}, x)
	}
	TESTQ(kc, kc)
	JEQ(LabelRef(label("store")))
	Label(label("loop"))
	for v, x := range acc {
		w := YMM()
		VPMADDUBSW(Mem{Base: b, Disp: 32 * v}, ones8, w) // u8 ones · s8 b
		VPMADDWD(ones16, w, w)
		VPADDD(w, x, x)
	}
	ADDQ(U32(128), b)
	DECQ(kc)
	JNE(LabelRef(label("loop")))
	Label(label("store"))
	for v, x := range acc {
		VMOVDQU(x, Mem{Base: sums, Disp: 32 * v})
	}
	VZEROUPPER()
	RET()
}
