package main

import (
	"strings"

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
	dtypes                             []string // the Kiln dtypes computed in this type (tensor.F16 is in float32)
	add, sub, mul, div, min, max, sqrt func(ops ...Op)
	cmp                                func(s isa, imm uint8, a, b Op) reg.Register
	blend                              func(s isa, c reg.Register, t, f, dst Op)
	broadcast                          func(s isa, p string) reg.VecVirtual
}

var (
	f32 = floatType{suffix: "F32", gotype: "float32", size: 4, dtypes: []string{"F32", "F16", "BF16"},
		add: VADDPS, sub: VSUBPS, mul: VMULPS, div: VDIVPS, min: VMINPS, max: VMAXPS, sqrt: VSQRTPS,
		cmp: isa.cmpPS, blend: isa.blendPS, broadcast: isa.broadcastParam32}
	f64 = floatType{suffix: "F64", gotype: "float64", size: 8, dtypes: []string{"F64"},
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
		for _, o := range []struct {
			name, op, sym string
			f             func(s isa, a, b, dst Op)
		}{
			{"add", "Add", "+", intrinsic(t.add)}, {"sub", "Sub", "-", intrinsic(t.sub)},
			{"mul", "Mul", "*", intrinsic(t.mul)}, {"div", "Div", "/", intrinsic(t.div)},
		} {
			o := o
			add(o.name+t.suffix, sl, func(s isa) { binary(s, t.size, o.f) }).
				wrap(o.op+t.suffix, "computes dst[i] = a[i] "+o.sym+" b[i].", o.name+"Go(dst, a, b)").
				fills("simd2", t.slots("binaryTable[trace.Op"+o.op+"]", "")...)
		}
		for _, o := range []struct {
			name, op string
			isMin    bool
		}{{"min", "Min", true}, {"max", "Max", false}} {
			o := o
			add(o.name+t.suffix, sl, func(s isa) { binary(s, t.size, t.minimum(o.isMin)) }).
				wrap(o.op+t.suffix, "computes dst[i] = "+o.name+"imum(a[i], b[i]).", o.name+t.suffix+"Go(dst, a, b)").
				fills("simd2", t.slots("binaryTable[trace.Op"+o.op+"]", "")...)
		}
		sqrtDoc := map[string]string{"F32": "computes dst[i] = sqrt(a[i]), correctly rounded.", "F64": "computes dst[i] = math.Sqrt(a[i])."}[t.suffix]
		add("sqrt"+t.suffix, "dst, a []"+t.gotype, func(s isa) {
			loop{lanes: s.bytes / t.size, unroll: 4, body: func(in []reg.VecVirtual) []Op {
				d := s.vec()
				t.sqrt(in[0], d)
				return []Op{d}
			}}.emit(s, out("dst", t.size), in("a", t.size))
		}).wrap("Sqrt"+t.suffix, sqrtDoc, "sqrt"+t.suffix+"Go(dst, a)").
			fills("simd1", t.slots("unaryTable[trace.OpSqrt]", "")...)
		scalarForms(t)
	}
}

// slots lists the kernels table entries of t's dtypes: table[tensor.D]
// followed by index.
func (t floatType) slots(table, index string) []string {
	var s []string
	for _, d := range t.dtypes {
		s = append(s, table+"[tensor."+d+"]"+index)
	}
	return s
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
	for _, f := range scalarOps {
		f := f
		op := map[string]func(ops ...Op){"add": t.add, "sub": t.sub, "mul": t.mul, "div": t.div}[f.base]
		add(f.name+t.suffix, sl, func(s isa) {
			var sv reg.VecVirtual
			loop{lanes: s.bytes / t.size, unroll: 4,
				setup: func() { sv = t.broadcast(s, "s") },
				body: func(in []reg.VecVirtual) []Op {
					d := s.vec()
					if f.rev {
						op(in[0], sv, d) // s ∘ a
					} else {
						op(sv, in[0], d) // a ∘ s
					}
					return []Op{d}
				}}.emit(s, out("dst", t.size), in("a", t.size))
		}).wrap(f.export(t.suffix), "computes dst[i] = "+f.expr()+".", f.name+"Go(dst, a, s)").
			fills("simdScalar", f.slots("scalarTable", t.slots)...)
	}
}

// scalarOp is an operation with a scalar operand: a ∘ s, or s ∘ a (rev).
type scalarOp struct {
	name, base, sym string // "subScalarRev", "sub", "-"
	rev             bool
}

var scalarOps = []scalarOp{
	{"addScalar", "add", "+", false}, {"subScalar", "sub", "-", false}, {"subScalarRev", "sub", "-", true},
	{"mulScalar", "mul", "*", false}, {"divScalar", "div", "/", false}, {"divScalarRev", "div", "/", true},
}

// export is the exported kernel's name for a suffix: SubScalarRevF32.
func (f scalarOp) export(suffix string) string {
	return strings.ToUpper(f.name[:1]) + f.name[1:] + suffix
}

// expr is the element computed, "a[i] - s" or "s - a[i]".
func (f scalarOp) expr() string {
	if f.rev {
		return "s " + f.sym + " a[i]"
	}
	return "a[i] " + f.sym + " s"
}

// slots lists the entries of a table like scalarTable[op][dtype][rev]
// the op fills, given slotsOf(table[op], index) listing the entries of its
// dtypes: [rev] picks the operand order, and the commutative ops fill both.
func (f scalarOp) slots(table string, slotsOf func(table, index string) []string) []string {
	table += "[trace.Op" + strings.ToUpper(f.base[:1]) + f.base[1:] + "]"
	switch {
	case f.base == "add" || f.base == "mul":
		return append(slotsOf(table, "[0]"), slotsOf(table, "[1]")...)
	case f.rev:
		return slotsOf(table, "[1]")
	}
	return slotsOf(table, "[0]")
}
