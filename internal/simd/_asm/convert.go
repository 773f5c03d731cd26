package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Conversions. F16C's VCVTPS2PH with imm8 0 rounds to nearest even and
// turns a NaN into a quiet NaN keeping sign and top ten payload bits, and
// VCVTPH2PS quiets a NaN keeping its payload: both are exactly the Go
// twins' (and tensor's and x448's) results, which the tests check on every
// bit pattern. bfloat16 rounding is integer arithmetic on the bits.

func registerConvert() {
	add("f16ToF32", "dst []float32, src []uint16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) { VCVTPH2PS(x, d) })
	}).wrap("F16ToF32", "computes dst[i] = float32(src[i]) for IEEE binary16 bits: exact; a NaN keeps its sign and payload and becomes quiet (as github.com/x448/float16 and F16C's VCVTPH2PS do).",
		"f16ToF32Go(dst, src)").fills("simd1", "widenF16Fn")
	add("f32ToF16", "dst []uint16, src []float32", func(s isa) {
		narrowTo(s, 4, 2, func(x reg.VecVirtual, d Op) { VCVTPS2PH(U8(0), x, d) })
	}).wrap("F32ToF16", "computes dst[i] = the binary16 bits of src[i], rounded to nearest even; overflow gives ±Inf, a NaN stays NaN (quiet, sign and top ten payload bits kept), as tensor.Float32ToF16.",
		"f32ToF16Go(dst, src)").fills("simd1", "narrowF16Fn")
	add("roundF16", "x []float32", func(s isa) {
		loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
			h, d := sized(s.bytes/2), s.vec()
			VCVTPS2PH(U8(0), in[0], h)
			VCVTPH2PS(h, d)
			return []Op{d}
		}}.emit(s, inout("x", 4))
	}).wrap("RoundF16", "rounds x[i] to the nearest binary16 value, in place: x[i] = F16ToF32(F32ToF16(x[i])).",
		"roundF16Go(x)").fills("simdRound", "roundF16Fn")
	add("bf16ToF32", "dst []float32, src []uint16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) {
			VPMOVZXWD(x, d)
			VPSLLD(U8(16), d, d)
		})
	}).wrap("BF16ToF32", "computes dst[i] = float32(src[i]) for bfloat16 bits (exact).",
		"bf16ToF32Go(dst, src)").fills("simd1", "widenBF16Fn")
	add("f32ToBF16", "dst []uint16, src []float32", func(s isa) {
		narrowTo(s, 4, 2, func(x reg.VecVirtual, d Op) {
			w := bf16Round(s, x)
			VPSRLD(U8(16), w, w)
			packDW(s, w, d)
		})
	}).wrap("F32ToBF16", "computes dst[i] = the bfloat16 bits of src[i], rounded to nearest even; a NaN stays NaN (quiet, sign and top payload bits kept), as tensor.BFloat16FromFloat32.",
		"f32ToBF16Go(dst, src)").fills("simd1", "narrowBF16Fn")
	add("roundBF16", "x []float32", func(s isa) {
		loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
			w := bf16Round(s, in[0])
			s.and(c32("bf16keep", 0xffff0000), w, w)
			return []Op{w}
		}}.emit(s, inout("x", 4))
	}).wrap("RoundBF16", "rounds x[i] to the nearest bfloat16 value, in place: x[i] = BF16ToF32(F32ToBF16(x[i])).",
		"roundBF16Go(x)").fills("simdRound", "roundBF16Fn")
	add("f32ToF64", "dst []float64, src []float32", func(s isa) {
		widen(s, 4, 8, func(x, d reg.VecVirtual) { VCVTPS2PD(x, d) })
	}).wrap("F32ToF64", "computes dst[i] = float64(src[i]) (exact).",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.F32][tensor.F64]")
	add("f64ToF32", "dst []float32, src []float64", func(s isa) {
		narrowTo(s, 8, 4, func(x reg.VecVirtual, d Op) {
			if s.evex {
				VCVTPD2PS(x, d)
			} else {
				VCVTPD2PSY(x, d)
			}
		})
	}).wrap("F64ToF32", "computes dst[i] = float32(src[i]), rounded to nearest even.",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.F64][tensor.F32]")
	add("i8ToF32", "dst []float32, src []int8", func(s isa) {
		widen(s, 1, 4, func(x, d reg.VecVirtual) { VPMOVSXBD(x, d); VCVTDQ2PS(d, d) })
	}).wrap("I8ToF32", "computes dst[i] = float32(src[i]) (exact).",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.I8][tensor.F32]")
	add("u8ToF32", "dst []float32, src []uint8", func(s isa) {
		widen(s, 1, 4, func(x, d reg.VecVirtual) { VPMOVZXBD(x, d); VCVTDQ2PS(d, d) })
	}).wrap("U8ToF32", "computes dst[i] = float32(src[i]) (exact).",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.U8][tensor.F32]")
	add("i16ToF32", "dst []float32, src []int16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) { VPMOVSXWD(x, d); VCVTDQ2PS(d, d) })
	}).wrap("I16ToF32", "computes dst[i] = float32(src[i]) (exact).",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.I16][tensor.F32]")
	add("u16ToF32", "dst []float32, src []uint16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) { VPMOVZXWD(x, d); VCVTDQ2PS(d, d) })
	}).wrap("U16ToF32", "computes dst[i] = float32(src[i]) (exact).",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.U16][tensor.F32]")
	add("i32ToF32", "dst []float32, src []int32", func(s isa) {
		widen(s, 4, 4, func(x, d reg.VecVirtual) { VCVTDQ2PS(x, d) })
	}).wrap("I32ToF32", "computes dst[i] = float32(src[i]), rounded to nearest even.",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.I32][tensor.F32]")
	add("i32ToF64", "dst []float64, src []int32", func(s isa) {
		widen(s, 4, 8, func(x, d reg.VecVirtual) { VCVTDQ2PD(x, d) })
	}).wrap("I32ToF64", "computes dst[i] = float64(src[i]) (exact).",
		"convertGo(dst, src)").fills("simd1", "convertTable[tensor.I32][tensor.F64]")
}

