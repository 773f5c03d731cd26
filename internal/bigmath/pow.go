package bigmath

import (
	"math"
	"math/big"
)

// Pow is xʸ, correctly rounded, with math.Pow's special cases (NaN, ±Inf,
// ±0, x = 1, y = 0, negative x with a non-integer y).
//
// |x|ʸ = e^(y·ln|x|) is computed at prec + 64 bits with a relative error
// below 2**−prec, then rounded from both ends of that error interval, first
// with prec = 128 (a rounding boundary that close is already rare: about
// one argument in 2**75); when
// the two roundings differ, the interval holds the midpoint between two
// doubles: if xʸ is exactly that midpoint (a dyadic rational, which only
// happens for small exponents, see exactPow) it is rounded to even, and
// otherwise the precision is doubled until the rounding is settled.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case y == 1:
		return x
	case x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Pow(x, y) // exact: 0, ±Inf, 1 (−1 ** ±Inf)
	}
	neg := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		neg = math.Abs(y) < 1<<53 && int64(y)&1 == 1
		x = -x
	}
	v := powAbs(x, y)
	if neg {
		v = -v
	}
	return v
}

// powAbs is xʸ for finite x > 0, x ≠ 1, finite y ≠ 0.
func powAbs(x, y float64) float64 {
	for prec := uint(128); ; prec *= 2 {
		wp := prec + 64
		t := logP(newP(wp).SetFloat64(x), wp)
		t.Mul(t, newP(wp).SetFloat64(y))
		// Beyond ±800 the result overflows or underflows whatever the
		// error; below, e^t's relative error is at most about
		// 2**(20−wp) = 2**(−prec−44).
		if t.Cmp(big.NewFloat(800)) > 0 {
			return math.Inf(1)
		}
		if t.Cmp(big.NewFloat(-800)) < 0 {
			return 0
		}
		v := expP(t, wp)
		eps := newP(wp).SetMantExp(big.NewFloat(1), -int(prec))
		lo := newP(wp).Mul(v, newP(wp).Sub(big.NewFloat(1), eps))
		hi := newP(wp).Mul(v, newP(wp).Add(big.NewFloat(1), eps))
		dl, _ := lo.Float64()
		dh, _ := hi.Float64()
		if dl == dh {
			return dl
		}
		if math.Nextafter(dl, math.Inf(1)) == dh {
			// The interval holds the midpoint of dl and dh.
			mm, em := midpoint(dl)
			if exactPow(x, y, mm, em) {
				m := new(big.Float).SetInt(mm)
				f, _ := m.SetMantExp(m, em).Float64() // ties to even
				return f
			}
		}
		if prec > 1<<14 {
			return dh // unreachable in practice
		}
	}
}

// midpoint returns the point halfway between d ≥ 0 and the next double up
// (for MaxFloat64, 2**1024) as mm·2**em with mm odd.
func midpoint(d float64) (*big.Int, int) {
	b := math.Float64bits(d)
	e, f := int(b>>52), b&(1<<52-1)
	md, ed := f, -1074
	if e != 0 {
		md, ed = f|1<<52, e-1075
	}
	mm := new(big.Int).SetUint64(md)
	mm.Lsh(mm, 1)
	return mm.Add(mm, big.NewInt(1)), ed - 1
}

// oddMant returns x > 0 as m·2**e with m odd.
func oddMant(x float64) (uint64, int) {
	frac, exp := math.Frexp(x) // x = frac·2**exp, frac in [0.5, 1)
	m := uint64(math.Ldexp(frac, 53))
	e := exp - 53
	for m&1 == 0 {
		m >>= 1
		e++
	}
	return m, e
}

// exactPow reports whether xʸ = mm·2**em exactly (x > 0 finite, mm odd).
// With x = mx·2**ex (mx odd) and y = N/2**k (N odd, k ≥ 1) or y an
// integer Y, equality means mx^N = mm^(2**k) and ex·N = em·2**k (or
// mx^Y = mm and ex·Y = em). A power of two mx = 1 gives one only when
// mm = 1. Otherwise mx ≥ 3 must be a perfect 2**k-th power t^(2**k) with
// mm = t^N < 2**55, so 2**k ≤ 33 and 0 < N ≤ 34: the integers involved
// are small enough to compare exactly.
func exactPow(x, y float64, mm *big.Int, em int) bool {
	mx, ex := oddMant(x)
	my, ey := oddMant(math.Abs(y))
	N := new(big.Int).SetUint64(my) // |y| = my·2**ey
	k := 0
	if ey >= 0 {
		N.Lsh(N, uint(ey)) // an integer; ey < 1024
	} else {
		k = -ey
	}
	if y < 0 {
		N.Neg(N)
	}
	one := big.NewInt(1)
	// exponents: ex·N == em·2**k
	lhs := new(big.Int).Mul(big.NewInt(int64(ex)), N)
	rhs := new(big.Int).Lsh(big.NewInt(int64(em)), uint(k))
	if lhs.Cmp(rhs) != 0 {
		return false
	}
	if mx == 1 {
		return mm.Cmp(one) == 0
	}
	if N.Sign() <= 0 || k > 6 || N.Cmp(big.NewInt(64)) > 0 {
		return false
	}
	a := new(big.Int).Exp(new(big.Int).SetUint64(mx), N, nil)
	b := new(big.Int).Exp(mm, new(big.Int).Lsh(one, uint(k)), nil)
	return a.Cmp(b) == 0
}
