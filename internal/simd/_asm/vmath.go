package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// vm writes float vector arithmetic as expressions: each method emits one
// instruction into a fresh register, in the order the Go twin evaluates
// the same scalar operations (a ∘ b is Intel's src1 ∘ src2).
type vm struct {
	s  isa
	pd bool // float64 lanes
}

func (v vm) r() reg.VecVirtual { return v.s.vec() }

// k is a constant splatted over a vector: a register the loop loads once
// (see hoister) or a memory operand.
func (v vm) k(c float64) Op {
	if v.pd {
		b := math.Float64bits(c)
		return v.s.constant(c64(fmt.Sprintf("f64_%016x", b), b))
	}
	b := math.Float32bits(float32(c))
	return v.s.constant(c32(fmt.Sprintf("f32_%08x", b), b))
}

// bits is an integer constant of the lane width, as k.
func (v vm) bits(b uint64) Op {
	if v.pd {
		return v.s.constant(c64(fmt.Sprintf("b64_%016x", b), b))
	}
	return v.s.constant(c32(fmt.Sprintf("b32_%08x", uint32(b)), uint32(b)))
}

// reg is a constant in a register (for the src1 position). A hoisted one
// is returned as is: no vm method writes its operands.
func (v vm) reg(c float64) reg.VecVirtual {
	k := v.k(c)
	if r, ok := k.(reg.VecVirtual); ok {
		return r
	}
	d := v.r()
	VMOVUPS(k, d)
	return d
}

// op3 emits d = a ∘ b. Only src2 (b) may be in memory: a constant a is
// swapped into it for commutative ops and loaded otherwise.
func (v vm) op3(ps, pd func(ops ...Op), a, b Op, commutes bool) reg.VecVirtual {
	if m, ok := a.(Mem); ok {
		if commutes {
			a, b = b, a
		} else {
			r := v.r()
			VMOVUPS(m, r)
			a = r
		}
	}
	d := v.r()
	if v.pd {
		pd(b, a, d)
	} else {
		ps(b, a, d)
	}
	return d
}

func (v vm) mul(a, b Op) reg.VecVirtual { return v.op3(VMULPS, VMULPD, a, b, true) }
func (v vm) add(a, b Op) reg.VecVirtual { return v.op3(VADDPS, VADDPD, a, b, true) }
func (v vm) sub(a, b Op) reg.VecVirtual { return v.op3(VSUBPS, VSUBPD, a, b, false) }
func (v vm) div(a, b Op) reg.VecVirtual { return v.op3(VDIVPS, VDIVPD, a, b, false) }

// min is x86's a < b ? a : b; only used where no lane is NaN, so it is
// Go's min and commutes.
func (v vm) min(a, b Op) reg.VecVirtual { return v.op3(VMINPS, VMINPD, a, b, true) }

func (v vm) and(a, b Op) reg.VecVirtual { d := v.r(); v.s.and(b, a, d); return d }
func (v vm) or(a, b Op) reg.VecVirtual  { d := v.r(); v.s.or(b, a, d); return d }
func (v vm) xor(a, b Op) reg.VecVirtual { d := v.r(); v.s.xor(b, a, d); return d }

// signBit is the lane's sign bit, for and/or/xor.
func (v vm) signBit() Op {
	if v.pd {
		return v.bits(1 << 63)
	}
	return v.bits(1 << 31)
}

func (v vm) absMask() Op {
	if v.pd {
		return v.bits(1<<63 - 1)
	}
	return v.bits(1<<31 - 1)
}

func (v vm) neg(a Op) reg.VecVirtual { return v.xor(a, v.signBit()) }

// cmp compares lanes: cond = a <imm> b (VCMPPS/PD predicate).
func (v vm) cmp(imm uint8, a, b Op) reg.Register {
	if v.pd {
		return v.s.cmpPD(imm, a, b)
	}
	return v.s.cmpPS(imm, a, b)
}

// blend is c ? t : f.
func (v vm) blend(c reg.Register, t, f Op) reg.VecVirtual {
	d := v.r()
	if v.pd {
		v.s.blendPD(c, t, f, d)
	} else {
		v.s.blendPS(c, t, f, d)
	}
	return d
}

// roundEven rounds to an integer, ties to even (math.RoundToEven).
func (v vm) roundEven(a Op) reg.VecVirtual {
	d := v.r()
	switch {
	case v.s.evex && v.pd:
		VRNDSCALEPD(U8(0x08), a, d)
	case v.s.evex:
		VRNDSCALEPS(U8(0x08), a, d)
	case v.pd:
		VROUNDPD(U8(0x08), a, d)
	default:
		VROUNDPS(U8(0x08), a, d)
	}
	return d
}

// fma is a·b + c with one rounding (math.FMA, fma32). a must be a
// register; b and c may be constants.
func (v vm) fma(a, b, c Op) reg.VecVirtual {
	d := v.r()
	VMOVUPS(c, d)
	if v.pd {
		VFMADD231PD(b, a, d)
	} else {
		VFMADD231PS(b, a, d)
	}
	return d
}

// fms is a·b − c with one rounding (math.FMA(a, b, −c)).
func (v vm) fms(a, b, c Op) reg.VecVirtual {
	d := v.r()
	VMOVUPS(c, d)
	if v.pd {
		VFMSUB231PD(b, a, d)
	} else {
		VFMSUB231PS(b, a, d)
	}
	return d
}

