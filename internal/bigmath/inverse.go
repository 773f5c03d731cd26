package bigmath

import (
	"math"
	"math/big"
)

// The inverse trigonometric and hyperbolic functions, exp2, log2, log10,
// cbrt and hypot, correctly rounded. Each reduces to expP, logP, log1pP and
// atanP at a working precision that keeps the result's relative error far
// below 2**−200 whatever the argument (no cancellation is left to chance:
// where a formula subtracts nearly equal quantities it is rewritten).

// log1pP is ln(1 + u) for u > −1 to prec bits, keeping relative precision
// for tiny u: 2 atanh(u/(2+u)).
func log1pP(u *big.Float, prec uint) *big.Float {
	wp := prec + 64
	if new(big.Float).Abs(u).Cmp(big.NewFloat(1.0/256)) <= 0 {
		z := newP(wp).Quo(u, newP(wp).Add(u, big.NewFloat(2)))
		r := atanhSeries(z, wp)
		return r.Mul(r, big.NewFloat(2))
	}
	return logP(newP(wp).Add(u, big.NewFloat(1)), wp)
}

// atanP is atan x for finite x to prec bits: atan x = ±π/2 − atan(1/x)
// beyond 1, then halvings atan x = 2 atan(x/(1 + √(1+x²))) down to
// |x| ≤ 2**−8, then the Taylor series.
func atanP(x *big.Float, prec uint) *big.Float {
	wp := prec + 64
	X := newP(wp).Set(x)
	if X.Sign() == 0 {
		return X
	}
	if new(big.Float).Abs(X).Cmp(big.NewFloat(1)) > 0 {
		inv := atanP(newP(wp).Quo(big.NewFloat(1), X), wp)
		half := Pi(wp)
		half.SetMantExp(half, -1)
		if X.Sign() < 0 {
			half.Neg(half)
		}
		return newP(prec).Sub(half, inv)
	}
	k := 0
	for X.MantExp(nil) > -8 {
		s := newP(wp).Mul(X, X)
		s.Add(s, big.NewFloat(1))
		s.Sqrt(s)
		s.Add(s, big.NewFloat(1))
		X.Quo(X, s)
		k++
	}
	// atan x = x − x³/3 + x⁵/5 − …
	sum, pow, t, d := newP(wp), newP(wp).Set(X), newP(wp), newP(wp)
	x2 := newP(wp).Mul(X, X)
	stop := X.MantExp(nil) - int(wp) - 8
	for n := int64(0); ; n++ {
		t.Quo(pow, d.SetInt64(2*n+1))
		if n%2 == 1 {
			sum.Sub(sum, t)
		} else {
			sum.Add(sum, t)
		}
		if t.Sign() == 0 || t.MantExp(nil) < stop {
			break
		}
		pow.Mul(pow, x2)
	}
	return newP(prec).SetMantExp(sum, k)
}

func round(r *big.Float) float64 {
	f, _ := r.Float64()
	return f
}

// Atan is arctan x, correctly rounded.
func Atan(x float64) float64 {
	if math.IsNaN(x) || x == 0 {
		return x
	}
	if math.IsInf(x, 0) {
		return math.Atan(x) // ±π/2 rounded: the correctly rounded value
	}
	return round(atanP(bf(x), refPrec))
}

// Asin is arcsin x, correctly rounded: atan(x/√(1−x²)) (1 − x² is exact at
// the working precision), ±π/2 at ±1, NaN beyond.
func Asin(x float64) float64 {
	if math.IsNaN(x) || x == 0 || math.Abs(x) > 1 {
		return math.Asin(x)
	}
	if math.Abs(x) == 1 {
		return math.Copysign(round(halfPi()), x)
	}
	const wp = refPrec + 64
	X := newP(wp).SetFloat64(x)
	d := newP(2*wp).Mul(X, X)
	d.Sub(big.NewFloat(1), d)
	d.Sqrt(d)
	return round(atanP(newP(wp).Quo(X, d), refPrec))
}

func halfPi() *big.Float {
	p := Pi(refPrec + 64)
	return p.SetMantExp(p, -1)
}

// Acos is arccos x, correctly rounded: 2 atan(√((1−x)/(1+x))), which keeps
// its relative precision near x = 1; π at −1.
func Acos(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) > 1 {
		return math.Acos(x)
	}
	if x == -1 {
		return round(Pi(refPrec))
	}
	const wp = refPrec + 64
	X := newP(wp).SetFloat64(x)
	q := newP(wp).Quo(newP(wp).Sub(big.NewFloat(1), X), newP(wp).Add(big.NewFloat(1), X))
	r := atanP(q.Sqrt(q), wp)
	return round(r.SetMantExp(r, 1))
}

// Atan2 is the angle of (x, y), correctly rounded, with math.Atan2's
// special cases (signed zeros, infinities, NaN).
func Atan2(y, x float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) || x == 0 || y == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Atan2(y, x)
	}
	const wp = refPrec + 64
	q := newP(wp).Quo(newP(wp).SetFloat64(y), newP(wp).SetFloat64(x))
	r := atanP(q, wp)
	if x < 0 {
		p := Pi(wp)
		if y < 0 {
			r.Sub(r, p)
		} else {
			r.Add(r, p)
		}
	}
	return round(r)
}

