package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The f16 and bf16 ops of fused.go with operands read in their storage
// format (binary16 or bfloat16 bits) and widened in registers: the
// executor's widening pass of an f16 input and the op reading it become
// one pass. Forms: H1 (a is stored bits), H2 (b is) and H12 (both); the
// scalar ops' H form reads a as bits. Results are the bits of the widening
// kernel followed by the op's kernel.

type half struct {
	suffix string
	widen  func(s isa, x reg.VecVirtual) reg.VecVirtual // lanes of bits → float32
	round  func(s isa, v reg.VecVirtual) reg.VecVirtual
	narrow func(s isa, x reg.VecVirtual, d Op)
}

var halves = []half{
	{"F16",
		func(s isa, x reg.VecVirtual) reg.VecVirtual { d := s.vec(); VCVTPH2PS(x, d); return d },
		roundToF16,
		func(s isa, x reg.VecVirtual, d Op) { VCVTPS2PH(U8(0), x, d) }},
	{"BF16",
		func(s isa, x reg.VecVirtual) reg.VecVirtual {
			d := s.vec()
			VPMOVZXWD(x, d)
			VPSLLD(U8(16), d, d)
			return d
		},
		roundToBF16,
		func(s isa, x reg.VecVirtual, d Op) {
			w := bf16Round(s, x)
			VPSRLD(U8(16), w, w)
			packDW(s, w, d)
		}},
}

func registerWide() {
	for _, h := range halves {
		h := h
		for _, op := range []struct {
			name string
			f    func(ops ...Op)
		}{{"add", VADDPS}, {"sub", VSUBPS}, {"mul", VMULPS}, {"div", VDIVPS}} {
			op := op
			for _, form := range []struct {
				name   string
				ha, hb bool
			}{{"H1", true, false}, {"H2", false, true}, {"H12", true, true}} {
				form := form
				ta, tb, sa, sb := "[]float32", "[]float32", 4, 4
				if form.ha {
					ta, sa = "[]uint16", 2
				}
				if form.hb {
					tb, sb = "[]uint16", 2
				}
				operands := func(s isa, in []reg.VecVirtual) (a, b reg.VecVirtual) {
					a, b = in[0], in[1]
					if form.ha {
						a = h.widen(s, a)
					}
					if form.hb {
						b = h.widen(s, b)
					}
					return a, b
				}
				add(op.name+"Round"+h.suffix+form.name, "dst []float32, a "+ta+", b "+tb, func(s isa) {
					loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
						a, b := operands(s, in)
						d := s.vec()
						op.f(b, a, d) // a ∘ b
						return []Op{h.round(s, d)}
					}}.emit(s, out("dst", 4), in("a", sa), in("b", sb))
				})
				add(op.name+"To"+h.suffix+form.name, "dst []uint16, a "+ta+", b "+tb, func(s isa) {
					loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
						a, b := operands(s, in)
						x, d := s.vec(), sized(s.bytes/2)
						op.f(b, a, x) // a ∘ b
						h.narrow(s, x, d)
						return []Op{d}
					}}.emit(s, out("dst", 2), in("a", sa), in("b", sb))
				})
			}
		}
		for _, op := range []struct {
			name string
			f    func(ops ...Op)
			rev  bool
		}{{"addScalar", VADDPS, false}, {"subScalar", VSUBPS, false}, {"subScalarRev", VSUBPS, true},
			{"mulScalar", VMULPS, false}, {"divScalar", VDIVPS, false}, {"divScalarRev", VDIVPS, true}} {
			op := op
			apply := func(s isa, a, sv, d reg.VecVirtual) {
				if op.rev {
					op.f(a, sv, d) // s ∘ a
				} else {
					op.f(sv, a, d) // a ∘ s
				}
			}
			add(op.name+"Round"+h.suffix+"H", "dst []float32, a []uint16, s float32", func(s isa) {
				var sv reg.VecVirtual
				loop{lanes: s.bytes / 4, unroll: 4,
					setup: func() { sv = s.broadcastParam32("s") },
					body: func(in []reg.VecVirtual) []Op {
						d := s.vec()
						apply(s, h.widen(s, in[0]), sv, d)
						return []Op{h.round(s, d)}
					}}.emit(s, out("dst", 4), in("a", 2))
			})
			add(op.name+"To"+h.suffix+"H", "dst []uint16, a []uint16, s float32", func(s isa) {
				var sv reg.VecVirtual
				loop{lanes: s.bytes / 4, unroll: 4,
					setup: func() { sv = s.broadcastParam32("s") },
					body: func(in []reg.VecVirtual) []Op {
						x, d := s.vec(), sized(s.bytes/2)
						apply(s, h.widen(s, in[0]), sv, x)
						h.narrow(s, x, d)
						return []Op{d}
					}}.emit(s, out("dst", 2), in("a", 2))
			})
		}
	}
}
