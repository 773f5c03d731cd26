package simd

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fma32Exact is x·y + z computed exactly and rounded once to float32 (ties
// to even) by math/big: the definition fma32 must meet.
func fma32Exact(x, y, z float32) float32 {
	if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) ||
		x != x || y != y || z != z {
		return float32(float64(x)*float64(y) + float64(z)) // IEEE special cases
	}
	p := new(big.Float).SetPrec(400).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
	s := new(big.Float).SetPrec(400).Add(p, big.NewFloat(float64(z)))
	f, _ := s.Float32()
	if f == 0 {
		// big.Float has no signed zero rule for exact cancellation: IEEE
		// gives +0 unless both addends are −0 (or a −0 product plus −0).
		return float32(float64(x)*float64(y) + float64(z))
	}
	return f
}

func checkFMA32(t *testing.T, x, y, z float32) {
	t.Helper()
	want := fma32Exact(x, y, z)
	for _, f := range []struct {
		name string
		fn   func(x, y, z float32) float32
	}{{"fma32", fma32}, {"fma32Odd", fma32Odd}} {
		got := f.fn(x, y, z)
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("%s(%g, %g, %g) = %g (%#08x), want %g (%#08x)", f.name, x, y, z,
				got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}

func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	// Random bit patterns (every exponent), random values of similar
	// magnitude (cancellation), and sums whose float64 rounding lands on a
	// float32 halfway point, where rounding twice goes wrong.
	for range 200000 {
		x, y, z := math.Float32frombits(r.Uint32()), math.Float32frombits(r.Uint32()), math.Float32frombits(r.Uint32())
		checkFMA32(t, x, y, z)
		a, b := float32(r.NormFloat64()), float32(r.NormFloat64())
		checkFMA32(t, a, b, -float32(float64(a)*float64(b)))
		checkFMA32(t, a, b, float32(r.NormFloat64()))
		// Near-ties: x·y = 2**−24 − 2**−70 puts m + x·y just below the
		// float32 midpoint above m (in [1, 2)) and m − x·y just above the
		// one below it, both within a float64 half ulp, so rounding to
		// float64 first makes an exact tie and ties-to-even picks the wrong
		// neighbour for half the m.
		m := float32(1 + float64(r.Uint32()>>9)*0x1p-23)
		checkFMA32(t, 1+0x1p-23, 0x1p-24*(1-0x1p-23), m)
		checkFMA32(t, -(1 + 0x1p-23), 0x1p-24*(1-0x1p-23), m)
		checkFMA32(t, 1+0x1p-23, 0x1p-24*(1-0x1p-23), -m)
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0x1p-149, -0x1p-149, 0x1p-126, math.MaxFloat32,
		-math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0x1.fffffep-1, 3}
	for _, x := range specials {
		for _, y := range specials {
			for _, z := range specials {
				checkFMA32(t, x, y, z)
			}
		}
	}
}

func FuzzFMA32(f *testing.F) {
	f.Add(uint32(0x3f800001), uint32(0x3f800001), uint32(0xbf800002))
	f.Fuzz(func(t *testing.T, a, b, c uint32) {
		checkFMA32(t, math.Float32frombits(a), math.Float32frombits(b), math.Float32frombits(c))
	})
}
