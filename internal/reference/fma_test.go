package reference

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fma32 against math/big's exact x·y + z rounded once: random values over
// the whole exponent range, halfway cases the tiny z must break, results
// past the largest float32 and subnormal ones.
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	exact := func(x, y, z float32) float32 {
		p := new(big.Float).SetPrec(2000).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		s := new(big.Float).SetPrec(2000).Add(p, big.NewFloat(float64(z)))
		if s.Sign() == 0 {
			return x*y + z
		}
		f, _ := s.Float32()
		return f
	}
	finite := func(f float64) float32 {
		x := float32(f)
		if math.IsInf(float64(x), 0) {
			return math.MaxFloat32
		}
		return x
	}
	for i := range 300000 {
		x := finite(math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
		y := finite(math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
		z := finite(math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
		switch i % 5 {
		case 1:
			z = -float32(float64(x) * float64(y) * (1 + float64(rng.IntN(5)-2)*1e-7))
		case 2:
			x, y = float32(1+math.Ldexp(1, -12)), float32(1+math.Ldexp(1, -12))
			z = float32(math.Ldexp(float64(rng.IntN(3)-1), -60-rng.IntN(40)))
		case 3:
			x, y = float32(math.Ldexp(rng.Float64(), -70)), float32(math.Ldexp(rng.Float64(), -70))
			z = float32(math.Ldexp(rng.Float64()-0.5, -140))
		case 4: // near the overflow threshold: MaxFloat32 + half an ulp ± a little
			x, y = math.MaxFloat32, 1
			z = float32(math.Ldexp(1, 103)) * float32(1+rng.IntN(3)-1) * (1 + float32(rng.IntN(3)-1)*1e-6)
		}
		if got, want := fma32(x, y, z), exact(x, y, z); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
}
