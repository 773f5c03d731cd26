package xmath

import "math"

// The hyperbolic functions and their inverses, exp2, log2, log10 and
// cbrt, each its formula in double-double (dd.go) rounded once.

// Sinh is sinh x: (E + E/(E+1))/2 with E = expm1|x| (no cancellation),
// eˣ/2 from 40 on.
func Sinh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || a < tiny:
		return x
	case a > 40: // e^(−2a) < 2**−115: only the large term matters
		return math.Copysign(ddExp(ddSub(ddOf(a), ln2dd)).float(), x)
	}
	e := ddExpm1(ddOf(a))
	r := ddAdd(e, ddDiv(e, ddAddF(e, 1)))
	return math.Copysign(ddScale(r, -1).float(), x)
}

// Cosh is cosh x: (eˣ + e⁻ˣ)/2.
func Cosh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return x
	case math.IsInf(x, 0):
		return math.Inf(1)
	case a < tiny:
		return 1
	case a > 40:
		return ddExp(ddSub(ddOf(a), ln2dd)).float()
	}
	e := ddExp(ddOf(a))
	return ddScale(ddAdd(e, ddDiv(ddOf(1), e)), -1).float()
}

// Asinh is arcsinh x: ±log1p(|x| + x²/(1 + √(1+x²))), ±(ln|x| + ln 2)
// from 2**30 on.
func Asinh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || a < tiny:
		return x
	case a > 0x1p30: // 1/(4x²) < 2**−62
		return math.Copysign(ddAdd(ddLog(ddOf(a)), ln2dd).float(), x)
	}
	a2 := twoProd(a, a)
	u := ddAddF(ddDiv(a2, ddAddF(ddSqrt(ddAddF(a2, 1)), 1)), a)
	return math.Copysign(ddLog1p(u).float(), x)
}

// Acosh is arccosh x for x ≥ 1: log1p(t + √(t(t+2))) with t = x − 1 exact,
// ln x + ln 2 from 2**30 on; NaN below 1.
func Acosh(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 1:
		return math.NaN()
	case x == 1:
		return 0
	case math.IsInf(x, 1):
		return x
	case x > 0x1p30:
		return ddAdd(ddLog(ddOf(x)), ln2dd).float()
	}
	t := ddAddF(ddOf(x), -1)
	s := ddSqrt(ddMul(t, ddAddF(t, 2)))
	return ddLog1p(ddAdd(t, s)).float()
}

// Atanh is arctanh x: ½ log1p(2x/(1−x)); ±Inf at ±1, NaN beyond.
func Atanh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || a < tiny:
		return x
	case a > 1:
		return math.NaN()
	case a == 1:
		return math.Copysign(math.Inf(1), x)
	}
	u := ddDiv(ddOf(2*a), oneMinus(a))
	return math.Copysign(ddScale(ddLog1p(u), -1).float(), x)
}

// Exp2 is 2ˣ: exact at integers, else e^(x·ln 2). Subnormal results are
// rounded twice (≤ 1 ulp).
func Exp2(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x > 1024:
		return math.Inf(1)
	case x < -1080:
		return 0
	case x == math.Trunc(x):
		return math.Ldexp(1, int(x))
	}
	return roundScaled(ddExpParts(ddMulF(ln2dd, x)))
}

// logParts is ln x for finite x > 0, in dd: x = m·2**e with m in
// [1/√2, √2), ln x = e·ln 2 + ln m.
func logParts(x float64) (lnm dd, e int) {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m, e = 2*m, e-1
	}
	return ddLog(ddOf(m)), e
}

// Log2 is log₂ x: exact at powers of two; e + ln m/ln 2.
func Log2(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	if m, e := math.Frexp(x); m == 0.5 {
		return float64(e - 1)
	}
	lnm, e := logParts(x)
	return ddAddF(ddMul(lnm, invLn2dd), float64(e)).float()
}

// Log10 is log₁₀ x: (e·ln 2 + ln m)/ln 10, which rounds to the exact k at
// x = 10**k.
func Log10(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	lnm, e := logParts(x)
	return ddDiv(ddAdd(ddMulF(ln2dd, float64(e)), lnm), ln10dd).float()
}

// Cbrt is ∛x: math.Cbrt, then one Newton step with the residual
// x − y³ in dd, at a scale where y³ cannot overflow or underflow.
func Cbrt(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	m, e := math.Frexp(math.Abs(x))
	for e%3 != 0 { // m·2**e with e a multiple of 3 and m in [1/8, 1)
		m, e = m/2, e+1
	}
	y := math.Cbrt(m)
	r := ddSub(ddOf(m), ddMulF(twoProd(y, y), y))
	y += r.hi / float64(3*float64(y*y))
	return math.Copysign(math.Ldexp(y, e/3), x)
}
