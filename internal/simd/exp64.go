package simd

import "math"

// float64 exp and log: the fdlibm algorithms (Sun Microsystems, e_exp.c and
// e_log.c, as in Go's pure-Go math.Exp and math.Log), with their published
// minimax coefficients; tanh: Cephes tanh.c's rational function (as Go's
// math.Tanh). The polynomial steps are math.FMA, one VFMADD…PD in the
// vector code; the other products round on their own, in both.

const (
	log2eF64  = 1.44269504088896338700e+00
	ln2HiF64  = 6.93147180369123816490e-01 // ln 2 = Hi + Lo, Hi with 32 significant bits
	ln2LoF64  = 1.90821492927058770002e-10
	expMinF64 = -708.0 // e**x is normal from here ...
	expMaxF64 = 708.0  // ... to here, with 2**k in range
	// e**x overflows above expInfF64 and underflows to 0 below expZeroF64
	// (fdlibm's thresholds).
	expInfF64  = 7.09782712893383973096e+02
	expZeroF64 = -7.45133219101941108420e+02
)

// fdlibm exp: R(r²) ≈ r·(e**r + 1)/(e**r − 1) − 2 on |r| ≤ ln2/2, degree 5
// in r², error below 2**−59.
var expPF64 = [...]float64{4.13813679705723846039e-08, -1.65339022054652515390e-06, 6.61375632143793436117e-05,
	-2.77777777770155933842e-03, 1.66666666666666657415e-01}

// expF64 is e**x. The polynomial covers [−708, 708]; NaN, overflow and
// underflow to 0 are settled in the vector too. In between, the same
// kernel runs with 2**k applied in two exact steps, as fdlibm does (Go's
// math.Exp is not used: on amd64 it overflows to +Inf from about 709.4,
// short of the true threshold 709.78).
func expF64(x float64) float64 {
	switch {
	case x >= expMinF64 && x <= expMaxF64:
		return expCoreF64(x)
	case x != x:
		return x + x
	case x > expInfF64:
		return math.Inf(1)
	case x < expZeroF64:
		return 0
	}
	k := math.RoundToEven(x * log2eF64)
	_, u := expKernelF64(x)
	y := 1 - u
	if k > 0 {
		return float64(y*math.Float64frombits(uint64(int64(k)+1022)<<52)) * 2
	}
	return float64(y*math.Float64frombits(uint64(int64(k)+1023+1000)<<52)) * 0x1p-1000
}

// expCoreF64 evaluates fdlibm exp for x in [−708, 708]: x = k·ln2 + r with
// k = round(x·log2 e) (ties to even), r = hi − lo exactly split, then
// e**r = 1 − u with u = (lo − r·c/(2 − c)) − hi, c = r − r²·P(r²), scaled
// by 2**k.
func expCoreF64(x float64) float64 {
	scale, u := expKernelF64(x)
	return float64((1 - u) * scale)
}

// expKernelF64 returns 2**k and u, e**x = 2**k·(1 − u) before the last
// rounding (logistic keeps that precision). 2**k is only valid (normal) in
// the vector domain.
func expKernelF64(x float64) (scale, u float64) {
	k := math.RoundToEven(x * log2eF64)
	hi := x - float64(k*ln2HiF64)
	lo := float64(k * ln2LoF64)
	r := hi - lo
	t := r * r
	p := expPF64[0]
	for _, c := range expPF64[1:] {
		p = math.FMA(p, t, c)
	}
	c := r - float64(t*p)
	u = (lo - (r*c)/(2-c)) - hi
	return math.Float64frombits(uint64(int64(k)+1023) << 52), u
}

// fdlibm log: ln(1+f) = 2s + s·R(s²) with s = f/(2+f), R split into odd and
// even powers of s² (L1..L7), error below 2**−58.45.
var logLF64 = [...]float64{6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
	2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01}

const minNormalF64 = 0x1p-1022

