package xmath

import "math"

// Tan returns tan x. NaN gives NaN (x + x), ±Inf NaN, ±0 itself.
//
// The argument is reduced with TrigReduce (|x| − j·π/4 as a double-double,
// j even) and tan of the reduced argument, or −1/tan in the odd
// quadrants, is fdlibm's __kernel_tan (k_tan.c 1.5, 04/04/22, Sun
// Microsystems; see the copyright notice on kernelTan), which takes the
// tail lo into account. Within 1 ulp of the correctly rounded result, and
// correctly rounded for most arguments (TestAccuracy, TestTanHard: every
// binade's closest approaches to multiples of π/2 included); math.Tan,
// Cephes', is 2 ulps off at ordinary arguments, hundreds at huge ones.
func Tan(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case x != x:
		return x + x
	case ax > math.MaxFloat64:
		return math.NaN()
	case ax < 0x1p-27:
		return x // tan x = x(1 + x²/3 + …) rounds to x
	}
	hi, lo, j := TrigReduce(ax)
	t := kernelTan(hi, lo, 1-int(j&2))
	if x < 0 {
		t = -t
	}
	return t
}

// The coefficients of fdlibm's k_tan.c: tan x ≈ x + T[0]x³ + … + T[12]x²⁷
// on [0, 0.67434], |tan(x)/x − poly| ≤ 2**−59.2.
var tanT = [13]float64{
	3.33333333333334091986e-01,  // 0x3FD55555, 0x55555563
	1.33333333333201242699e-01,  // 0x3FC11111, 0x1110FE7A
	5.39682539762260521377e-02,  // 0x3FABA1BA, 0x1BB341FE
	2.18694882948595424599e-02,  // 0x3F9664F4, 0x8406D637
	8.86323982359930005737e-03,  // 0x3F8226E3, 0xE96E8493
	3.59207910759131235356e-03,  // 0x3F6D6D22, 0xC9560328
	1.45620945432529025516e-03,  // 0x3F57DBC8, 0xFEE08315
	5.88041240820264096874e-04,  // 0x3F4344D8, 0xF2F26501
	2.46463134818469906812e-04,  // 0x3F3026F7, 0x1A8D1068
	7.81794442939557092300e-05,  // 0x3F147E88, 0xA03792A6
	7.14072491382608190305e-05,  // 0x3F12B80F, 0x32F0A7E9
	-1.85586374855275456654e-05, // 0xBEF375CB, 0xDB605373
	2.59073051863633712884e-05,  // 0x3EFB2A70, 0x74BF7AD4
}

const (
	tanPio4   = 7.85398163397448278999e-01 // 0x3FE921FB, 0x54442D18
	tanPio4lo = 3.06161699786838301793e-17 // 0x3C81A626, 0x33145C07
)

// clearLow zeroes the low 32 bits of x (fdlibm's SET_LOW_WORD(x, 0)).
func clearLow(x float64) float64 { return math.Float64frombits(math.Float64bits(x) &^ (1<<32 - 1)) }

// kernelTan is tan(x + y) (iy = 1) or −1/tan(x + y) (iy = −1) for
// |x + y| ≤ ~π/4, y the tail of x: a port of fdlibm's __kernel_tan,
//
//	Copyright 2004 Sun Microsystems, Inc.  All Rights Reserved.
//
//	Permission to use, copy, modify, and distribute this
//	software is freely granted, provided that this notice
//	is preserved.
//
// with every product rounded explicitly. Algorithm (from k_tan.c): for
// |x| ≥ 0.6744, tan x = tan(π/4 − y') = 1 − 2(tan y' − tan²y'/(1 + tan y'));
// tan(x + y) ≈ tan x + (1 + x²)y; −1/(x + r) is formed in two pieces so
// that it too is accurate.
func kernelTan(x, y float64, iy int) float64 {
	hx := int32(math.Float64bits(x) >> 32)
	ix := hx & 0x7fffffff
	if ix < 0x3e300000 { // |x| < 2**−28
		if iy == 1 {
			return x
		}
		if x == 0 {
			return 1 / math.Abs(x) // unreachable: TrigReduce gives x = 0 only in quadrant 0
		}
		// −1/(x + y), carefully
		w := x + y
		z := clearLow(w)
		v := y - (z - x)
		a := -1 / w
		t := clearLow(a)
		s := 1 + float64(t*z)
		return t + float64(a*(s+float64(t*v)))
	}
	big := ix >= 0x3FE59428 // |x| ≥ 0.6744
	if big {
		if hx < 0 {
			x, y = -x, -y
		}
		z := tanPio4 - x
		w := tanPio4lo - y
		x = z + w
		y = 0
	}
	T := &tanT
	z := float64(x * x)
	w := float64(z * z)
	// x⁵(T[1] + x⁴T[3] + … + x²⁰T[11]) + x⁵(x²(T[2] + x⁴T[4] + … + x²⁰T[12]))
	r := T[1] + float64(w*(T[3]+float64(w*(T[5]+float64(w*(T[7]+float64(w*(T[9]+float64(w*T[11])))))))))
	v := float64(z * (T[2] + float64(w*(T[4]+float64(w*(T[6]+float64(w*(T[8]+float64(w*(T[10]+float64(w*T[12])))))))))))
	s := float64(z * x)
	r = y + float64(z*(float64(s*(r+v))+y))
	r += float64(T[0] * s)
	w = x + r
	if big {
		v = float64(iy)
		sign := 1.0
		if hx < 0 {
			sign = -1
		}
		return sign * (v - float64(2.0*(x-(float64(w*w)/(w+v)-r))))
	}
	if iy == 1 {
		return w
	}
	// −1/(x + r), accurately
	z = clearLow(w)
	v = r - (z - x) // z + v = r + x
	a := -1 / w
	t := clearLow(a)
	s = 1 + float64(t*z)
	return t + float64(a*(s+float64(t*v)))
}
