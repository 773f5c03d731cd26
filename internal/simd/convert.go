package simd

import "github.com/kiln-go/kiln/internal/numerics"

// Conversions between float formats and from integers, with docs/SPEC.md §3's
// rounding: to nearest, ties to even, in one step; NaN stays NaN.

func convertGo[D float, S number](dst []D, src []S) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = D(src[i])
	}
}

func f16ToF32Go(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = numerics.F16BitsToF32(src[i])
	}
}

func f32ToF16Go(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = numerics.F32ToF16Bits(src[i])
	}
}

func roundF16Go(x []float32) {
	for i := range x {
		x[i] = numerics.F16BitsToF32(numerics.F32ToF16Bits(x[i]))
	}
}

func bf16ToF32Go(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = numerics.BF16BitsToF32(src[i])
	}
}

func f32ToBF16Go(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = numerics.F32ToBF16Bits(src[i])
	}
}

func roundBF16Go(x []float32) {
	for i := range x {
		x[i] = numerics.BF16BitsToF32(numerics.F32ToBF16Bits(x[i]))
	}
}
