package xmath

import "math"

// Pow returns xʸ with package math's special cases (math.Pow's list: NaN,
// ±Inf, ±0, x = ±1, y = ±0, ±1, 0.5 …), so only the finite results of
// ordinary arguments differ from math.Pow, which loses several ulps on
// large results and all accuracy on some subnormal x
// (math.Pow(5e-324, -0.49999999999999994) is 9.48e153, not 4.50e161).
//
// The algorithm is fdlibm's __ieee754_pow (e_pow.c, 2004, Sun
// Microsystems; see the notice on powCore): log2|x| in two pieces t1 + t2
// (t1 with 29 trailing zero bits), y·log2|x| = n + y' by simulated
// multiple precision with |y'| ≤ 1/2, then 2**n·2**y' with a minimax
// polynomial. One fix to fdlibm: for |y| > 2**31 and x within 2**−20 of
// 1, the product ivln2_h·t it takes as exact is not (hundreds of ulps
// lost); FMA recovers its rounding error. Within 1 ulp of the correctly
// rounded result (TestAccuracy, TestPowHard: over- and underflow
// thresholds, subnormal results, x next to 1 with huge y, integer powers);
// results in the subnormal range are rounded twice (to 53 bits, then by
// the scaling), still within 1 ulp.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Pow(x, y) // exact special values
	case y == 0.5:
		return math.Sqrt(x)
	case y == 2:
		return x * x
	case y == -1:
		return 1 / x
	case x == -1:
		return math.Pow(x, y) // ±1 for integers, NaN otherwise
	}
	return powCore(x, y)
}

const (
	two53  = 9007199254740992.0          // 0x43400000, 0x00000000
	powL1  = 5.99999999999994648725e-01  // 0x3FE33333, 0x33333303
	powL2  = 4.28571428578550184252e-01  // 0x3FDB6DB6, 0xDB6FABFF
	powL3  = 3.33333329818377432918e-01  // 0x3FD55555, 0x518F264D
	powL4  = 2.72728123808534006489e-01  // 0x3FD17460, 0xA91D4101
	powL5  = 2.30660745775561754067e-01  // 0x3FCD864A, 0x93C9DB65
	powL6  = 2.06975017800338417784e-01  // 0x3FCA7E28, 0x4A454EEF
	powP1  = 1.66666666666666019037e-01  // 0x3FC55555, 0x5555553E
	powP2  = -2.77777777770155933842e-03 // 0xBF66C16C, 0x16BEBD93
	powP3  = 6.61375632143793436117e-05  // 0x3F11566A, 0xAF25DE2C
	powP4  = -1.65339022054652515390e-06 // 0xBEBBBD41, 0xC5D26BF1
	powP5  = 4.13813679705723846039e-08  // 0x3E663769, 0x72BEA4D0
	lg2    = 6.93147180559945286227e-01  // 0x3FE62E42, 0xFEFA39EF
	lg2H   = 6.93147182464599609375e-01  // 0x3FE62E43, 0x00000000
	lg2L   = -1.90465429995776804525e-09 // 0xBE205C61, 0x0CA86C39
	ovt    = 8.0085662595372944372e-17   // −(1024 − log2(ovfl + .5ulp))
	cp     = 9.61796693925975554329e-01  // 0x3FEEC709, 0xDC3A03FD = 2/(3 ln 2)
	cpH    = 9.61796700954437255859e-01  // 0x3FEEC709, 0xE0000000 = (float)cp
	cpL    = -7.02846165095275826516e-09 // 0xBE3E2FE0, 0x145B01F5 = tail of cpH
	ivln2  = 1.44269504088896338700e+00  // 0x3FF71547, 0x652B82FE = 1/ln 2
	ivln2H = 1.44269502162933349609e+00  // 0x3FF71547, 0x60000000 = 24 bits of 1/ln 2
	ivln2L = 1.92596299112661746887e-08  // 0x3E54AE0B, 0xF85DDF44 = 1/ln 2 tail
)

var (
	powBp = [2]float64{1.0, 1.5}
	powDh = [2]float64{0.0, 5.84962487220764160156e-01} // 0x3FE2B803, 0x40000000
	powDl = [2]float64{0.0, 1.35003920212974897128e-08} // 0x3E4CFDEB, 0x43CFD006
)

func high(x float64) int32 { return int32(math.Float64bits(x) >> 32) }
func low(x float64) uint32 { return uint32(math.Float64bits(x)) }

// withHigh is x with its high 32 bits replaced by h (SET_HIGH_WORD).
func withHigh(x float64, h int32) float64 {
	return math.Float64frombits(uint64(uint32(h))<<32 | uint64(low(x)))
}

