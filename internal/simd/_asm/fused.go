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
		add("affine"+t.suffix, sl, func(s isa) { affine(s, t, false) }).
			wrap("Affine"+t.suffix, "computes dst[i] = x[i]*a + b, rounding the product and then the sum (no FMA): exactly MulScalar"+t.suffix+
				" followed by AddScalar"+t.suffix+".", "affineGo(dst, x, a, b)").
			fills("simdAffine", "affineTable[tensor."+t.suffix+"][0]")
		// The non-temporal form writes an unaligned head first (package simd).
		add("affineNT"+t.suffix, sl, func(s isa) { affine(s, t, true) }).
			handWritten("AffineNT"+t.suffix).fills("simdAffine", "affineTable[tensor."+t.suffix+"][1]")
	}
	for _, r := range []struct {
		suffix, format string
		round          func(s isa, v reg.VecVirtual) reg.VecVirtual
	}{{"F16", "binary16", roundToF16}, {"BF16", "bfloat16", roundToBF16}} {
		r := r
		for _, o := range binaryOps {
			o := o
			add(o.name+"Round"+r.suffix, "dst, a, b []float32", func(s isa) {
				loop{lanes: s.bytes / 4, unroll: 4, body: func(in []reg.VecVirtual) []Op {
					d := s.vec()
					o.f(in[1], in[0], d) // a ∘ b
					return []Op{r.round(s, d)}
				}}.emit(s, out("dst", 4), in("a", 4), in("b", 4))
			}).wrap(o.op+"Round"+r.suffix, "computes dst[i] = a[i] "+o.sym+" b[i] rounded to "+r.format+" (as Round"+r.suffix+").",
				o.name+"Go(dst, a, b)\nround"+r.suffix+"Go(dst)").
				fills("simd2", "rounded.bin[trace.Op"+o.op+"][tensor."+r.suffix+"]")
		}
		for _, f := range scalarOps {
			f := f
			op := f.vop()
			add(f.name+"Round"+r.suffix, "dst, a []float32, s float32", func(s isa) {
				var sv reg.VecVirtual
				loop{lanes: s.bytes / 4, unroll: 4,
					setup: func() { sv = s.broadcastParam32("s") },
					body: func(in []reg.VecVirtual) []Op {
						d := s.vec()
						if f.rev {
							op(in[0], sv, d) // s ∘ a
						} else {
							op(sv, in[0], d) // a ∘ s
						}
						return []Op{r.round(s, d)}
					}}.emit(s, out("dst", 4), in("a", 4))
			}).wrap(f.export("Round"+r.suffix), "computes dst[i] = "+f.expr()+" rounded to "+r.format+".",
				f.name+"Go(dst, a, s)\nround"+r.suffix+"Go(dst)").
				fills("simdScalar", f.slots("rounded.scal", oneDType(r.suffix))...)
		}
	}
	// The same ops storing binary16 or bfloat16 bits: the last op of an f16
	// loop and the narrowing store of its result in one pass.
	for _, r := range []struct {
		suffix, format string
		narrow         func(s isa, x reg.VecVirtual, d Op)
	}{
		{"F16", "binary16", func(s isa, x reg.VecVirtual, d Op) { VCVTPS2PH(U8(0), x, d) }},
		{"BF16", "bfloat16", func(s isa, x reg.VecVirtual, d Op) {
			w := bf16Round(s, x)
			VPSRLD(U8(16), w, w)
			packDW(s, w, d)
		}},
	} {
		r := r
		// Each also comes with streaming (non-temporal, unfenced) stores,
		// "…NT", for the last step of a loop writing a large output.
		for _, o := range binaryOps {
			o := o
			for _, nt := range []bool{false, true} {
				name := o.name + "To" + r.suffix + ntSuffix(nt)
				k := add(name, "dst []uint16, a, b []float32", func(s isa) {
					loop{lanes: s.bytes / 4, unroll: 4, nt: nt, noFence: nt, body: func(in []reg.VecVirtual) []Op {
						x, d := s.vec(), sized(s.bytes/2)
						o.f(in[1], in[0], x) // a ∘ b
						r.narrow(s, x, d)
						return []Op{d}
					}}.emit(s, out("dst", 2), in("a", 4), in("b", 4))
				})
				plain := o.op + "To" + r.suffix
				if nt {
					k.wrapBody(plain+"NT", "is "+plain+" with streaming stores.", "binToNT(dst, a, b, "+name+"Accel, "+plain+")").
						fills("wideBin", "storedNT.bin[trace.Op"+o.op+"][tensor."+r.suffix+"]")
				} else {
					k.wrap(plain, "computes dst[i] = a[i] "+o.sym+" b[i] stored as "+r.format+" (as F32To"+r.suffix+").",
						"for i := range dst {\ndst[i] = numerics.F32To"+r.suffix+"Bits(a[i] "+o.sym+" b[i])\n}").
						fills("wideBin", "stored.bin[trace.Op"+o.op+"][tensor."+r.suffix+"]")
				}
			}
		}
		for _, f := range scalarOps {
			f := f
			op := f.vop()
			for _, nt := range []bool{false, true} {
				name := f.name + "To" + r.suffix + ntSuffix(nt)
				k := add(name, "dst []uint16, a []float32, s float32", func(s isa) {
					var sv reg.VecVirtual
					loop{lanes: s.bytes / 4, unroll: 4, nt: nt, noFence: nt,
						setup: func() { sv = s.broadcastParam32("s") },
						body: func(in []reg.VecVirtual) []Op {
							x, d := s.vec(), sized(s.bytes/2)
							if f.rev {
								op(in[0], sv, x) // s ∘ a
							} else {
								op(sv, in[0], x) // a ∘ s
							}
							r.narrow(s, x, d)
							return []Op{d}
						}}.emit(s, out("dst", 2), in("a", 4))
				})
				plain := f.export("To" + r.suffix)
				if nt {
					k.wrapBody(plain+"NT", "is "+plain+" with streaming stores.", "scalarToNT(dst, a, s, "+name+"Accel, "+plain+")").
						fills("wideScal", f.slots("storedNT.scal", oneDType(r.suffix))...)
				} else {
					k.wrap(plain, "computes dst[i] = "+f.expr()+" stored as "+r.format+" (as F32To"+r.suffix+").",
						"for i := range dst {\ndst[i] = numerics.F32To"+r.suffix+"Bits("+f.expr()+")\n}").
						fills("wideScal", f.slots("stored.scal", oneDType(r.suffix))...)
				}
			}
		}
	}
}

// binaryOps are the float32 arithmetic the fused kernels run.
var binaryOps = []struct {
	name, op, sym string
	f             func(ops ...Op)
}{{"add", "Add", "+", VADDPS}, {"sub", "Sub", "-", VSUBPS}, {"mul", "Mul", "*", VMULPS}, {"div", "Div", "/", VDIVPS}}

// vop is the float32 vector instruction of the op.
func (f scalarOp) vop() func(ops ...Op) {
	return map[string]func(ops ...Op){"add": VADDPS, "sub": VSUBPS, "mul": VMULPS, "div": VDIVPS}[f.base]
}

// oneDType lists the entry of dtype d of a table: table[tensor.d]index.
func oneDType(d string) func(table, index string) []string {
	return func(table, index string) []string { return []string{table + "[tensor." + d + "]" + index} }
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
