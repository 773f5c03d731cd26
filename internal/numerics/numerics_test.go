package numerics_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/x448/float16"

	"github.com/kiln-go/kiln/internal/numerics"
)

// TestF16Widening: every binary16 pattern widens as x448/float16 does,
// and rounds back to itself (a NaN to the same quiet NaN).
func TestF16Widening(t *testing.T) {
	for b := range 1 << 16 {
		h := uint16(b)
		got := numerics.F16BitsToF32(h)
		if want := float16.Frombits(h).Float32(); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("F16BitsToF32(%#04x) = %#08x, x448 %#08x", h, math.Float32bits(got), math.Float32bits(want))
		}
		back, quiet := numerics.F32ToF16Bits(got), h
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			quiet |= 0x200
		}
		if back != quiet {
			t.Fatalf("F32ToF16Bits(F16BitsToF32(%#04x)) = %#04x", h, back)
		}
	}
}

// TestF32Rounding: float32 patterns (every 97th, and around every binade
// boundary) round to binary16 as x448/float16 does and to bfloat16 as the
// nearest-value definition in float64 says.
func TestF32Rounding(t *testing.T) {
	check := func(u uint32) {
		x := math.Float32frombits(u)
		if got, want := numerics.F32ToF16Bits(x), float16.Fromfloat32(x).Bits(); got != want {
			t.Fatalf("F32ToF16Bits(%#08x) = %#04x, x448 %#04x", u, got, want)
		}
		if got, want := numerics.F32ToBF16Bits(x), bf16Nearest(x); got != want {
			t.Fatalf("F32ToBF16Bits(%#08x) = %#04x, want %#04x", u, got, want)
		}
	}
	n := 0
	for u := uint64(0); u < 1<<32; u += 97 {
		check(uint32(u))
		n++
	}
	for e := uint32(0); e < 256; e++ {
		for _, m := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0x17fff, 0x18000, 0x18001, 0xfff, 0x1000, 0x1001, 0x3000, 0x7fffff} {
			check(e<<23 | m)
			check(1<<31 | e<<23 | m)
			n += 2
		}
	}
	if n < 40_000_000 {
		t.Fatalf("only %d patterns checked", n)
	}
}

// bf16Nearest rounds x to bfloat16 by comparing distances in float64 (the
// two candidates are exact there), ties to the even pattern.
func bf16Nearest(x float32) uint16 {
	b := math.Float32bits(x)
	if x != x {
		return uint16(b>>16 | 0x40)
	}
	lo := uint16(b >> 16)
	hi := lo + 1
	if b&0xffff == 0 {
		return lo
	}
	dl := math.Abs(float64(x) - float64(math.Float32frombits(uint32(lo)<<16)))
	// hi may be ±Inf (rounding up past the largest finite), which is
	// where the rounding takes it when x is past the midpoint.
	hv := float64(math.Float32frombits(uint32(hi) << 16))
	if math.IsInf(hv, 0) {
		mid := float64(math.Float32frombits(uint32(lo)<<16 | 0x8000))
		if math.Abs(float64(x)) >= math.Abs(mid) && (math.Abs(float64(x)) > math.Abs(mid) || lo&1 == 1) {
			return hi
		}
		return lo
	}
	dh := math.Abs(hv - float64(x))
	switch {
	case dl < dh:
		return lo
	case dh < dl:
		return hi
	case lo&1 == 0:
		return lo
	}
	return hi
}

func TestMinimumMaximum(t *testing.T) {
	nz, nan, nan2 := math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7ff8000000000123)
	cases := []struct{ a, b, min, max float64 }{
		{1, 2, 1, 2},
		{2, 1, 1, 2},
		{nz, 0, nz, 0},
		{0, nz, nz, 0},
		{nz, nz, nz, nz},
		{math.Inf(-1), 3, math.Inf(-1), 3},
		{nan, 1, nan, nan},
		{1, nan, nan, nan},
		{nan2, nan, nan2, nan2}, // both NaN: a's
	}
	bits := math.Float64bits
	for _, c := range cases {
		if got := numerics.Minimum(c.a, c.b); bits(got) != bits(c.min) {
			t.Errorf("Minimum(%v, %v) = %v (%#x), want %v", c.a, c.b, got, bits(got), c.min)
		}
		if got := numerics.Maximum(c.a, c.b); bits(got) != bits(c.max) {
			t.Errorf("Maximum(%v, %v) = %v (%#x), want %v", c.a, c.b, got, bits(got), c.max)
		}
		if got := numerics.Minimum(float32(c.a), float32(c.b)); math.Float32bits(got) != math.Float32bits(float32(c.min)) {
			t.Errorf("Minimum[float32](%v, %v) = %v", c.a, c.b, got)
		}
	}
}

