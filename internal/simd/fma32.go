package simd

// fma32(x, y, z) is x·y + z rounded once to float32: C's fmaf, and what one
// lane of VFMADD…PS computes. The float32 transcendental twins call it in
// every polynomial step. Go has no float32 FMA function; where the compiler
// fuses float32 x*y + z into one instruction (arm64, riscv64, ppc64,
// s390x, loong64: fma32_fused.go) that is fma32, else fma32_emul.go builds
// it from math.FMA. TestFMA32 checks either against math/big.

import "math"

// fma32Odd is fma32 computed carefully: the float64 sum's exact error
// (TwoSum; the product is exact in float64, 24 + 24 bits) rounds it to odd
// (an inexact sum with an even last bit moves one ulp toward the exact
// value), and a float64 rounded to odd rounds to float32 as the exact
// value does (Boldo and Melquiond, "When double rounding is odd", 2005).
func fma32Odd(x, y, z float32) float32 {
	s, e := twoSum(float64(x)*float64(y), float64(z)) // the product is exact; e is NaN if s is ±Inf or NaN
	if e != 0 && e == e {
		if b := math.Float64bits(s); b&1 == 0 {
			if (e > 0) == (s > 0) {
				b++ // the exact sum is farther from zero
			} else {
				b--
			}
			s = math.Float64frombits(b)
		}
	}
	return float32(s)
}
