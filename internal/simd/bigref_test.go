package simd_test

import "github.com/kiln-go/kiln/internal/bigmath"

// The high-precision reference the accuracy tests hold the float64
// transcendentals to (see package bigmath).
var (
	refExp      = bigmath.Exp
	refLog      = bigmath.Log
	refTanh     = bigmath.Tanh
	refLogistic = bigmath.Logistic
)

func refSinCos(x float64, cos bool) float64 {
	if cos {
		return bigmath.Cos(x)
	}
	return bigmath.Sin(x)
}
