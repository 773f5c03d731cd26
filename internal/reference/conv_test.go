package reference

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// fmaF32 rounds once: held to math/big on random operands and on sums
// that land on a float32 tie in float64 (where rounding twice differs).
func TestFMAF32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	exact := func(s, x, y float32) float32 {
		p := new(big.Float).SetPrec(100).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		f, _ := new(big.Float).SetPrec(1200).Add(p, big.NewFloat(float64(s))).Float32()
		return f
	}
	check := func(s, x, y float32) {
		if got, want := fmaF32(s, x, y), exact(s, x, y); got != want && want != 0 {
			t.Fatalf("fmaF32(%v, %v, %v) = %v, want %v", s, x, y, got, want)
		}
	}
	for range 200000 {
		check(float32(r.NormFloat64()*1e3), float32(r.NormFloat64()), float32(r.NormFloat64()))
	}
	// (1 + 2⁻¹²)² = 1 + 2⁻¹¹ + 2⁻²⁴ is a float32 midpoint, exact in float64;
	// ±2⁻⁷⁰ moves the exact sum off it, but not the float64 one, which
	// would round to even.
	x := float32(1 + 0x1p-12)
	check(0x1p-70, x, x)
	check(-0x1p-70, x, x)
	if fmaF32(0x1p-70, x, x) == float32(float64(x)*float64(x)) {
		t.Error("the tie case rounds as twice-rounded arithmetic does")
	}
}
