package simd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
)

// bf16Gen draws bf16 bit patterns that make the bf16 step's corners
// matter: subnormals (read as zeros), ±0, ±Inf, NaNs, exponents near
// 2⁻⁶³, whose products land around the smallest normal f32 (2⁻¹²⁶),
// where results are flushed, and near 2¹²⁷, whose products overflow,
// besides ordinary values.
func bf16Gen(rng *rand.Rand) uint16 {
	sign := uint16(rng.IntN(2)) << 15
	switch rng.IntN(12) {
	case 0:
		return sign | uint16(rng.IntN(0x80)) // subnormal or zero
	case 1:
		return sign | 0x7f80 // Inf
	case 2:
		if rng.IntN(4) == 0 {
			return sign | 0x7f80 | uint16(1+rng.IntN(0x7f)) // NaN
		}
		return sign | uint16(rng.IntN(4))<<7 | uint16(rng.IntN(0x80)) // tiny normal
	case 3, 4, 5:
		return sign | uint16(rng.IntN(6)+61)<<7 | uint16(rng.IntN(0x80)) // near 2⁻⁶³
	case 6:
		return sign | uint16(rng.IntN(5)+250)<<7 | uint16(rng.IntN(0x80)) // near 2¹²⁷: products overflow
	}
	return sign | uint16(rng.IntN(40)+107)<<7 | uint16(rng.IntN(0x80))
}

