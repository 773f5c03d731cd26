package opencl

// sin, cos and tan of f64 (and of f32, f16, bf16 computed through double)
// are the CPU backend's algorithms, ported so that the bits match it
// exactly on every device (OpenCL lets a device's double sin be 4 ulps off,
// and PoCL's cos(9.2e18) is not Go's):
//
//   - sin and cos: internal/simd's sinF64 and cosF64 (a double-double
//     Cody-Waite reduction exact through fma, then Cephes polynomials),
//     within 0.64 ulp; beyond 2^48 Go's math.Sin and math.Cos;
//   - tan, and the sin and cos inside the complex functions: Go's math.Tan,
//     Sin and Cos (Cephes; Payne-Hanek reduction from 2^29).
//
// Go's Payne-Hanek keeps a 64-bit fraction and loses up to hundreds of ulps
// to cancellation at huge arguments (sin(2e21) is 93 ulps off, tan(3e15)
// 325) and math.Tan reaches 2.1 ulps at ordinary ones; SPEC section 3's 1
// ulp would need that fixed on the CPU first, the definition both backends
// share (TestTranscendentalAccuracy logs it).

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
	defHelper("go_tan", `
// Go's math.Tan.
inline double go_tan(double x) {
	if (x == 0 || isnan(x)) return x;
	if (isinf(x)) return NAN;
	int sign = 0;
	if (x < 0) { x = -x; sign = 1; }
	ulong j;
	const double z = go_trig_arg(x, &j);
	const double zz = z * z;
	double y = z;
	if (zz > 1e-14)
		y = z + z * (zz * ((-1.30936939181383777646e4 * zz + 1.15351664838587416140e6) * zz + -1.79565251976484877988e7) /
			((((zz + 1.36812963470692954678e4) * zz + -1.32089234440210967447e6) * zz + 2.50083801823357915839e7) * zz + -5.38695755929454629881e7));
	if (j & 2) y = -1 / y;
	return sign ? -y : y;
}`, true, "go_trig_reduce")
	defHelper("kiln_sincos", `
// Kiln's f64 sin and cos, as the CPU backend computes them
// (internal/simd sinF64, cosF64): |x| - j*Pi/4 (j even) as a double-double
// hi + lo, exact with fma, then the Cephes polynomials with lo's first-order
// terms. Beyond 2^48 the CPU calls Go's math.Sin and math.Cos, and so do
// these.
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
	*j = -1; // beyond 2^48: Go's math.Sin and math.Cos, as the CPU backend
	return (double2)(0.0, 0.0);
}
inline double kiln_sincos_poly(double hi, double lo, int j) {
	const double z = hi * hi;
	if ((j & 2) == 0) {
		double p = 1.58962301576546568060e-10;
		p = p * z + -2.50507477628578072866e-8;
		p = p * z + 2.75573136213857245213e-6;
		p = p * z + -1.98412698295895385996e-4;
		p = p * z + 8.33333333332211858878e-3;
		p = p * z + -1.66666666666666307295e-1;
		return hi + ((hi * z) * p + lo);
	}
	double p = -1.13585365213876817300e-11;
	p = p * z + 2.08757008419747316778e-9;
	p = p * z + -2.75573141792967388112e-7;
	p = p * z + 2.48015872888517045348e-5;
	p = p * z + -1.38888888888730564116e-3;
	p = p * z + 4.16666666666665929218e-2;
	const double hz = 0.5 * z, w = 1 - hz;
	return w + (((1 - w) - hz) + ((z * z) * p - hi * lo));
}
inline double kiln_sin(double x) {
	if (isnan(x)) return x + x;
	if (isinf(x)) return NAN;
	int j;
	const double2 r = kiln_reduce(fabs(x), &j);
	if (j < 0) return go_sin(x);
	const ulong sign = (as_ulong(x) & (1UL << 63)) ^ ((ulong)(j & 4) << 61);
	return as_double(as_ulong(kiln_sincos_poly(r.x, r.y, j)) ^ sign);
}
inline double kiln_cos(double x) {
	if (isnan(x)) return x + x;
	if (isinf(x)) return NAN;
	int j;
	const double2 r = kiln_reduce(fabs(x), &j);
	if (j < 0) return go_cos(x);
	j += 2;
	return as_double(as_ulong(kiln_sincos_poly(r.x, r.y, j)) ^ ((ulong)(j & 4) << 61));
}`, true, "go_sin", "go_cos")
}