// logF64 is ln x. The polynomial covers the positive normal floats; a
// subnormal is scaled into them by 2**54, as fdlibm does (Go's math.Log is
// not used: on amd64 it is wrong on subnormals, −709.09 for 5e−324). Every
// case, ±0, negatives, +Inf and NaN included, is settled in the vector.
func logF64(x float64) float64 {
	switch {
	case x >= minNormalF64 && x <= math.MaxFloat64:
		return logCoreF64(x, 0)
	case x > 0 && x < minNormalF64:
		return logCoreF64(x*0x1p54, 54)
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return nanF64
	}
	return x + x // +Inf, NaN
}

// nanF64 is the NaN of invalid operations: math.NaN().
var nanF64 = math.Float64frombits(0x7ff8000000000001)

// logCoreF64 is ln(x·2**−scale) for a normal x.
func logCoreF64(x float64, scale int64) float64 {
	b := math.Float64bits(x)
	k := float64(int64(b>>52) - 1022 - scale)
	m := math.Float64frombits(b&(1<<52-1) | 0x3fe0000000000000) // [0.5, 1)
	if m < math.Sqrt2/2 {
		m = m + m
		k = k - 1
	}
	f := m - 1
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	L := &logLF64
	odd := math.FMA(s4, L[6], L[4])
	odd = math.FMA(s4, odd, L[2])
	odd = math.FMA(s4, odd, L[0])
	even := math.FMA(s4, L[5], L[3])
	even = math.FMA(s4, even, L[1])
	R := float64(s2*odd) + float64(s4*even)
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2HiF64) - ((hfsq - (float64(s*(hfsq+R)) + float64(k*ln2LoF64))) - f)
}

// Cephes tanh: tanh x ≈ x + x·x²·P(x²)/Q(x²) for |x| < 0.625.
var (
	tanhPF64 = [...]float64{-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3}
	tanhQF64 = [...]float64{1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3}
)

// tanhF64 is tanh x on |x| (clamped to 20, where tanh rounds to 1) with the
// sign put back: 1 − 2/(e**2|x| + 1) from 0.625 on, the rational function
// below; NaN gives x + x (quiet, payload kept).
func tanhF64(x float64) float64 {
	if x != x {
		return x + x
	}
	b := math.Float64bits(x)
	z := math.Float64frombits(b &^ (1 << 63))
	z = min(z, 20)
	var t float64
	if z >= 0.625 {
		s := expCoreF64(z + z)
		t = 1 - 2/(s+1)
	} else {
		s := float64(z * z)
		p := math.FMA(tanhPF64[0], s, tanhPF64[1])
		p = math.FMA(p, s, tanhPF64[2])
		q := s + tanhQF64[0]
		q = math.FMA(q, s, tanhQF64[1])
		q = math.FMA(q, s, tanhQF64[2])
		t = z + float64(z*s)*p/q
	}
	return math.Float64frombits(math.Float64bits(t) | b&(1<<63))
}

// logisticF64 is 1/(1 + e**−x), with x clamped to 40 (where it rounds to
// 1). The denominator 1 + 2**k·(1 − u) is summed exactly as a
// double-double (two TwoSums) and divided with one Newton correction
// (FMA), so the result's error is the exp kernel's (< 0.5 ulp) plus the last
// rounding; plain 1/(1 + exp(−x)) reaches 2 ulp. Below −708 the result is
// e**x to far less than an ulp: 0 below the underflow threshold (settled
// in the vector, as NaN), else the scalar exp.
func logisticF64(x float64) float64 {
	switch {
	case x >= expMinF64:
	case x != x:
		return x + x
	case x < expZeroF64:
		return 0
	default:
		return expF64(x)
	}
	x = min(x, 40)
	scale, u := expKernelF64(-x)
	s1, t1 := twoSum(1, scale)
	s2, t2 := twoSum(s1, -float64(scale*u))
	dl := t1 + t2
	q := 1 / s2
	e := math.FMA(-q, s2, 1)
	e = math.FMA(-q, dl, e)
	return math.FMA(q, e, q)
}

// twoSum returns s = a + b rounded and its exact error (Knuth).
func twoSum(a, b float64) (s, err float64) {
	s = a + b
	bb := s - a
	err = (a - (s - bb)) + (b - bb)
	return s, err
}