// fnma is −a·b + c with one rounding (math.FMA(−a, b, c)).
func (v vm) fnma(a, b, c Op) reg.VecVirtual {
	d := v.r()
	VMOVUPS(c, d)
	if v.pd {
		VFNMADD231PD(b, a, d)
	} else {
		VFNMADD231PS(b, a, d)
	}
	return d
}

// hornerFMA evaluates p = c[0]·x + c[1]; p = p·x + c[i] ... with one
// rounding per step, as the float32 twins' fma32 loops do. After the first
// step p is updated in place (VFMADD213: p = x·p + c).
func (v vm) hornerFMA(x Op, c ...float64) reg.VecVirtual {
	p := v.fma(x, v.k(c[0]), v.k(c[1]))
	for _, ci := range c[2:] {
		if v.pd {
			VFMADD213PD(v.k(ci), x, p)
		} else {
			VFMADD213PS(v.k(ci), x, p)
		}
	}
	return p
}

// twoSum returns a + b rounded and its exact error (Knuth).
func (v vm) twoSum(a, b Op) (s, e reg.VecVirtual) {
	s = v.add(a, b)
	bb := v.sub(s, a)
	e = v.add(v.sub(a, v.sub(s, bb)), v.sub(b, bb))
	return s, e
}

// Comparison predicates used below (ordered: false for NaN, except NLT).
const (
	cmpEQ    = 0x00 // EQ_OQ
	cmpLT    = 0x11 // LT_OQ
	cmpLE    = 0x12 // LE_OQ
	cmpGT    = 0x1e // GT_OQ
	cmpGE    = 0x1d // GE_OQ
	cmpNLT   = 0x15 // NLT_UQ: !(a < b), true for NaN
	cmpNLE   = 0x16 // NLE_UQ: !(a <= b), true for NaN
	cmpNGE   = 0x19 // NGE_UQ: !(a >= b), true for NaN
	cmpUnord = 0x03
)

// andCond is the lanes where both a and b hold.
func (v vm) andCond(a, b reg.Register) reg.Register {
	if v.s.evex {
		k := K()
		KANDW(a, b, k)
		return k
	}
	m := YMM()
	VPAND(a, b, m)
	return m
}

// between is the lanes with lo <op> x <op> hi, each bound inclusive or not.
func (v vm) between(x Op, lo float64, loIncl bool, hi float64, hiIncl bool) reg.Register {
	pl, ph := uint8(cmpGT), uint8(cmpLT)
	if loIncl {
		pl = cmpGE
	}
	if hiIncl {
		ph = cmpLE
	}
	return v.andCond(v.cmp(pl, x, v.k(lo)), v.cmp(ph, x, v.k(hi)))
}

// notNormalPositive is the lanes that are not positive, normal and finite
// (zero, subnormal, negative, ±Inf, NaN): with the bits b of a float32
// lane, b + 0x7f800000 (mod 2**32) is at most 0xfeffffff as int32 exactly
// for b in [0x00800000, 0x7f7fffff]; float64 likewise.
func (v vm) notNormalPositive(x Op) reg.Register {
	t := v.r()
	if v.pd {
		VPADDQ(v.bits(0x7ff0000000000000), x, t)
		return v.s.gtQ(t, v.bits(0xffdfffffffffffff))
	}
	VPADDD(v.bits(0x7f800000), x, t)
	return v.s.gtD(t, v.bits(0xfeffffff))
}

// nanLanes replaces NaN lanes of r by x + x (x made quiet, payload kept),
// as the twins return.
func (v vm) nanLanes(x, r Op) reg.VecVirtual {
	return v.blend(v.cmp(cmpUnord, x, x), v.add(x, x), r)
}

// transUnroll is how many vectors a transcendental kernel computes per
// iteration. 2 measured no faster than 1 on Zen 4 (out-of-order execution
// already overlaps iterations: the loop carries only the index), so the
// code stays small.
var transUnroll = 1

// transHoist is how many constants a transcendental keeps in registers:
// the bodies need up to a dozen registers of their own, of 32 on AVX-512
// and 16 on AVX2, where the float64 sine and cosine have none to spare
// (avo would hand out Y16 and up, which TestAVX2CodeIsVEX catches). On
// AVX2, 6 measured no faster than 4 for the float32 kernels, and 8 leaves
// some of them too few registers.
func transHoist(s isa, size int) int {
	switch {
	case s.evex:
		return 16
	case size == 8 && (current.name == "sinF64" || current.name == "cosF64"):
		return 0
	}
	return 4
}

// transcendental emits a one-input map kernel: body(v, x, true) is its
// fast body and body(v, x, false) the full one, the loop's slow body (see
// transc.go).
func transcendental(s isa, size int, body func(v vm, x reg.VecVirtual, fast bool) Op) {
	v := vm{s: s, pd: size == 8}
	loop{lanes: s.bytes / size, unroll: transUnroll, hoist: transHoist(s, size),
		body: func(in []reg.VecVirtual) []Op { return []Op{body(v, in[0], true)} },
		slow: func(in []reg.VecVirtual) []Op { return []Op{body(v, in[0], false)} },
	}.emit(s, out("dst", size), in("x", size))
}
