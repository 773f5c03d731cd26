package simd

import "math"

// Min and Max follow IEEE 754-2019 minimum and maximum: a NaN operand gives
// that NaN (a's when both are NaN), and −0 < +0.

// Equal operands are the same value or ±0: OR-ing their bits picks −0 for
// the minimum, AND-ing picks +0 for the maximum, and leaves others alone.

func minF32(a, b float32) float32 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a < b:
		return a
	case b < a:
		return b
	}
	return math.Float32frombits(math.Float32bits(a) | math.Float32bits(b))
}

func maxF32(a, b float32) float32 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a > b:
		return a
	case b > a:
		return b
	}
	return math.Float32frombits(math.Float32bits(a) & math.Float32bits(b))
}

func minF64(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a < b:
		return a
	case b < a:
		return b
	}
	return math.Float64frombits(math.Float64bits(a) | math.Float64bits(b))
}

func maxF64(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a > b:
		return a
	case b > a:
		return b
	}
	return math.Float64frombits(math.Float64bits(a) & math.Float64bits(b))
}

func minF32Go(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = minF32(a[i], b[i])
	}
}

func maxF32Go(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = maxF32(a[i], b[i])
	}
}

func minF64Go(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = minF64(a[i], b[i])
	}
}

func maxF64Go(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = maxF64(a[i], b[i])
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
