package bigmath

import (
	"math"
	"testing"
)

// Known values, and agreement with package math where it is good to a few
// ulps: the references the accuracy tests of internal/xmath trust.
func TestInverseFunctionsKnownValues(t *testing.T) {
	pi := round(Pi(refPrec))
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"asin(1/2)", Asin(0.5), pi / 6},
		{"acos(1/2)", Acos(0.5), 1.0471975511965979}, // π/3 rounded
		{"acos(-1)", Acos(-1), pi},
		{"atan(1)", Atan(1), pi / 4},
		{"atan2(1, -1)", Atan2(1, -1), 2.356194490192345},
		{"exp2(1/2)", Exp2(0.5), math.Sqrt2},
		{"exp2(-1074)", Exp2(-1074), math.SmallestNonzeroFloat64},
		{"log2(8)", Log2(8), 3},
		{"log10(1000)", Log10(1000), 3},
		{"log10(1e22)", Log10(1e22), 22},
		{"cbrt(-27)", Cbrt(-27), -3},
		{"hypot(3, 4)", Hypot(3, 4), 5},
		{"sinh(ln 2)", Sinh(math.Ln2), 0.75},
		{"cosh(ln 2)", Cosh(math.Ln2), 1.25},
		{"asinh(3/4)", Asinh(0.75), math.Ln2},
		{"acosh(5/4)", Acosh(1.25), math.Ln2},
		{"atanh(1/3)", Atanh(1.0 / 3), 0.34657359027997264}, // ln 2 / 2, for 1/3 rounded
		{"erf(0)", Erf(0), 0},
		{"erfc(0)", Erfc(0), 1},
		{"erfinv(erf(0.5))", Erfinv(Erf(0.5)), 0.5},
	} {
		if math.Abs(c.got-c.want) > 2*ulpOf(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, x := range []float64{-5.5, -2, -0.3, 1e-9, 0.7, 1.5, 3.2, 5.9} {
		if d := math.Abs(Erf(x) - math.Erf(x)); d > 2*ulpOf(math.Erf(x)) {
			t.Errorf("erf(%v) = %v, math.Erf %v", x, Erf(x), math.Erf(x))
		}
		if d := math.Abs(Erfc(x) - math.Erfc(x)); d > 4*ulpOf(math.Erfc(x)) {
			t.Errorf("erfc(%v) = %v, math.Erfc %v", x, Erfc(x), math.Erfc(x))
		}
	}
}

func ulpOf(x float64) float64 {
	if x == 0 {
		return math.SmallestNonzeroFloat64
	}
	return math.Abs(math.Nextafter(x, math.Inf(1)) - x)
}