// powCore is fdlibm's __ieee754_pow for finite x ∉ {0, ±1} and finite
// y ∉ {0, 1}, ported with every product rounded explicitly:
//
//	Copyright (C) 2004 by Sun Microsystems, Inc. All rights reserved.
//
//	Permission to use, copy, modify, and distribute this
//	software is freely granted, provided that this notice
//	is preserved.
func powCore(x, y float64) float64 {
	hx, hy := high(x), high(y)
	ix, iy := hx&0x7fffffff, hy&0x7fffffff

	// yisint: 0 y is not an integer, 1 an odd one, 2 an even one.
	yisint := 0
	if hx < 0 && y == math.Trunc(y) {
		yisint = 2
		if math.Abs(y) < 1<<53 && int64(y)&1 == 1 {
			yisint = 1
		}
	}
	if hx < 0 && yisint == 0 {
		return math.NaN() // (x<0)**(non-int)
	}
	s := 1.0 // the sign of the result
	if hx < 0 && yisint == 1 {
		s = -1
	}
	ax := math.Abs(x)

	var t1, t2 float64
	if iy > 0x41e00000 { // |y| > 2**31
		if iy > 0x43f00000 { // |y| > 2**64: must overflow or underflow
			if ix <= 0x3fefffff {
				if hy < 0 {
					return math.Inf(1)
				}
				return 0
			}
			if hy > 0 {
				return math.Inf(1)
			}
			return 0
		}
		// over- or underflow if x is not close to one
		if ix < 0x3fefffff {
			if hy < 0 {
				return s * math.Inf(1)
			}
			return s * 0
		}
		if ix > 0x3ff00000 {
			if hy > 0 {
				return s * math.Inf(1)
			}
			return s * 0
		}
		// |1 − x| ≤ 2**−20: log(x) by x − x²/2 + x³/3 − x⁴/4
		t := ax - 1 // t has 20 trailing zeros
		w := float64(float64(t*t) * (0.5 - float64(t*(0.3333333333333333333333-float64(t*0.25)))))
		// fdlibm assumes ivln2H·t exact ("ivln2_h has 21 sig. bits"),
		// but ivln2H has 24 and t up to 33: the product loses up to
		// 2**−53 relative, which |y| > 2**31 turns into hundreds of ulps.
		// Its rounding error, exact with FMA, goes into v.
		u := float64(ivln2H * t)
		v := (float64(t*ivln2L) + math.FMA(ivln2H, t, -u)) - float64(w*ivln2)
		t1 = clearLow(u + v)
		t2 = v - (t1 - u)
	} else {
		n := int32(0)
		if ix < 0x00100000 { // subnormal x
			ax *= two53
			n -= 53
			ix = high(ax)
		}
		n += ix>>20 - 0x3ff
		j := ix & 0x000fffff
		// the interval: |x| < √(3/2), < √3, or the next binade
		ix = j | 0x3ff00000
		k := 0
		switch {
		case j <= 0x3988E:
			k = 0
		case j < 0xBB67A:
			k = 1
		default:
			k = 0
			n++
			ix -= 0x00100000
		}
		ax = withHigh(ax, ix)

		// ss = s_h + s_l = (x − 1)/(x + 1) or (x − 1.5)/(x + 1.5)
		u := ax - powBp[k]
		v := 1 / (ax + powBp[k])
		ss := float64(u * v)
		sH := clearLow(ss)
		// tH = ax + bp[k], high part
		tH := withHigh(0, (ix>>1|0x20000000)+0x00080000+int32(k)<<18)
		tL := ax - (tH - powBp[k])
		sL := float64(v * ((u - float64(sH*tH)) - float64(sH*tL)))
		// log(ax)
		s2 := float64(ss * ss)
		r := float64(float64(s2*s2) * (powL1 + float64(s2*(powL2+float64(s2*(powL3+float64(s2*(powL4+float64(s2*(powL5+float64(s2*powL6)))))))))))
		r += float64(sL * (sH + ss))
		s2 = float64(sH * sH)
		tH = clearLow(3.0 + s2 + r)
		tL = r - ((tH - 3.0) - s2)
		// u + v = ss·(1 + …)
		u = float64(sH * tH)
		v = float64(sL*tH) + float64(tL*ss)
		// 2/(3 log 2)·(ss + …)
		pH := clearLow(u + v)
		pL := v - (pH - u)
		zH := float64(cpH * pH) // cpH + cpL = 2/(3 log 2)
		zL := float64(cpL*pH) + float64(pL*cp) + powDl[k]
		// log2(ax) = (ss + …)·2/(3 log 2) = n + dp_h + z_h + z_l
		t := float64(n)
		t1 = clearLow(((zH + zL) + powDh[k]) + t)
		t2 = zL - (((t1 - t) - powDh[k]) - zH)
	}

	// y = y1 + y2; (y1 + y2)·(t1 + t2)
	y1 := clearLow(y)
	pL := float64((y-y1)*t1) + float64(y*t2)
	pH := float64(y1 * t1)
	z := pL + pH
	j, i := high(z), low(z)
	if j >= 0x40900000 { // z ≥ 1024
		if uint32(j-0x40900000)|i != 0 || pL+ovt > z-pH {
			return s * math.Inf(1) // overflow
		}
	} else if j&0x7fffffff >= 0x4090cc00 { // z ≤ −1075
		if uint32(j)-0xc090cc00|i != 0 || pL <= z-pH {
			return s * 0 // underflow
		}
	}

	// 2**(pH + pL)
	ii := j & 0x7fffffff
	k := ii>>20 - 0x3ff
	n := int32(0)
	if ii > 0x3fe00000 { // |z| > 0.5: n = [z + 0.5]
		n = j + 0x00100000>>(k+1)
		k = (n&0x7fffffff)>>20 - 0x3ff // the new k for n
		t := withHigh(0, n&^(0x000fffff>>k))
		n = (n&0x000fffff | 0x00100000) >> (20 - k)
		if j < 0 {
			n = -n
		}
		pH -= t
	}
	t := clearLow(pL + pH)
	u := float64(t * lg2H)
	v := float64((pL-(t-pH))*lg2) + float64(t*lg2L)
	z = u + v
	w := v - (z - u)
	t = float64(z * z)
	t1 = z - float64(t*(powP1+float64(t*(powP2+float64(t*(powP3+float64(t*(powP4+float64(t*powP5)))))))))
	r := float64(z*t1)/(t1-2) - (w + float64(z*w))
	z = 1 - (r - z)
	if high(z)+n<<20 >= 1<<20 {
		z = withHigh(z, high(z)+n<<20)
	} else {
		z = math.Ldexp(z, int(n)) // subnormal result
	}
	return s * z
}
