package simd

import "math"

// AxpyFMA32 computes dst[i] = x[i]·a + dst[i] rounded once (a fused
// multiply-add, as VFMADD231PS lane by lane) for i < len(dst); x must be
// at least as long. Convolution's matrix product accumulates its rows
// with it, so each output element's sum takes one rounding per step in
// a stated order (kernels/doc.go).
func AxpyFMA32(dst []float32, a float32, x []float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = fma32(v, a, dst[i])
	}
}

// AxpyFMA64 computes dst[i] = x[i]·a + dst[i] rounded once (math.FMA)
// for i < len(dst); x must be at least as long.
func AxpyFMA64(dst []float64, a float64, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = math.FMA(v, a, dst[i])
	}
}

// FMA32 is x·y + z rounded once to float32 (C's fmaf).
func FMA32(x, y, z float32) float32 { return fma32(x, y, z) }
