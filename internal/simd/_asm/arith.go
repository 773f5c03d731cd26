package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Float arithmetic, min/max and sqrt: one instruction per vector (the Go
// operand order a ∘ b is Intel's src1 ∘ src2, so NaN propagation matches
// Go's scalar code, which also keeps src1's NaN).

type floatType struct {
	suffix                             string // "F32", "F64"
	gotype                             string
	size                               int
	add, sub, mul, div, min, max, sqrt func(ops ...Op)
	cmp                                func(s isa, imm uint8, a, b Op) reg.Register
	blend                              func(s isa, c reg.Register, t, f, dst Op)
	broadcast                          func(s isa, p string) reg.VecVirtual
}

var (
	f32 = floatType{suffix: "F32", gotype: "float32", size: 4,
		add: VADDPS, sub: VSUBPS, mul: VMULPS, div: VDIVPS, min: VMINPS, max: VMAXPS, sqrt: VSQRTPS,
		cmp: isa.cmpPS, blend: isa.blendPS, broadcast: isa.broadcastParam32}
	f64 = floatType{suffix: "F64", gotype: "float64", size: 8,
		add: VADDPD, sub: VSUBPD, mul: VMULPD, div: VDIVPD, min: VMINPD, max: VMAXPD, sqrt: VSQRTPD,
		cmp: isa.cmpPD, blend: isa.blendPD, broadcast: isa.broadcastParam64}
)

// binary emits dst = op(a, b) per lane, where op(a, b, dst) writes dst.
func binary(s isa, size int, op func(s isa, a, b, dst Op)) {
	loop{lanes: s.bytes / size, unroll: 4, body: func(in []reg.VecVirtual) []Op {
		d := s.vec()
		op(s, in[0], in[1], d)
		return []Op{d}
	}}.emit(s, out("dst", size), in("a", size), in("b", size))
}

// intrinsic adapts a three-operand instruction in Go order (src2, src1, dst).
func intrinsic(f func(ops ...Op)) func(s isa, a, b, dst Op) {
	return func(s isa, a, b, dst Op) { f(b, a, dst) }
}

func registerArith() {
	for _, t := range []floatType{f32, f64} {
		t := t
		sl := "dst, a, b []" + t.gotype
		add("add"+t.suffix, sl, func(s isa) { binary(s, t.size, intrinsic(t.add)) })
		add("sub"+t.suffix, sl, func(s isa) { binary(s, t.size, intrinsic(t.sub)) })
		add("mul"+t.suffix, sl, func(s isa) { binary(s, t.size, intrinsic(t.mul)) })
		add("div"+t.suffix, sl, func(s isa) { binary(s, t.size, intrinsic(t.div)) })
		add("min"+t.suffix, sl, func(s isa) { binary(s, t.size, t.minimum(true)) })
		add("max"+t.suffix, sl, func(s isa) { binary(s, t.size, t.minimum(false)) })
		add("sqrt"+t.suffix, "dst, a []"+t.gotype, func(s isa) {
			loop{lanes: s.bytes / t.size, unroll: 4, body: func(in []reg.VecVirtual) []Op {
				d := s.vec()
				t.sqrt(in[0], d)
				return []Op{d}
			}}.emit(s, out("dst", t.size), in("a", t.size))
		})
		scalarForms(t)
	}
}

// minimum emits IEEE 754-2019 minimum (or maximum): x86's MIN gives
// a < b ? a : b, which is right unless the operands are equal (±0: OR the
// bits for the minimum, AND them for the maximum) or a is NaN (take a).
func (t floatType) minimum(isMin bool) func(s isa, a, b, dst Op) {
	return func(s isa, a, b, dst Op) {
		m, both := s.vec(), s.vec()
		if isMin {
			t.min(b, a, m)
			s.or(a, b, both)
		} else {
			t.max(b, a, m)
			s.and(a, b, both)
		}
		eq := t.cmp(s, 0x00, a, b) // EQ_OQ
		t.blend(s, eq, both, m, m)
		nan := t.cmp(s, 0x03, a, a) // UNORD_Q
		t.blend(s, nan, a, m, dst)
	}
}

// scalarForms emits the operations with a broadcast scalar operand s.
func scalarForms(t floatType) {
	sl := "dst, a []" + t.gotype + ", s " + t.gotype
	form := func(name string, op func(ops ...Op), rev bool) {
		add(name+t.suffix, sl, func(s isa) {
			var sv reg.VecVirtual
			loop{lanes: s.bytes / t.size, unroll: 4,
				setup: func() { sv = t.broadcast(s, "s") },
				body: func(in []reg.VecVirtual) []Op {
					d := s.vec()
					if rev {
						op(in[0], sv, d) // s ∘ a
					} else {
						op(sv, in[0], d) // a ∘ s
					}
					return []Op{d}
				}}.emit(s, out("dst", t.size), in("a", t.size))
		})
	}
	form("addScalar", t.add, false)
	form("subScalar", t.sub, false)
	form("subScalarRev", t.sub, true)
	form("mulScalar", t.mul, false)
	form("divScalar", t.div, false)
	form("divScalarRev", t.div, true)
}
