package simd

import "math"

// float32 exp, log, tanh and logistic: the Cephes single-precision
// algorithms (Stephen L. Moshier, Cephes Math Library 2.2, expf.c, logf.c,
// tanhf.c), whose published minimax coefficients are used unchanged, with
// the polynomials and the Cody–Waite steps evaluated by fused multiply-adds
// (fma32 here, VFMADD in the vector code, both rounding once). An FMA is
// one instruction where a multiply and an add were two, and its one
// rounding makes the result no less accurate; the float32 kernels are
// latency-bound, so this made them 20-30% faster.

const (
	log2eF32  = 1.44269504088896341
	expC1F32  = 0.693359375 // ln 2 = C1 − C2, C1 with 9 significant bits so k·C1 is exact
	expC2F32  = -2.12194440e-4
	expMinF32 = -87.0 // e**x is normal from here ...
	expMaxF32 = 88.0  // ... to here, and 2**k in range
	// e**x rounds to +Inf from expInfF32 on, and to 0 below expZeroF32.
	expInfF32  = 0x1.62e43p+06   // 88.72284
	expZeroF32 = -0x1.9fe368p+06 // −103.97208
)

// nanF32 is the NaN of invalid operations (log of a negative, sin of ±Inf):
// float32(math.NaN()).
var nanF32 = math.Float32frombits(0x7fc00000)

// Cephes expf: e**r − 1 − r ≈ r²·P(r) on |r| ≤ ln2/2, degree 5, relative
// error about 1e-7.
var expPF32 = [...]float32{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}

// expF32 is e**x. The polynomial covers [−87, 88], where the result is a
// normal float; NaN, overflow to +Inf and underflow to 0 are settled in the
// vector too. The rest (subnormal results, the last bits before overflow)
// stops the vector and takes the float64 exp rounded to float32, correctly
// rounded but for rare double-rounding cases. (The float32 functions fall
// back on the package's float64 ones rather than package math's, whose
// amd64 assembly differs from other platforms' Go code.)
func expF32(x float32) float32 {
	switch {
	case x >= expMinF32 && x <= expMaxF32:
		return expCoreF32(x)
	case x != x:
		return x + x
	case x >= expInfF32:
		return float32(math.Inf(1))
	case x < expZeroF32:
		return 0
	}
	return float32(expF64(float64(x)))
}

// expCoreF32 evaluates Cephes expf for x in [−87, 88] (also reached from
// tanh and logistic): x = k·ln2 + r with k = round(x·log2 e) (ties to even)
// and r reduced in two steps (Cody–Waite), e**r = 1 + r + r²·P(r), and the
// result scaled by 2**k built from its exponent bits.
func expCoreF32(x float32) float32 {
	k := float32(math.RoundToEven(float64(x * log2eF32)))
	r := fma32(-k, expC1F32, x) // k·C1 is exact: r = x − k·C1 rounded
	r = fma32(-k, expC2F32, r)
	p := fma32(expPF32[0], r, expPF32[1])
	for _, c := range expPF32[2:] {
		p = fma32(p, r, c)
	}
	z := r * r
	y := fma32(p, z, r) + 1
	return float32(y * math.Float32frombits(uint32(int32(k)+127)<<23))
}

// Cephes logf: ln(1+f) ≈ f − f²/2 + f³·P(f) on [√½−1, √2−1], degree 8.
var logPF32 = [...]float32{7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
	1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1}

const (
	sqrtHalfF32  = 0.707106781186547524
	minNormalF32 = 0x1p-126
)

// logF32 is ln x. The polynomial covers the positive normal floats; ±0,
// negatives, +Inf and NaN are settled in the vector too, and a positive
// subnormal stops it and takes the float64 log.
func logF32(x float32) float32 {
	switch {
	case x >= minNormalF32 && x <= math.MaxFloat32:
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0:
		return nanF32
	case x != x || x > math.MaxFloat32:
		return x + x
	default:
		return float32(logF64(float64(x)))
	}
	// x = m·2**e with m in [√½, √2): split the bits, and move m below √½
	// up one binade.
	b := math.Float32bits(x)
	fe := float32(int32(b>>23) - 126)
	m := math.Float32frombits(b&0x007fffff | 0x3f000000) // [0.5, 1)
	if m < sqrtHalfF32 {
		m = m + m
		fe = fe - 1
	}
	f := m - 1
	p := fma32(logPF32[0], f, logPF32[1])
	for _, c := range logPF32[2:] {
		p = fma32(p, f, c)
	}
	z := f * f
	y := float32(float32(p*f) * z)
	y = fma32(fe, expC2F32, y) // ln 2 = C1 − C2, the small part first
	y = fma32(-0.5, z, y)
	r := f + y
	return fma32(fe, expC1F32, r) // fe·C1 is exact
}

// Cephes tanhf: tanh x ≈ x + x·x²·P(x²) for |x| < 0.625, degree 4.
var tanhPF32 = [...]float32{-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1}

// tanhF32 is tanh x, computed on |x| (clamped to 10, where tanh rounds to
// 1) with the sign put back: 1 − 2/(e**2|x| + 1) from |x| ≥ 0.625, the odd
// polynomial below; NaN gives x + x (quiet, payload kept).
func tanhF32(x float32) float32 {
	if x != x {
		return x + x
	}
	b := math.Float32bits(x)
	z := math.Float32frombits(b &^ (1 << 31))
	z = min(z, 10)
	var t float32
	if z >= 0.625 {
		s := expCoreF32(z + z)
		t = 1 - 2/(s+1)
	} else {
		z2 := z * z
		p := fma32(tanhPF32[0], z2, tanhPF32[1])
		for _, c := range tanhPF32[2:] {
			p = fma32(p, z2, c)
		}
		t = fma32(float32(p*z2), z, z)
	}
	return math.Float32frombits(math.Float32bits(t) | b&(1<<31))
}

// logisticF32 is 1/(1 + e**−x), with x clamped to 20 (where it rounds to
// 1). Below −87 the result is e**x to well within float32 precision: 0
// below expZeroF32 (settled in the vector, as NaN), else the float64 exp.
func logisticF32(x float32) float32 {
	switch {
	case x >= expMinF32:
		x = min(x, 20)
		return 1 / (1 + expCoreF32(-x))
	case x != x:
		return x + x
	case x < expZeroF32:
		return 0
	}
	return float32(expF64(float64(x)))
}
