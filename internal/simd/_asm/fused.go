package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Fused kernels for the executor's peephole pass: two ops in one pass over
// memory, each still rounded on its own, so they give the bits of the two
// kernels they replace.

func registerFused() {
	for _, t := range []floatType{f32, f64} {
		t := t
		sl := "dst, x []" + t.gotype + ", a, b " + t.gotype
		add("affine"+t.suffix, sl, func(s isa) { affine(s, t, false) })
		add("affineNT"+t.suffix, sl, func(s isa) { affine(s, t, true) })
	}
	for _, r := range []struct {
		suffix string
		round  func(s isa, v reg.VecVirtual) reg.VecVirtual
	}{{"F16", roundToF16}, {"BF16", roundToBF16}} {
		r := r
		bin := func(name string, op func(ops ...Op)) {
			add(name+"Round"+r.suffix, "dst, a, b []float32", func(s isa) {
				loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
					d := s.vec()
					op(in[1], in[0], d) // a ∘ b
					return []Op{r.round(s, d)}
				}}.emit(s, out("dst", 4), in("a", 4), in("b", 4))
			})
		}
		bin("add", VADDPS)
		bin("sub", VSUBPS)
		bin("mul", VMULPS)
		bin("div", VDIVPS)
		scalar := func(name string, op func(ops ...Op), rev bool) {
			add(name+"Round"+r.suffix, "dst, a []float32, s float32", func(s isa) {
				var sv reg.VecVirtual
				loop{lanes: s.bytes / 4, unroll: 4,
					setup: func() { sv = s.broadcastParam32("s") },
					body: func(in []reg.VecVirtual) []Op {
						d := s.vec()
						if rev {
							op(in[0], sv, d) // s ∘ a
						} else {
							op(sv, in[0], d) // a ∘ s
						}
						return []Op{r.round(s, d)}
					}}.emit(s, out("dst", 4), in("a", 4))
			})
		}
		scalar("addScalar", VADDPS, false)
		scalar("subScalar", VSUBPS, false)
		scalar("subScalarRev", VSUBPS, true)
		scalar("mulScalar", VMULPS, false)
		scalar("divScalar", VDIVPS, false)
		scalar("divScalarRev", VDIVPS, true)
	}
	// The same ops storing binary16 or bfloat16 bits: the last op of an f16
	// loop and the narrowing store of its result in one pass.
	for _, r := range []struct {
		suffix string
		narrow func(s isa, x reg.VecVirtual, d Op)
	}{
		{"F16", func(s isa, x reg.VecVirtual, d Op) { VCVTPS2PH(U8(0), x, d) }},
		{"BF16", func(s isa, x reg.VecVirtual, d Op) {
			w := bf16Round(s, x)
			VPSRLD(U8(16), w, w)
			packDW(s, w, d)
		}},
	} {
		r := r
		// Each also comes with streaming (non-temporal, unfenced) stores,
		// "…NT", for the last step of a loop writing a large output.
		bin := func(name string, op func(ops ...Op)) {
			for _, nt := range []bool{false, true} {
				add(name+"To"+r.suffix+ntSuffix(nt), "dst []uint16, a, b []float32", func(s isa) {
					loop{lanes: s.bytes / 4, unroll: 4, nt: nt, noFence: nt, body: func(in []reg.VecVirtual) []Op {
						x, d := s.vec(), sized(s.bytes/2)
						op(in[1], in[0], x) // a ∘ b
						r.narrow(s, x, d)
						return []Op{d}
					}}.emit(s, out("dst", 2), in("a", 4), in("b", 4))
				})
			}
		}
		bin("add", VADDPS)
		bin("sub", VSUBPS)
		bin("mul", VMULPS)
		bin("div", VDIVPS)
		scalar := func(name string, op func(ops ...Op), rev bool) {
			for _, nt := range []bool{false, true} {
				add(name+"To"+r.suffix+ntSuffix(nt), "dst []uint16, a []float32, s float32", func(s isa) {
					var sv reg.VecVirtual
					loop{lanes: s.bytes / 4, unroll: 4, nt: nt, noFence: nt,
						setup: func() { sv = s.broadcastParam32("s") },
						body: func(in []reg.VecVirtual) []Op {
							x, d := s.vec(), sized(s.bytes/2)
							if rev {
								op(in[0], sv, x) // s ∘ a
							} else {
								op(sv, in[0], x) // a ∘ s
							}
							r.narrow(s, x, d)
							return []Op{d}
						}}.emit(s, out("dst", 2), in("a", 4))
				})
			}
		}
		scalar("addScalar", VADDPS, false)
		scalar("subScalar", VSUBPS, false)
		scalar("subScalarRev", VSUBPS, true)
		scalar("mulScalar", VMULPS, false)
		scalar("divScalar", VDIVPS, false)
		scalar("divScalarRev", VDIVPS, true)
	}
}

func ntSuffix(nt bool) string {
	if nt {
		return "NT"
	}
	return ""
}

// affine emits dst = x·a + b as a multiply and then an add, each rounded
// (no FMA); with nt the stores stream past the caches.
func affine(s isa, t floatType, nt bool) {
	var av, bv reg.VecVirtual
	loop{lanes: s.bytes / t.size, unroll: 4, nt: nt,
		setup: func() {
			av = t.broadcast(s, "a")
			bv = t.broadcast(s, "b")
		},
		body: func(in []reg.VecVirtual) []Op {
			p, d := s.vec(), s.vec()
			t.mul(av, in[0], p) // x·a
			t.add(bv, p, d)     // (x·a) + b
			return []Op{d}
		}}.emit(s, out("dst", t.size), in("x", t.size))
}

// roundToF16 rounds float32 lanes to binary16 and back, in v (see the
// roundF16 kernel).
func roundToF16(s isa, v reg.VecVirtual) reg.VecVirtual {
	h := sized(s.bytes / 2)
	VCVTPS2PH(U8(0), v, h)
	VCVTPH2PS(h, v)
	return v
}

// roundToBF16 rounds float32 lanes to bfloat16 (see the roundBF16 kernel).
func roundToBF16(s isa, v reg.VecVirtual) reg.VecVirtual {
	w := bf16Round(s, v)
	s.and(c32("bf16keep", 0xffff0000), w, w)
	return w
}
