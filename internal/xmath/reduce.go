package xmath

import (
	"math"
	"math/bits"
)

const (
	fourOverPi = 1.27323954473516268615 // 4/π
	// π/4 = pio4A + pio4B + pio4C, each the float64 nearest the rest.
	pio4A = 0x1.921fb54442d18p-01
	pio4B = 0x1.1a62633145c07p-55
	pio4C = -0x1.f1976b7ed8fbcp-111
	// π/2 = pio2A + pio2B to 107 bits.
	pio2A = 0x1.921fb54442d18p+00
	pio2B = 0x1.1a62633145c07p-54

	// CodyWaiteMax is the largest |x| TrigReduce reduces with an int32
	// octant count; internal/simd's vector sin and cos cover this range.
	CodyWaiteMax = 1 << 30
	// PayneHanekMin is where TrigReduce switches from the three-part
	// Cody–Waite reduction to PayneHanek.
	PayneHanekMin = 1 << 48
)

// TrigReduce returns ax − j·π/4 as a double-double hi + lo, for finite
// ax ≥ 0, with j even and hi + lo in about [−π/4, π/4]: sin(ax) is then
// ±sin or ±cos of hi + lo according to j mod 8 (j&2 picks cos, j&4 the
// sign). Only j mod 8 is meaningful (j itself up to CodyWaiteMax).
//
//   - ax ≤ 2**30: j = ⌊ax·4/π⌋ rounded up to even, and ax − j·π/4 with π/4
//     in three parts, the products split exactly with FMA and summed with
//     TwoSum (Cody–Waite) — exactly internal/simd's reduceF64, the twin of
//     its vector kernels.
//   - 2**30 < ax < 2**48: the same with j in a float64; the three-part π/4
//     leaves an error below 2**−115 there.
//   - ax ≥ 2**48: PayneHanek.
//
// The relative error of hi + lo is below 2**−58 up to 2**48 and below
// 2**−75 beyond, even at the doubles closest to multiples of π/2 (no
// float64 comes closer to one than about 2**−61): a few hundredths of an
// ulp of the result at most (TestTrigReduce, TestPayneHanek).
func TrigReduce(ax float64) (hi, lo float64, j int32) {
	switch {
	case ax <= CodyWaiteMax:
		j = int32(ax * fourOverPi)
		j = (j + 1) &^ 1
		hi, lo = reduceBy(ax, float64(j))
		return hi, lo, j
	case ax < PayneHanekMin:
		y := math.Trunc(ax * fourOverPi)
		if math.Mod(y, 2) != 0 {
			y++
		}
		hi, lo = reduceBy(ax, y)
		return hi, lo, int32(math.Mod(y, 8))
	}
	return PayneHanek(ax)
}

// reduceBy returns ax − y·π/4 as hi + lo.
func reduceBy(ax, y float64) (hi, lo float64) {
	ph := float64(y * pio4A)
	pl := math.FMA(y, pio4A, -ph)
	h, l := twoSum(ax-ph, -pl) // ax − ph is exact (Sterbenz)
	qh := float64(y * pio4B)
	ql := math.FMA(y, pio4B, -qh)
	h, l2 := twoSum(h, -qh)
	l = ((l + l2) - ql) - float64(y*pio4C)
	hi = h + l
	lo = l - (hi - h)
	return hi, lo
}

// twoSum returns s + e = a + b exactly, s = fl(a + b) (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// twoOverPi holds the bits of 2/π, most significant first: word 0 is the
// integer part (0), word i ≥ 1 the bits 64(i−1)+1 … 64i after the binary
// point. 1216 bits reach every float64: the reduction of ax = M·2**e reads
// the 192 bits from position e−1 on.
var twoOverPi = [20]uint64{
	0x0000000000000000,
	0xa2f9836e4e441529, 0xfc2757d1f534ddc0, 0xdb6295993c439041, 0xfe5163abdebbc561,
	0xb7246e3a424dd2e0, 0x06492eea09d1921c, 0xfe1deb1cb129a73e, 0xe88235f52ebb4484,
	0xe99c7026b45f7e41, 0x3991d639835339f4, 0x9c845f8bbdf9283b, 0x1ff897ffde05980f,
	0xef2f118b5a0a6d1f, 0x6d367ecf27cb09b7, 0x4f463f669e5fea2d, 0x7527bac7ebe5f17b,
	0x3d0739f78a5292ea, 0x6bfb5fb11f8d5d08, 0x56033046fc7b6bab,
}