// TestSumLeaf holds the leaf to its definition written out for 21 values
// (eight lanes, two full groups, five left over), to an exact sum where
// every order gives the same, and to x86's NaN choice.
func TestSumLeaf(t *testing.T) {
	x := make([]float64, 21)
	for i := range x {
		x[i] = 1 / float64(i+3)
	}
	var r [8]float64
	copy(r[:], x[:8])
	for j := range 8 {
		r[j] += x[8+j]
	}
	want := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	for _, v := range x[16:] {
		want += v
	}
	if got := numerics.SumLeafFloat(x); got != want {
		t.Errorf("SumLeafFloat = %v, want %v", got, want)
	}
	if got := numerics.SumLeafFloat(x[:5]); got != (((x[0]+x[1])+x[2])+x[3])+x[4] {
		t.Errorf("SumLeafFloat of 5 = %v: not left to right", got)
	}
	if got := numerics.SumLeafFloat([]float32{}); got != 0 || math.Signbit(float64(got)) {
		t.Errorf("the sum of nothing is %v, want +0", got)
	}
	ints := make([]int8, 100)
	exact := 0
	for i := range ints {
		ints[i] = int8(i*37 - 50)
		exact += int(ints[i])
	}
	if got := numerics.SumLeaf(ints); got != int8(exact) {
		t.Errorf("SumLeaf(int8) = %d, want %d (wrapped)", got, int8(exact))
	}
	a, b := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff8000000000002)
	if got := numerics.AddFirstNaN(a, b); math.Float64bits(got) != math.Float64bits(a) {
		t.Errorf("AddFirstNaN kept %#x, want a's %#x", math.Float64bits(got), math.Float64bits(a))
	}
	if got := numerics.AddFirstNaN(1, b); math.Float64bits(got) != math.Float64bits(b) {
		t.Errorf("AddFirstNaN(1, NaN) = %#x, want b's NaN", math.Float64bits(got))
	}
}

func TestRowMajorStrides(t *testing.T) {
	for _, c := range []struct{ shape, want []int }{
		{nil, []int{}},
		{[]int{5}, []int{1}},
		{[]int{2, 3, 4}, []int{12, 4, 1}},
		{[]int{3, 0, 2}, []int{0, 2, 1}},
	} {
		if got := numerics.RowMajorStrides(c.shape); !slices.Equal(got, c.want) {
			t.Errorf("RowMajorStrides(%v) = %v, want %v", c.shape, got, c.want)
		}
	}
}

