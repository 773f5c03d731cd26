package opencl

import "github.com/kiln-go/kiln/tensor"

// Complex values are float2/double2 (.x real, .y imaginary). Multiplication
// and division compute in the part type (internal/reference's definition:
// (ac − bd) + (ad + bc)i, and NumPy's Smith division). abs, sign, sqrt and
// the transcendentals are math/cmplx's complex128 algorithms, ported below
// to double (zsqrt, zexp, …) and applied to the widened value, parts then
// rounded to the part type — so c64 needs cl_khr_fp64 for them. sqrt and
// abs use only correctly rounded operations and match the CPU bit for bit;
// the others call the device's double exp/log/… (and Go's sin and cos,
// helpers_trig.go, as math/cmplx does) and are within the docs/SPEC.md §3 bounds.

func defComplexHelpers() {
	for _, d := range []tensor.DType{tensor.C64, tensor.C128} {
		fp64 := d == tensor.C128
		defHelper("cmul_"+ct(d).sfx, expand(`
inline $T cmul_$S($T a, $T b) { return ($T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }`, d), fp64)
		defHelper("cdiv_"+ct(d).sfx, expand(`
// NumPy's complex division (Smith's algorithm, then a reciprocal scale).
inline $T cdiv_$S($T a, $T b) {
	const $P br = fabs(b.x), bi = fabs(b.y);
	if (br >= bi) {
		if (br == 0 && bi == 0) return ($T)(a.x / br, a.y / br);
		const $P rat = b.y / b.x, scl = $ONE / (b.x + b.y * rat);
		return ($T)((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
	}
	const $P rat = b.x / b.y, scl = $ONE / (b.y + b.x * rat);
	return ($T)((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}`, d), fp64)
	}
	defHelper("hypot_go", `
// Go's math.Hypot: max * sqrt(1 + (min/max)^2), Inf beating NaN.
inline double hypot_go(double p, double q) {
	p = fabs(p);
	q = fabs(q);
	if (isinf(p) || isinf(q)) return INFINITY;
	if (isnan(p) || isnan(q)) return NAN;
	if (p < q) { const double t = p; p = q; q = t; }
	if (p == 0) return 0.0;
	q = q / p;
	return p * sqrt(1 + q * q);
}`, true)
	defHelper("zsqrt", `
// math/cmplx.Sqrt.
inline double2 zsqrt(double2 x) {
	if (x.y == 0) {
		if (x.x == 0) return (double2)(0.0, x.y);
		if (x.x < 0) return (double2)(0.0, copysign(sqrt(-x.x), x.y));
		return (double2)(sqrt(x.x), x.y);
	} else if (isinf(x.y)) {
		return (double2)(INFINITY, x.y);
	}
	if (x.x == 0) {
		if (x.y < 0) { const double r = sqrt(-0.5 * x.y); return (double2)(r, -r); }
		const double r = sqrt(0.5 * x.y);
		return (double2)(r, r);
	}
	double a = x.x, b = x.y, scale;
	if (fabs(a) > 4 || fabs(b) > 4) {
		a *= 0.25; b *= 0.25; scale = 2;
	} else {
		a *= 1.8014398509481984e16; b *= 1.8014398509481984e16; scale = 7.450580596923828125e-9;
	}
	double r = hypot_go(a, b), t;
	if (a > 0) {
		t = sqrt(0.5 * r + 0.5 * a);
		r = scale * fabs((0.5 * b) / t);
		t *= scale;
	} else {
		r = sqrt(0.5 * r - 0.5 * a);
		t = scale * fabs((0.5 * b) / r);
		r *= scale;
	}
	return b < 0 ? (double2)(t, -r) : (double2)(t, r);
}`, true, "hypot_go")
	defHelper("zexp", `
// math/cmplx.Exp.
inline double2 zexp(double2 x) {
	const double re = x.x, im = x.y;
	if (isinf(re)) {
		if (re > 0 && im == 0) return x;
		if (isinf(im) || isnan(im)) return re < 0 ? (double2)(0.0, copysign(0.0, im)) : (double2)(INFINITY, NAN);
	} else if (isnan(re) && im == 0) {
		return (double2)(NAN, im);
	}
	const double r = exp(re);
	return (double2)(r * go_cos(im), r * go_sin(im));
}`, true, "go_sin", "go_cos")
	defHelper("zlog", `
// math/cmplx.Log.
inline double2 zlog(double2 x) { return (double2)(log(hypot_go(x.x, x.y)), atan2(x.y, x.x)); }`, true, "hypot_go")
	defHelper("zsinhcosh", `
inline void zsinhcosh(double x, double *sh, double *ch) {
	if (fabs(x) <= 0.5) { *sh = sinh(x); *ch = cosh(x); return; }
	double e = exp(x);
	const double ei = 0.5 / e;
	e *= 0.5;
	*sh = e - ei;
	*ch = e + ei;
}`, true)
	defHelper("zsin", `
// math/cmplx.Sin.
inline double2 zsin(double2 x) {
	const double re = x.x, im = x.y;
	if (im == 0 && (isinf(re) || isnan(re))) return (double2)(NAN, im);
	if (isinf(im)) {
		if (re == 0) return x;
		if (isinf(re) || isnan(re)) return (double2)(NAN, im);
	} else if (re == 0 && isnan(im)) {
		return x;
	}
	double sh, ch;
	zsinhcosh(im, &sh, &ch);
	return (double2)(go_sin(re) * ch, go_cos(re) * sh);
}`, true, "zsinhcosh", "go_sin", "go_cos")
	defHelper("zcos", `
// math/cmplx.Cos.
inline double2 zcos(double2 x) {
	const double re = x.x, im = x.y;
	if (im == 0 && (isinf(re) || isnan(re))) return (double2)(NAN, -im * copysign(0.0, re));
	if (isinf(im)) {
		if (re == 0) return (double2)(INFINITY, -re * copysign(0.0, im));
		if (isinf(re) || isnan(re)) return (double2)(INFINITY, NAN);
	} else if (re == 0 && isnan(im)) {
		return (double2)(NAN, 0.0);
	}
	double sh, ch;
	zsinhcosh(im, &sh, &ch);
	return (double2)(go_cos(re) * ch, -go_sin(re) * sh);
}`, true, "zsinhcosh", "go_sin", "go_cos")
	defHelper("zreduce_pi", `
__constant ulong zmPi[20] = {
	0x0000000000000000UL, 0x517cc1b727220a94UL, 0xfe13abe8fa9a6ee0UL, 0x6db14acc9e21c820UL,
	0xff28b1d5ef5de2b0UL, 0xdb92371d2126e970UL, 0x0324977504e8c90eUL, 0x7f0ef58e5894d39fUL,
	0x74411afa975da242UL, 0x74ce38135a2fbf20UL, 0x9cc8eb1cc1a99cfaUL, 0x4e422fc5defc941dUL,
	0x8ffc4bffef02cc07UL, 0xf79788c5ad05368fUL, 0xb69b3f6793e584dbUL, 0xa7a31fb34f2ff516UL,
	0xba93dd63f5f2f8bdUL, 0x9e839cfbc5294975UL, 0x35fdafd88fc6ae84UL, 0x2b0198237e3db5d5UL};
inline ulong zshl(ulong v, uint s) { return s >= 64 ? 0UL : v << s; }
inline ulong zshr(ulong v, uint s) { return s >= 64 ? 0UL : v >> s; }
// math/cmplx's reducePi: x reduced to [-Pi/2, Pi/2] (Payne-Hanek for large x).
inline double zreduce_pi(double x) {
	if (fabs(x) < 1073741824.0) {
		double t = x / M_PI;
		t += 0.5;
		t = (double)(long)t;
		return ((x - t * 3.141592502593994) - t * 1.5099578831723193e-07) - t * 1.0780605716316238e-14;
	}
	ulong ix = as_ulong(x);
	const int ex = (int)((ix >> 52) & 0x7FF) - 1023 - 52;
	ix = (ix & ((1UL << 52) - 1)) | (1UL << 52);
	const uint digit = (uint)(ex + 64) / 64, bs = (uint)(ex + 64) % 64;
	const ulong z0 = zshl(zmPi[digit], bs) | zshr(zmPi[digit + 1], 64 - bs);
	const ulong z1 = zshl(zmPi[digit + 1], bs) | zshr(zmPi[digit + 2], 64 - bs);
	const ulong z2 = zshl(zmPi[digit + 2], bs) | zshr(zmPi[digit + 3], 64 - bs);
	const ulong z2hi = mul_hi(z2, ix), z1hi = mul_hi(z1, ix), z1lo = z1 * ix, z0lo = z0 * ix;
	const ulong lo = z1lo + z2hi;
	ulong hi = z0lo + z1hi + (lo < z1lo ? 1UL : 0UL);
	const uint lz = (uint)clz(hi);
	const ulong e = (ulong)(1023 - (lz + 1));
	hi = zshl(hi, lz + 1) | zshr(lo, 64 - (lz + 1));
	hi >>= 64 - 52;
	hi |= e << 52;
	x = as_double(hi);
	if (x > 0.5) x--;
	return M_PI * x;
}`, true)
	defHelper("ztan_series", `
// math/cmplx's tanSeries: cos(2x)+cosh(2y) by its Taylor series near the poles.
inline double ztan_series(double2 z) {
	double x = zreduce_pi(fabs(2 * z.x)), y = fabs(2 * z.y);
	x = x * x;
	y = y * y;
	double x2 = 1, y2 = 1, f = 1, rn = 0, d = 0, t;
	for (;;) {
		rn++; f *= rn; rn++; f *= rn;
		x2 *= x; y2 *= y;
		t = y2 + x2; t /= f; d += t;
		rn++; f *= rn; rn++; f *= rn;
		x2 *= x; y2 *= y;
		t = y2 - x2; t /= f; d += t;
		if (!(fabs(t / d) > 0x1p-53)) break;
	}
	return d;
}`, true, "zreduce_pi")
	defHelper("ztan", `
// math/cmplx.Tan.
inline double2 ztan(double2 x) {
	const double re = x.x, im = x.y;
	if (isinf(im)) {
		if (isinf(re) || isnan(re)) return (double2)(copysign(0.0, re), copysign(1.0, im));
		return (double2)(copysign(0.0, go_sin(2 * re)), copysign(1.0, im));
	}
	if (re == 0 && isnan(im)) return x;
	double d = go_cos(2 * re) + cosh(2 * im);
	if (fabs(d) < 0.25) d = ztan_series(x);
	if (d == 0) return (double2)(INFINITY, INFINITY);
	return (double2)(go_sin(2 * re) / d, sinh(2 * im) / d);
}`, true, "ztan_series", "go_sin", "go_cos")
	defHelper("ztanh", `
// math/cmplx.Tanh.
inline double2 ztanh(double2 x) {
	const double re = x.x, im = x.y;
	if (isinf(re)) {
		if (isinf(im) || isnan(im)) return (double2)(copysign(1.0, re), copysign(0.0, im));
		return (double2)(copysign(1.0, re), copysign(0.0, go_sin(2 * im)));
	}
	if (im == 0 && isnan(re)) return x;
	const double d = cosh(2 * re) + go_cos(2 * im);
	if (d == 0) return (double2)(INFINITY, INFINITY);
	return (double2)(sinh(2 * re) / d, go_sin(2 * im) / d);
}`, true, "go_sin", "go_cos")
	defHelper("zpow", `
// math/cmplx.Pow.
inline double2 zpow(double2 x, double2 y) {
	if (x.x == 0 && x.y == 0) {
		if (!isinf(y.x) && !isinf(y.y) && (isnan(y.x) || isnan(y.y))) return (double2)(NAN, NAN);
		if (y.x == 0) return (double2)(1.0, 0.0);
		if (y.x < 0) return y.y == 0 ? (double2)(INFINITY, 0.0) : (double2)(INFINITY, INFINITY);
		if (y.x > 0) return (double2)(0.0, 0.0);
		return (double2)(NAN, NAN);
	}
	const double modulus = hypot_go(x.x, x.y);
	if (modulus == 0) return (double2)(0.0, 0.0);
	double r = pow(modulus, y.x);
	const double arg = atan2(x.y, x.x);
	double theta = y.x * arg;
	if (y.y != 0) {
		r *= exp(-y.y * arg);
		theta += y.y * log(modulus);
	}
	return (double2)(r * go_cos(theta), r * go_sin(theta));
}`, true, "hypot_go", "go_sin", "go_cos")
	defComplexOps()
}

