package simd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
	"github.com/kiln-go/kiln/internal/xmath"
)

// TestReduceF64IsTrigReduce: up to 2**30 the vector kernels' reduction
// (reduceF64, their Go twin) is xmath.TrigReduce bit for bit, so that sin
// and cos here and xmath.Tan share one reduction everywhere (the OpenCL
// backend ports it once, kernels/opencl/helpers_trig.go).
func TestReduceF64IsTrigReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 29))
	xs := []float64{0, 5e-324, 0x1p-1022, 1, math.Pi / 4, math.Pi / 2, trigMaxF64}
	for range 200000 {
		xs = append(xs, r.Float64()*trigMaxF64, math.Ldexp(r.Float64(), r.IntN(100)-70))
	}
	for k := int64(0); k < 1<<30; k = k*2 + 1 + int64(r.IntN(5)) {
		x := bigmath.PiOver4Times(k)
		xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
	}
	for _, x := range xs {
		if x > trigMaxF64 {
			continue
		}
		hi, lo, j := reduceF64(x)
		hi2, lo2, j2 := xmath.TrigReduce(x)
		if math.Float64bits(hi) != math.Float64bits(hi2) || math.Float64bits(lo) != math.Float64bits(lo2) || j != j2 {
			t.Fatalf("reduceF64(%v) = %v, %v, %d; xmath.TrigReduce = %v, %v, %d", x, hi, lo, j, hi2, lo2, j2)
		}
	}
}
