package reference

import (
	"math"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Real float ops, generic over float32 (f16, bf16 and f32 compute in it)
// and float64. Every arithmetic result is converted to T explicitly: the
// conversion rounds, so the compiler may not fuse a product into an FMA.
// Functions of package math compute in float64 from an exact widening and
// the result is rounded once to T: for sqrt this is the correctly rounded
// float32 square root, since float64 has more than twice float32's
// precision; floor, ceil, round and abs are exact either way.

// transcendentalFn computes op on float64 operands (y is 0 for unary ops).
type transcendentalFn func(op trace.Op, x, y float64) float64

// transcendental returns the function computing transcendental ops for
// compute dtype d: Options.Transcendental when set, math's otherwise.
func (ev *evaluator) transcendental(d tensor.DType) transcendentalFn {
	if f := ev.opts.Transcendental; f != nil {
		return func(op trace.Op, x, y float64) float64 { return f(op, d, x, y) }
	}
	return mathTranscendental
}

// mathTranscendental is the default: Go's float64 functions, with rsqrt and
// logistic spelled out from them.
func mathTranscendental(op trace.Op, x, y float64) float64 {
	switch op {
	case trace.OpExp:
		return math.Exp(x)
	case trace.OpLog:
		return math.Log(x)
	case trace.OpLog1p:
		return math.Log1p(x)
	case trace.OpExpm1:
		return math.Expm1(x)
	case trace.OpRsqrt:
		return 1 / math.Sqrt(x)
	case trace.OpSin:
		return math.Sin(x)
	case trace.OpCos:
		return math.Cos(x)
	case trace.OpTan:
		return math.Tan(x)
	case trace.OpTanh:
		return math.Tanh(x)
	case trace.OpLogistic:
		return 1 / (1 + math.Exp(-x))
	case trace.OpPow:
		return math.Pow(x, y)
	case trace.OpAsin:
		return math.Asin(x)
	case trace.OpAcos:
		return math.Acos(x)
	case trace.OpAtan:
		return math.Atan(x)
	case trace.OpSinh:
		return math.Sinh(x)
	case trace.OpCosh:
		return math.Cosh(x)
	case trace.OpAsinh:
		return math.Asinh(x)
	case trace.OpAcosh:
		return math.Acosh(x)
	case trace.OpAtanh:
		return math.Atanh(x)
	case trace.OpExp2:
		return math.Exp2(x)
	case trace.OpLog2:
		return math.Log2(x)
	case trace.OpLog10:
		return math.Log10(x)
	case trace.OpCbrt:
		return math.Cbrt(x)
	case trace.OpErf:
		return math.Erf(x)
	case trace.OpErfc:
		return math.Erfc(x)
	case trace.OpErfInv:
		return math.Erfinv(x)
	case trace.OpAtan2:
		return math.Atan2(x, y)
	case trace.OpHypot:
		return math.Hypot(x, y)
	}
	return math.NaN() // unreachable: callers pass transcendental ops only
}

func floatUnary[T float](op trace.Op, tr transcendentalFn, x []T, ix []int) (any, error) {
	if op.Info().Transcendental {
		return mapUnary(x, ix, func(v T) T { return T(tr(op, float64(v), 0)) }), nil
	}
	var f func(T) T
	switch op {
	case trace.OpNeg:
		f = func(v T) T { return -v }
	case trace.OpAbs:
		f = func(v T) T { return T(math.Abs(float64(v))) }
	case trace.OpSign:
		f = floatSign[T]
	case trace.OpSqrt:
		f = func(v T) T { return T(math.Sqrt(float64(v))) }
	case trace.OpFloor:
		f = func(v T) T { return T(math.Floor(float64(v))) }
	case trace.OpCeil:
		f = func(v T) T { return T(math.Ceil(float64(v))) }
	case trace.OpRound:
		f = func(v T) T { return T(math.RoundToEven(float64(v))) }
	case trace.OpReal, trace.OpConj:
		f = func(v T) T { return v }
	case trace.OpImag:
		f = func(T) T { return 0 }
	case trace.OpIsNaN:
		return mapUnary(x, ix, func(v T) bool { return v != v }), nil
	case trace.OpIsFinite:
		return mapUnary(x, ix, isFinite[T]), nil
	case trace.OpIsInf:
		return mapUnary(x, ix, func(v T) bool { return math.IsInf(float64(v), 0) }), nil
	case trace.OpIsPosInf:
		return mapUnary(x, ix, func(v T) bool { return math.IsInf(float64(v), 1) }), nil
	case trace.OpIsNegInf:
		return mapUnary(x, ix, func(v T) bool { return math.IsInf(float64(v), -1) }), nil
	case trace.OpStopGradient:
		f = func(v T) T { return v }
	default:
		return nil, errNotDefined(op, "floats")
	}
	return mapUnary(x, ix, f), nil
}

// floatSign is −1, +0 or 1; a NaN is returned as is and both zeros give +0.
func floatSign[T float](v T) T {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	case v == 0:
		return 0
	}
	return v // NaN
}

