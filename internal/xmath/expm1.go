package xmath

import "math"

// expm1Max is the float64 nearest ln(MaxFloat64), fdlibm's o_threshold.
const expm1Max = 7.09782712893383973096e+02 // 0x40862E42FEFA39EF

// Expm1 returns eˣ − 1: math.Expm1 (a port of fdlibm's s_expm1.c, within
// 1 ulp), except at x = expm1Max, where math.Expm1 returns +Inf: it tests
// x ≥ o_threshold where fdlibm tests x > o_threshold, and e^expm1Max − 1 is
// finite, 0x1.fffffffffff2ap+1023 correctly rounded.
func Expm1(x float64) float64 {
	if x == expm1Max {
		return 0x1.fffffffffff2ap+1023
	}
	return math.Expm1(x)
}