// widen converts a full vector of outSize-byte results from inSize-byte
// sources.
func widen(s isa, inSize, outSize int, conv func(x, d reg.VecVirtual)) {
	loop{lanes: s.bytes / outSize, unroll: 4, body: func(in []reg.VecVirtual) []Op {
		d := s.vec()
		conv(in[0], d)
		return []Op{d}
	}}.emit(s, out("dst", outSize), in("src", inSize))
}

// narrowTo converts a full vector of inSize-byte sources to outSize-byte
// results.
func narrowTo(s isa, inSize, outSize int, conv func(x reg.VecVirtual, d Op)) {
	loop{lanes: s.bytes / inSize, unroll: 4, body: func(in []reg.VecVirtual) []Op {
		d := sized(s.bytes / inSize * outSize)
		conv(in[0], d)
		return []Op{d}
	}}.emit(s, out("dst", outSize), in("src", inSize))
}

// bf16Round returns the float32 bits whose top half is the bfloat16 result:
// b + 0x7fff + (b>>16 & 1) (ties to even), or b | 0x400000 for a NaN.
func bf16Round(s isa, b reg.VecVirtual) reg.VecVirtual {
	lsb, r, abs, q := s.vec(), s.vec(), s.vec(), s.vec()
	VPSRLD(U8(16), b, lsb)
	s.and(c32("one32", 1), lsb, lsb)
	VPADDD(c32("bf16half", 0x7fff), b, r)
	VPADDD(lsb, r, r)
	s.and(c32("absmask32", 0x7fffffff), b, abs)
	nan := s.gtD(abs, c32("inf32", 0x7f800000))
	s.or(c32("quiet32", 0x00400000), b, q)
	s.blendPS(nan, q, r, r)
	return r
}

// packDW narrows the low 16 bits of each int32 lane of w into d.
func packDW(s isa, w reg.VecVirtual, d Op) {
	if s.evex {
		VPMOVDW(w, d)
		return
	}
	hi := XMM()
	VEXTRACTI128(U8(1), w, hi)
	VPACKUSDW(hi, w.AsX(), d)
}
