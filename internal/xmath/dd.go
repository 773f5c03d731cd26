package xmath

import "math"

// dd is a double-double: the unevaluated sum hi + lo with |lo| ≤ ulp(hi)/2,
// about 106 bits. The functions of this package that package math does
// not compute within 1 ulp evaluate their formula in dd and round once at
// the end, so their error is the final rounding (½ ulp) plus a part in
// 2**100 or so: they are correctly rounded except at arguments whose
// result lies within that part of a midpoint between two doubles.
//
// Products are formed with math.FMA (exact on every platform) and every
// other product is rounded explicitly, so the compiler never contracts a
// sum into a different FMA and the bits are the same everywhere.
type dd struct{ hi, lo float64 }

func ddOf(x float64) dd { return dd{x, 0} }

func (a dd) float() float64 { return a.hi + a.lo }

// quickTwoSum is a+b exactly for |a| ≥ |b| (or a = 0).
func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd is a·b exactly.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	r := quickTwoSum(s, e)
	r.lo += f
	return quickTwoSum(r.hi, r.lo)
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddSub(a, b dd) dd { return ddAdd(a, ddNeg(b)) }

func ddAddF(a dd, b float64) dd { return ddAdd(a, dd{b, 0}) }

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += float64(a.hi*b.lo) + float64(a.lo*b.hi)
	return quickTwoSum(p.hi, p.lo)
}

func ddMulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += float64(a.lo * b)
	return quickTwoSum(p.hi, p.lo)
}

// ddScale is a·2**k, exact barring overflow and underflow.
func ddScale(a dd, k int) dd { return dd{math.Ldexp(a.hi, k), math.Ldexp(a.lo, k)} }

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddSub(a, ddMulF(b, q1))
	q2 := r.hi / b.hi
	r = ddSub(r, ddMulF(b, q2))
	q3 := r.hi / b.hi
	return ddAddF(quickTwoSum(q1, q2), q3)
}

// ddSqrt is √a for a ≥ 0: one Newton step from math.Sqrt.
func ddSqrt(a dd) dd {
	if a.hi <= 0 {
		return dd{math.Sqrt(a.hi), 0}
	}
	x := math.Sqrt(a.hi)
	r := ddSub(a, twoProd(x, x))
	return quickTwoSum(x, r.hi/(2*x))
}

// ln2dd and friends are constants to 106 bits.
var (
	ln2dd    = dd{0.6931471805599453, 2.3190468138462996e-17}
	invLn2dd = dd{1.4426950408889634, 2.0355273740931033e-17}
	ln10dd   = dd{2.302585092994046, -2.1707562233822494e-16}
	piDD     = dd{3.141592653589793, 1.2246467991473532e-16}
	halfPiDD = dd{1.5707963267948966, 6.123233995736766e-17}
)

// ddExpm1Small is eᵃ − 1 for |a| ≤ 2**−9 by its Taylor series, to full dd
// precision relative to the result.
func ddExpm1Small(a dd) dd {
	// Horner: a(1 + a/2(1 + a/3(1 + …))), 14 terms: (2**−9)**14/14! < 2**−160.
	p := ddOf(1)
	for n := 14.0; n >= 2; n-- {
		p = ddAddF(ddMul(p, ddDivF(a, n)), 1)
	}
	return ddMul(p, a)
}

func ddDivF(a dd, b float64) dd { return ddDiv(a, ddOf(b)) }

// ddExpm1Reduced is eᵃ − 1 for |a| ≤ ln2/2 (or a little more): the series
// at a/2**8, then (1+u)² − 1 = u(u + 2) eight times, which keeps a small
// result's relative precision.
func ddExpm1Reduced(a dd) dd {
	u := ddExpm1Small(ddScale(a, -8))
	for range 8 {
		u = ddMul(u, ddAddF(u, 2))
	}
	return u
}

// ddExpParts is eᵃ = m·2**k for a finite dd a, m in [½, 2): a = k·ln2 + r,
// m = 1 + expm1(r). Callers whose result may leave the normal range
// multiply m by their other factors and round with roundScaled.
func ddExpParts(a dd) (m dd, k int) {
	kf := math.Round(a.hi / ln2dd.hi)
	r := ddSub(a, ddMulF(ln2dd, kf))
	return ddAddF(ddExpm1Reduced(r), 1), int(kf)
}

