package tensor

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/x448/float16"
)

// nearestTable is an independent reference for rounding to a 16-bit float
// format: every finite non-negative value of the format, sorted, with a
// virtual next power of two standing for +Inf (its bits are even, so a tie
// with the largest finite value goes to Inf, as IEEE says).
type nearestTable struct {
	vals []float64
	bits []uint16
}

func newNearestTable(decode func(uint16) float64, infBits uint16, beyond float64) *nearestTable {
	t := &nearestTable{}
	for b := 0; b < int(infBits); b++ { // 0 … largest finite
		t.vals = append(t.vals, decode(uint16(b)))
		t.bits = append(t.bits, uint16(b))
	}
	t.vals = append(t.vals, beyond)
	t.bits = append(t.bits, infBits)
	return t
}

func (t *nearestTable) round(x float64) uint16 {
	sign := uint16(0)
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	if x >= t.vals[len(t.vals)-1] {
		return sign | t.bits[len(t.bits)-1]
	}
	i := sort.SearchFloat64s(t.vals, x) // vals[i-1] < x ≤ vals[i]
	if t.vals[i] == x {
		return sign | t.bits[i]
	}
	lo, hi := t.vals[i-1], t.vals[i]
	// Compare distances exactly.
	dlo := new(big.Float).Sub(big.NewFloat(x), big.NewFloat(lo))
	dhi := new(big.Float).Sub(big.NewFloat(hi), big.NewFloat(x))
	switch dlo.Cmp(dhi) {
	case -1:
		return sign | t.bits[i-1]
	case 1:
		return sign | t.bits[i]
	}
	if t.bits[i-1]&1 == 0 {
		return sign | t.bits[i-1]
	}
	return sign | t.bits[i]
}

var (
	f16Ref  = newNearestTable(func(b uint16) float64 { return float64(float16.Frombits(b).Float32()) }, 0x7c00, 65536)
	bf16Ref = newNearestTable(func(b uint16) float64 { return float64(BFloat16(b).Float32()) }, 0x7f80, math.Ldexp(1, 128))
)

// edgeFloats are values around every boundary of the 16-bit formats.
func edgeFloats() []float64 {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.0 / 3, 65504, 65519.99, 65520, 65536, 1e5,
		math.Ldexp(1, -24), math.Ldexp(1, -25), math.Ldexp(1.5, -25), math.Ldexp(1, -26), math.Ldexp(1, -14),
		math.Ldexp(1023, -24), math.MaxFloat32, math.SmallestNonzeroFloat32, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.Ldexp(1, 127) * (2 - math.Ldexp(1, -8)), math.Ldexp(1, -133), math.Ldexp(1, -134), math.Ldexp(3, -135),
		1 + math.Ldexp(1, -11), 1 + math.Ldexp(3, -11), 1 + math.Ldexp(1, -8), 1 + math.Ldexp(3, -8),
		1 + math.Ldexp(1, -11) + math.Ldexp(1, -40), 2049, 2051, 257, 259}
	var out []float64
	for _, x := range xs {
		out = append(out, x, -x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
	}
	return out
}

func TestF16AllBitPatterns(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		h := float16.Frombits(uint16(b))
		f := h.Float32()
		if h.IsNaN() {
			if g := Float32ToF16(f); !g.IsNaN() {
				t.Fatalf("f16 NaN %#04x → %#04x is not NaN", b, g.Bits())
			}
			if g := Float64ToF16(float64(f)); !g.IsNaN() {
				t.Fatalf("f16 NaN %#04x via f64 → %#04x", b, g.Bits())
			}
			continue
		}
		if g := Float32ToF16(f); g.Bits() != uint16(b) {
			t.Fatalf("f16 %#04x → f32 %v → %#04x", b, f, g.Bits())
		}
		if g := Float64ToF16(float64(f)); g.Bits() != uint16(b) {
			t.Fatalf("f16 %#04x via f64 → %#04x", b, g.Bits())
		}
	}
}

func TestBF16AllBitPatterns(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		h := BFloat16(b)
		f := h.Float32()
		if h.IsNaN() {
			if !BFloat16FromFloat32(f).IsNaN() || !Float64ToBF16(float64(f)).IsNaN() {
				t.Fatalf("bf16 NaN %#04x did not stay NaN", b)
			}
			continue
		}
		if g := BFloat16FromFloat32(f); g != h {
			t.Fatalf("bf16 %#04x → f32 → %#04x", b, g)
		}
		if g := Float64ToBF16(float64(f)); g != h {
			t.Fatalf("bf16 %#04x via f64 → %#04x", b, g)
		}
	}
}

