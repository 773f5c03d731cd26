// Package bigmath is a high-precision reference for Kiln's transcendental
// functions: math/big at 320 bits or more, correctly rounded to float64 by
// big.Float.Float64 (ties to even). Tests use it to hold the kernels to
// docs/SPEC.md §3's ulp bounds; Go's own math package is not a good enough
// yardstick (on amd64, math.Exp overflows from 709.44 instead of 709.78
// and math.Log is wrong on subnormals; math.Tan, math.Pow and the sin and
// cos of huge arguments are several ulps off). Special arguments (NaN,
// ±Inf, zeros, negatives) give what package math gives. Slow:
// microseconds a call, more for huge trigonometric arguments.
//
// 320 bits are far more than the hardest-to-round float64 arguments of
// these functions need; the one function whose result can be exactly a
// midpoint between two doubles, Pow, detects those cases and otherwise
// increases the precision until the rounding is certain (Ziv's strategy).
package bigmath

import (
	"math"
	"math/big"
	"sync"
)

const refPrec = 320

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }

func newF() *big.Float { return new(big.Float).SetPrec(refPrec) }

func newP(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

func bigInt(n int64, prec uint) *big.Float { return newP(prec).SetInt64(n) }

// expm1Small is e**x − 1 by its Taylor series, for |x| ≤ 2**−8, to prec
// bits.
func expm1Small(x *big.Float, prec uint) *big.Float {
	sum, term, d := newP(prec), newP(prec).Set(x), newP(prec)
	if x.Sign() == 0 {
		return sum
	}
	stop := x.MantExp(nil) - int(prec) - 8
	for n := int64(2); ; n++ {
		sum.Add(sum, term)
		term.Mul(term, x)
		term.Quo(term, d.SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < stop {
			return sum
		}
	}
}

// scaleSteps is how many halvings bring x to |x| ≤ 2**−8.
func scaleSteps(x *big.Float) int {
	if x.Sign() == 0 {
		return 0
	}
	if e := x.MantExp(nil); e > -8 {
		return e + 8
	}
	return 0
}

// expm1P is e**x − 1: the series at x/2**s, then (1+u)² − 1 = u(u+2), s
// times, so that a result near 0 keeps its relative precision.
func expm1P(x *big.Float, prec uint) *big.Float {
	s := scaleSteps(x)
	u := expm1Small(newP(prec).SetMantExp(x, -s), prec)
	for range s {
		u.Mul(u, newP(prec).Add(u, big.NewFloat(2)))
	}
	return u
}

// expP is e**x: (1 + series(x/2**s)) squared s times, so that a result
// near 0 loses nothing to cancellation. |x| must be moderate (below 2**20).
func expP(x *big.Float, prec uint) *big.Float {
	s := scaleSteps(x)
	v := expm1Small(newP(prec).SetMantExp(x, -s), prec)
	v.Add(v, big.NewFloat(1))
	for range s {
		v.Mul(v, v)
	}
	return v
}

// bigExpm1 and bigExp are expm1P and expP at the reference precision.
func bigExpm1(x *big.Float) *big.Float { return expm1P(x, refPrec) }
func bigExp(x *big.Float) *big.Float   { return expP(x, refPrec) }

// atanhSeries is atanh z = z + z³/3 + z⁵/5 + …, for |z| ≤ 0.2.
func atanhSeries(z *big.Float, prec uint) *big.Float {
	sum, pow, t, d := newP(prec), newP(prec).Set(z), newP(prec), newP(prec)
	if z.Sign() == 0 {
		return sum
	}
	z2 := newP(prec).Mul(z, z)
	stop := z.MantExp(nil) - int(prec) - 8
	for k := int64(0); ; k++ {
		t.Quo(pow, d.SetInt64(2*k+1))
		sum.Add(sum, t)
		if t.Sign() == 0 || t.MantExp(nil) < stop {
			return sum
		}
		pow.Mul(pow, z2)
	}
}

// constants caches π and ln 2 at the highest precision asked so far.
var constants struct {
	sync.Mutex
	pi, ln2 *big.Float
}

// atanInv is atan(1/n) = Σ (−1)ᵏ / ((2k+1)·n^(2k+1)), for Machin's formula.
func atanInv(n int64, prec uint) *big.Float {
	sum := newP(prec)
	pow := newP(prec).Quo(bigInt(1, prec), bigInt(n, prec))
	n2 := bigInt(n*n, prec)
	eps := newP(prec).SetMantExp(big.NewFloat(1), -int(prec)-8)
	for k := int64(0); ; k++ {
		t := newP(prec).Quo(pow, bigInt(2*k+1, prec))
		if k%2 == 1 {
			sum.Sub(sum, t)
		} else {
			sum.Add(sum, t)
		}
		if t.Cmp(eps) < 0 {
			return sum
		}
		pow.Quo(pow, n2)
	}
}

// Pi returns π to at least prec bits (Machin: π = 16 atan(1/5) −
// 4 atan(1/239), computed with 64 guard bits and cached).
func Pi(prec uint) *big.Float {
	constants.Lock()
	defer constants.Unlock()
	if constants.pi == nil || constants.pi.Prec() < prec+64 {
		p := max(prec, 2048) + 64
		a := newP(p).Mul(bigInt(16, p), atanInv(5, p+32))
		b := newP(p).Mul(bigInt(4, p), atanInv(239, p+32))
		constants.pi = newP(p).Sub(a, b)
	}
	return newP(prec).Set(constants.pi)
}

// ln2 returns ln 2 = 2 atanh(1/3) to at least prec bits.
func ln2(prec uint) *big.Float {
	constants.Lock()
	defer constants.Unlock()
	if constants.ln2 == nil || constants.ln2.Prec() < prec+64 {
		p := max(prec, 1024) + 64
		// atanh(1/3) converges by 1/9 a term: fine for a constant.
		sum, pow := newP(p), newP(p).Quo(bigInt(1, p), bigInt(3, p))
		eps := newP(p).SetMantExp(big.NewFloat(1), -int(p)-8)
		for k := int64(0); ; k++ {
			t := newP(p).Quo(pow, bigInt(2*k+1, p))
			sum.Add(sum, t)
			if t.Cmp(eps) < 0 {
				break
			}
			pow.Quo(pow, bigInt(9, p))
		}
		constants.ln2 = sum.Mul(sum, bigInt(2, p))
	}
	return newP(prec).Set(constants.ln2)
}

// logP is ln x for finite x > 0 to prec bits: x = m·2**e with m in
// [1/√2, √2), ln x = e·ln 2 + 2 atanh((m−1)/(m+1)).
func logP(x *big.Float, prec uint) *big.Float {
	wp := prec + 32
	m := newP(wp)
	e := x.MantExp(m) // m in [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	z := newP(wp).Quo(newP(wp).Sub(m, big.NewFloat(1)), newP(wp).Add(m, big.NewFloat(1)))
	r := atanhSeries(z, wp)
	r.Mul(r, big.NewFloat(2))
	r.Add(r, newP(wp).Mul(bigInt(int64(e), wp), ln2(wp)))
	return newP(prec).Set(r)
}

// Exp is eˣ, correctly rounded (NaN and ±Inf as math.Exp gives them).
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.Exp(x)
	case x > 800:
		return math.Inf(1)
	case x < -800:
		return 0
	}
	f, _ := bigExp(bf(x)).Float64()
	return f
}