// pow2 is 2**k for −1022 ≤ k ≤ 1023.
func pow2(k int) float64 { return math.Float64frombits(uint64(1023+k) << 52) }

// PayneHanek is TrigReduce for finite ax ≥ 2**−10 (it is used from 2**48):
// the Payne–Hanek reduction in integer arithmetic. With ax = M·2**e (M the
// 53-bit integer significand), the bits of 2/π before position e−1 add
// multiples of 4 to ax·2/π and can be dropped; the next 192 bits W give
// ax·2/π mod 4 = M·W·2**−190 (mod 4) with an error below 2**−137. Its top
// two integer bits are the quadrant q; the 190-bit fraction, taken to the
// nearest quadrant (f or f − 1) and normalized, becomes a 106-bit
// double-double (exact conversions) that is multiplied by π/2 in
// double-double with FMA, and j = 2q mod 8. hi + lo is within about
// 2**−137 (absolute) plus 2**−104 (relative) of ax − q·π/2: below 2**−75
// relative even at the doubles closest to a multiple of π/2.
func PayneHanek(ax float64) (hi, lo float64, j int32) {
	b := math.Float64bits(ax)
	e := int(b>>52) - 1075
	m := b&(1<<52-1) | 1<<52
	g := uint(e + 62) // position e−1 of 2/π, counted from word 0's top bit
	d, s := g/64, g%64
	w0 := twoOverPi[d]<<s | twoOverPi[d+1]>>(64-s)
	w1 := twoOverPi[d+1]<<s | twoOverPi[d+2]>>(64-s)
	w2 := twoOverPi[d+2]<<s | twoOverPi[d+3]>>(64-s)
	// P = m·(w0:w1:w2) mod 2**192 = p2:p1:p0
	h2, p0 := bits.Mul64(m, w2)
	h1, l1 := bits.Mul64(m, w1)
	l0 := m * w0
	p1, c := bits.Add64(l1, h2, 0)
	p2 := l0 + h1 + c
	q := p2 >> 62
	// The fraction f = (p2 mod 2**62):p1:p0 / 2**190, taken to the
	// nearest quadrant: f ≥ 1/2 becomes −(1 − f).
	fh, fm, fl := p2&(1<<62-1), p1, p0
	neg := fh>>61 != 0
	if neg {
		q++
		var br uint64
		fl, br = bits.Sub64(0, fl, 0)
		fm, br = bits.Sub64(0, fm, br)
		fh, _ = bits.Sub64(0, fh, br)
		fh &= 1<<62 - 1
	}
	j = int32(q&3) << 1
	// Normalize so that bit 191 is set; the top 106 bits then make the
	// double-double.
	var sh int
	switch {
	case fh != 0:
		sh = bits.LeadingZeros64(fh)
	case fm != 0:
		sh = 64 + bits.LeadingZeros64(fm)
	case fl != 0:
		sh = 128 + bits.LeadingZeros64(fl)
	default:
		return 0, 0, j
	}
	a, c2 := shl192(fh, fm, fl, uint(sh))
	xh := float64(a>>11) * pow2(-51-sh)
	xl := float64((a&(1<<11-1))<<42|c2>>22) * pow2(-104-sh)
	ph := float64(xh * pio2A)
	pl := math.FMA(xh, pio2A, -ph) + (float64(xh*pio2B) + float64(xl*pio2A))
	hi = ph + pl
	lo = pl - (hi - ph)
	if neg {
		hi, lo = -hi, -lo
	}
	return hi, lo, j
}

// shl192 returns the top two words of h:m:l shifted left by s < 192.
func shl192(h, m, l uint64, s uint) (uint64, uint64) {
	for s >= 64 {
		h, m, l = m, l, 0
		s -= 64
	}
	if s == 0 {
		return h, m
	}
	return h<<s | m>>(64-s), m<<s | l>>(64-s)
}
