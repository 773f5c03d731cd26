package simd

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// AxpyFMA32 and AxpyFMA64 round each element once: held to math/big.
func TestAxpyFMA(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 4099
	x32, d32 := make([]float32, n), make([]float32, n)
	x64, d64 := make([]float64, n), make([]float64, n)
	for i := range n {
		x32[i] = float32(r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		d32[i] = float32(r.NormFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		x64[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(80)-40))
		d64[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(80)-40))
	}
	x32[0], d32[0] = 1+0x1p-12, -(1 + 0x1p-11) // a product the unfused form rounds
	a32, a64 := float32(1+0x1p-12), 1.0/3
	w32, w64 := make([]float32, n), make([]float64, n)
	for i := range n {
		w32[i] = fma32Exact(x32[i], a32, d32[i])
		p := new(big.Float).SetPrec(2200).Mul(big.NewFloat(x64[i]), big.NewFloat(a64))
		w64[i], _ = new(big.Float).SetPrec(2200).Add(p, big.NewFloat(d64[i])).Float64()
	}
	unfused := d32[0] + float32(x32[0]*a32)
	AxpyFMA32(d32, a32, x32)
	AxpyFMA64(d64, a64, x64)
	if d32[0] == unfused {
		t.Errorf("element 0 is the unfused %v: the test case does not tell FMA apart", unfused)
	}
	for i := range n {
		if math.Float32bits(d32[i]) != math.Float32bits(w32[i]) {
			t.Fatalf("AxpyFMA32 [%d] = %v, want %v", i, d32[i], w32[i])
		}
		if math.Float64bits(d64[i]) != math.Float64bits(w64[i]) {
			t.Fatalf("AxpyFMA64 [%d] = %v, want %v", i, d64[i], w64[i])
		}
	}
}
