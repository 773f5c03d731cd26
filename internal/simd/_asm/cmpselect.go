package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Comparisons into bools (one byte, 0 or 1) and selects by bools (any
// nonzero byte is true).

func registerCmpSelect() {
	preds := []struct {
		name string
		imm  uint8
	}{{"Eq", 0x00}, {"Ne", 0x04}, {"Lt", 0x11}, {"Le", 0x12}} // EQ_OQ NEQ_UQ LT_OQ LE_OQ; Gt, Ge swap operands
	for _, t := range []floatType{f32, f64} {
		for _, p := range preds {
			t, p := t, p
			add("cmp"+p.name+t.suffix, "dst []bool, a, b []"+t.gotype, func(s isa) { compare(s, t, p.imm) })
		}
	}
	for _, size := range []int{1, 2, 4, 8} {
		size := size
		gotype := map[int]string{1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}[size]
		name := map[int]string{1: "select8", 2: "select16", 4: "select32", 8: "select64"}[size]
		words := map[int]string{1: "bytes (bool, int8, uint8)", 2: "2-byte words (int16, uint16, f16, bf16 bits)",
			4: "4-byte words (int32, uint32, float32 bits)", 8: "8-byte words (int64, uint64, float64 bits)"}[size]
		add(name, "dst []"+gotype+", c []bool, a, b []"+gotype, func(s isa) { choose(s, size) }).
			wrap("S"+name[1:], "computes dst[i] = c[i] ? a[i] : b[i] on "+words+".", "selectGo(dst, c, a, b)")
	}
}

// compare: AVX-512 turns the opmask into 0/1 bytes with VPMOVM2B and
// VPABSB; AVX2 deposits the sign-bit mask into bytes with PDEP.
func compare(s isa, t floatType, imm uint8) {
	lanes := s.bytes / t.size
	var spread reg.GPVirtual
	l := loop{lanes: lanes, unroll: 4}
	if !s.evex {
		l.setup = func() {
			spread = GP64()
			MOVQ(U64(0x0101010101010101), spread)
		}
	}
	l.body = func(in []reg.VecVirtual) []Op {
		c := t.cmp(s, imm, in[0], in[1])
		if s.evex {
			x := XMM()
			VPMOVM2B(c, x)
			VPABSB(x, x)
			return []Op{x}
		}
		bits := GP64()
		if t.size == 4 {
			VMOVMSKPS(c, bits.As32())
		} else {
			VMOVMSKPD(c, bits.As32())
		}
		PDEPQ(spread, bits, bits)
		return []Op{bits}
	}
	l.emit(s, out("dst", 1), in("a", t.size), in("b", t.size))
}

// choose: AVX-512 tests the bool bytes into an opmask and blends; AVX2
// widens them to the word size, compares with zero and blends the other way.
func choose(s isa, size int) {
	lanes := s.bytes / size
	var zero reg.VecVirtual
	l := loop{lanes: lanes, unroll: 4}
	if !s.evex {
		l.setup = func() {
			zero = YMM()
			VPXOR(zero, zero, zero)
		}
	}
	l.body = func(in []reg.VecVirtual) []Op {
		c, a, b := in[0], in[1], in[2]
		d := s.vec()
		if s.evex {
			k := K()
			VPTESTMB(c, c, k)
			switch size {
			case 1:
				VPBLENDMB(a, b, k, d)
			case 2:
				VPBLENDMW(a, b, k, d)
			case 4:
				VPBLENDMD(a, b, k, d)
			case 8:
				VPBLENDMQ(a, b, k, d)
			}
			return []Op{d}
		}
		w, isFalse := YMM(), YMM()
		switch size {
		case 1:
			VPCMPEQB(zero, c, isFalse)
		case 2:
			VPMOVZXBW(c, w)
			VPCMPEQW(zero, w, isFalse)
		case 4:
			VPMOVZXBD(c, w)
			VPCMPEQD(zero, w, isFalse)
		case 8:
			VPMOVZXBQ(c, w)
			VPCMPEQQ(zero, w, isFalse)
		}
		VPBLENDVB(isFalse, b, a, d)
		return []Op{d}
	}
	l.emit(s, out("dst", size), in("c", 1), in("a", size), in("b", size))
}
