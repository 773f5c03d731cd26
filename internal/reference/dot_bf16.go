package reference

import (
	"math"

	"github.com/kiln-go/kiln/tensor"
)

// bf16Dot is dot_general's bf16 rule (docs/SPEC.md §3): each result
// element takes its k range in pairs (k = 2j, 2j+1; an odd K is padded
// with one zero product at the end) from +0, and per pair computes
//
//	acc = FTZ(fma(a[2j+1], b[2j+1], acc))
//	acc = FTZ(fma(a[2j], b[2j], acc))
//
// in f32, every bf16 input subnormal read as a zero of its sign (DAZ) and
// every rounded result below the smallest normal f32 flushed to a zero of
// its sign (FTZ). That is VDPBF16PS, the hardware's bf16 dot, step for
// step. The f32 accumulator is the result for an f32 result, else it is
// rounded once to bf16. terms(o) lists result o's lhs and rhs indices in
// k order; an index −1 reads a +0 (a convolution's padding or dilation
// hole, which takes part in the product).
func bf16Dot(a, b []tensor.BFloat16, n int, terms func(o int) (li, ri []int), res tensor.DType, shape []int) (*tensor.Array, error) {
	out := make([]float32, n)
	at := func(x []tensor.BFloat16, idx []int, k int) float32 {
		if k >= len(idx) || idx[k] < 0 {
			return 0
		}
		return daz(x[idx[k]].Float32())
	}
	for o := range out {
		li, ri := terms(o)
		var acc float32
		for k := 0; k < len(li); k += 2 {
			acc = fmaFTZ(at(a, li, k+1), at(b, ri, k+1), acc)
			acc = fmaFTZ(at(a, li, k), at(b, ri, k), acc)
		}
		out[o] = acc
	}
	return narrow(out, res, shape)
}

// daz reads an f32 subnormal as a zero of its sign.
func daz(x float32) float32 {
	if x != 0 && math.Abs(float64(x)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(x)))
	}
	return x
}

// fmaFTZ is x·y + z rounded once to f32 and flushed to a zero of its sign
// when it is tiny. Tininess is decided after rounding to 24 bits with an
// unbounded exponent, as x86 does: a result that rounds up to the
// smallest normal, 2⁻¹²⁶, is kept, one that rounds to a value just below
// it is flushed. The rounding is that of the float64 sum rounded to odd
// (exact for the product of two f32s plus an f32 up to its error, whose
// sign fixes the odd bit), then to 24 bits: correct, as 53 ≥ 24 + 2.
func fmaFTZ(x, y, z float32) float32 {
	p, c := float64(x)*float64(y), float64(z) // the product is exact
	s := p + c
	if math.IsInf(s, 0) || s != s || s == 0 {
		return float32(s)
	}
	pp := s - c
	e := (p - pp) + (c - (s - pp)) // s's error, exact (TwoSum)
	if b := math.Float64bits(s); e != 0 && b&1 == 0 {
		if (e > 0) == (s > 0) {
			b++
		} else {
			b--
		}
		s = math.Float64frombits(b)
	}
	if math.Abs(s) >= 0x1p-125 {
		return float32(s)
	}
	// Near the bottom of the range: round to 24 bits where f32 is normal
	// (scaling by 2⁶⁴ is exact in float64), then scale back.
	r := float32(s * 0x1p64)
	if math.Abs(float64(r)) < 0x1p-62 {
		return float32(math.Copysign(0, s))
	}
	return r * 0x1p-64
}