// ddExp is eᵃ for a finite dd a with a result in the normal range (it
// overflows to +Inf beyond; a subnormal result is rounded twice, which
// callers that can meet one avoid with ddExpParts).
func ddExp(a dd) dd {
	switch {
	case a.hi > 710:
		return ddOf(math.Inf(1))
	case a.hi < -746:
		return ddOf(0)
	}
	m, k := ddExpParts(a)
	if k > 1000 || k < -1000 { // scale in two steps so the factor stays finite
		m = ddScale(m, k/2)
		k -= k / 2
	}
	return ddScale(m, k)
}

// roundScaled is a·2**k rounded once to a float64, also where the result
// is subnormal (a plain Ldexp would round a.hi there and drop a.lo) or
// overflows.
func roundScaled(a dd, k int) float64 {
	if a.hi == 0 || math.IsInf(a.hi, 0) || math.IsNaN(a.hi) {
		return a.hi
	}
	v := a.float()
	fr, e := math.Frexp(v)
	if e+k > -1021 { // normal (or overflowing): scaling is exact or overflows
		if e+k > 1024 {
			return math.Copysign(math.Inf(1), v)
		}
		return math.Ldexp(fr, e+k)
	}
	// Subnormal: round a to a multiple of the subnormal ulp 2**(−1074−k).
	u := math.Ldexp(1, -1074-k)
	q := math.Round(a.hi / u)                 // a.hi/u is exact-ish: u is a power of two
	rest := ddAdd(ddOf(a.hi-q*u), ddOf(a.lo)) // a − q·u, exact (a.hi − q·u is exact)
	half := u / 2
	switch r := rest.float(); {
	case r > half || (r == half && math.Mod(q, 2) != 0):
		q++
	case r < -half || (r == -half && math.Mod(q, 2) != 0):
		q--
	}
	return math.Ldexp(q, -1074) // q·2**−1074, exact
}

// ddExpm1 is eᵃ − 1 with relative precision however small a is.
func ddExpm1(a dd) dd {
	if math.Abs(a.hi) <= 0.35 {
		return ddExpm1Reduced(a)
	}
	return ddAddF(ddExp(a), -1)
}

// ddLog1p is ln(1 + a) for a > −1, with relative precision however small
// a is: one Newton step y + (a − expm1 y)/(1 + expm1 y) from y =
// math.Log1p(a), each part in dd.
func ddLog1p(a dd) dd {
	y := math.Log1p(a.hi)
	if math.IsInf(y, 0) || math.IsNaN(y) || y == 0 {
		return ddOf(y)
	}
	e := ddExpm1(ddOf(y))
	return ddAddF(ddDiv(ddSub(a, e), ddAddF(e, 1)), y)
}

// ddLog is ln a for a > 0: ddLog1p near 1, else one Newton step
// y + a·e⁻ʸ − 1 from y = math.Log(a), with the second-order term.
func ddLog(a dd) dd {
	if a.hi > 0.75 && a.hi < 1.5 {
		return ddLog1p(ddAddF(a, -1))
	}
	if _, e := math.Frexp(a.hi); e > 500 || e < -500 { // keep e⁻ʸ in the normal range
		return ddAdd(ddLog(ddScale(a, -e)), ddMulF(ln2dd, float64(e)))
	}
	y := math.Log(a.hi)
	if math.IsInf(y, 0) || math.IsNaN(y) {
		return ddOf(y)
	}
	t := ddAddF(ddMul(a, ddExp(ddOf(-y))), -1) // ≈ 1e-16
	t = ddSub(t, ddOf(float64(0.5*t.hi*t.hi)))
	return ddAddF(t, y)
}

