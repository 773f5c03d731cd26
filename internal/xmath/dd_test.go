package xmath

import (
	"math"
	"math/big"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
)

// split is x as a double-double: its nearest double and the nearest double
// to the rest.
func split(x *big.Float) dd {
	hi, _ := x.Float64()
	lo, _ := new(big.Float).SetPrec(x.Prec()).Sub(x, new(big.Float).SetFloat64(hi)).Float64()
	return dd{hi, lo}
}

// The double-double constants are π, π/2, ln 2, 1/ln 2, ln 10 and
// atan(k/64), each to the nearest double-double.
func TestDoubleDoubleConstants(t *testing.T) {
	const p = 400
	pi := bigmath.Pi(p)
	l2 := bigmath.LogBig(big.NewFloat(2), p)
	for _, c := range []struct {
		name string
		got  dd
		want *big.Float
	}{
		{"pi", piDD, pi},
		{"pi/2", halfPiDD, new(big.Float).SetPrec(p).SetMantExp(pi, -1)},
		{"ln2", ln2dd, l2},
		{"1/ln2", invLn2dd, new(big.Float).SetPrec(p).Quo(big.NewFloat(1), l2)},
		{"ln10", ln10dd, bigmath.LogBig(big.NewFloat(10), p)},
	} {
		if w := split(c.want); c.got != w {
			t.Errorf("%s = %v, want %v", c.name, c.got, w)
		}
	}
	for k := range atanTable {
		x := new(big.Float).SetPrec(p).Quo(big.NewFloat(float64(k)), big.NewFloat(64))
		if w := split(bigmath.AtanBig(x, p)); atanTable[k] != w {
			t.Errorf("atanTable[%d] = %v, want %v", k, atanTable[k], w)
		}
	}
}

// Every function agrees with package math at the special arguments — NaN,
// ±Inf, ±0, ±1, the ends of the range — on what kind of value it returns:
// NaN, an infinity or a zero of the same sign, or a finite nonzero number
// (whose bits TestAccuracy checks against math/big; package math's are
// off at some of these, Log10 of the smallest subnormal by 15).
func TestSpecialArguments(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 2, -2, 0.5, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1030, -0x1p-1030, -0x1p-61}
	kind := func(a float64) string {
		switch {
		case a != a:
			return "NaN"
		case math.IsInf(a, 1):
			return "+Inf"
		case math.IsInf(a, -1):
			return "-Inf"
		case a == 0 && math.Signbit(a):
			return "-0"
		case a == 0:
			return "+0"
		}
		return "finite"
	}
	same := func(a, b float64) bool { return kind(a) == kind(b) }
	for _, c := range []struct {
		name string
		f, g func(float64) float64
	}{
		{"Asin", Asin, math.Asin}, {"Acos", Acos, math.Acos}, {"Atan", Atan, math.Atan},
		{"Sinh", Sinh, math.Sinh}, {"Cosh", Cosh, math.Cosh}, {"Asinh", Asinh, math.Asinh},
		{"Acosh", Acosh, math.Acosh}, {"Atanh", Atanh, math.Atanh}, {"Exp2", Exp2, math.Exp2},
		{"Log2", Log2, math.Log2}, {"Log10", Log10, math.Log10}, {"Cbrt", Cbrt, math.Cbrt},
		{"Erf", Erf, math.Erf}, {"Erfc", Erfc, math.Erfc}, {"Erfinv", Erfinv, math.Erfinv},
	} {
		for _, x := range specials {
			if got, want := c.f(x), c.g(x); !same(got, want) {
				t.Errorf("%s(%v) = %v, package math gives %v", c.name, x, got, want)
			}
		}
	}
	for _, x := range specials {
		for _, y := range specials {
			if got, want := Atan2(y, x), math.Atan2(y, x); !same(got, want) {
				t.Errorf("Atan2(%v, %v) = %v, package math gives %v", y, x, got, want)
			}
			if got, want := Hypot(x, y), math.Hypot(x, y); !same(got, want) {
				t.Errorf("Hypot(%v, %v) = %v, package math gives %v", x, y, got, want)
			}
		}
	}
}

// erfc of a tiny negative argument is 1 (its series once never ended for a
// subnormal: every term underflowed to 0, which TestDifferential found).
func TestErfcTiny(t *testing.T) {
	for _, x := range []float64{-math.SmallestNonzeroFloat64, -0x1p-1030, -0x1p-600, -0x1p-61, math.SmallestNonzeroFloat64, 0x1p-61} {
		if got := Erfc(x); got != 1 {
			t.Errorf("Erfc(%g) = %v, want 1", x, got)
		}
	}
	if got, want := Erfc(-0x1p-52), 1+0x1p-52; got != want { // 1 + 2^-52·2/√π rounds to 1 + 2^-52
		t.Errorf("Erfc(-2^-52) = %v, want %v", got, want)
	}
}

// Arguments the million-point run of TestAccuracy once found a result 1 ulp
// off at (subnormal quotients, e^(−y) leaving the normal range in ddLog).
func TestDoubleDoubleRegressions(t *testing.T) {
	if got, want := Atan2(-1e-323, -3.5e-323), bigmath.Atan2(-1e-323, -3.5e-323); got != want {
		t.Errorf("Atan2(-1e-323, -3.5e-323) = %v, want %v", got, want)
	}
	if got, want := Acosh(1.0944512934123729e+308), bigmath.Acosh(1.0944512934123729e+308); got != want {
		t.Errorf("Acosh(1.0944512934123729e+308) = %v, want %v", got, want)
	}
}
