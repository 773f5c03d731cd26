package xmath_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/xmath"
)

// around returns x and its n neighbors on each side.
func around(x float64, n int) []float64 {
	xs := []float64{x}
	lo, hi := x, x
	for range n {
		lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
		xs = append(xs, lo, hi)
	}
	return xs
}

// checkAll holds f within 1 ulp of ref at every argument pair.
func checkAll(t *testing.T, name string, f, ref func(x, y float64) float64, xs, ys []float64) {
	t.Helper()
	var worst int64
	bad := 0
	for i := range xs {
		x, y := xs[i], ys[i]
		got, want := f(x, y), ref(x, y)
		d := numerics.ULP64(got, want)
		worst = max(worst, d)
		if d > 1 {
			if bad++; bad <= 10 {
				t.Errorf("%s(%v, %v) = %v, want %v: %d ulp", name, x, y, got, want, d)
			}
		}
	}
	t.Logf("%s: max error %d ulp over %d hard cases", name, worst, len(xs))
}

func checkUnary(t *testing.T, name string, f, ref func(float64) float64, xs []float64) {
	t.Helper()
	checkAll(t, name, unary(f), unary(ref), xs, make([]float64, len(xs)))
}

// TestTanHard: the doubles closest to multiples of π/2 in every binade
// (where tan is tiny or huge and the reduction cancels the most), to
// multiples of π/4 (tan ±1, fdlibm's |x| ≥ 0.6744 branch), the thresholds.
func TestTanHard(t *testing.T) {
	var xs []float64
	step := 1
	if testing.Short() {
		step = 8
	}
	for e := -60; e <= 971; e += step {
		for _, x := range bigmath.NearHalfPiMultiples(e) {
			xs = append(xs, around(x, 1)...)
		}
	}
	for k := int64(1); k <= 400; k++ {
		xs = append(xs, around(bigmath.PiOver4Times(k), 2)...)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		xs = append(xs, around(bigmath.PiOver4Times(r.Int64N(1<<62)), 1)...)
	}
	for _, c := range []float64{0x1p-27, 0x1p-28, 0.6744, 0.67434, 0x1.9f02f6222c720p-1 /* 0x3FE59428 */, math.Pi / 4, 5e-324,
		0x1p-1022, 1 << 30, 1 << 48, math.MaxFloat64} {
		xs = append(xs, around(c, 3)...)
	}
	for _, x := range xs[:len(xs):len(xs)] {
		xs = append(xs, -x)
	}
	checkUnary(t, "Tan", xmath.Tan, bigmath.Tan, xs)
}

// TestPowHard: results at the overflow and underflow thresholds and in
// the subnormal range, x next to 1 with huge y (fdlibm's series branch,
// |y| > 2**31, and the 2**64 cut), huge and tiny exponents, integer
// exponents of negative bases, exact results.
func TestPowHard(t *testing.T) {
	var xs, ys []float64
	add := func(x, y float64, n int) { // x, y and their n neighbors each way
		for _, a := range around(x, n) {
			for _, b := range around(y, n) {
				xs, ys = append(xs, a), append(ys, b)
			}
		}
	}
	// y·log2 x at the thresholds: 1024 (overflow), −1022 (subnormal),
	// −1074 and −1075 (underflow), for various x.
	for _, x := range []float64{2, 0.5, 10, 0.1, math.E, 3, 1.5, 0.75, 1.0001, 0.9999, 1e-300, 1e300, math.MaxFloat64, 5e-324, 0x1p-1022} {
		for _, z := range []float64{1024, 1023.9999, -1022, -1022.5, -1050, -1073.5, -1074, -1074.5, -1075, -1075.2} {
			add(x, z/math.Log2(x), 2)
		}
	}
	add(2, 1023, 2)
	add(2, -1074, 2)
	add(0.5, 1075, 2)
	add(10, 308.25471555991675, 4) // MaxFloat64
	add(10, -323.3062153431158, 4) // 5e-324
	add(math.E, 709.782712893384, 4)
	add(math.E, -745.1332191019411, 4)
	// x next to 1, huge y: up to the 2**31 and 2**64 cuts and past them.
	for _, d := range []float64{0x1p-52, 0x1p-40, 0x1p-30, 0x1p-21, 0x1p-20, 0x1p-19, 0x1p-10} {
		for _, x := range []float64{1 + d, 1 - d/2} {
			for _, y := range []float64{0x1p31, 0x1.0000000000001p31, 0x1p40, 0x1p52, 0x1p63, 0x1.fffffffffffffp63, 0x1p64, 0x1.0000000000001p64} {
				add(x, y, 1)
				add(x, -y, 1)
				add(x, 700/math.Log(x), 1)
				add(x, -740/math.Log(x), 1)
			}
		}
	}
	// Huge and tiny exponents, subnormal and huge bases.
	for _, x := range []float64{5e-324, 1e-310, 0x1p-1022, 1e-300, 0.5, 0.999, 1.001, 2, 1e300, math.MaxFloat64} {
		for _, y := range []float64{1e300, -1e300, 1e-300, -1e-300, 5e-324, 0x1p-60, -0x1p-60, 1e-10, 0.5, -0.5, 1.5, -1.5, 0.25, 1.0 / 3, -1.0 / 1074, 1.0 / 1024} {
			add(x, y, 1)
		}
	}
	// Integer exponents of negative and positive bases.
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		x := math.Exp(r.NormFloat64() * 3)
		if r.IntN(2) == 0 {
			x = -x
		}
		y := float64(r.IntN(600) - 300)
		add(x, y, 0)
		add(float64(r.IntN(100000)), float64(r.IntN(8)+2), 0)
	}
	checkAll(t, "Pow", xmath.Pow, bigmath.Pow, xs, ys)
}

