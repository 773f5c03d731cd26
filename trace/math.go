package trace

import (
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// The elementwise math of jax.numpy and jax.scipy.special beyond the basic
// ops. The primitives follow the op table's dtype rules (integer and bool
// operands compute in the inexact dtype, weak stays weak); the composites
// are JAX's own compositions, op for op, so they round as JAX's do.

// Asin returns arcsin x (jnp.arcsin): NaN outside [−1, 1].
func (x Value) Asin() Value { return elementwise(OpAsin, x) }

// Acos returns arccos x (jnp.arccos).
func (x Value) Acos() Value { return elementwise(OpAcos, x) }

// Atan returns arctan x (jnp.arctan).
func (x Value) Atan() Value { return elementwise(OpAtan, x) }

// Sinh returns the hyperbolic sine (jnp.sinh).
func (x Value) Sinh() Value { return elementwise(OpSinh, x) }

// Cosh returns the hyperbolic cosine (jnp.cosh).
func (x Value) Cosh() Value { return elementwise(OpCosh, x) }

// Asinh returns arcsinh x (jnp.arcsinh).
func (x Value) Asinh() Value { return elementwise(OpAsinh, x) }

// Acosh returns arccosh x (jnp.arccosh): NaN below 1.
func (x Value) Acosh() Value { return elementwise(OpAcosh, x) }

// Atanh returns arctanh x (jnp.arctanh): ±Inf at ±1, NaN beyond.
func (x Value) Atanh() Value { return elementwise(OpAtanh, x) }

// Exp2 returns 2**x (jnp.exp2), exact at integers.
func (x Value) Exp2() Value { return elementwise(OpExp2, x) }

// Log2 returns log₂ x (jnp.log2), exact at powers of two. JAX divides
// log x by log 2; Kiln's is one op within the ulp bounds of docs/SPEC.md §3.
func (x Value) Log2() Value { return elementwise(OpLog2, x) }

// Log10 returns log₁₀ x (jnp.log10), exact at powers of ten (JAX divides
// log x by log 10).
func (x Value) Log10() Value { return elementwise(OpLog10, x) }

// Cbrt returns the real cube root (jnp.cbrt; real dtypes only).
func (x Value) Cbrt() Value { return elementwise(OpCbrt, x) }

// Erf returns the error function (jax.scipy.special.erf, lax.erf; real
// dtypes only).
func (x Value) Erf() Value { return elementwise(OpErf, x) }

// Erfc returns 1 − erf x without cancellation (lax.erfc).
func (x Value) Erfc() Value { return elementwise(OpErfc, x) }

// ErfInv returns the inverse error function (jax.scipy.special.erfinv,
// lax.erf_inv): ±Inf at ±1, NaN beyond.
func (x Value) ErfInv() Value { return elementwise(OpErfInv, x) }

// IsInf reports which elements are ±Inf (jnp.isinf): false for integers;
// for complex, either part infinite.
func (x Value) IsInf() Value { return elementwise(OpIsInf, x) }

// IsPosInf reports which elements are +Inf (jnp.isposinf; not complex).
func (x Value) IsPosInf() Value { return elementwise(OpIsPosInf, x) }

// IsNegInf reports which elements are −Inf (jnp.isneginf; not complex).
func (x Value) IsNegInf() Value { return elementwise(OpIsNegInf, x) }

// StopGradient is x, through which derivatives do not flow
// (lax.stop_gradient): its tangent is zero.
func StopGradient(x Value) Value { return elementwise(OpStopGradient, x) }

// Atan2 returns the angle of the point (y, x) for x.Atan2(y), that is
// arctan(x/y) in the right quadrant — jnp.arctan2(x1, x2) with x1 = x.
func (x Value) Atan2(y Value) Value { return elementwise(OpAtan2, x, y) }

// Hypot returns √(x² + y²) without intermediate overflow (jnp.hypot):
// +Inf if either is infinite, even with a NaN.
func (x Value) Hypot(y Value) Value { return elementwise(OpHypot, x, y) }

// Copysign returns |x| with the sign bit of y (jnp.copysign).
func (x Value) Copysign(y Value) Value { return elementwise(OpCopysign, x, y) }

// Nextafter returns the next representable value after x toward y
// (jnp.nextafter).
func (x Value) Nextafter(y Value) Value { return elementwise(OpNextafter, x, y) }

// Fmod returns C's fmod: x − trunc(x/y)·y, with the sign of x (jnp.fmod).
// For integers, a zero divisor gives 0 (as // and % do).
func (x Value) Fmod(y Value) Value { return elementwise(OpFmod, x, y) }

// Remainder is x % y with the sign of y (jnp.remainder, Python's %): Rem.
func (x Value) Remainder(y Value) Value { return x.Rem(y) }

// Square returns x·x (jnp.square, lax.integer_pow(x, 2)); bool squares as
// the default int.
func (x Value) Square() Value {
	return composite("square", promoteNumeric, []Value{x}, func(xs []Value) Value { return xs[0].Mul(xs[0]) })
}

// Reciprocal returns 1/x (jnp.reciprocal): integers and bool compute in
// their inexact dtype first, as JAX's promote_args_inexact.
func (x Value) Reciprocal() Value {
	return composite("reciprocal", promoteInexact, []Value{x}, func(xs []Value) Value { return Scalar(xs[0], 1).Div(xs[0]) })
}

// Clip bounds x to [lo, hi] as jnp.clip: maximum(lo, x), then
// minimum(hi, ·); a zero Value leaves that side unbounded. The result
// promotes with the bounds, and NaN propagates.
func (x Value) Clip(lo, hi Value) Value {
	if !isZero(lo) {
		x = lo.Maximum(x)
	}
	if !isZero(hi) {
		x = hi.Minimum(x)
	}
	return x
}

// LogAddExp returns log(eˣ + eʸ) without overflow (jnp.logaddexp), JAX's
// composition: max(x, y) + log1p(exp(−|x − y|)), and x + y where x − y
// is NaN (NaNs, or infinities of one sign). Operands promote together to
// an inexact dtype first; complex operands are refused.
func (x Value) LogAddExp(y Value) Value {
	return composite("logaddexp", promoteInexact|promoteReal, []Value{x, y}, func(xs []Value) Value {
		x, y := xs[0], xs[1]
		amax := x.Maximum(y)
		delta := x.Sub(y)
		return Where(delta.IsNaN(), x.Add(y), amax.Add(delta.Abs().Neg().Exp().Log1p()))
	})
}

// promotion says how composite promotes its operands.
type promotion uint8

const (
	promoteInexact promotion = 1 << iota // then to the inexact dtype (promote_args_inexact)
	promoteNumeric                       // bool to the default int (promote_args_numeric)
	promoteReal                          // complex is refused
)

// composite applies f to xs promoted together, as JAX's promote_args*
// helpers do before a composition: the join of their types, then the
// inexact or numeric dtype. Free operands make a free expression.
func composite(name string, p promotion, xs []Value, f func(xs []Value) Value) Value {
	b, ok := builderOf(name, xs...)
	if b == nil {
		return freeOp(func(b *builder) Value { return composite(name, p, attachAll(b, name, xs), f) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xs = attachAll(b, name, xs)
	types := make([]promote.Type, len(xs))
	shapes := make([][]int, len(xs))
	for i, x := range xs {
		if b.err != nil || (x.v == nil && x.lit == nil) {
			return Value{b: b}
		}
		types[i], shapes[i] = b.typeOf(x), shapeOf(x)
	}
	common, err := b.rankedType(types, shapes)
	if err != nil {
		return b.opErr(name, err)
	}
	why := ""
	switch {
	case p&promoteInexact != 0 && !common.DType.IsInexact():
		if common, err = b.cfg.FloatFuncTypeOf(name, common, types...); err != nil {
			return b.opErr(name, err)
		}
		why = name + " computes in " + common.String()
	case p&promoteNumeric != 0 && common.DType == tensor.Bool:
		common = b.cfg.Numeric(common)
		why = name + " of bool computes in " + common.String()
	}
	if p&promoteReal != 0 && common.DType.IsComplex() {
		return b.dtypeErr(name, name+" does not support complex-valued inputs ("+common.String()+")", types...)
	}
	out := make([]Value, len(xs))
	for i, x := range xs {
		v := b.to(x, common, name, why)
		if v == nil {
			return Value{b: b}
		}
		out[i] = Value{b: b, v: v}
	}
	return f(out)
}

// Inexact converts x to its inexact dtype as jax.numpy's
// promote_args_inexact does: bool and integers of up to 32 bits to f32,
// 64-bit integers to f64 (f32 with 32-bit defaults), keeping the weak
// flag; floats and complex numbers are returned as they are.
func Inexact(x Value) Value {
	return composite("inexact", promoteInexact, []Value{x}, func(xs []Value) Value { return xs[0] })
}
