package xmath

import "math"

// Rsqrt returns 1/√x, as 1/math.Sqrt(x) for the special values (+Inf for
// +0, −Inf for −0, 0 for +Inf, NaN for NaN and x < 0).
//
// 1/math.Sqrt(x) rounds twice (up to about 1.4 ulps off). Here x is
// scaled by an even power of two to m in [1, 4), y = 1/√m is corrected by
// one Newton step y + y·(1 − m·y²)/2, with the residual 1 − m·y² formed
// exactly through FMA (y² as a double-double, then 1 − m·y² − m·y²_lo) and
// the step rounded once: the result is within 0.5 ulp plus about 2**−50
// of 1/√x, so correctly rounded but for arguments within a hair of a
// rounding boundary (none found by TestAccuracy and TestRsqrtHard).
func Rsqrt(x float64) float64 {
	switch {
	case x != x:
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return 1 / x // ±Inf, the sign of the zero
	case x > math.MaxFloat64:
		return 0
	}
	k := 0
	if x < 0x1p-1022 { // subnormal: 1/√x = 2**54/√(x·2**108)
		x *= 0x1p108
		k = 54
	}
	e := int(math.Float64bits(x)>>52) - 1023
	h := e >> 1 // ⌊e/2⌋
	m := x * pow2(-2*h)
	y := 1 / math.Sqrt(m) // (1/2, 1]
	yh := float64(y * y)
	yl := math.FMA(y, y, -yh)
	r := math.FMA(-m, yh, 1)
	r = math.FMA(-m, yl, r)
	y = math.FMA(0.5*y, r, y)
	return y * pow2(k-h)
}
