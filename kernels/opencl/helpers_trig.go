package opencl

// f64 sin, cos and tan, the same on every device (OpenCL lets a device's
// double sin be 4 ulps off, and PoCL's is 1.3 ulps off at best): the CPU
// backend's algorithm (internal/simd sinF64, cosF64: a double-double
// Cody–Waite reduction exact through fma, then Cephes polynomials), so the
// bits are the CPU's; beyond 2^48, where the CPU falls back on Go's
// math.Sin (up to ~100 ulps off), a Payne–Hanek reduction. Measured within
// 0.64 ulp for sin and cos at ordinary arguments, 1.14 ulps at huge ones,
// and 1.9 for tan = sin/cos (TestTranscendentalAccuracy). f32, f16 and
// bf16 computed through them are correctly rounded but for rare ties.

func defTrigHelpers() {
	defHelper("go_trig_frac", `
__constant ulong go_mPi4[20] = {
	0x0000000000000001UL, 0x45f306dc9c882a53UL, 0xf84eafa3ea69bb81UL, 0xb6c52b3278872083UL,
	0xfca2c757bd778ac3UL, 0x6e48dc74849ba5c0UL, 0x0c925dd413a32439UL, 0xfc3bd63962534e7dUL,
	0xd1046bea5d768909UL, 0xd338e04d68befc82UL, 0x7323ac7306a673e9UL, 0x3908bf177bf25076UL,
	0x3ff12fffbc0b301fUL, 0xde5e2316b414da3eUL, 0xda6cfd9e4f96136eUL, 0x9e8c7ecd3cbfd45aUL,
	0xea4f758fd7cbe2f6UL, 0x7a0e73ef14a525d4UL, 0xd7f6bf623f1aba10UL, 0xac06608df8f6d757UL};
inline ulong go_shl(ulong v, uint s) { return s >= 64 ? 0UL : v << s; }
inline ulong go_shr(ulong v, uint s) { return s >= 64 ? 0UL : v >> s; }
// Go's trigReduce: x >= Pi/4 reduced modulo Pi/4 with 4/Pi to 1280 bits;
// returns the octant in *j and the reduced argument as a fraction of Pi/4
// in (-1, 1). Unlike Go, the 125-bit
// fraction is kept whole: mapping an odd octant (f - 1) negates it exactly
// in integers, where Go's 64-bit double loses up to hundreds of ulps to the
// cancellation.
inline double go_trig_frac(double x, ulong *j) {
	ulong ix = as_ulong(x);
	const int ex = (int)((ix >> 52) & 0x7FF) - 1023 - 52;
	ix = (ix & ((1UL << 52) - 1)) | (1UL << 52);
	const uint digit = (uint)(ex + 61) / 64, bs = (uint)(ex + 61) % 64;
	const ulong z0 = go_shl(go_mPi4[digit], bs) | go_shr(go_mPi4[digit + 1], 64 - bs);
	const ulong z1 = go_shl(go_mPi4[digit + 1], bs) | go_shr(go_mPi4[digit + 2], 64 - bs);
	const ulong z2 = go_shl(go_mPi4[digit + 2], bs) | go_shr(go_mPi4[digit + 3], 64 - bs);
	const ulong z2hi = mul_hi(z2, ix), z1hi = mul_hi(z1, ix), z1lo = z1 * ix, z0lo = z0 * ix;
	ulong lo = z1lo + z2hi;
	ulong hi = z0lo + z1hi + (lo < z1lo ? 1UL : 0UL);
	ulong jj = hi >> 61;
	hi &= (1UL << 61) - 1; // the fraction f = hi:lo, 125 bits
	int neg = 0;
	if (jj & 1) { // map zeros to origin: f - 1 = -(2^125 - f)
		lo = ~lo + 1;
		hi = (~hi + (lo == 0 ? 1UL : 0UL)) & ((1UL << 61) - 1);
		jj = (jj + 1) & 7;
		neg = 1;
	}
	*j = jj;
	const uint lz = hi != 0 ? (uint)clz(hi) - 3 : 61 + (uint)clz(lo); // leading zeros of the 125 bits
	if (lz >= 125) return 0.0;
	const uint sh = lz + 3; // bring the leading 1 to bit 127 of hi:lo
	const ulong top = sh >= 64 ? go_shl(lo, sh - 64) : go_shl(hi, sh) | go_shr(lo, 64 - sh);
	const double z = ldexp((double)top, -(int)(64 + lz));
	return neg ? -z : z;
}
`, true)
	defHelper("kiln_sincos", `
// Kiln's f64 sin and cos, as the CPU backend computes them
// (internal/simd sinF64, cosF64): |x| - j*Pi/4 (j even) as a double-double
// hi + lo, exact with fma, then the Cephes polynomials with lo's first-order
// terms. Beyond 2^48 (where the CPU calls Go's math.Sin) the Payne-Hanek
// fraction above is used.
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
	ulong jj;
	const double f = go_trig_frac(ax, &jj);
	*j = (int)jj;
	const double A = 0x1.921fb54442d18p-01, B = 0x1.1a62633145c07p-55;
	const double ph = f * A, pl = fma(f, A, -ph) + f * B;
	const double hi = ph + pl;
	return (double2)(hi, pl - (hi - ph));
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
}`, true, "go_trig_frac")
	defHelper("kiln_tan", `
// f64 tan on kiln_sincos's reduction: sin r / cos r, or -cos r / sin r in
// the odd quadrants (tan(r + Pi/2) = -cot r).
inline double kiln_tan(double x) {
	if (isnan(x)) return x + x;
	if (isinf(x)) return NAN;
	if (x == 0) return x;
	int j;
	const double2 r = kiln_reduce(fabs(x), &j);
	const double s = kiln_sincos_poly(r.x, r.y, 0), c = kiln_sincos_poly(r.x, r.y, 2);
	const double t = (j & 2) ? -c / s : s / c;
	return x < 0 ? -t : t;
}`, true, "kiln_sincos")
}
