package stablehlo

import (
	"math"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The math ops of trace/math.go. StableHLO has atan2, cbrt and remainder;
// the inverse trigonometric and hyperbolic functions, erf, erfc, erf_inv,
// is_inf and next_after are CHLO ops (the client dialect XLA and IREE
// legalize to StableHLO), printed in the same generic form; exp2, log2,
// log10, hypot and copysign are compositions, as in jax.numpy.

// chloOps are the math ops that are one CHLO op on real operands.
var chloOps = map[trace.Op]string{
	trace.OpAsin: "asin", trace.OpAcos: "acos", trace.OpAtan: "atan", trace.OpSinh: "sinh",
	trace.OpCosh: "cosh", trace.OpAsinh: "asinh", trace.OpAcosh: "acosh", trace.OpAtanh: "atanh",
	trace.OpErf: "erf", trace.OpErfc: "erfc", trace.OpErfInv: "erf_inv",
	trace.OpIsInf: "is_inf", trace.OpIsPosInf: "is_pos_inf", trace.OpIsNegInf: "is_neg_inf",
	trace.OpNextafter: "next_after",
}

// isMath reports whether op is lowered by math.
func isMath(op trace.Op) bool {
	switch op {
	case trace.OpExp2, trace.OpLog2, trace.OpLog10, trace.OpCbrt, trace.OpAtan2, trace.OpHypot, trace.OpCopysign, trace.OpFmod:
		return true
	}
	return chloOps[op] != ""
}

// chlo appends a CHLO op.
func (b *shloBuilder) chlo(name string, t shloType, args ...*shloVal) *shloVal {
	v := b.op(name, t, args...)
	v.def.op = "chlo." + name
	return v
}

func (x *shloInstr) math(op trace.Op, args []*shloVal) (*shloVal, error) {
	a := args[0]
	d := a.typ.dt
	switch {
	case op == trace.OpIsInf || op == trace.OpIsPosInf || op == trace.OpIsNegInf:
		switch {
		case d.IsComplex():
			x.note("infinite when either part is")
			pt := a.typ.with(d.RealPart())
			return x.bin("or", x.chlo("is_inf", x.t, x.op("real", pt, a)), x.chlo("is_inf", x.t, x.op("imag", pt, a))), nil
		case !d.IsFloat():
			x.note("integers and bools are never infinite")
			return x.splat(x.t, false), nil
		}
		return x.chlo(chloOps[op], x.t, a), nil
	case op == trace.OpFmod:
		if d.IsInteger() {
			return x.intFmod(a, args[1]), nil
		}
		x.note("fmod is stablehlo.remainder (C's fmod)")
		return x.op("remainder", x.t, a, args[1]), nil
	case d.IsComplex() && (op == trace.OpExp2 || op == trace.OpLog2 || op == trace.OpLog10):
		return x.complexBase(op, a), nil
	case d.IsComplex():
		if name := chloOps[op]; name != "" && op != trace.OpErf && op != trace.OpErfc && op != trace.OpErfInv {
			return x.chlo(name, x.t, a), nil
		}
		return nil, unsupported("no StableHLO lowering for %s on %s", op, d)
	case chloOps[op] != "":
		return x.chlo(chloOps[op], x.t, args...), nil
	case op == trace.OpExp2:
		x.note("exp2(x) = 2**x (stablehlo.power)")
		return x.op("power", x.t, x.splat(a.typ, 2.0), a), nil
	case op == trace.OpLog2 || op == trace.OpLog10:
		return x.logBase(op, a), nil
	case op == trace.OpCbrt:
		return x.op("cbrt", x.t, a), nil
	case op == trace.OpAtan2:
		return x.op("atan2", x.t, a, args[1]), nil
	case op == trace.OpHypot:
		return x.hypot(a, args[1]), nil
	case op == trace.OpCopysign:
		return x.copysign(a, args[1]), nil
	}
	return nil, unsupported("no StableHLO lowering for %s on %s", op, d)
}

// complexBase is Kiln's complex exp2, log2 and log10: exp(complex(re·ln 2,
// im·ln 2)) and log(z)'s parts times log2(e) or log10(e), part by part — a
// complex multiply or divide by the real constant would make 0·∞ a NaN
// part (log2 of an infinity has a finite imaginary part) — computed in
// complex<f64> for complex<f32>, as Kiln computes complex functions in
// complex128 and rounds once (the rounding of re·ln 2 to f32 would move
// exp2's phase by up to |im|·2⁻²⁴).
func (x *shloInstr) complexBase(op trace.Op, a *shloVal) *shloVal {
	x.note(map[trace.Op]string{trace.OpExp2: "exp2(z) = exp(complex(re·ln 2, im·ln 2))",
		trace.OpLog2: "log2(z) = log(z)'s parts times log2(e)", trace.OpLog10: "log10(z) = log(z)'s parts times log10(e)"}[op] +
		", computed in complex<f64>")
	d := a.typ.dt
	if d == tensor.C64 {
		a = x.conv(a, tensor.C128)
	}
	pt := a.typ.with(tensor.F64)
	scale := func(z *shloVal, k float64) *shloVal {
		c := x.splat(pt, k)
		re, im := x.op("real", pt, z), x.op("imag", pt, z)
		return x.op("complex", z.typ, x.bin("multiply", re, c), x.bin("multiply", im, c))
	}
	var r *shloVal
	switch op {
	case trace.OpExp2:
		r = x.op("exponential", a.typ, scale(a, math.Ln2))
	case trace.OpLog2:
		r = scale(x.op("log", a.typ, a), math.Log2E)
	default:
		r = scale(x.op("log", a.typ, a), math.Log10E)
	}
	if d == tensor.C64 {
		r = x.conv(r, d)
	}
	return r
}

// logBase is log(x)/log(b), as jax.numpy's log2 and log10 (Kiln's own are
// correctly rounded but for rare arguments; the composition may be an ulp
// or two off).
func (x *shloInstr) logBase(op trace.Op, a *shloVal) *shloVal {
	base := 2.0
	if op == trace.OpLog10 {
		base = 10
	}
	x.note(op.String() + "(x) = log(x)/log(" + map[float64]string{2: "2", 10: "10"}[base] + "), as jax.numpy")
	return x.bin("divide", x.op("log", x.t, a), x.splat(a.typ, math.Log(base)))
}

// hypot is jax.numpy's composition without overflow: with m = max(|x|,
// |y|) and n the other, m·√(1 + (n/m)²), +Inf where either is infinite.
func (x *shloInstr) hypot(a, c *shloVal) *shloVal {
	x.note("hypot = max·√(1 + (min/max)²), +Inf if either is infinite (jnp.hypot)")
	t := a.typ
	aa, ca := x.op("abs", t, a), x.op("abs", t, c)
	m, n := x.bin("maximum", aa, ca), x.bin("minimum", aa, ca)
	zero, one := x.zero(t), x.one(t)
	safe := x.sel(x.cmp("EQ", m, zero), one, m)
	r := x.bin("divide", n, safe)
	h := x.bin("multiply", m, x.op("sqrt", t, x.bin("add", one, x.bin("multiply", r, r))))
	bt := t.with(tensor.Bool)
	inf := x.bin("or", x.chlo("is_inf", bt, a), x.chlo("is_inf", bt, c))
	return x.sel(inf, x.splat(t, math.Inf(1)), h)
}

// copysign is |x| negated where y's sign bit is set (read through a
// bitcast, so −0 and −NaN count as negative).
func (x *shloInstr) copysign(a, c *shloVal) *shloVal {
	if d := a.typ.dt; d.IsNarrow() { // no bitcast of a narrow float: its f32 value's sign
		x.note("narrow floats: copysign of the f32 values, rounded back")
		return x.conv(x.copysign(x.conv(a, tensor.F32), x.conv(c, tensor.F32)), d)
	}
	x.note("copysign(x, y) = y's sign bit ? −|x| : |x|")
	t := a.typ
	it := t.with(map[int]tensor.DType{16: tensor.I16, 32: tensor.I32, 64: tensor.I64}[t.dt.Bits()])
	bits := x.op("bitcast_convert", it, c)
	neg := x.cmp("LT", bits, x.zero(it))
	abs := x.op("abs", t, a)
	return x.sel(neg, x.op("negate", t, abs), abs)
}

// intFmod is C's % with Kiln's zero divisor (0) and MIN % −1 = 0: the
// divisor is replaced by 1 where stablehlo.remainder is undefined.
func (x *shloInstr) intFmod(a, c *shloVal) *shloVal {
	x.note("integer fmod: x % 0 = 0 and MIN % −1 = 0 (StableHLO leaves both undefined)")
	t := a.typ
	bad := x.cmp("EQ", c, x.zero(t))
	if t.dt.IsSigned() {
		bad = x.bin("or", bad, x.cmp("EQ", c, x.splat(t, int64(-1))))
	}
	r := x.op("remainder", x.t, a, x.sel(bad, x.one(t), c))
	return x.sel(bad, x.zero(t), r)
}