// defComplexOps defines the per-dtype entry points the kernels call.
func defComplexOps() {
	unary := []struct{ name, body, dep string }{
		{"csqrt", "zsqrt(w)", "zsqrt"},
		{"cexp", "zexp(w)", "zexp"},
		{"clog", "zlog(w)", "zlog"},
		{"clog1p", "zlog((double2)(1.0 + w.x, 0.0 + w.y))", "zlog"},
		{"cexpm1", "zexpm1(w)", "zexpm1"},
		{"crsqrt", "cdiv_c128((double2)(1.0, 0.0), zsqrt(w))", "zsqrt"},
		{"csin", "zsin(w)", "zsin"},
		{"ccos", "zcos(w)", "zcos"},
		{"ctan", "ztan(w)", "ztan"},
		{"ctanh", "ztanh(w)", "ztanh"},
		{"clogistic", "zlogistic(w)", "zlogistic"},
	}
	defHelper("zexpm1", `
inline double2 zexpm1(double2 w) { const double2 e = zexp(w); return (double2)(e.x - 1.0, e.y - 0.0); }`, true, "zexp")
	defHelper("zlogistic", `
inline double2 zlogistic(double2 w) { const double2 e = zexp(-w); return cdiv_c128((double2)(1.0, 0.0), (double2)(1.0 + e.x, 0.0 + e.y)); }`, true, "zexp", "cdiv_c128")
	for _, d := range []tensor.DType{tensor.C64, tensor.C128} {
		widen, narrow := "z", "r"
		if d == tensor.C64 {
			widen, narrow = "convert_double2(z)", "convert_float2(r)"
		}
		for _, u := range unary {
			defHelper(u.name+"_"+ct(d).sfx, expand("inline $T "+u.name+"_$S($T z) { const double2 w = "+widen+"; const double2 r = "+u.body+"; return "+narrow+"; }", d),
				true, u.dep, "cdiv_c128")
		}
		defHelper("cpow_"+ct(d).sfx, expand("inline $T cpow_$S($T a, $T b) { const double2 r = zpow(convert_double2(a), convert_double2(b)); return "+narrow+"; }", d), true, "zpow")
		defHelper("cabs_"+ct(d).sfx, expand("inline $P cabs_$S($T z) { return ($P)hypot_go((double)z.x, (double)z.y); }", d), true, "hypot_go")
		defHelper("csign_"+ct(d).sfx, expand(`
// z / |z| part by part; 0 for 0.
inline $T csign_$S($T z) {
	if (z.x == 0 && z.y == 0) return ($T)(0, 0);
	const $P a = cabs_$S(z);
	return ($T)(z.x / a, z.y / a);
}`, d), true, "cabs_"+ct(d).sfx)
	}
}