// atanTable[k] is atan(k/64) to 106 bits, for the reduction in ddAtan.
// TestAtanTable checks it against math/big.
var atanTable = [65]dd{
	{0, 0},
	{0.015623728620476831, -4.913600136566304e-19},
	{0.031239833430268277, -1.188442711587748e-18},
	{0.046840712915969654, -1.655677442254952e-19},
	{0.06241880999595735, -1.5490756308295046e-18},
	{0.0779666338315423, 5.804551873143357e-18},
	{0.09347678115858947, -6.2844725995420954e-18},
	{0.10894195698986579, 6.8267122072409585e-18},
	{0.12435499454676144, -3.1253241424539383e-18},
	{0.13970887428916365, -2.9579864247315813e-18},
	{0.15499674192394097, 9.585415594114324e-18},
	{0.1702119252854744, -3.541164079802125e-18},
	{0.18534794999569476, 4.180692268843079e-18},
	{0.2003985538258785, 3.1399542871844493e-18},
	{0.21535769969773805, 4.738160130078733e-19},
	{0.23021958727684372, 1.2313404529142703e-17},
	{0.24497866312686414, 1.0698755618734451e-17},
	{0.2596296294082575, 1.9238754924615304e-17},
	{0.2741674511196588, 8.261353575163773e-18},
	{0.2885873618940774, -1.428369957377257e-17},
	{0.3028848683749714, -1.1010827903001369e-17},
	{0.31705575320914703, -1.893928924292642e-17},
	{0.3310960767041321, -7.952610375793799e-18},
	{0.34500217720710513, -2.2938804755578304e-17},
	{0.35877067027057225, -2.4623815582638635e-17},
	{0.3723984466767542, 1.9612311504845653e-17},
	{0.38588266939807375, 2.378822732491941e-17},
	{0.39922076957525254, 2.246598105617042e-17},
	{0.4124104415973873, -1.587652227770689e-17},
	{0.42544963737004227, 2.3315530741892885e-17},
	{0.43833655985795783, -2.494277030626541e-17},
	{0.4510696559885235, -2.2703795229420475e-17},
	{0.4636476090008061, 2.2698777452961687e-17},
	{0.4760693303227612, 1.4654487332256713e-17},
	{0.48833395105640554, -1.1373236189329585e-17},
	{0.5004408131472942, -4.7181675085518756e-17},
	{0.5123894603107377, -2.5462781472855804e-17},
	{0.5241796287829132, 5.520094119641666e-18},
	{0.5358112379604637, -4.0637956834825575e-18},
	{0.5472843809874369, 4.923709671396255e-17},
	{0.5585993153435624, -5.4556305485916264e-18},
	{0.5697564534829784, 1.2255062085054184e-17},
	{0.5807563535676704, -1.441464378193067e-17},
	{0.5915997103351114, 4.920495453686772e-17},
	{0.6022873461349642, 2.950430737228402e-17},
	{0.6128202021652414, -3.1552061848586226e-17},
	{0.6231993299340659, 2.672403885140095e-17},
	{0.6334258829691446, -2.7290767436015276e-17},
	{0.6435011087932844, 1.5834785051444286e-17},
	{0.6534263411807619, 3.5800634857340095e-17},
	{0.6632029927060933, -3.076054864429649e-17},
	{0.6728325475937632, -1.899315009714705e-17},
	{0.6823165548747481, 6.943223671560008e-18},
	{0.6916566218531999, -8.117151192285796e-18},
	{0.7008544078844502, -1.987626234335816e-17},
	{0.7099116184635249, -4.597166450584887e-17},
	{0.7188299996216245, -2.1478388444456983e-17},
	{0.7276113326265107, 2.569325697391839e-18},
	{0.7362574289814281, 3.473937648299457e-17},
	{0.7447701257160751, 3.708315849135547e-17},
	{0.7531512809621944, -2.4256934659182068e-17},
	{0.7614027698055784, 9.850030332752822e-18},
	{0.7695264804056583, -3.704991905602721e-17},
	{0.7775243103733478, -2.6676490951944502e-17},
	{0.7853981633974483, 3.061616997868383e-17},
}

// ddAtan is atan a for a finite dd a: π/2 − atan(1/a) beyond 1, then
// atan a = atan c + atan((a − c)/(1 + a·c)) with c = k/64 nearest |a| and
// atan c from atanTable, and the Taylor series of the remainder
// (|t| ≤ 1/128: eight terms).
func ddAtan(a dd) dd {
	neg := a.hi < 0
	if neg {
		a = ddNeg(a)
	}
	var r dd
	if a.hi > 1 {
		r = ddSub(halfPiDD, ddAtan(ddDiv(ddOf(1), a)))
	} else {
		k := math.Round(a.hi * 64)
		c := k / 64
		t := ddDiv(ddAddF(a, -c), ddAddF(ddMulF(a, c), 1))
		t2 := ddMul(t, t)
		// t − t³/3 + t⁵/5 − …, to t¹⁷/17 (≤ 2**−119 relative).
		s := ddOf(1.0 / 17)
		for n := 15.0; n >= 1; n -= 2 {
			s = ddAdd(ddNeg(ddMul(s, t2)), ddDivF(ddOf(1), n))
		}
		r = ddAdd(atanTable[int(k)], ddMul(s, t))
	}
	if neg {
		return ddNeg(r)
	}
	return r
}