// The VDPBF16PS kernel against its Go twin: bit-identical (NaNs equal
// whatever their payload) with and without load, for kc2 of 0, 1 and
// more, on values whose sums flush, and tiles loaded with f32 subnormals
// (read as zeros) and values near 2⁻¹²⁶.
func TestGemmBF16Kernel(t *testing.T) {
	k, fast := GemmBF16()
	if !fast {
		t.Skip("no AVX512_BF16 here (or a lower tier): the Go twin is the kernel")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	word := func() uint32 { return uint32(bf16Gen(rng)) | uint32(bf16Gen(rng))<<16 }
	for _, kc2 := range []int{0, 1, 2, 3, 17, 300} {
		for _, load := range []bool{false, true} {
			for range 20 {
				ra := kc2 + 3 // rows apart, not packed tight
				a, b := make([]uint32, 11*ra+kc2), make([]uint32, kc2*GemmBF16NR)
				for i := range a {
					a[i] = word()
				}
				for i := range b {
					b[i] = word()
				}
				ldc := GemmBF16NR + 3
				c := make([]float32, (GemmBF16MR-1)*ldc+GemmBF16NR)
				for i := range c {
					switch rng.IntN(4) {
					case 0:
						c[i] = math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal
					case 1:
						c[i] = float32(rng.NormFloat64()) * 0x1p-126
					default:
						c[i] = float32(rng.NormFloat64())
					}
				}
				want := append([]float32(nil), c...)
				gemmBF16Go(kc2, a, ra, b, want, ldc, load)
				k.Run(kc2, a, ra, b, c, ldc, load)
				for i := range c {
					if math.Float32bits(c[i]) != math.Float32bits(want[i]) && !(c[i] != c[i] && want[i] != want[i]) {
						t.Fatalf("kc2=%d load=%v: c[%d] = %v (%08x), twin %v (%08x)", kc2, load, i, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
					}
				}
			}
		}
	}
}

// BF16Step on the corners VDPBF16PS was measured at (AMD Zen 5): tiny
// results flush to a zero of their sign, tininess after rounding to 24
// bits with an unbounded exponent, subnormal inputs and accumulators
// read as zeros, and the high products first.
func TestBF16Step(t *testing.T) {
	bf := func(f float32) uint32 { return math.Float32bits(f) >> 16 }
	pair := func(lo, hi float32) uint32 { return bf(lo) | bf(hi)<<16 }
	negZero := float32(math.Copysign(0, -1))
	cases := []struct {
		acc       float32
		a, b      uint32
		want      float32
		wantBits0 bool // want is a zero: compare its sign too
	}{
		// 2⁻¹²⁶ − 2⁻¹⁵⁰ is a 24-bit value below 2⁻¹²⁶: flushed (gradual
		// underflow would round it to 2⁻¹²⁶).
		{0x1p-126, pair(0, 0x1p-75), pair(0, -0x1p-75), 0, true},
		{-0x1p-126, pair(0, 0x1p-75), pair(negZero, 0x1p-75), negZero, true},
		// ... and a −0 plus the +0 of a zero product is +0.
		{-0x1p-126, pair(0, 0x1p-75), pair(0, 0x1p-75), 0, true},
		// 2⁻¹²⁶ − 2⁻¹⁵¹ rounds to 2⁻¹²⁶ even with an unbounded exponent: kept.
		{0x1p-126, pair(0, 0x1p-76), pair(0, -0x1p-75), 0x1p-126, false},
		{0x1p-125, pair(0, 0x1p-75), pair(0, -0x1p-74), 0x1.fffffep-126, false},
		// A subnormal accumulator is read as zero; so are subnormal inputs.
		{0x1p-140, pair(0, 1), pair(0, 0x1p-130), 0, true},
		{0, pair(0x1p-130, 1), pair(0x1p100, 1), 1, false},
		// The high products first: 2⁻²⁴ + 2⁻²⁴ + 1 is 1 + 2⁻²³, but each
		// 2⁻²⁴ added to 1 alone is a tie that rounds to 1.
		{0x1p-24, pair(1, 0x1p-24), pair(1, 1), 1 + 0x1p-23, false},
		{0x1p-24, pair(0x1p-24, 1), pair(1, 1), 1, false},
		// ∞·0 is NaN; ∞ − ∞ too.
		{0, pair(0, float32(math.Inf(1))), pair(0, 0), float32(math.NaN()), false},
	}
	k, fast := GemmBF16()
	for i, c := range cases {
		got := BF16Step(c.acc, c.a, c.b)
		if fast { // the instruction itself, in lane 0 of a tile
			a, b := make([]uint32, GemmBF16MR), make([]uint32, GemmBF16NR)
			a[0], b[0] = c.a, c.b
			tile := make([]float32, GemmBF16MR*GemmBF16NR)
			tile[0] = c.acc
			k.Run(1, a, 1, b, tile, GemmBF16NR, true)
			if hw := tile[0]; math.Float32bits(hw) != math.Float32bits(got) && !(hw != hw && got != got) {
				t.Errorf("case %d: VDPBF16PS gives %g (%08x), BF16Step %g", i, hw, math.Float32bits(hw), got)
			}
		}
		switch {
		case c.want != c.want:
			if got == got {
				t.Errorf("case %d: %v, want NaN", i, got)
			}
		case got != c.want || c.wantBits0 && math.Float32bits(got) != math.Float32bits(c.want):
			t.Errorf("case %d: BF16Step(%g, %08x, %08x) = %g (%08x), want %g", i, c.acc, c.a, c.b, got, math.Float32bits(got), c.want)
		}
	}
}

// InterleaveBF16 at every tier against its twin on every length up to
// 100 (whole vectors, unrolled steps and tails).
func TestInterleaveBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tier := range Available() {
		restore := SetLevel(tier)
		for n := range 101 {
			lo, hi := make([]uint16, n+3), make([]uint16, n+3)
			for i := range lo {
				lo[i], hi[i] = uint16(rng.Uint32()), uint16(rng.Uint32())
			}
			got, want := make([]uint32, n), make([]uint32, n)
			InterleaveBF16(got, lo, hi)
			for i := range want {
				want[i] = uint32(lo[i]) | uint32(hi[i])<<16
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%v n=%d: dst[%d] = %#x, want %#x", tier, n, i, got[i], want[i])
				}
			}
		}
		restore()
	}
}

// The quick path of the bf16 step (the product exact in f32) against
// numerics.FMA32FTZ on every corner bf16Gen draws, accumulators included.
func TestBF16FMA(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200000 {
		x, y := bf16Word(uint32(bf16Gen(rng))), bf16Word(uint32(bf16Gen(rng)))
		z := numerics.DAZ32(bf16Word(uint32(bf16Gen(rng))) * float32(1+rng.Float64()))
		if rng.IntN(4) == 0 {
			z = -x * y * float32(1+rng.NormFloat64()*1e-3) // near cancellation
		}
		got, want := bf16FMA(x, y, z), numerics.FMA32FTZ(x, y, z)
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("bf16FMA(%g, %g, %g) = %g, FMA32FTZ %g", x, y, z, got, want)
		}
	}
}
