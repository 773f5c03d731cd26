package numerics

import "math"

// FMA32 is x·y + z with one rounding to float32 (round to nearest, ties
// to even), as an FMA instruction computes it. The product is exact in
// float64 (24+24 bits); the sum is formed in float64 rounded to odd — its
// last bit set when inexact — and rounding a round-to-odd result with at
// least two more bits than float32's 24 to float32 is correctly rounded
// (Boldo and Melquiond, "When double rounding is odd", 2005).
func FMA32(x, y, z float32) float32 {
	p, c := float64(x)*float64(y), float64(z)
	s := p + c
	if math.IsInf(s, 0) || math.IsNaN(s) || s == 0 {
		return float32(s)
	}
	// TwoSum: s + e is exactly p + c.
	pp := s - c
	e := (p - pp) + (c - (s - pp))
	if b := math.Float64bits(s); e != 0 && b&1 == 0 {
		if (e > 0) == (s > 0) {
			b++ // away from zero
		} else {
			b--
		}
		s = math.Float64frombits(b)
	}
	return float32(s)
}

// FMA32FTZ is FMA32 with its result flushed to a zero of its sign when it
// is tiny, as x86 does under MXCSR.FTZ (and VDPBF16PS always does):
// tininess is decided after rounding to 24 bits with an unbounded
// exponent, so a result that rounds to ±2⁻¹²⁶ with gradual underflow
// but to just below it with an unbounded exponent is flushed too. That
// case is decided again with z and the smaller factor scaled by 2⁶⁴:
// exact, and far from overflow (a sum this close to 2⁻¹²⁶ that is not
// zero has both terms below 2⁻⁷⁸, as its bits must reach down there).
func FMA32FTZ(x, y, z float32) float32 {
	r := FMA32(x, y, z)
	a := math.Abs(float64(r))
	switch {
	case a > 0x1p-126 || a == 0 || r != r:
		return r
	case a < 0x1p-126:
		return float32(math.Copysign(0, float64(r)))
	}
	if math.Abs(float64(x)) > math.Abs(float64(y)) {
		x, y = y, x
	}
	if s := FMA32(x*0x1p64, y, z*0x1p64); math.Abs(float64(s)) < 0x1p-62 {
		return float32(math.Copysign(0, float64(r)))
	}
	return r
}

// DAZ32 reads an f32 subnormal as a zero of its sign, as x86 does under
// MXCSR.DAZ (and VDPBF16PS always does with its inputs).
func DAZ32(x float32) float32 {
	if x != 0 && math.Abs(float64(x)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(x)))
	}
	return x
}
