package xmath

import "math"

// The inverse trigonometric functions and hypot, each its formula in
// double-double (dd.go) rounded once. Special arguments give what package
// math gives (NaN, signed zeros, infinities).

// tiny is the magnitude below which f(x) = x ± x³/c rounds to x for the
// odd functions here (c ≥ 3: |x³/c| < |x|·2**−54 ≤ ulp(x)/2).
const tiny = 0x1p-27

// Atan is arctan x.
func Atan(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.Abs(x) < tiny:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(halfPiDD.hi, x)
	}
	return ddAtan(ddOf(x)).float()
}

// Asin is arcsin x: atan(x/√((1−x)(1+x))), NaN beyond ±1.
func Asin(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || a < tiny:
		return x
	case a > 1:
		return math.NaN()
	case a == 1:
		return math.Copysign(halfPiDD.hi, x)
	}
	s := ddSqrt(ddMul(oneMinus(a), ddAddF(ddOf(a), 1)))
	return math.Copysign(ddAtan(ddDiv(ddOf(a), s)).float(), x)
}

// oneMinus is 1 − a exactly.
func oneMinus(a float64) dd {
	s, e := twoSum(1, -a)
	return dd{s, e}
}

// Acos is arccos x: 2 atan √((1−x)/(1+x)), which keeps its relative
// precision near 1; NaN beyond ±1.
func Acos(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.Abs(x) > 1:
		return math.NaN()
	case x == 1:
		return 0
	case x == -1:
		return piDD.hi
	}
	q := ddSqrt(ddDiv(oneMinus(x), ddAddF(ddOf(x), 1)))
	return ddScale(ddAtan(q), 1).float()
}

// Atan2 is the angle of the point (x, y), as math.Atan2: atan of the
// smaller magnitude over the larger (so the quotient never overflows),
// then the quadrant.
func Atan2(y, x float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) || x == 0 || y == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Atan2(y, x)
	}
	ax, ay := math.Abs(x), math.Abs(y)
	if max(ax, ay) < 0x1p-500 { // the angle depends on the ratio only: keep dd away from subnormals
		ax, ay = math.Ldexp(ax, 600), math.Ldexp(ay, 600)
	}
	if x > 0 && ay < ax*0x1p-60 { // atan q = q(1 − q²/3 …): the quotient, rounded once
		return math.Copysign(ay/ax, y)
	}
	var r dd
	if ay <= ax {
		r = ddAtan(ddDiv(ddOf(ay), ddOf(ax)))
	} else {
		r = ddSub(halfPiDD, ddAtan(ddDiv(ddOf(ax), ddOf(ay))))
	}
	if x < 0 {
		r = ddSub(piDD, r)
	}
	return math.Copysign(r.float(), y)
}

// Hypot is √(x² + y²) without overflow or underflow in between, as
// math.Hypot: +Inf if either is infinite (even with a NaN), else NaN for
// a NaN. Results in the subnormal range are rounded twice (≤ 1 ulp).
func Hypot(x, y float64) float64 {
	switch {
	case math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Inf(1)
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	}
	a, b := math.Abs(x), math.Abs(y)
	if a < b {
		a, b = b, a
	}
	if b == 0 {
		return a
	}
	_, e := math.Frexp(a)
	a, b = math.Ldexp(a, -e), math.Ldexp(b, -e) // a in [1/2, 1): the squares stay normal
	s := ddAdd(twoProd(a, a), twoProd(b, b))
	return roundScaled(ddSqrt(s), e)
}