// Sinh is sinh x, correctly rounded: (eˣ − e⁻ˣ)/2, through expm1 below 1
// so a small result keeps its precision.
func Sinh(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	if math.Abs(x) > 800 {
		return math.Copysign(math.Inf(1), x)
	}
	const wp = refPrec + 64
	X := newP(wp).SetFloat64(x)
	var r *big.Float
	if math.Abs(x) < 1 {
		a, b := expm1P(X, wp), expm1P(newP(wp).Neg(X), wp)
		r = a.Sub(a, b)
	} else {
		e := expP(X, wp)
		r = e.Sub(e, newP(wp).Quo(big.NewFloat(1), e))
	}
	return round(r.SetMantExp(r, -1))
}

// Cosh is cosh x, correctly rounded.
func Cosh(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if math.Abs(x) > 800 {
		return math.Inf(1)
	}
	const wp = refPrec + 64
	e := expP(newP(wp).SetFloat64(x), wp)
	r := e.Add(e, newP(wp).Quo(big.NewFloat(1), e))
	return round(r.SetMantExp(r, -1))
}

// Asinh is arcsinh x, correctly rounded: ±log1p(|x| + x²/(1 + √(1+x²))).
func Asinh(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	const wp = refPrec + 64
	X := newP(wp).SetFloat64(math.Abs(x))
	x2 := newP(2*wp).Mul(X, X)
	s := newP(wp).Add(x2, big.NewFloat(1))
	s.Sqrt(s)
	s.Add(s, big.NewFloat(1))
	u := newP(wp).Quo(x2, s)
	u.Add(u, X)
	return math.Copysign(round(log1pP(u, refPrec)), x)
}

// Acosh is arccosh x for x ≥ 1, correctly rounded: log1p(t + √(t(t+2)))
// with t = x − 1 exact, so results near 0 keep their precision.
func Acosh(x float64) float64 {
	if math.IsNaN(x) || x < 1 || math.IsInf(x, 1) {
		return math.Acosh(x)
	}
	const wp = refPrec + 64
	t := newP(wp).Sub(newP(wp).SetFloat64(x), big.NewFloat(1))
	s := newP(2*wp).Add(t, big.NewFloat(2))
	s.Mul(s, t)
	s.Sqrt(s)
	return round(log1pP(s.Add(s, t), refPrec))
}

// Atanh is arctanh x for |x| < 1, correctly rounded: ½ log1p(2x/(1−x));
// ±Inf at ±1, NaN beyond.
func Atanh(x float64) float64 {
	if math.IsNaN(x) || x == 0 || math.Abs(x) >= 1 {
		return math.Atanh(x)
	}
	const wp = refPrec + 64
	X := newP(wp).SetFloat64(x)
	if math.Abs(x) <= 0.2 {
		return round(atanhSeries(X, wp))
	}
	u := newP(wp).Quo(newP(wp).Mul(X, big.NewFloat(2)), newP(wp).Sub(big.NewFloat(1), X))
	r := log1pP(u, wp)
	return round(r.SetMantExp(r, -1))
}

// Exp2 is 2ˣ, correctly rounded (exact at integers).
func Exp2(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.Exp2(x)
	case x > 1100:
		return math.Inf(1)
	case x < -1100:
		return 0
	case x == math.Trunc(x):
		return math.Ldexp(1, int(x))
	}
	const wp = refPrec + 64
	l := newP(wp).Mul(newP(wp).SetFloat64(x), ln2(wp))
	return round(expP(l, wp))
}

// Log2 is log₂ x, correctly rounded (exact at powers of two).
func Log2(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log2(x)
	}
	if frac, e := math.Frexp(x); frac == 0.5 {
		return float64(e - 1)
	}
	const wp = refPrec + 64
	return round(newP(wp).Quo(logP(bf(x), wp), ln2(wp)))
}

// Log10 is log₁₀ x, correctly rounded (exact at powers of ten).
func Log10(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log10(x)
	}
	const wp = refPrec + 64
	r := newP(wp).Quo(logP(bf(x), wp), logP(big.NewFloat(10), wp))
	if f := round(r); f == math.Trunc(f) && math.Abs(f) <= 22 && math.Pow(10, f) == x {
		return f // 10**k is exact for k ≤ 22; the quotient is k ± 2**−300
	}
	return round(r)
}

// Cbrt is ∛x, correctly rounded.
func Cbrt(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	const wp = refPrec + 64
	l := logP(newP(wp).SetFloat64(math.Abs(x)), wp)
	l.Quo(l, big.NewFloat(3))
	r := round(expP(l, wp))
	// A perfect cube's root is exact: the quotient lands within 2**−300 of
	// it and rounds to it.
	return math.Copysign(r, x)
}

// Hypot is √(x² + y²), correctly rounded, with math.Hypot's specials.
func Hypot(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return math.Hypot(x, y)
	}
	X, Y := newP(2200).SetFloat64(x), newP(2200).SetFloat64(y)
	s := newP(2200).Add(X.Mul(X, X), Y.Mul(Y, Y)) // exact
	return round(newP(refPrec).Sqrt(s))
}

// AtanBig is atan x to prec bits, for tests that build tables of constants.
func AtanBig(x *big.Float, prec uint) *big.Float { return atanP(x, prec) }

// LogBig is ln x (x > 0) to prec bits, for tests that build tables of
// constants.
func LogBig(x *big.Float, prec uint) *big.Float { return logP(x, prec) }
