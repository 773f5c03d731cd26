package bigmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
)

func TestPiDigits(t *testing.T) {
	want, _ := new(big.Float).SetPrec(530).SetString(
		"3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745")
	got := Pi(530)
	d := new(big.Float).Sub(got, want)
	if d.Sign() != 0 && d.MantExp(nil) > -520 {
		t.Errorf("Pi = %s, want %s", got.Text('g', 160), want.Text('g', 160))
	}
	// ln 2 against exp: e^(ln 2) = 2.
	e := expP(ln2(400), 400)
	if d := new(big.Float).Sub(e, big.NewFloat(2)); d.Sign() != 0 && d.MantExp(nil) > -380 {
		t.Errorf("exp(ln 2) − 2 = %g", d)
	}
}

// TestSpecials: the special arguments give what package math gives.
func TestSpecials(t *testing.T) {
	inf, nan, nz := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	xs := []float64{nan, inf, -inf, 0, nz, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 1e-310, -1e-310, 1e300, -1e300}
	unary := map[string][2]func(float64) float64{
		"Exp": {Exp, math.Exp}, "Expm1": {Expm1, math.Expm1}, "Log": {Log, math.Log}, "Log1p": {Log1p, math.Log1p},
		"Sin": {Sin, math.Sin}, "Cos": {Cos, math.Cos}, "Tan": {Tan, math.Tan}, "Tanh": {Tanh, math.Tanh},
		"Rsqrt": {Rsqrt, func(x float64) float64 { return 1 / math.Sqrt(x) }},
	}
	for name, f := range unary {
		for _, x := range xs {
			got, want := f[0](x), f[1](x)
			special := x != x || math.IsInf(x, 0) || x == 0 || math.IsInf(want, 0) || want != want
			if special && !numerics.Same(got, want) {
				t.Errorf("%s(%g) = %g, want %g", name, x, got, want)
			}
		}
	}
	ys := []float64{nan, inf, -inf, 0, nz, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 2.5, 1e300, -1e300, 1e-300}
	for _, x := range xs {
		for _, y := range ys {
			got, want := Pow(x, y), math.Pow(x, y)
			special := x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 ||
				want != want || math.IsInf(want, 0) || want == 0
			if special && !numerics.Same(got, want) {
				t.Errorf("Pow(%g, %g) = %g, want %g", x, y, got, want)
			}
			if !special && numerics.ULP64(got, want) > 1 && math.Abs(y) < 10 {
				t.Errorf("Pow(%g, %g) = %g, math.Pow %g", x, y, got, want)
			}
		}
	}
}

// TestAgainstMath: on random arguments package math is within a few ulps
// (usually correctly rounded): a check of the reference's plumbing.
func TestAgainstMath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	check := func(name string, got, want float64, tol int64, args ...float64) {
		t.Helper()
		if d := numerics.ULP64(got, want); d > tol {
			t.Errorf("%s%v = %g, math gives %g (%d ulp)", name, args, got, want, d)
		}
	}
	for range n {
		x := r.NormFloat64() * math.Pow(10, float64(r.IntN(8)-4))
		check("Exp", Exp(x), math.Exp(x), 1, x)
		check("Expm1", Expm1(x), math.Expm1(x), 1, x)
		check("Sin", Sin(x), math.Sin(x), 2, x)
		check("Cos", Cos(x), math.Cos(x), 2, x)
		check("Tan", Tan(x), Sin(x)/Cos(x), 2, x) // math.Tan is x below 1e-7
		check("Tanh", Tanh(x), math.Tanh(x), 2, x)
		ax := math.Abs(x)
		check("Log", Log(ax), math.Log(ax), 1, ax)
		check("Log1p", Log1p(ax), math.Log1p(ax), 1, ax)
		if ax < 1 {
			check("Log1p", Log1p(-ax), math.Log1p(-ax), 1, -ax)
		}
		check("Rsqrt", Rsqrt(ax), 1/math.Sqrt(ax), 2, ax)
		y := r.NormFloat64() * 8
		check("Pow", Pow(ax, y), math.Pow(ax, y), 40, ax, y)
		xs := math.Float64frombits(r.Uint64() &^ (1 << 63))
		if !math.IsInf(xs, 0) && xs == xs && xs >= 0x1p-1022 { // math.Log is wrong on subnormals
			check("Log", Log(xs), math.Log(xs), 1, xs)
			check("Rsqrt", Rsqrt(xs), 1/math.Sqrt(xs), 2, xs)
		}
	}
}