// TestNarrowingMatchesReference checks f32 → f16/bf16 and f64 → f16/bf16
// against the nearest-value reference on edge cases and random values,
// including every f32 that is exactly halfway between two 16-bit values.
func TestNarrowingMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := edgeFloats()
	for range 200000 {
		xs = append(xs, float64(math.Float32frombits(r.Uint32())))
		xs = append(xs, math.Float64frombits(r.Uint64()>>2|uint64(r.IntN(2))<<63)) // biased to moderate exponents
		xs = append(xs, r.NormFloat64()*math.Ldexp(1, r.IntN(40)-25))
	}
	// Every tie between adjacent f16 and bf16 values.
	for b := 0; b < 0x7c00; b++ {
		lo, hi := float64(float16.Frombits(uint16(b)).Float32()), float64(float16.Frombits(uint16(b+1)).Float32())
		xs = append(xs, (lo+hi)/2)
	}
	for b := 0; b < 0x7f80; b += 7 {
		lo, hi := float64(BFloat16(b).Float32()), float64(BFloat16(b+1).Float32())
		xs = append(xs, (lo+hi)/2)
	}
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		if got, want := Float64ToF16(x).Bits(), f16Ref.round(x); got != want {
			t.Fatalf("Float64ToF16(%v) = %#04x, want %#04x", x, got, want)
		}
		if got, want := uint16(Float64ToBF16(x)), bf16Ref.round(x); got != want {
			t.Fatalf("Float64ToBF16(%v) = %#04x, want %#04x", x, got, want)
		}
		f := float32(x)
		if math.IsInf(float64(f), 0) && !math.IsInf(x, 0) {
			continue
		}
		if got, want := Float32ToF16(f).Bits(), f16Ref.round(float64(f)); got != want {
			t.Fatalf("Float32ToF16(%v) = %#04x, want %#04x", f, got, want)
		}
		if got, want := float16.Fromfloat32(f).Bits(), f16Ref.round(float64(f)); got != want {
			t.Fatalf("x448 Fromfloat32(%v) = %#04x, want %#04x", f, got, want)
		}
		if got, want := uint16(BFloat16FromFloat32(f)), bf16Ref.round(float64(f)); got != want {
			t.Fatalf("BFloat16FromFloat32(%v) = %#04x, want %#04x", f, got, want)
		}
	}
}

func TestBF16Edges(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {float32(math.Inf(1)), 0x7f80}, {float32(math.Inf(-1)), 0xff80},
		{float32(math.Copysign(0, -1)), 0x8000},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd rounds up
		{math.Float32frombits(0x3f808001), 0x3f81}, // above the tie
		{math.MaxFloat32, 0x7f80},                  // rounds past the largest finite bf16
		{math.Float32frombits(0x7f7f7fff), 0x7f7f}, // just below the tie at the top
		{math.Float32frombits(0x00000001), 0x0000}, // tiny subnormal
		{math.Float32frombits(0x00008000), 0x0000}, // tie at the bottom, even
		{math.Float32frombits(0x00018000), 0x0002},
	}
	for _, c := range cases {
		if got := BFloat16FromFloat32(c.in); uint16(got) != c.want {
			t.Errorf("BFloat16FromFloat32(%#08x) = %#04x, want %#04x", math.Float32bits(c.in), got, c.want)
		}
	}
	nan := math.Float32frombits(0xff800001) // signalling NaN with a low payload
	if got := BFloat16FromFloat32(nan); !got.IsNaN() || got&0x8000 == 0 {
		t.Errorf("NaN → %#04x, want a negative quiet NaN", got)
	}
}

// FuzzFloat64ToF16 compares the direct f64 → f16/bf16 rounding with the
// nearest-value reference.
func FuzzFloat64ToF16(f *testing.F) {
	for _, x := range edgeFloats() {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, b uint64) {
		x := math.Float64frombits(b)
		if math.IsNaN(x) {
			if !Float64ToF16(x).IsNaN() || !Float64ToBF16(x).IsNaN() {
				t.Fatal("NaN did not stay NaN")
			}
			return
		}
		if got, want := Float64ToF16(x).Bits(), f16Ref.round(x); got != want {
			t.Fatalf("Float64ToF16(%v) = %#04x, want %#04x", x, got, want)
		}
		if got, want := uint16(Float64ToBF16(x)), bf16Ref.round(x); got != want {
			t.Fatalf("Float64ToBF16(%v) = %#04x, want %#04x", x, got, want)
		}
	})
}

// TestFloat16Methods checks Float16's predicates and Float32 against the
// x448/float16 oracle on every bit pattern.
func TestFloat16Methods(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		h, ref := Float16FromBits(uint16(b)), float16.Frombits(uint16(b))
		f := ref.Float32()
		if got := h.Float32(); math.Float32bits(got) != math.Float32bits(f) {
			t.Fatalf("%#04x: Float32 %v, want %v", b, got, f)
		}
		if h.IsNaN() != ref.IsNaN() {
			t.Fatalf("%#04x: IsNaN %v", b, h.IsNaN())
		}
		for _, sign := range []int{-1, 0, 1} {
			if got, want := h.IsInf(sign), math.IsInf(float64(f), sign); got != want {
				t.Fatalf("%#04x: IsInf(%d) %v, want %v", b, sign, got, want)
			}
		}
		if h.Bits() != uint16(b) {
			t.Fatalf("%#04x: Bits %#04x", b, h.Bits())
		}
	}
	if s := Float32ToF16(0.1).String(); s != "0.1" {
		t.Errorf("f16 0.1 prints %q", s)
	}
}
