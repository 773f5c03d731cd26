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
