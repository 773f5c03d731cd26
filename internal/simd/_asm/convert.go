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
	})
	add("f32ToF16", "dst []uint16, src []float32", func(s isa) {
		narrowTo(s, 4, 2, func(x reg.VecVirtual, d Op) { VCVTPS2PH(U8(0), x, d) })
	})
	add("roundF16", "x []float32", func(s isa) {
		loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
			h, d := sized(s.bytes/2), s.vec()
			VCVTPS2PH(U8(0), in[0], h)
			VCVTPH2PS(h, d)
			return []Op{d}
		}}.emit(s, inout("x", 4))
	})
	add("bf16ToF32", "dst []float32, src []uint16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) {
			VPMOVZXWD(x, d)
			VPSLLD(U8(16), d, d)
		})
	})
	add("f32ToBF16", "dst []uint16, src []float32", func(s isa) {
		narrowTo(s, 4, 2, func(x reg.VecVirtual, d Op) {
			w := bf16Round(s, x)
			VPSRLD(U8(16), w, w)
			packDW(s, w, d)
		})
	})
	add("roundBF16", "x []float32", func(s isa) {
		loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
			w := bf16Round(s, in[0])
			s.and(c32("bf16keep", 0xffff0000), w, w)
			return []Op{w}
		}}.emit(s, inout("x", 4))
	})
	add("f32ToF64", "dst []float64, src []float32", func(s isa) {
		widen(s, 4, 8, func(x, d reg.VecVirtual) { VCVTPS2PD(x, d) })
	})
	add("f64ToF32", "dst []float32, src []float64", func(s isa) {
		narrowTo(s, 8, 4, func(x reg.VecVirtual, d Op) {
			if s.evex {
				VCVTPD2PS(x, d)
			} else {
				VCVTPD2PSY(x, d)
			}
		})
	})
	add("i8ToF32", "dst []float32, src []int8", func(s isa) {
		widen(s, 1, 4, func(x, d reg.VecVirtual) { VPMOVSXBD(x, d); VCVTDQ2PS(d, d) })
	})
	add("u8ToF32", "dst []float32, src []uint8", func(s isa) {
		widen(s, 1, 4, func(x, d reg.VecVirtual) { VPMOVZXBD(x, d); VCVTDQ2PS(d, d) })
	})
	add("i16ToF32", "dst []float32, src []int16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) { VPMOVSXWD(x, d); VCVTDQ2PS(d, d) })
	})
	add("u16ToF32", "dst []float32, src []uint16", func(s isa) {
		widen(s, 2, 4, func(x, d reg.VecVirtual) { VPMOVZXWD(x, d); VCVTDQ2PS(d, d) })
	})
	add("i32ToF32", "dst []float32, src []int32", func(s isa) {
		widen(s, 4, 4, func(x, d reg.VecVirtual) { VCVTDQ2PS(x, d) })
	})
	add("i32ToF64", "dst []float64, src []int32", func(s isa) {
		widen(s, 4, 8, func(x, d reg.VecVirtual) { VCVTDQ2PD(x, d) })
	})
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
