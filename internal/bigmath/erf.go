package bigmath

import (
	"math"
	"math/big"
)

// erfPrec is the working precision of erf, erfc and erfinv: beyond the
// bits the hardest float64 arguments need, and cheaper than refPrec for
// series of hundreds of terms.
const erfPrec = 200

// erfP is erf x for finite x ≥ 0 to prec bits, by the series of positive
// terms erf x = (2/√π) e^(−x²) Σ (2x²)ⁿ x / (1·3·5⋯(2n+1)), which has no
// cancellation.
func erfP(x *big.Float, prec uint) *big.Float {
	wp := prec + 32
	X := newP(wp).Set(x)
	if X.Sign() == 0 {
		return X
	}
	x2 := newP(wp).Mul(X, X)
	r := newP(wp).Mul(x2, big.NewFloat(2))
	sum, term, d := newP(wp), newP(wp).Set(X), newP(wp)
	for n := int64(1); ; n++ {
		sum.Add(sum, term)
		term.Mul(term, r)
		term.Quo(term, d.SetInt64(2*n+1))
		if term.MantExp(nil) < sum.MantExp(nil)-int(wp)-8 && term.Cmp(sum) < 0 {
			break
		}
	}
	e := expP(newP(wp).Neg(x2), wp)
	sum.Mul(sum, e)
	sum.Mul(sum, big.NewFloat(2))
	sum.Quo(sum, newP(wp).Sqrt(Pi(wp)))
	return newP(prec).Set(sum)
}

// erfcP is erfc x for finite x ≥ 0 to prec bits: 1 − erf x with the bits
// the subtraction cancels added to the working precision below 4, and the
// continued fraction erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/
// (x + …)))) at 4 and beyond, with enough terms for prec bits (the
// truncation error falls like e^(−2x√(2n))).
func erfcP(x *big.Float, prec uint) *big.Float {
	xf, _ := x.Float64()
	if xf < 4 {
		wp := prec + 32 + uint(1.45*xf*xf)
		e := erfP(x, wp)
		return newP(prec).Sub(big.NewFloat(1), e)
	}
	wp := prec + 32
	s := float64(wp) * math.Ln2 / (2 * xf)
	n := int64(s*s/2) + 16
	X := newP(wp).Set(x)
	t := newP(wp).Set(X)
	a := newP(wp)
	for k := n; k >= 1; k-- {
		a.SetInt64(k)
		a.SetMantExp(a, -1)
		t.Add(X, a.Quo(a, t))
	}
	x2 := newP(wp).Mul(X, X)
	e := expP(x2.Neg(x2), wp)
	e.Quo(e, newP(wp).Sqrt(Pi(wp)))
	return newP(prec).Quo(e, t)
}

// Erf is erf x, correctly rounded.
func Erf(x float64) float64 {
	if math.IsNaN(x) || x == 0 {
		return x
	}
	if math.Abs(x) >= 6.5 { // erfc(6.5) < 2**−64: ±1 rounded
		return math.Copysign(1, x)
	}
	return math.Copysign(round(erfP(newP(erfPrec).SetFloat64(math.Abs(x)), erfPrec)), x)
}

// Erfc is erfc x = 1 − erf x, correctly rounded (0 from 27.3, where it
// underflows, and 2 below −6.5).
func Erfc(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 27.3:
		return 0
	case x <= -6.5:
		return 2
	case x < 0:
		e := erfP(newP(erfPrec).SetFloat64(-x), erfPrec+8)
		return round(e.Add(e, big.NewFloat(1)))
	}
	return round(erfcP(newP(erfPrec).SetFloat64(x), erfPrec))
}

// Erfinv is the inverse of erf on (−1, 1), correctly rounded (±Inf at ±1,
// NaN beyond): Newton's method from math.Erfinv, on erf x = y below 1/2
// and on erfc x = 1 − y (exact) above, so the result near ±1 keeps its
// precision.
func Erfinv(y float64) float64 {
	if math.IsNaN(y) || y == 0 || math.Abs(y) >= 1 {
		return math.Erfinv(y)
	}
	const wp = erfPrec + 32
	a := math.Abs(y)
	X := newP(wp).SetFloat64(math.Erfinv(a))
	target := newP(wp).SetFloat64(a)
	tail := a > 0.5
	if tail {
		target.Sub(big.NewFloat(1), target) // exact
	}
	twoOverSqrtPi := newP(wp).Quo(big.NewFloat(2), newP(wp).Sqrt(Pi(wp)))
	for range 8 {
		var f *big.Float
		if tail {
			f = erfcP(X, wp)
			f.Sub(target, f) // −(erfc x − t): erfc decreases
		} else {
			f = erfP(X, wp)
			f.Sub(f, target)
		}
		x2 := newP(wp).Mul(X, X)
		d := expP(x2.Neg(x2), wp)
		d.Mul(d, twoOverSqrtPi)
		step := newP(wp).Quo(f, d)
		X.Sub(X, step)
		if step.Sign() == 0 || step.MantExp(nil) < X.MantExp(nil)-int(erfPrec) {
			break
		}
	}
	return math.Copysign(round(X), y)
}
