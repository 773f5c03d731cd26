package kernels

import (
	"math"
	"testing"
)

// TestAllFinite puts each non-finite value at each position of short and
// long slices of finite values (the largest finite, subnormals, zeros
// included) and checks allFinite against math.IsInf/IsNaN.
func TestAllFinite(t *testing.T) {
	finite := []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-40, 3e38}
	bad := []float64{math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN()}
	for n := 1; n <= 11; n++ {
		for pos := range n {
			for _, b := range bad {
				x32, x64 := make([]float32, n), make([]float64, n)
				for i := range x32 {
					x32[i], x64[i] = float32(finite[i%len(finite)]), finite[i%len(finite)]*1e200
				}
				if !allFinite(x32) || !allFinite(x64) {
					t.Fatalf("n=%d: finite values reported non-finite", n)
				}
				x32[pos], x64[pos] = float32(b), b
				if allFinite(x32) || allFinite(x64) {
					t.Fatalf("n=%d: %v at %d not found", n, b, pos)
				}
			}
		}
	}
	x64 := []float64{math.MaxFloat64, -math.MaxFloat64, 5e-324}
	if !allFinite(x64) {
		t.Fatal("float64 extremes reported non-finite")
	}
}
