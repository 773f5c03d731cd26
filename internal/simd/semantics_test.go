package simd_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// Semantics the twin test cannot show (it only compares tiers): the
// definitions themselves, at every tier, on slices long enough for the
// vector loop.

// atEveryTier runs f with the value pair (a, b) in every lane of a 67-long
// slice (so every vector width and the tail see it).
func atEveryTier(t *testing.T, f func(tier simd.Tier)) {
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		f(tier)
		restore()
	}
}

func fill32(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func fill64(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

var (
	nanA32 = math.Float32frombits(0x7fc0_0a0a)
	nanB32 = math.Float32frombits(0xffc0_0b0b)
	nanA64 = math.Float64frombits(0x7ff8_0000_0000_0a0a)
	nanB64 = math.Float64frombits(0xfff8_0000_0000_0b0b)
)

// TestMinMax checks IEEE 754-2019 minimum/maximum: NaN wins (the first
// operand's when both are), −0 < +0.
func TestMinMax(t *testing.T) {
	negZero32, negZero64 := float32(math.Copysign(0, -1)), math.Copysign(0, -1)
	cases32 := []struct{ a, b, min, max float32 }{
		{1, 2, 1, 2}, {2, 1, 1, 2}, {-1, 1, -1, 1},
		{negZero32, 0, negZero32, 0}, {0, negZero32, negZero32, 0},
		{nanA32, 1, nanA32, nanA32}, {1, nanB32, nanB32, nanB32}, {nanA32, nanB32, nanA32, nanA32},
		{float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(1))},
	}
	cases64 := []struct{ a, b, min, max float64 }{
		{1, 2, 1, 2}, {2, 1, 1, 2}, {negZero64, 0, negZero64, 0}, {0, negZero64, negZero64, 0},
		{nanA64, 1, nanA64, nanA64}, {1, nanB64, nanB64, nanB64}, {nanA64, nanB64, nanA64, nanA64},
	}
	const n = 67
	atEveryTier(t, func(tier simd.Tier) {
		for _, c := range cases32 {
			got := make([]float32, n)
			simd.MinF32(got, fill32(n, c.a), fill32(n, c.b))
			if g := got[n-1]; math.Float32bits(g) != math.Float32bits(c.min) || math.Float32bits(got[0]) != math.Float32bits(c.min) {
				t.Errorf("%v: MinF32(%v, %v) = %v, want %v", tier, c.a, c.b, g, c.min)
			}
			simd.MaxF32(got, fill32(n, c.a), fill32(n, c.b))
			if g := got[0]; math.Float32bits(g) != math.Float32bits(c.max) {
				t.Errorf("%v: MaxF32(%v, %v) = %v, want %v", tier, c.a, c.b, g, c.max)
			}
		}
		for _, c := range cases64 {
			got := make([]float64, n)
			simd.MinF64(got, fill64(n, c.a), fill64(n, c.b))
			if g := got[0]; math.Float64bits(g) != math.Float64bits(c.min) {
				t.Errorf("%v: MinF64(%v, %v) = %v, want %v", tier, c.a, c.b, g, c.min)
			}
			simd.MaxF64(got, fill64(n, c.a), fill64(n, c.b))
			if g := got[n-1]; math.Float64bits(g) != math.Float64bits(c.max) {
				t.Errorf("%v: MaxF64(%v, %v) = %v, want %v", tier, c.a, c.b, g, c.max)
			}
		}
	})
}

// TestCmpNaN checks that every predicate is false on NaN but Ne, and the
// ordering of −0 and +0 (equal).
func TestCmpNaN(t *testing.T) {
	want := map[simd.Pred][3]bool{ // (NaN, 1), (1, 2), (−0, +0)
		simd.Eq: {false, false, true}, simd.Ne: {true, true, false},
		simd.Lt: {false, true, false}, simd.Le: {false, true, true},
		simd.Gt: {false, false, false}, simd.Ge: {false, false, true},
	}
	pairs := [3][2]float64{{math.NaN(), 1}, {1, 2}, {math.Copysign(0, -1), 0}}
	const n = 67
	atEveryTier(t, func(tier simd.Tier) {
		for p, w := range want {
			for i, ab := range pairs {
				got := make([]bool, n)
				simd.CmpF32(got, fill32(n, float32(ab[0])), fill32(n, float32(ab[1])), p)
				got64 := make([]bool, n)
				simd.CmpF64(got64, fill64(n, ab[0]), fill64(n, ab[1]), p)
				for j := range got {
					if got[j] != w[i] || got64[j] != w[i] {
						t.Fatalf("%v: pred %d on %v: f32 %v, f64 %v, want %v", tier, p, ab, got[j], got64[j], w[i])
					}
				}
			}
		}
	})
}

// TestIntWrap checks wraparound at the extremes.
func TestIntWrap(t *testing.T) {
	const n = 67
	atEveryTier(t, func(tier simd.Tier) {
		a8, b8, d8 := make([]int8, n), make([]int8, n), make([]int8, n)
		for i := range a8 {
			a8[i], b8[i] = -128, -1
		}
		simd.MulI8(d8, a8, b8)
		simd.AddI8(a8, a8, b8)
		if d8[n-1] != -128 || a8[0] != 127 {
			t.Errorf("%v: MulI8(-128, -1) = %d, AddI8(-128, -1) = %d", tier, d8[n-1], a8[0])
		}
		a64, b64, d64 := fill64i(n, math.MinInt64), fill64i(n, -1), make([]int64, n)
		simd.MulI64(d64, a64, b64)
		if d64[0] != math.MinInt64 {
			t.Errorf("%v: MulI64(MinInt64, -1) = %d", tier, d64[0])
		}
		x, y := fill64i(n, 0x1234_5678_9abc_def1), fill64i(n, -0x0fed_cba9_8765_4321)
		simd.MulI64(d64, x, y)
		if want := x[0] * y[0]; d64[n-1] != want {
			t.Errorf("%v: MulI64 = %d, want %d", tier, d64[n-1], want)
		}
	})
}

func fill64i(n int, v int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestSelectNonzero checks that Select takes a: for true, b: for false.
func TestSelectNonzero(t *testing.T) {
	const n = 130
	c := make([]bool, n)
	a, b, d := make([]uint16, n), make([]uint16, n), make([]uint16, n)
	for i := range c {
		c[i] = i%3 == 0
		a[i], b[i] = uint16(i), uint16(1000+i)
	}
	atEveryTier(t, func(tier simd.Tier) {
		simd.Select16(d, c, a, b)
		for i := range d {
			if want := map[bool]uint16{true: a[i], false: b[i]}[c[i]]; d[i] != want {
				t.Fatalf("%v: Select16 [%d] = %d, want %d", tier, i, d[i], want)
			}
		}
	})
}

// TestNoAllocs checks that kernels do not allocate.
func TestNoAllocs(t *testing.T) {
	x, y, c := make([]float32, 1000), make([]float32, 1000), make([]bool, 1000)
	for i := range x {
		x[i] = float32(i) / 7
	}
	x[500] = float32(math.NaN()) // a bail-out to the Go twin
	atEveryTier(t, func(tier simd.Tier) {
		for name, f := range map[string]func(){
			"AddF32": func() { simd.AddF32(y, x, x) },
			"ExpF32": func() { simd.ExpF32(y, x) },
			"SinF32": func() { simd.SinF32(y, x) },
			"CmpF32": func() { simd.CmpF32(c, x, y, simd.Lt) },
		} {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%v: %s allocates %v times per call", tier, name, a)
			}
		}
	})
}
