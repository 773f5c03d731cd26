package bigmath

import (
	"math"
	"math/big"
)

// Package bigmath is a high-precision reference for the transcendental
// functions Kiln vectorizes: math/big at 320 bits, correctly rounded to
// float64 by big.Float.Float64 (ties to even). Tests use it to hold the
// kernels to SPEC §3's ulp bounds; Go's own math package is not a good
// enough yardstick (on amd64, math.Exp overflows from 709.44 instead of
// 709.78 and math.Log is wrong on subnormals). Slow: microseconds a call.

const refPrec = 320

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }

func newF() *big.Float { return new(big.Float).SetPrec(refPrec) }

// bigExpm1Small is e**x − 1 by its Taylor series, for |x| ≤ 2**−8.
func bigExpm1Small(x *big.Float) *big.Float {
	sum, term := newF(), newF().Set(x)
	eps := newF().SetMantExp(big.NewFloat(1), -refPrec-8)
	for n := 2; ; n++ {
		sum.Add(sum, term)
		term.Mul(term, x)
		term.Quo(term, big.NewFloat(float64(n)))
		if newF().Abs(term).Cmp(eps) < 0 {
			return sum
		}
	}
}

// bigExpm1 is e**x − 1: the series at x/2**s, then (1+u)² − 1 = u(u+2), s
// times.
func bigExpm1(x *big.Float) *big.Float {
	s := 0
	if e := x.MantExp(nil); e > -8 {
		s = e + 8
	}
	u := bigExpm1Small(newF().SetMantExp(x, -s))
	for range s {
		u.Mul(u, newF().Add(u, big.NewFloat(2)))
	}
	return u
}

// bigExp is e**x: (1 + series(x/2**s)) squared s times, so that a result
// near 0 loses nothing to cancellation.
func bigExp(x *big.Float) *big.Float {
	s := 0
	if e := x.MantExp(nil); e > -8 {
		s = e + 8
	}
	v := bigExpm1Small(newF().SetMantExp(x, -s))
	v.Add(v, big.NewFloat(1))
	for range s {
		v.Mul(v, v)
	}
	return v
}

// Exp is eˣ, correctly rounded (NaN and ±Inf as math.Exp gives them).
func Exp(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Exp(x)
	}
	f, _ := bigExp(bf(x)).Float64()
	return f
}

// Log is ln x, correctly rounded (−Inf for 0, NaN for negatives).
func Log(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x) // exact: −Inf, NaN, +Inf
	}
	// Halley's iteration y += 2(x − e**y)/(x + e**y) from math.Log: each
	// step triples the correct bits.
	frac, exp := math.Frexp(x) // math.Log itself is wrong on subnormals on amd64
	X, y := bf(x), bf(math.Log(frac)+float64(exp)*math.Ln2)
	for range 4 {
		e := bigExp(y)
		num := newF().Sub(X, e)
		num.Mul(num, big.NewFloat(2))
		y.Add(y, num.Quo(num, newF().Add(X, e)))
	}
	f, _ := y.Float64()
	return f
}

// Tanh is tanh x, correctly rounded.
func Tanh(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if math.Abs(x) > 30 {
		return math.Copysign(1, x)
	}
	m := bigExpm1(bf(2 * x)) // exact: 2x only moves the exponent
	d := newF().Add(m, big.NewFloat(2))
	f, _ := newF().Quo(m, d).Float64()
	return f
}

// Logistic is 1/(1 + e⁻ˣ), correctly rounded.
func Logistic(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if x > 50 {
		return 1
	}
	if x < -800 {
		return 0
	}
	d := bigExp(bf(-x))
	d.Add(d, big.NewFloat(1))
	f, _ := newF().Quo(big.NewFloat(1).SetPrec(refPrec), d).Float64()
	return f
}

var bigPi, _ = new(big.Float).SetPrec(refPrec).SetString(
	"3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745")

// sinCos returns sin x or cos x for |x| up to about 2**60.
func sinCos(x float64, cos bool) float64 {
	halfPi := newF().Quo(bigPi, big.NewFloat(2))
	X := bf(x)
	q := newF().Quo(X, halfPi)
	q.Add(q, big.NewFloat(0.5))
	qi, _ := q.Int(nil) // toward zero
	if q.Sign() < 0 && !q.IsInt() {
		qi.Sub(qi, big.NewInt(1)) // floor(q + 1/2): the nearest multiple
	}
	r := newF().Sub(X, newF().Mul(newF().SetInt(qi), halfPi)) // r in [−π/4, π/4]
	quad := new(big.Int).And(qi, big.NewInt(3)).Int64()
	if cos {
		quad = (quad + 1) & 3
	}
	// sin(r + quad·π/2)
	var v *big.Float
	if quad&1 == 0 {
		v = bigSinSeries(r, false)
	} else {
		v = bigSinSeries(r, true)
	}
	if quad >= 2 {
		v.Neg(v)
	}
	f, _ := v.Float64()
	return f
}

// bigSinSeries is sin r (or cos r) by Taylor series, |r| < 2.
func bigSinSeries(r *big.Float, cos bool) *big.Float {
	sum, term := newF(), newF()
	n := 1
	if cos {
		term.SetFloat64(1)
		n = 0
	} else {
		term.Set(r)
	}
	r2 := newF().Mul(r, r)
	eps := newF().SetMantExp(big.NewFloat(1), -refPrec-8)
	for {
		sum.Add(sum, term)
		term.Mul(term, r2)
		term.Quo(term, big.NewFloat(float64(-(n+1)*(n+2))))
		n += 2
		if newF().Abs(term).Cmp(eps) < 0 {
			return sum
		}
	}
}

// Sin is sin x, correctly rounded (NaN for NaN and ±Inf).
func Sin(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	return sinCos(x, false)
}

// Cos is cos x, correctly rounded (NaN for NaN and ±Inf).
func Cos(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	return sinCos(x, true)
}

// PiOver4Times returns the double nearest to k·π/4: the hardest arguments
// for sin and cos range reduction.
func PiOver4Times(k int64) float64 {
	pio4 := newF().Quo(bigPi, big.NewFloat(4))
	x, _ := newF().Mul(pio4, newF().SetInt64(k)).Float64()
	return x
}