// TestULP holds the distances to counts made with math.Nextafter and
// math/big.
func TestULP(t *testing.T) {
	nz := math.Copysign(0, -1)
	tiny := math.SmallestNonzeroFloat64
	cases := []struct {
		a, b float64
		want int64
	}{
		{1, 1, 0},
		{1, math.Nextafter(1, 2), 1},
		{nz, 0, 0},
		{tiny, -tiny, 2},
		{-tiny, 0, 1},
		{math.NaN(), math.NaN(), 0},
		{math.NaN(), 1, math.MaxInt64},
		{math.Inf(-1), math.Inf(1), math.MaxInt64},
		{1, 2, 1 << 52},
	}
	for _, c := range cases {
		if got := numerics.ULP64(c.a, c.b); got != c.want {
			t.Errorf("ULP64(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := numerics.ULP64(c.b, c.a); got != c.want {
			t.Errorf("ULP64(%v, %v) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
	// float32: count the steps of Nextafter32 over a range crossing zero.
	x, steps := float32(-3e-38), int64(0)
	for y := x; y < 2e-38; y = math.Nextafter32(y, 1) {
		steps++
	}
	end := float32(2e-38) // where the loop stopped
	if got := numerics.ULP32(x, end); got != steps {
		t.Errorf("ULP32(%v, %v) = %d, Nextafter32 took %d steps", x, end, got, steps)
	}
	if got := numerics.ULP32(float32(math.NaN()), 1); got != math.MaxInt64 {
		t.Errorf("ULP32(NaN, 1) = %d", got)
	}
	// The count of doubles in [1, 2) is 2**52, as math/big says.
	if got, want := numerics.ULP64(1, 2), new(big.Int).Lsh(big.NewInt(1), 52).Int64(); got != want {
		t.Errorf("ULP64(1, 2) = %d, want %d", got, want)
	}
}

func TestSame(t *testing.T) {
	nz := math.Copysign(0, -1)
	for _, c := range []struct {
		a, b float64
		want bool
	}{{1, 1, true}, {0, nz, false}, {nz, nz, true}, {math.NaN(), math.Float64frombits(0xfff0000000000001), true}, {math.NaN(), 1, false}, {1, 2, false}} {
		if got := numerics.Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%v, %v) = %v", c.a, c.b, got)
		}
	}
}

// TestULPBits: 16-bit formats count their own steps.
func TestULPBits(t *testing.T) {
	for _, c := range []struct {
		a, b  uint16
		width int
		want  int64
	}{
		{0x3c00, 0x3c01, 16, 1},      // 1 and the next binary16
		{0x0001, 0x8001, 16, 2},      // ± the smallest subnormal
		{0x8000, 0x0000, 16, 0},      // −0 and +0
		{0xfc00, 0x7c00, 16, 0xf800}, // −Inf to +Inf
	} {
		if got := numerics.ULPBits(uint64(c.a), uint64(c.b), c.width); got != c.want {
			t.Errorf("ULPBits(%#04x, %#04x, %d) = %d, want %d", c.a, c.b, c.width, got, c.want)
		}
	}
}

// FMA32 against math/big's exact x·y + z rounded once, on random values
// across the exponent range, halfway cases built on purpose, subnormal
// results and signed zeros.
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	exact := func(x, y, z float32) float32 {
		if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) || x != x || y != y || z != z {
			return float32(math.FMA(float64(x), float64(y), float64(z)))
		}
		p := new(big.Float).SetPrec(2000).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		s := new(big.Float).SetPrec(2000).Add(p, big.NewFloat(float64(z)))
		if s.Sign() == 0 {
			return x*y + z // the sign of an exact zero: IEEE's rule, which Go's float32 ops follow
		}
		f, _ := s.Float32()
		return f
	}
	rnd := func() float32 {
		return float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
	}
	for i := range 200000 {
		x, y, z := rnd(), rnd(), rnd()
		switch i % 4 {
		case 1: // z near x·y: cancellation
			z = -float32(float64(x) * float64(y) * (1 + float64(rng.IntN(5)-2)*1e-7))
		case 2: // a tiny z just past a product's halfway point
			x, y = float32(1+math.Ldexp(1, -12)), float32(1+math.Ldexp(1, -12))
			z = float32(math.Ldexp(float64(rng.IntN(3)-1), -60-rng.IntN(40)))
		case 3: // subnormal results
			x, y = float32(math.Ldexp(rng.Float64(), -70)), float32(math.Ldexp(rng.Float64(), -70))
			z = float32(math.Ldexp(rng.Float64()-0.5, -140))
		}
		if got, want := numerics.FMA32(x, y, z), exact(x, y, z); math.Float32bits(got) != math.Float32bits(want) && (got == got || want == want) {
			t.Fatalf("FMA32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
	negZero := float32(math.Copysign(0, -1))
	if got := numerics.FMA32(negZero, 1, negZero); math.Float32bits(got) != math.Float32bits(negZero) {
		t.Errorf("FMA32(-0, 1, -0) = %g, want -0", got)
	}
	if got := numerics.FMA32(float32(math.Inf(1)), 0, 1); got == got {
		t.Errorf("FMA32(Inf, 0, 1) = %g, want NaN", got)
	}
}