// TestRsqrtHard: every power of two (exact results), the subnormals, the
// neighbors of 1, 4 and the largest double.
func TestRsqrtHard(t *testing.T) {
	var xs []float64
	for e := -1074; e <= 1023; e++ {
		xs = append(xs, around(math.Ldexp(1, e), 2)...)
		xs = append(xs, math.Ldexp(1.5, e), math.Ldexp(3, e))
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		xs = append(xs, math.Float64frombits(r.Uint64N(1<<52)), math.Ldexp(1+r.Float64(), r.IntN(2)))
	}
	xs = append(xs, around(math.MaxFloat64, 5)...)
	xs = append(xs, around(0x1p-1022, 5)...)
	checkUnary(t, "Rsqrt", xmath.Rsqrt, bigmath.Rsqrt, xs)
	for _, x := range xs {
		if e := math.Ilogb(x); x == math.Ldexp(1, e) && e%2 == 0 && xmath.Rsqrt(x) != math.Ldexp(1, -e/2) {
			t.Errorf("Rsqrt(2**%d) = %v, want 2**%d", e, xmath.Rsqrt(x), -e/2)
		}
	}
}

// TestExpm1Hard: the overflow threshold (math.Expm1 overflows one double
// early), the switch points of fdlibm's algorithm, −1 saturation.
func TestExpm1Hard(t *testing.T) {
	var xs []float64
	for _, c := range []float64{709.782712893384, 709.78, 0.5 * math.Ln2, 1.5 * math.Ln2, 56 * math.Ln2, -56 * math.Ln2,
		0x1p-54, -0x1p-54, 0x1p-1022, 5e-324, -36.7368005696771, -38, 1, -1} {
		xs = append(xs, around(c, 4)...)
	}
	checkUnary(t, "Expm1", xmath.Expm1, bigmath.Expm1, xs)
	if math.Expm1(709.782712893384) != math.Inf(1) {
		t.Log("math.Expm1 no longer overflows early at 709.782712893384: xmath.Expm1's special case can go")
	}
}

// TestSpecials pins the special values: Pow exactly as math.Pow wherever
// math.Pow's result is a special value, Tan and Rsqrt as documented.
func TestSpecials(t *testing.T) {
	inf, nan, nz := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	vals := []float64{nan, inf, -inf, 0, nz, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 2.5, -2.5, 1e300, -1e300, 1e-300,
		5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 0x1p53, -0x1p53, 0x1p53 + 2, 0x1p64, -0x1p64}
	for _, x := range vals {
		for _, y := range vals {
			got, want := xmath.Pow(x, y), math.Pow(x, y)
			special := x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 || x == 1 || y == 1 ||
				want != want || math.IsInf(want, 0) || want == 0
			if special && !numerics.Same(got, want) {
				t.Errorf("Pow(%v, %v) = %v, want %v", x, y, got, want)
			}
		}
	}
	for _, c := range []struct{ x, tan, rsqrt float64 }{
		{nan, nan, nan}, {inf, nan, 0}, {-inf, nan, nan}, {0, 0, inf}, {nz, nz, -inf}, {-1, -1.5574077246549023, nan},
		{5e-324, 5e-324, 0x1p537}, {-5e-324, -5e-324, nan}, {0x1p-28, 0x1p-28, 0x1p14},
	} {
		if got := xmath.Tan(c.x); !numerics.Same(got, c.tan) {
			t.Errorf("Tan(%v) = %v, want %v", c.x, got, c.tan)
		}
		if got := xmath.Rsqrt(c.x); !numerics.Same(got, c.rsqrt) {
			t.Errorf("Rsqrt(%v) = %v, want %v", c.x, got, c.rsqrt)
		}
		if got, want := xmath.Expm1(c.x), math.Expm1(c.x); !numerics.Same(got, want) {
			t.Errorf("Expm1(%v) = %v, want %v", c.x, got, want)
		}
	}
}
