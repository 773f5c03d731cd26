package simd

import (
	"math"

	"github.com/kiln-go/kiln/internal/numerics"
)

// Min and Max follow IEEE 754-2019 minimum and maximum: a NaN operand gives
// that NaN (a's when both are NaN), and −0 < +0.

func minF32Go(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = numerics.Minimum(a[i], b[i])
	}
}

func maxF32Go(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = numerics.Maximum(a[i], b[i])
	}
}

func minF64Go(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = numerics.Minimum(a[i], b[i])
	}
}

func maxF64Go(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = numerics.Maximum(a[i], b[i])
	}
}

func sqrtF32Go(dst, a []float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = float32(math.Sqrt(float64(a[i]))) // exact: f64 sqrt rounded to f32 is correctly rounded
	}
}

func sqrtF64Go(dst, a []float64) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = math.Sqrt(a[i])
	}
}
