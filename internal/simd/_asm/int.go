package main

import (
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Wrapping integer arithmetic. x86 has no byte multiply and AVX2 no 64-bit
// one; they are built from 16-bit and 32×32→64-bit multiplies.

func registerInt() {
	type intOps struct {
		suffix, gotype string
		size           int
		add, sub       func(ops ...Op)
		mul            func(s isa, a, b, dst Op)
	}
	for _, t := range []intOps{
		{"I8", "int8", 1, VPADDB, VPSUBB, mulI8},
		{"I16", "int16", 2, VPADDW, VPSUBW, intrinsic(VPMULLW)},
		{"I32", "int32", 4, VPADDD, VPSUBD, intrinsic(VPMULLD)},
		{"I64", "int64", 8, VPADDQ, VPSUBQ, mulI64},
	} {
		t := t
		sl := "dst, a, b []" + t.gotype
		for _, o := range []struct {
			name, op, sym string
			f             func(s isa, a, b, dst Op)
		}{{"add", "Add", "+", intrinsic(t.add)}, {"sub", "Sub", "-", intrinsic(t.sub)}, {"mul", "Mul", "*", t.mul}} {
			o := o
			// Wrapping arithmetic is the same bits for the unsigned type.
			table := "binaryTable[trace.Op" + o.op + "]"
			add(o.name+t.suffix, sl, func(s isa) { binary(s, t.size, o.f) }).
				wrap(o.op+t.suffix, "computes dst[i] = a[i] "+o.sym+" b[i], wrapping.", o.name+"Go(dst, a, b)").
				fills("simd2", table+"[tensor."+t.suffix+"]", table+"[tensor.U"+t.suffix[1:]+"]")
		}
	}
}

// mulI8 multiplies bytes as 16-bit words: the even bytes' product is the
// low byte of a·b; the odd bytes' is the high byte of (a>>8)·(b&0xff00).
func mulI8(s isa, a, b, dst Op) {
	even, odd, ahi, bhi := s.vec(), s.vec(), s.vec(), s.vec()
	VPMULLW(b, a, even)
	s.and(c16("lowbytes", 0x00ff), even, even)
	VPSRLW(U8(8), a, ahi)
	s.and(c16("highbytes", 0xff00), b, bhi)
	VPMULLW(bhi, ahi, odd)
	s.or(even, odd, dst)
}

// mulI64 is VPMULLQ on AVX-512; on AVX2 it is lo·lo + (lo·hi + hi·lo)<<32.
func mulI64(s isa, a, b, dst Op) {
	if s.evex {
		VPMULLQ(b, a, dst)
		return
	}
	lo, ahi, bhi, t1, t2 := YMM(), YMM(), YMM(), YMM(), YMM()
	VPMULUDQ(b, a, lo)
	VPSRLQ(U8(32), a, ahi)
	VPSRLQ(U8(32), b, bhi)
	VPMULUDQ(b, ahi, t1)
	VPMULUDQ(bhi, a, t2)
	VPADDQ(t1, t2, t1)
	VPSLLQ(U8(32), t1, t1)
	VPADDQ(t1, lo, dst)
}

// registerIntWiden adds the byte add, subtract and multiply whose wrapped
// result is widened to float32 in the same pass (a byte op feeding a float
// op: JAX keeps x*2 in int8, then converts): bytes are extended to dwords,
// the op runs on dwords, and the low byte is extended again (arithmetic
// shift for int8, logical for uint8) before the conversion.
func registerIntWiden() {
	for _, t := range []struct {
		suffix, gotype string
		extend         func(ops ...Op)
		shiftBack      func(ops ...Op)
	}{
		{"I8", "int8", VPMOVSXBD, VPSRAD},
		{"U8", "uint8", VPMOVZXBD, VPSRLD},
	} {
		t := t
		for _, o := range []struct {
			name, sym string
			op        func(ops ...Op)
		}{{"add", "+", VPADDD}, {"sub", "-", VPSUBD}, {"mul", "*", VPMULLD}} {
			o := o
			name := o.name + t.suffix + "ToF32"
			export := strings.ToUpper(name[:1]) + name[1:]
			add(name, "dst []float32, a, b []"+t.gotype, func(s isa) {
				loop{lanes: s.bytes / 4, unroll: 2, body: func(in []reg.VecVirtual) []Op {
					a, b, d := s.vec(), s.vec(), s.vec()
					t.extend(in[0], a)
					t.extend(in[1], b)
					o.op(b, a, d) // a op b
					VPSLLD(U8(24), d, d)
					t.shiftBack(U8(24), d, d)
					VCVTDQ2PS(d, d)
					return []Op{d}
				}}.emit(s, out("dst", 4), in("a", 1), in("b", 1))
			}).wrap(export, "computes dst[i] = float32(a[i] "+o.sym+" b[i]), wrapping in "+t.gotype+".",
				"widenGo(dst, a, b, func(x, y "+t.gotype+") "+t.gotype+" { return x "+o.sym+" y })").
				fills("simdWiden", "widenOpTable[trace.Op"+strings.ToUpper(o.name[:1])+o.name[1:]+"][tensor."+t.suffix+"]")
		}
	}
}