// TestTrigHuge: sin, cos and tan at huge arguments against values
// computed elsewhere (sin 10**22 is the classic) and against each other.
func TestTrigHuge(t *testing.T) {
	if got := Sin(1e22); got != -0.8522008497671888 {
		t.Errorf("Sin(1e22) = %v, want -0.8522008497671888", got)
	}
	if got := Cos(1e22); got != 0.523214785395139 {
		t.Errorf("Cos(1e22) = %v, want 0.523214785395139", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		x := math.Ldexp(1+r.Float64(), r.IntN(1023))
		s, c, tn := Sin(x), Cos(x), Tan(x)
		if d := math.Abs(s*s + c*c - 1); d > 1e-15 {
			t.Errorf("x = %g: sin² + cos² − 1 = %g", x, d)
		}
		if d := numerics.ULP64(tn, s/c); d > 3 {
			t.Errorf("Tan(%g) = %g, sin/cos = %g", x, tn, s/c)
		}
		if got := Sin(-x); got != -s {
			t.Errorf("Sin(-x) = %g, want %g", got, -s)
		}
	}
	// math.Sin is within 1 ulp up to 2**29 (Cody-Waite in Go).
	for range 500 {
		x := r.Float64() * (1 << 28)
		if d := numerics.ULP64(Sin(x), math.Sin(x)); d > 2 {
			t.Errorf("Sin(%g) = %g, math.Sin %g", x, Sin(x), math.Sin(x))
		}
	}
}

// TestPowExact: results that are doubles or midpoints between two doubles
// are rounded exactly (ties to even).
func TestPowExact(t *testing.T) {
	exact := func(x float64, n int) float64 { // xⁿ rounded once, via big
		v := new(big.Float).SetPrec(4000).SetFloat64(x)
		p := new(big.Float).SetPrec(4000).SetFloat64(1)
		for range n {
			p.Mul(p, v)
		}
		f, _ := p.Float64()
		return f
	}
	cases := []struct{ x, y, want float64 }{
		{134217727, 2, exact(134217727, 2)},                           // a 54-bit odd square: a tie
		{262143 * 262143, 1.5, exact(262143, 3)},                      // 262143³ by a half-integer exponent
		{3 * math.Ldexp(1, -215), 5, exact(3*math.Ldexp(1, -215), 5)}, // a subnormal tie
		{0.5, 1075, 0}, // 2**−1075: ties to 0
		{0.5, 1074, 5e-324},
		{2, 1023, math.Ldexp(1, 1023)},
		{2, 1024, math.Inf(1)},
		{4, 0.5, 2},
		{4, -0.5, 0.5},
		{16, 0.25, 2},
		{16, -0.75, 0.125},
		{9, 1.5, 27},
		{-3, 3, -27},
		{-3, 4, 81},
		{10, 22, 1e22},
		{10, -5, 1e-5},
	}
	for _, c := range cases {
		if got := Pow(c.x, c.y); !numerics.Same(got, c.want) {
			t.Errorf("Pow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	// (1 − 2**−53)**(2**53) = e**−1·(1 − 2**−54 …): within an ulp of 1/e.
	if got := Pow(1-math.Ldexp(1, -53), math.Ldexp(1, 53)); numerics.ULP64(got, math.Exp(-1)) > 1 {
		t.Errorf("Pow(1−2**−53, 2**53) = %v, want ≈ %v", got, math.Exp(-1))
	}
	for i := range 200 {
		x := float64(i + 2)
		for n := 2; n < 40; n++ {
			want := exact(x, n)
			if got := Pow(x, float64(n)); got != want {
				t.Fatalf("Pow(%v, %d) = %v, want %v", x, n, got, want)
			}
		}
	}
}
