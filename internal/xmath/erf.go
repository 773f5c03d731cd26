package xmath

import "math"

// erf, erfc and erfinv in double-double (dd.go), rounded once.

// twoOverSqrtPi is 2/√π to 106 bits.
var twoOverSqrtPi = dd{1.1283791670955126, 1.533545961316588e-17}

// erfSeries is erf a for 0 ≤ a < 3 by the series of positive terms
// erf a = (2/√π) e^(−a²) Σ a(2a²)ⁿ/(1·3⋯(2n+1)), which has no
// cancellation (at most 60 terms).
func erfSeries(a float64) dd {
	a2 := twoProd(a, a)
	r := ddScale(a2, 1)
	term, sum := ddOf(a), ddOf(0)
	for n := 1.0; ; n++ {
		sum = ddAdd(sum, term)
		term = ddDiv(ddMul(term, r), ddOf(2*n+1))
		if term.hi <= sum.hi*0x1p-110 { // ≤: a term that underflowed to 0 ends it
			break
		}
	}
	return ddMul(ddMul(sum, ddExp(ddNeg(a2))), twoOverSqrtPi)
}

// erfcFraction is erfc a = m·2**k for a ≥ 3 by the continued fraction
// e^(−a²)/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + …)))), with enough
// terms for dd precision (the truncation error falls like e^(−2a√(2n))).
// The power of two is kept apart so a subnormal result rounds once.
func erfcFraction(a float64) (dd, int) {
	s := 106 * math.Ln2 / (2 * a)
	n := int(s*s/2) + 8
	t := ddOf(a)
	for k := n; k >= 1; k-- {
		t = ddAddF(ddDiv(ddOf(float64(k)/2), t), a)
	}
	m, k := ddExpParts(ddNeg(twoProd(a, a)))
	return ddDiv(ddMul(m, ddScale(twoOverSqrtPi, -1)), t), k
}

// scaleUp is the factor that brings a tiny argument into the normal range,
// where dd arithmetic is exact; results are scaled back by roundScaled.
const scaleUp = 600

// Erf is the error function.
func Erf(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || x == 0:
		return x
	case a >= 6: // erfc 6 < 2**−54: ±1 rounded
		return math.Copysign(1, x)
	case a < 0x1p-60: // 2a/√π, whose a³ term is beyond the last bit
		return math.Copysign(roundScaled(ddMulF(twoOverSqrtPi, math.Ldexp(a, scaleUp)), -scaleUp), x)
	case a < 3:
		return math.Copysign(erfSeries(a).float(), x)
	}
	m, k := erfcFraction(a)
	return math.Copysign(ddAddF(ddNeg(ddScale(m, k)), 1).float(), x)
}

// Erfc is the complementary error function 1 − erf x, with relative
// precision for large x (it underflows past 27.2; subnormal results are
// rounded twice, ≤ 1 ulp).
func Erfc(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x <= -6:
		return 2
	case x > -0x1p-60 && x < 0x1p-60: // 1 ∓ 2|x|/√π, beyond the last bit
		return 1
	case x < 0:
		return ddAddF(erfSeries(-x), 1).float()
	case x < 3:
		return ddAddF(ddNeg(erfSeries(x)), 1).float()
	case x > 27.3:
		return 0
	}
	return roundScaled(erfcFraction(x))
}

// Erfinv is the inverse of erf: math.Erfinv, then one Newton step whose
// residual is in dd — erf x − y below ½, erfc x − (1 − y) (1 − y exact)
// above, so results near ±1's infinities keep their precision.
func Erfinv(y float64) float64 {
	a := math.Abs(y)
	switch {
	case math.IsNaN(y) || y == 0:
		return y
	case a > 1:
		return math.NaN()
	case a == 1:
		return math.Copysign(math.Inf(1), y)
	case a < 0x1p-60: // √π/2 · y
		return math.Copysign(roundScaled(ddDiv(ddOf(math.Ldexp(a, scaleUp)), twoOverSqrtPi), -scaleUp), y)
	}
	x := math.Erfinv(a)
	var f dd // erf x − a
	if a <= 0.5 {
		f = ddAddF(erfSeries(x), -a)
	} else {
		var c dd
		if x < 3 {
			c = ddAddF(ddNeg(erfSeries(x)), 1)
		} else {
			m, k := erfcFraction(x)
			c = ddScale(m, k) // erfc ≥ 2**−54 here: normal
		}
		f = ddNeg(ddSub(c, oneMinus(a)))
	}
	d := twoOverSqrtPi.hi * math.Exp(-x*x) // erf′ x; the step needs no more
	return math.Copysign(x-f.hi/d, y)
}
