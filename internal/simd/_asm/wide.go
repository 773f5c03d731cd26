package main

import (
	"fmt"

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
		format := map[string]string{"F16": "binary16", "BF16": "bfloat16"}[h.suffix]
		wide := "wide" + h.suffix // the twins' functions: widen bits, round, narrow
		roundOne, narrowOne := "round"+h.suffix+"One", "numerics.F32To"+h.suffix+"Bits"
		for _, op := range binaryOps {
			op := op
			for i, form := range []struct {
				name   string
				ha, hb bool
				doc    string
			}{{"H1", true, false, "a is"}, {"H2", false, true, "b is"}, {"H12", true, true, "a and b are"}} {
				form := form
				ta, tb, sa, sb := "[]float32", "[]float32", 4, 4
				wa, wb := "id32", "id32"
				if form.ha {
					ta, sa, wa = "[]uint16", 2, wide
				}
				if form.hb {
					tb, sb, wb = "[]uint16", 2, wide
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
				twin := func(f, out string) string {
					return fmt.Sprintf("%s(dst, a, b, %s, %s, %s32, %s)", f, wa, wb, op.name, out)
				}
				slot := func(kind int) string {
					return fmt.Sprintf("wideBinary[%d][trace.Op%s][tensor.%s][%d]", kind, op.op, h.suffix, i+1)
				}
				round := op.op + "Round" + h.suffix
				add(op.name+"Round"+h.suffix+form.name, "dst []float32, a "+ta+", b "+tb, func(s isa) {
					loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
						a, b := operands(s, in)
						d := s.vec()
						op.f(b, a, d) // a ∘ b
						return []Op{h.round(s, d)}
					}}.emit(s, out("dst", 4), in("a", sa), in("b", sb))
				}).wrap(round+form.name, "is "+round+" where "+form.doc+" "+format+" bits.", twin("binRoundH", roundOne)).
					fills("wideBin", slot(0))
				store := op.op + "To" + h.suffix
				add(op.name+"To"+h.suffix+form.name, "dst []uint16, a "+ta+", b "+tb, func(s isa) {
					loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
						a, b := operands(s, in)
						x, d := s.vec(), sized(s.bytes/2)
						op.f(b, a, x) // a ∘ b
						h.narrow(s, x, d)
						return []Op{d}
					}}.emit(s, out("dst", 2), in("a", sa), in("b", sb))
				}).wrap(store+form.name, "is "+store+" where "+form.doc+" "+format+" bits.", twin("binToH", narrowOne)).
					fills("wideBin", slot(1))
			}
		}
		for _, op := range scalarOps {
			op := op
			f := op.vop()
			apply := func(s isa, a, sv, d reg.VecVirtual) {
				if op.rev {
					f(a, sv, d) // s ∘ a
				} else {
					f(sv, a, d) // a ∘ s
				}
			}
			twin := func(out string) string {
				return fmt.Sprintf("scalarH(dst, a, s, %s, %s32, %v, %s)", wide, op.base, op.rev, out)
			}
			round := op.export("Round" + h.suffix)
			add(op.name+"Round"+h.suffix+"H", "dst []float32, a []uint16, s float32", func(s isa) {
				var sv reg.VecVirtual
				loop{lanes: s.bytes / 4, unroll: 4,
					setup: func() { sv = s.broadcastParam32("s") },
					body: func(in []reg.VecVirtual) []Op {
						d := s.vec()
						apply(s, h.widen(s, in[0]), sv, d)
						return []Op{h.round(s, d)}
					}}.emit(s, out("dst", 4), in("a", 2))
			}).wrap(round+"H", "is "+round+" where a is "+format+" bits.", twin(roundOne)).
				fills("wideScal", op.slots("wideScalar[0]", oneDType(h.suffix))...)
			store := op.export("To" + h.suffix)
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
			}).wrap(store+"H", "is "+store+" where a is "+format+" bits.", twin(narrowOne)).
				fills("wideScal", op.slots("wideScalar[1]", oneDType(h.suffix))...)
		}
	}
}