// Expm1 is eˣ − 1, correctly rounded (±0 and the specials as math.Expm1).
func Expm1(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || x == 0:
		return math.Expm1(x) // NaN, +Inf, −1, ±0: exact
	case x > 800:
		return math.Inf(1)
	case x < -800:
		return -1
	}
	f, _ := bigExpm1(bf(x)).Float64()
	return f
}

// Log is ln x, correctly rounded (−Inf for ±0, NaN for negatives).
func Log(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x) // exact: −Inf, NaN, +Inf
	}
	f, _ := logP(bf(x), refPrec).Float64()
	return f
}

// Log1p is ln(1 + x), correctly rounded (as math.Log1p: −Inf at −1, NaN
// below, ±0 for ±0).
func Log1p(x float64) float64 {
	if !(x > -1) || math.IsInf(x, 1) || x == 0 {
		return math.Log1p(x) // NaN, −Inf, +Inf, ±0: exact
	}
	const wp = refPrec + 64
	X := newP(wp).SetFloat64(x)
	var r *big.Float
	if math.Abs(x) <= 1.0/256 {
		// 2 atanh(x/(2+x)): relative precision kept however small x.
		z := newP(wp).Quo(X, newP(wp).Add(X, big.NewFloat(2)))
		r = atanhSeries(z, wp)
		r.Mul(r, big.NewFloat(2))
	} else {
		// 1 + x is exact at wp bits unless x > 2**300, where the
		// rounding is below 2**−300 relative: either way far beyond need
		// for a result of magnitude at least 2**−9.
		r = logP(newP(wp).Add(X, big.NewFloat(1)), wp)
	}
	f, _ := r.Float64()
	return f
}

