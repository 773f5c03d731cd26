//go:build !(arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64)

package simd

import "math"

// fma32 is x·y + z rounded once. float32(math.FMA(...)) rounds twice (to
// float64, then to float32), which differs from one rounding only when
// the float64 result is inexact and lies exactly halfway between two
// float32s: then its 28 low mantissa bits are zero (more in float32's
// subnormal range), and fma32Odd redoes those rare results. On amd64 the
// vector kernels leave the twins only tails and special vectors.
func fma32(x, y, z float32) float32 {
	s := math.FMA(float64(x), float64(y), float64(z))
	if math.Float64bits(s)&(1<<28-1) != 0 {
		return float32(s)
	}
	return fma32Odd(x, y, z)
}
