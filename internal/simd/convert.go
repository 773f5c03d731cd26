package simd

import "math"

// Conversions between float formats and from integers, with docs/SPEC.md §3's
// rounding: to nearest, ties to even, in one step; NaN stays NaN.

func convertGo[D float, S number](dst []D, src []S) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = D(src[i])
	}
}

// f16ToF32Bits widens binary16 bits to float32 bits exactly (a NaN is made
// quiet), as github.com/x448/float16.
func f16ToF32Bits(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f && mant == 0:
		return sign | 0x7f800000
	case exp == 0x1f:
		return sign | 0x7fc00000 | mant<<13
	case exp != 0:
		return sign | (exp+112)<<23 | mant<<13
	case mant == 0:
		return sign
	}
	// A subnormal: normalize the mantissa.
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return sign | e<<23 | (mant&0x3ff)<<13
}

// f32ToF16Bits rounds float32 bits to binary16, to nearest even; the same
// integer algorithm as tensor's reference.
func f32ToF16Bits(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff && mant != 0:
		return sign | 0x7e00 | uint16(mant>>13)
	case exp == 0xff:
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - e)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent is right, up to Inf
	}
	return sign | uint16(h)
}

// f32ToBF16Bits rounds float32 bits to bfloat16: add half an ulp minus one
// plus the lowest kept bit (ties to even); a NaN keeps sign and top payload
// and is made quiet.
func f32ToBF16Bits(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16 | 0x40)
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

func f16ToF32Go(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(f16ToF32Bits(src[i]))
	}
}

func f32ToF16Go(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = f32ToF16Bits(src[i])
	}
}

func roundF16Go(x []float32) {
	for i := range x {
		x[i] = math.Float32frombits(f16ToF32Bits(f32ToF16Bits(x[i])))
	}
}

func bf16ToF32Go(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(src[i]) << 16)
	}
}

func f32ToBF16Go(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = f32ToBF16Bits(src[i])
	}
}

func roundBF16Go(x []float32) {
	for i := range x {
		x[i] = math.Float32frombits(uint32(f32ToBF16Bits(x[i])) << 16)
	}
}