// Rsqrt is 1/√x, correctly rounded (as 1/math.Sqrt(x) for the specials:
// +Inf for +0, −Inf for −0, 0 for +Inf, NaN below 0).
func Rsqrt(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return 1 / math.Sqrt(x)
	}
	s := newP(refPrec).Sqrt(bf(x))
	f, _ := newF().Quo(big.NewFloat(1), s).Float64()
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
	if x == 0 {
		return x
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

// reduceHalfPi returns r = x − q·π/2 (to refPrec bits relative) and q mod 4
// for the integer q nearest x·2/π, for any finite x. The product q·π/2 is
// formed with enough bits (the exponent of x plus refPrec plus guard) that
// the cancellation leaves r exact to refPrec bits: no float64 comes closer
// to a multiple of π/2 than about 2**−62.
func reduceHalfPi(x float64) (*big.Float, int64) {
	e := max(0, math.Ilogb(x))
	wp := uint(refPrec + e + 128)
	X := newP(wp).SetFloat64(x)
	halfPi := Pi(wp)
	halfPi.SetMantExp(halfPi, -1)
	t := newP(wp).Quo(X, halfPi)
	t.Add(t, big.NewFloat(0.5))
	q, _ := t.Int(nil) // toward zero
	if t.Sign() < 0 && !t.IsInt() {
		q.Sub(q, big.NewInt(1)) // floor(t): the nearest multiple
	}
	r := newP(wp).Sub(X, newP(wp).Mul(newP(wp).SetInt(q), halfPi))
	quad := new(big.Int).And(q, big.NewInt(3)).Int64() // two's complement: q mod 4
	return newP(refPrec + 64).Set(r), quad
}

// sinSeries is sin r (or cos r) by Taylor series, |r| < 2.
func sinSeries(r *big.Float, cos bool) *big.Float {
	prec := r.Prec()
	sum, term, d := newP(prec), newP(prec), newP(prec)
	n := int64(1)
	stop := -int(prec) - 8
	if cos {
		term.SetInt64(1)
		n = 0
	} else {
		if r.Sign() == 0 {
			return sum
		}
		term.Set(r)
		stop += r.MantExp(nil) // relative to |r|
	}
	r2 := newP(prec).Mul(r, r)
	for {
		sum.Add(sum, term)
		term.Mul(term, r2)
		term.Quo(term, d.SetInt64(-(n+1)*(n+2)))
		n += 2
		if term.Sign() == 0 || term.MantExp(nil) < stop {
			return sum
		}
	}
}

// sinCos returns sin x or cos x for finite x.
func sinCos(x float64, cos bool) float64 {
	r, quad := reduceHalfPi(x)
	if cos {
		quad = (quad + 1) & 3
	}
	// sin(r + quad·π/2)
	v := sinSeries(r, quad&1 == 1)
	if quad >= 2 {
		v.Neg(v)
	}
	f, _ := v.Float64()
	return f
}

// Sin is sin x, correctly rounded (NaN for NaN and ±Inf, ±0 for ±0).
func Sin(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	if x == 0 {
		return x
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

// Tan is tan x, correctly rounded (NaN for NaN and ±Inf, ±0 for ±0).
func Tan(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	if x == 0 {
		return x
	}
	r, quad := reduceHalfPi(x)
	s, c := sinSeries(r, false), sinSeries(r, true)
	var v *big.Float
	if quad&1 == 0 {
		v = newP(r.Prec()).Quo(s, c) // tan(r + kπ) = tan r
	} else {
		v = newP(r.Prec()).Quo(c, s) // tan(r + π/2 + kπ) = −cot r
		v.Neg(v)
	}
	f, _ := v.Float64()
	return f
}

// PiOver4Times returns the double nearest to k·π/4: the hardest arguments
// for sin and cos range reduction.
func PiOver4Times(k int64) float64 {
	pio4 := Pi(refPrec)
	pio4.SetMantExp(pio4, -2)
	x, _ := newF().Mul(pio4, newF().SetInt64(k)).Float64()
	return x
}
