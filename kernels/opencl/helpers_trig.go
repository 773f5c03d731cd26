package opencl

// sin, cos and tan of f64 (and of f32, f16, bf16 computed through double)
// are the CPU backend's algorithms, ported operation for operation so that
// the bits match it exactly on every device (OpenCL lets a device's double
// sin be 4 ulps off, and PoCL's cos(9.2e18) is not the CPU's):
//
//   - the reduction, kiln_reduce: internal/xmath's TrigReduce (a
//     double-double Cody-Waite reduction exact through fma up to 2^48, a
//     Payne-Hanek reduction with a table of 2/pi bits beyond), shared by
//     sin, cos and tan as on the CPU;
//   - sin and cos: internal/simd's sinF64 and cosF64 polynomials (Cephes,
//     with the tail of the reduction), each step an fma as math.FMA there;
//   - tan: internal/xmath's Tan (fdlibm's __kernel_tan);
//
// all within 1 ulp of the correctly rounded result for every double (docs/SPEC.md
// §3). The sin and cos inside the complex functions are Go's
// math.Sin and math.Cos (go_sin, go_cos), as in the CPU backend's complex
// arithmetic (package math/cmplx).

func defTrigHelpers() {
	defHelper("go_trig_reduce", `
__constant ulong go_mPi4[20] = {
	0x0000000000000001UL, 0x45f306dc9c882a53UL, 0xf84eafa3ea69bb81UL, 0xb6c52b3278872083UL,
	0xfca2c757bd778ac3UL, 0x6e48dc74849ba5c0UL, 0x0c925dd413a32439UL, 0xfc3bd63962534e7dUL,
	0xd1046bea5d768909UL, 0xd338e04d68befc82UL, 0x7323ac7306a673e9UL, 0x3908bf177bf25076UL,
	0x3ff12fffbc0b301fUL, 0xde5e2316b414da3eUL, 0xda6cfd9e4f96136eUL, 0x9e8c7ecd3cbfd45aUL,
	0xea4f758fd7cbe2f6UL, 0x7a0e73ef14a525d4UL, 0xd7f6bf623f1aba10UL, 0xac06608df8f6d757UL};
inline ulong go_shl(ulong v, uint s) { return s >= 64 ? 0UL : v << s; }
inline ulong go_shr(ulong v, uint s) { return s >= 64 ? 0UL : v >> s; }
// Go's trigReduce: x >= 2^29 reduced modulo Pi/4 with 4/Pi to 1280 bits;
// returns the octant in *j and the reduced argument.
inline double go_trig_reduce(double x, ulong *j) {
	const double PI4 = M_PI / 4;
	if (x < PI4) { *j = 0; return x; }
	ulong ix = as_ulong(x);
	const int ex = (int)((ix >> 52) & 0x7FF) - 1023 - 52;
	ix = (ix & ((1UL << 52) - 1)) | (1UL << 52);
	const uint digit = (uint)(ex + 61) / 64, bs = (uint)(ex + 61) % 64;
	const ulong z0 = go_shl(go_mPi4[digit], bs) | go_shr(go_mPi4[digit + 1], 64 - bs);
	const ulong z1 = go_shl(go_mPi4[digit + 1], bs) | go_shr(go_mPi4[digit + 2], 64 - bs);
	const ulong z2 = go_shl(go_mPi4[digit + 2], bs) | go_shr(go_mPi4[digit + 3], 64 - bs);
	const ulong z2hi = mul_hi(z2, ix), z1hi = mul_hi(z1, ix), z1lo = z1 * ix, z0lo = z0 * ix;
	const ulong lo = z1lo + z2hi;
	ulong hi = z0lo + z1hi + (lo < z1lo ? 1UL : 0UL);
	ulong jj = hi >> 61;
	hi = hi << 3 | lo >> 61;
	const uint lz = (uint)clz(hi);
	const ulong e = (ulong)(1023 - (lz + 1));
	hi = go_shl(hi, lz + 1) | go_shr(lo, 64 - (lz + 1));
	hi >>= 64 - 52;
	hi |= e << 52;
	double z = as_double(hi);
	if (jj & 1) { jj++; jj &= 7; z--; }
	*j = jj;
	return z * PI4;
}
// The octant and reduced argument for |x| below or above 2^29.
inline double go_trig_arg(double x, ulong *j) {
	if (x >= 536870912.0) return go_trig_reduce(x, j);
	ulong jj = (ulong)(x * 1.2732395447351628);
	double y = (double)jj;
	if (jj & 1) { jj++; y++; }
	*j = jj;
	return ((x - y * 7.85398125648498535156e-1) - y * 3.77489470793079817668e-8) - y * 2.69515142907905952645e-15;
}
inline double go_sin_poly(double z, double zz) {
	return z + z * zz * ((((((1.58962301576546568060e-10 * zz) + -2.50507477628578072866e-8) * zz + 2.75573136213857245213e-6) * zz + -1.98412698295895385996e-4) * zz + 8.33333333332211858878e-3) * zz + -1.66666666666666307295e-1);
}
inline double go_cos_poly(double zz) {
	return 1.0 - 0.5 * zz + zz * zz * ((((((-1.13585365213876817300e-11 * zz) + 2.08757008419747316778e-9) * zz + -2.75573141792967388112e-7) * zz + 2.48015872888517045348e-5) * zz + -1.38888888888730564116e-3) * zz + 4.16666666666665929218e-2);
}`, true)
	defHelper("go_sin", `
// Go's math.Sin.
inline double go_sin(double x) {
	if (x == 0 || isnan(x)) return x;
	if (isinf(x)) return NAN;
	int sign = 0;
	if (x < 0) { x = -x; sign = 1; }
	ulong j;
	const double z = go_trig_arg(x, &j);
	j &= 7;
	if (j > 3) { sign = !sign; j -= 4; }
	const double zz = z * z;
	const double y = (j == 1 || j == 2) ? go_cos_poly(zz) : go_sin_poly(z, zz);
	return sign ? -y : y;
}`, true, "go_trig_reduce")
	defHelper("go_cos", `
// Go's math.Cos.
inline double go_cos(double x) {
	if (isnan(x) || isinf(x)) return NAN;
	int sign = 0;
	x = fabs(x);
	ulong j;
	const double z = go_trig_arg(x, &j);
	j &= 7;
	if (j > 3) { j -= 4; sign = !sign; }
	if (j > 1) sign = !sign;
	const double zz = z * z;
	const double y = (j == 1 || j == 2) ? go_sin_poly(z, zz) : go_cos_poly(zz);
	return sign ? -y : y;
}`, true, "go_trig_reduce")
	defHelper("kiln_payne_hanek", `
// xmath.PayneHanek: ax >= 2^48 reduced modulo Pi/2 in integer arithmetic.
// With ax = m*2^e, the 192 bits of 2/Pi from position e-1 on give
// ax*2/Pi mod 4 = m*W*2^-190; its top two integer bits are the quadrant,
// the 190-bit fraction (taken to the nearest quadrant) becomes a 106-bit
// double-double times Pi/2. Returns hi + lo = ax - j*Pi/4, j = 2q mod 8.
__constant ulong kiln_2opi[20] = {
	0x0000000000000000UL,
	0xa2f9836e4e441529UL, 0xfc2757d1f534ddc0UL, 0xdb6295993c439041UL, 0xfe5163abdebbc561UL,
	0xb7246e3a424dd2e0UL, 0x06492eea09d1921cUL, 0xfe1deb1cb129a73eUL, 0xe88235f52ebb4484UL,
	0xe99c7026b45f7e41UL, 0x3991d639835339f4UL, 0x9c845f8bbdf9283bUL, 0x1ff897ffde05980fUL,
	0xef2f118b5a0a6d1fUL, 0x6d367ecf27cb09b7UL, 0x4f463f669e5fea2dUL, 0x7527bac7ebe5f17bUL,
	0x3d0739f78a5292eaUL, 0x6bfb5fb11f8d5d08UL, 0x56033046fc7b6babUL};
inline ulong kiln_shl(ulong v, uint s) { return s >= 64 ? 0UL : v << s; }
inline ulong kiln_shr(ulong v, uint s) { return s >= 64 ? 0UL : v >> s; }
inline double kiln_pow2(int k) { return as_double((ulong)(1023 + k) << 52); }
inline double2 kiln_payne_hanek(double ax, int *j) {
	const ulong b = as_ulong(ax);
	const int e = (int)(b >> 52) - 1075;
	const ulong m = (b & 0xFFFFFFFFFFFFFUL) | (1UL << 52);
	const uint g = (uint)(e + 62), d = g / 64, s = g % 64;
	const ulong w0 = kiln_shl(kiln_2opi[d], s) | kiln_shr(kiln_2opi[d + 1], 64 - s);
	const ulong w1 = kiln_shl(kiln_2opi[d + 1], s) | kiln_shr(kiln_2opi[d + 2], 64 - s);
	const ulong w2 = kiln_shl(kiln_2opi[d + 2], s) | kiln_shr(kiln_2opi[d + 3], 64 - s);
	const ulong p0 = m * w2, h2 = mul_hi(m, w2);
	const ulong l1 = m * w1, h1 = mul_hi(m, w1);
	const ulong l0 = m * w0;
	const ulong p1 = l1 + h2;
	const ulong p2 = l0 + h1 + (p1 < l1 ? 1UL : 0UL);
	ulong q = p2 >> 62;
	const ulong mask = (1UL << 62) - 1;
	ulong fh = p2 & mask, fm = p1, fl = p0;
	const int neg = (fh >> 61) != 0;
	if (neg) { // f >= 1/2: -(1 - f), the 190-bit two's complement
		q++;
		const ulong b1 = fl != 0 ? 1UL : 0UL;
		fl = 0UL - fl;
		const ulong b2 = (fm != 0 || b1 != 0) ? 1UL : 0UL;
		fm = 0UL - fm - b1;
		fh = (0UL - fh - b2) & mask;
	}
	*j = (int)(q & 3) << 1;
	uint sh;
	if (fh != 0) sh = (uint)clz(fh);
	else if (fm != 0) sh = 64 + (uint)clz(fm);
	else if (fl != 0) sh = 128 + (uint)clz(fl);
	else return (double2)(0.0, 0.0);
	// the top two words of fh:fm:fl shifted left by sh
	ulong a = fh, c = fm, n = fl;
	uint r = sh;
	while (r >= 64) { a = c; c = n; n = 0; r -= 64; }
	if (r != 0) {
		a = (a << r) | (c >> (64 - r));
		c = (c << r) | (n >> (64 - r));
	}
	const double xh = (double)(a >> 11) * kiln_pow2(-51 - (int)sh);
	const double xl = (double)(((a & 0x7FFUL) << 42) | (c >> 22)) * kiln_pow2(-104 - (int)sh);
	const double A = 0x1.921fb54442d18p+00, B = 0x1.1a62633145c07p-54;
	const double ph = xh * A;
	const double pl = fma(xh, A, -ph) + (xh * B + xl * A);
	const double hi = ph + pl, lo = pl - (hi - ph);
	return neg ? (double2)(-hi, -lo) : (double2)(hi, lo);
}`, true)
	defHelper("kiln_sincos", `
// Kiln's f64 sin and cos, as the CPU backend computes them
// (internal/simd sinF64, cosF64): |x| - j*Pi/4 (j even) as a double-double
// hi + lo (kiln_reduce, xmath.TrigReduce), then the Cephes polynomials
// with lo's first-order terms.
inline double2 kiln_reduce_by(double ax, double y) {
	const double A = 0x1.921fb54442d18p-01, B = 0x1.1a62633145c07p-55, C = -0x1.f1976b7ed8fbcp-111;
	const double ph = y * A, pl = fma(y, A, -ph);
	double a = ax - ph, b = -pl, h = a + b, bb = h - a;
	double l = (a - (h - bb)) + (b - bb);
	const double qh = y * B, ql = fma(y, B, -qh);
	a = h; b = -qh; h = a + b; bb = h - a;
	const double l2 = (a - (h - bb)) + (b - bb);
	l = ((l + l2) - ql) - y * C;
	const double hi = h + l;
	return (double2)(hi, l - (hi - h));
}
inline double2 kiln_reduce(double ax, int *j) {
	if (ax <= 0x1p30) {
		const int jj = ((int)(ax * 1.27323954473516268615) + 1) & ~1;
		*j = jj;
		return kiln_reduce_by(ax, (double)jj);
	}
	if (ax < 0x1p48) {
		double y = trunc(ax * 1.27323954473516268615);
		if (fmod(y, 2.0) != 0) y++;
		*j = (int)fmod(y, 8.0);
		return kiln_reduce_by(ax, y);
	}
	return kiln_payne_hanek(ax, j);
}
inline double kiln_sincos_poly(double hi, double lo, int j) {
	const double z = hi * hi;
	if ((j & 2) == 0) {
		double p = 1.58962301576546568060e-10;
		p = fma(p, z, -2.50507477628578072866e-8);
		p = fma(p, z, 2.75573136213857245213e-6);
		p = fma(p, z, -1.98412698295895385996e-4);
		p = fma(p, z, 8.33333333332211858878e-3);
		p = fma(p, z, -1.66666666666666307295e-1);
		return hi + ((hi * z) * p + lo);
	}
	double p = -1.13585365213876817300e-11;
	p = fma(p, z, 2.08757008419747316778e-9);
	p = fma(p, z, -2.75573141792967388112e-7);
	p = fma(p, z, 2.48015872888517045348e-5);
	p = fma(p, z, -1.38888888888730564116e-3);
	p = fma(p, z, 4.16666666666665929218e-2);
	const double hz = 0.5 * z, w = 1 - hz;
	return w + (((1 - w) - hz) + ((z * z) * p - hi * lo));
}
inline double kiln_sin(double x) {
	if (isnan(x)) return x + x;
	if (isinf(x)) return NAN;
	int j;
	const double2 r = kiln_reduce(fabs(x), &j);
	const ulong sign = (as_ulong(x) & (1UL << 63)) ^ ((ulong)(j & 4) << 61);
	return as_double(as_ulong(kiln_sincos_poly(r.x, r.y, j)) ^ sign);
}
inline double kiln_cos(double x) {
	if (isnan(x)) return x + x;
	if (isinf(x)) return NAN;
	int j;
	const double2 r = kiln_reduce(fabs(x), &j);
	j += 2;
	return as_double(as_ulong(kiln_sincos_poly(r.x, r.y, j)) ^ ((ulong)(j & 4) << 61));
}`, true, "kiln_payne_hanek")
	defHelper("kiln_tan", `
// Kiln's f64 tan, as the CPU backend computes it (internal/xmath Tan):
// kiln_reduce, then fdlibm's __kernel_tan (k_tan.c 1.5, Copyright 2004 Sun
// Microsystems, Inc.: permission to use, copy, modify, and distribute
// this software is freely granted, provided that this notice is
// preserved) on hi + lo, -1/tan in the odd quadrants.
inline double kiln_clear_low(double x) { return as_double(as_ulong(x) & 0xFFFFFFFF00000000UL); }
inline double kiln_kernel_tan(double x, double y, int iy) {
	const int hx = (int)(as_ulong(x) >> 32);
	const int ix = hx & 0x7fffffff;
	double z, r, v, w, s, a, t;
	if (ix < 0x3e300000) { // |x| < 2^-28
		if (iy == 1) return x;
		if (x == 0) return 1 / fabs(x);
		w = x + y;
		z = kiln_clear_low(w);
		v = y - (z - x);
		a = -1 / w;
		t = kiln_clear_low(a);
		s = 1 + t * z;
		return t + a * (s + t * v);
	}
	const int big = ix >= 0x3FE59428; // |x| >= 0.6744
	if (big) {
		if (hx < 0) { x = -x; y = -y; }
		z = 7.85398163397448278999e-01 - x;
		w = 3.06161699786838301793e-17 - y;
		x = z + w;
		y = 0.0;
	}
	z = x * x;
	w = z * z;
	r = 1.33333333333201242699e-01 + w * (2.18694882948595424599e-02 + w * (3.59207910759131235356e-03 +
		w * (5.88041240820264096874e-04 + w * (7.81794442939557092300e-05 + w * -1.85586374855275456654e-05))));
	v = z * (5.39682539762260521377e-02 + w * (8.86323982359930005737e-03 + w * (1.45620945432529025516e-03 +
		w * (2.46463134818469906812e-04 + w * (7.14072491382608190305e-05 + w * 2.59073051863633712884e-05)))));
	s = z * x;
	r = y + z * (s * (r + v) + y);
	r += 3.33333333333334091986e-01 * s;
	w = x + r;
	if (big) {
		v = (double)iy;
		return (hx < 0 ? -1.0 : 1.0) * (v - 2.0 * (x - (w * w / (w + v) - r)));
	}
	if (iy == 1) return w;
	z = kiln_clear_low(w);
	v = r - (z - x);
	a = -1 / w;
	t = kiln_clear_low(a);
	s = 1 + t * z;
	return t + a * (s + t * v);
}
inline double kiln_tan(double x) {
	if (isnan(x)) return x + x;
	if (isinf(x)) return NAN;
	const double ax = fabs(x);
	if (ax < 0x1p-27) return x;
	int j;
	const double2 r = kiln_reduce(ax, &j);
	const double t = kiln_kernel_tan(r.x, r.y, 1 - (j & 2));
	return x < 0 ? -t : t;
}`, true, "kiln_sincos")
}
