package numerics

import "math"

// F32ToF16Bits rounds x to IEEE binary16, to nearest with ties to even,
// in integer arithmetic on the bits: overflow gives ±Inf, a NaN stays NaN
// (quiet, sign and top ten payload bits kept), as F16C's VCVTPS2PH.
func F32ToF16Bits(x float32) uint16 {
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
			return sign // below half the smallest subnormal (2^-25 exactly rounds to 0 by ties-to-even)
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
		h++ // a carry into the exponent is the right answer, up to Inf
	}
	return sign | uint16(h)
}

// F16BitsToF32 widens binary16 bits to float32, exactly; a NaN keeps its
// sign and payload and becomes quiet (as F16C's VCVTPH2PS).
func F16BitsToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f && mant == 0:
		return math.Float32frombits(sign | 0x7f800000)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7fc00000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// A subnormal: normalize the mantissa.
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// F32ToBF16Bits rounds x to bfloat16 (the top half of a float32), to
// nearest with ties to even: add half an ulp minus one plus the lowest
// kept bit. A NaN stays NaN (quiet, sign and top payload bits kept).
func F32ToBF16Bits(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16 | 0x40)
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16BitsToF32 widens bfloat16 bits to float32, exactly.
func BF16BitsToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