func floatBinary[T float](op trace.Op, tr transcendentalFn, a, b []T, ia, ib []int) (any, error) {
	var f func(x, y T) T
	var cmp func(x, y T) bool
	switch op {
	case trace.OpAdd:
		f = func(x, y T) T { return T(x + y) }
	case trace.OpSub:
		f = func(x, y T) T { return T(x - y) }
	case trace.OpMul:
		f = func(x, y T) T { return T(x * y) }
	case trace.OpDiv:
		f = func(x, y T) T { return T(x / y) }
	case trace.OpFloorDiv:
		f = func(x, y T) T { q, _ := npyDivmod(x, y); return q }
	case trace.OpRem:
		f = func(x, y T) T { _, r := npyDivmod(x, y); return r }
	case trace.OpPow, trace.OpAtan2, trace.OpHypot:
		f = func(x, y T) T { return T(tr(op, float64(x), float64(y))) }
	case trace.OpFmod:
		f = func(x, y T) T { return T(math.Mod(float64(x), float64(y))) } // exact
	case trace.OpCopysign:
		f = func(x, y T) T { return T(math.Copysign(float64(x), float64(y))) }
	case trace.OpNextafter:
		f = nextafter[T]
	case trace.OpMax:
		f = ieeeMaximum[T]
	case trace.OpMin:
		f = ieeeMinimum[T]
	case trace.OpEq:
		cmp = func(x, y T) bool { return x == y }
	case trace.OpNe:
		cmp = func(x, y T) bool { return x != y }
	case trace.OpLt:
		cmp = func(x, y T) bool { return x < y }
	case trace.OpLe:
		cmp = func(x, y T) bool { return x <= y }
	case trace.OpGt:
		cmp = func(x, y T) bool { return x > y }
	case trace.OpGe:
		cmp = func(x, y T) bool { return x >= y }
	default:
		return nil, errNotDefined(op, "floats")
	}
	if cmp != nil {
		return mapBinary(a, b, ia, ib, cmp), nil
	}
	return mapBinary(a, b, ia, ib, f), nil
}

// ieeeMaximum is IEEE 754-2019 maximum: a NaN operand gives that NaN (the
// first one when both are), and −0 < +0. The backends share
// internal/numerics.Maximum; this copy is the reference's own on purpose
// (package doc: a bug shared with them would pass every comparison).
func ieeeMaximum[T float](x, y T) T {
	switch {
	case x != x:
		return x
	case y != y:
		return y
	case x > y:
		return x
	case y > x:
		return y
	case math.Signbit(float64(x)):
		return y // equal: only ±0 can differ, and then y is the +0 or both are −0
	}
	return x
}

// ieeeMinimum is IEEE 754-2019 minimum: NaN propagates as in ieeeMaximum,
// and −0 < +0.
func ieeeMinimum[T float](x, y T) T {
	switch {
	case x != x:
		return x
	case y != y:
		return y
	case x < y:
		return x
	case y < x:
		return y
	case math.Signbit(float64(x)):
		return x
	}
	return y
}

// npyDivmod is NumPy 1.24's npy_divmod, operation for operation in T, so
// that floor division and remainder have NumPy's bits, including the signs
// of zero results and the NaNs of a zero divisor. fmod (math.Mod) is exact,
// so computing it in float64 gives the float32 fmodf too.
func npyDivmod[T float](a, b T) (floordiv, mod T) {
	mod = T(math.Mod(float64(a), float64(b)))
	if b == 0 {
		return T(a / b), mod
	}
	// a − mod is very nearly an integer multiple of b.
	div := T(T(a-mod) / b)
	// Move fmod's result (sign of a) to Python's convention (sign of b).
	// In C "if (mod)" is true for NaN, as mod != 0 is here.
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod = T(mod + b)
			div = T(div - 1)
		}
	} else {
		mod = T(math.Copysign(0, float64(b)))
	}
	// Snap the quotient to the nearest integer; a zero quotient takes the
	// sign of the true quotient.
	if div != 0 {
		floordiv = T(math.Floor(float64(div)))
		if T(div-floordiv) > 0.5 {
			floordiv = T(floordiv + 1)
		}
	} else {
		floordiv = T(math.Copysign(0, float64(T(a/b))))
	}
	return floordiv, mod
}

// nextafter is the next T after x toward y as C99 and NumPy define it: y
// when x == y (so ±0 toward ∓0 gives y), ±0 steps to the smallest
// subnormal, NaN propagates.
func nextafter[T float](x, y T) T {
	if x == y {
		return y
	}
	if _, ok := any(x).(float32); ok {
		return T(math.Nextafter32(float32(x), float32(y)))
	}
	return T(math.Nextafter(float64(x), float64(y)))
}
