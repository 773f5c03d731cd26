package opencl

import (
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The math ops of trace/math.go. Real transcendentals are OpenCL C
// builtins, computed in double for f32 (and f16, bf16) where the device has
// it, as the other transcendentals are: within docs/SPEC.md §3's bounds of
// the CPU's results, not its bits (OpenCL promises 2–4 ulp for the float
// builtins, 16 for some). erf_inv, which OpenCL lacks, is Giles's
// approximation refined by Newton's method on erf and erfc. nextafter of
// f16 and bf16 steps in their own format. The complex forms of the inverse
// trigonometric and hyperbolic functions are math/cmplx's formulas over
// the complex helpers, in double.

// defMathOps registers the math ops' builtins, exact ops and helpers; the
// package's one init (helpers.go) calls it after the helpers it uses.
func defMathOps() {
	for op, name := range map[trace.Op]string{
		trace.OpAsin: "asin", trace.OpAcos: "acos", trace.OpAtan: "atan", trace.OpSinh: "sinh",
		trace.OpCosh: "cosh", trace.OpAsinh: "asinh", trace.OpAcosh: "acosh", trace.OpAtanh: "atanh",
		trace.OpExp2: "exp2", trace.OpLog2: "log2", trace.OpLog10: "log10", trace.OpCbrt: "cbrt",
		trace.OpErf: "erf", trace.OpErfc: "erfc", trace.OpErfInv: "kiln_erfinv",
	} {
		mathNames[op] = name
	}
	for _, op := range []trace.Op{trace.OpCopysign, trace.OpNextafter, trace.OpFmod, trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf, trace.OpBitcastConvert} {
		exactOnNarrow[op] = true
	}
	defMathHelpers()
}

// mathExpr is the expression of a math op, or ok=false for other ops.
func (g *gen) mathExpr(in *lower.Instr, d tensor.DType, a []string) (e string, ok bool) {
	isCplx, isFloat := d.IsComplex(), d.IsFloat()
	wide := d == tensor.F64 || g.doubleTranscendentals
	switch op := in.Op; op {
	case trace.OpAsin, trace.OpAcos, trace.OpAtan, trace.OpSinh, trace.OpCosh, trace.OpAsinh, trace.OpAcosh, trace.OpAtanh,
		trace.OpExp2, trace.OpLog2, trace.OpLog10, trace.OpCbrt, trace.OpErf, trace.OpErfc, trace.OpErfInv:
		if isCplx {
			c := ct(d)
			return g.call("c"+op.String()+"_"+c.sfx, a[0]), true
		}
		if op == trace.OpErfInv {
			if wide {
				g.helpers.use("kiln_erfinv")
			} else {
				g.helpers.use("kiln_erfinvf")
				return "kiln_erfinvf(" + a[0] + ")", true
			}
		}
		return g.transcendental(op, d, a), true
	case trace.OpAtan2, trace.OpHypot:
		name := map[trace.Op]string{trace.OpAtan2: "atan2", trace.OpHypot: "hypot"}[op]
		if wide && d != tensor.F64 {
			return "(float)" + name + "((double)" + a[0] + ", (double)" + a[1] + ")", true
		}
		return name + "(" + a[0] + ", " + a[1] + ")", true
	case trace.OpCopysign:
		return "copysign(" + a[0] + ", " + a[1] + ")", true
	case trace.OpFmod:
		if isFloat {
			return "fmod(" + a[0] + ", " + a[1] + ")", true // exact, also for f16/bf16 in float
		}
		return g.call("fmod_"+ct(d).sfx, a...), true
	case trace.OpNextafter:
		switch d {
		case tensor.F16:
			return g.call("nextafter_f16", a...), true
		case tensor.BF16:
			return g.call("nextafter_bf16", a...), true
		}
		return "(" + a[0] + " == " + a[1] + " ? " + a[1] + " : nextafter(" + a[0] + ", " + a[1] + "))", true // C99: y when equal
	case trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf:
		switch {
		case isCplx && op == trace.OpIsInf:
			return "(uchar)(isinf(" + a[0] + ".x) || isinf(" + a[0] + ".y))", true
		case !isFloat:
			return "(uchar)0", true
		case op == trace.OpIsInf:
			return "(uchar)isinf(" + a[0] + ")", true
		case op == trace.OpIsPosInf:
			return "(uchar)(" + a[0] + " == INFINITY)", true
		}
		return "(uchar)(" + a[0] + " == -INFINITY)", true
	}
	return "", false
}

func defMathHelpers() {
	erfinv := `
// The inverse of erf: Giles's single-precision approximation ("Approximating
// the erfinv function", 2010), then Newton's method, on erf below 1/2 and on
// erfc(x) = 1 - y (exact) above, so results near +/-1 keep their precision.
inline $P kiln_erfinv$F($P y) {
	const $P a = fabs(y);
	if (isnan(y) || a > 1) return ($P)NAN;
	if (a == 1) return copysign(($P)INFINITY, y);
	if (a == 0) return y;
	$P w = -log((1 - a) * (1 + a)), p;
	if (w < 5) {
		w = w - ($P)2.5;
		p = ($P)2.81022636e-08;
		p = ($P)3.43273939e-07 + p * w; p = ($P)-3.5233877e-06 + p * w; p = ($P)-4.39150654e-06 + p * w;
		p = ($P)0.00021858087 + p * w; p = ($P)-0.00125372503 + p * w; p = ($P)-0.00417768164 + p * w;
		p = ($P)0.246640727 + p * w; p = ($P)1.50140941 + p * w;
	} else {
		w = sqrt(w) - 3;
		p = ($P)-0.000200214257;
		p = ($P)0.000100950558 + p * w; p = ($P)0.00134934322 + p * w; p = ($P)-0.00367342844 + p * w;
		p = ($P)0.00573950773 + p * w; p = ($P)-0.0076224613 + p * w; p = ($P)0.00943887047 + p * w;
		p = ($P)1.00167406 + p * w; p = ($P)2.83297682 + p * w;
	}
	$P x = p * a;
	for (int i = 0; i < 3; i++) {
		const $P r = a <= ($P)0.5 ? erf(x) - a : (1 - a) - erfc(x);
		x -= r / (($P)1.1283791670955126 * exp(-x * x));
	}
	return copysign(x, y);
}`
	defHelper("kiln_erfinv", expandP(erfinv, "double", ""), true)
	defHelper("kiln_erfinvf", expandP(erfinv, "float", "f"), false)
	step16 := `
// nextafter in $NAME's own format, on a float holding a $NAME value: step the
// bit pattern (sign and magnitude) toward y.
inline float nextafter_$NAME(float x, float y) {
	if (isnan(x) || isnan(y)) return x + y;
	if (x == y) return y;
	if (x == 0) return $FROM((ushort)(1 | ($BITS(y) & 0x8000)));
	const ushort b = $BITS(x);
	return $FROM((ushort)((x < y) == (x > 0) ? b + 1 : b - 1));
}`
	defHelper("nextafter_f16", replaceAll(step16, "$NAME", "f16", "$BITS", "f16_bits", "$FROM", "f16_to_float"), false, "f16_bits", "f16_to_float")
	defHelper("nextafter_bf16", replaceAll(step16, "$NAME", "bf16", "$BITS", "float_to_bf16", "$FROM", "bf16_to_float"), false, "float_to_bf16", "bf16_to_float")
	for _, d := range tensor.StandardDTypes() {
		switch {
		case d.IsSigned():
			defHelper("fmod_"+ct(d).sfx, expand(`
// C's % (the sign of x); 0 for a zero divisor, and MIN % -1 = 0 as in Go
// (C leaves it undefined).
inline $T fmod_$S($T x, $T y) { return y == 0 || y == -1 ? ($T)0 : ($T)(x % y); }`, d), false)
		case d.IsUnsigned():
			defHelper("fmod_"+ct(d).sfx, expand(`
inline $T fmod_$S($T x, $T y) { return y == 0 ? ($T)0 : ($T)(x % y); }`, d), false)
		}
	}
	defComplexMathHelpers()
}

// expandP writes a helper for part type p ("double" or "float"), suffix f.
func expandP(src, p, f string) string {
	return strings.NewReplacer("$P", p, "$F", f).Replace(src)
}

func replaceAll(src string, oldnew ...string) string {
	return strings.NewReplacer(oldnew...).Replace(src)
}

// defComplexMathHelpers ports math/cmplx's Asin, Acos, Asinh, Acosh, Atan,
// Atanh, Sinh and Cosh (special cases included) to double2, as the other
// complex transcendentals are (helpers_complex.go), and defines exp2, log2
// and log10 from exp and log by scaling parts, as the CPU does.
func defComplexMathHelpers() {
	defHelper("zasin", `
// math/cmplx.Asin.
inline double2 zasin(double2 x) {
	const double re = x.x, im = x.y;
	if (im == 0 && fabs(re) <= 1) return (double2)(asin(re), im);
	if (re == 0 && fabs(im) <= 1) return (double2)(re, asinh(im));
	if (isnan(im)) {
		if (re == 0) return (double2)(re, NAN);
		if (isinf(re)) return (double2)(NAN, re);
		return (double2)(NAN, NAN);
	}
	if (isinf(im)) {
		if (isnan(re)) return x;
		if (isinf(re)) return (double2)(copysign(M_PI / 4, re), im);
		return (double2)(copysign(0.0, re), im);
	}
	if (isinf(re)) return (double2)(copysign(M_PI / 2, re), copysign(re, im));
	const double2 ct = (double2)(-im, re);
	const double2 xx = (double2)(re * re - im * im, re * im + im * re);
	const double2 x2 = zsqrt((double2)(1 - xx.x, -xx.y));
	const double2 w = zlog(ct + x2);
	return (double2)(w.y, -w.x);
}`, true, "zsqrt", "zlog")
	defHelper("zacos", `
// math/cmplx.Acos.
inline double2 zacos(double2 x) { const double2 w = zasin(x); return (double2)(M_PI / 2 - w.x, -w.y); }`, true, "zasin")
	defHelper("zasinh", `
// math/cmplx.Asinh.
inline double2 zasinh(double2 x) {
	const double re = x.x, im = x.y;
	if (im == 0 && fabs(re) <= 1) return (double2)(asinh(re), im);
	if (re == 0 && fabs(im) <= 1) return (double2)(re, asin(im));
	if (isinf(re)) {
		if (isinf(im)) return (double2)(re, copysign(M_PI / 4, im));
		if (isnan(im)) return x;
		return (double2)(re, copysign(0.0, im));
	}
	if (isnan(re)) {
		if (im == 0) return x;
		if (isinf(im)) return (double2)(im, re);
		return (double2)(NAN, NAN);
	}
	if (isinf(im)) return (double2)(copysign(im, re), copysign(M_PI / 2, im));
	const double2 xx = (double2)(re * re - im * im, re * im + im * re);
	return zlog(x + zsqrt((double2)(1 + xx.x, xx.y)));
}`, true, "zsqrt", "zlog")
	defHelper("zacosh", `
// math/cmplx.Acosh.
inline double2 zacosh(double2 x) {
	if (x.x == 0 && x.y == 0) return (double2)(0.0, copysign(M_PI / 2, x.y));
	const double2 w = zacos(x);
	return w.y <= 0 ? (double2)(-w.y, w.x) : (double2)(w.y, -w.x);
}`, true, "zacos")
	defHelper("zatan", `
// math/cmplx.Atan.
inline double2 zatan(double2 x) {
	const double re = x.x, im = x.y;
	if (im == 0) return (double2)(atan(re), im);
	if (re == 0 && fabs(im) <= 1) return (double2)(re, atanh(im));
	if (isinf(im) || isinf(re)) {
		if (isnan(re)) return (double2)(NAN, copysign(0.0, im));
		return (double2)(copysign(M_PI / 2, re), copysign(0.0, im));
	}
	if (isnan(re) || isnan(im)) return (double2)(NAN, NAN);
	const double x2 = re * re;
	const double a = 1 - x2 - im * im;
	if (a == 0) return (double2)(NAN, NAN);
	double t = 0.5 * atan2(2 * re, a);
	const double w = zreduce_pi(t);
	t = im - 1;
	const double b = x2 + t * t;
	if (b == 0) return (double2)(NAN, NAN);
	t = im + 1;
	const double c = (x2 + t * t) / b;
	return (double2)(w, 0.25 * log(c));
}`, true, "zreduce_pi")
	defHelper("zatanh", `
// math/cmplx.Atanh.
inline double2 zatanh(double2 x) { const double2 z = zatan((double2)(-x.y, x.x)); return (double2)(z.y, -z.x); }`, true, "zatan")
	defHelper("zsinh", `
// math/cmplx.Sinh.
inline double2 zsinh(double2 x) {
	const double re = x.x, im = x.y;
	if (re == 0 && (isinf(im) || isnan(im))) return (double2)(re, NAN);
	if (isinf(re)) {
		if (im == 0) return x;
		if (isinf(im) || isnan(im)) return (double2)(re, NAN);
	} else if (im == 0 && isnan(re)) {
		return (double2)(NAN, im);
	}
	double sh, ch;
	zsinhcosh(re, &sh, &ch);
	return (double2)(go_cos(im) * sh, go_sin(im) * ch);
}`, true, "zsinhcosh", "go_sin", "go_cos")
	defHelper("zcosh", `
// math/cmplx.Cosh.
inline double2 zcosh(double2 x) {
	const double re = x.x, im = x.y;
	if (re == 0 && (isinf(im) || isnan(im))) return (double2)(NAN, re * copysign(0.0, im));
	if (isinf(re)) {
		if (im == 0) return (double2)(INFINITY, im * copysign(0.0, re));
		if (isinf(im) || isnan(im)) return (double2)(INFINITY, NAN);
	} else if (im == 0 && isnan(re)) {
		return (double2)(NAN, im);
	}
	double sh, ch;
	zsinhcosh(re, &sh, &ch);
	return (double2)(go_cos(im) * ch, go_sin(im) * sh);
}`, true, "zsinhcosh", "go_sin", "go_cos")
	unary := []struct{ name, body, dep string }{
		{"casin", "zasin(w)", "zasin"}, {"cacos", "zacos(w)", "zacos"}, {"catan", "zatan(w)", "zatan"},
		{"csinh", "zsinh(w)", "zsinh"}, {"ccosh", "zcosh(w)", "zcosh"}, {"casinh", "zasinh(w)", "zasinh"},
		{"cacosh", "zacosh(w)", "zacosh"}, {"catanh", "zatanh(w)", "zatanh"},
		{"cexp2", "zexp((double2)(w.x * M_LN2, w.y * M_LN2))", "zexp"},
		{"clog2", "zlog(w) * M_LOG2E", "zlog"},
		{"clog10", "zlog(w) * M_LOG10E", "zlog"},
	}
	for _, d := range []tensor.DType{tensor.C64, tensor.C128} {
		widen, narrow := "z", "r"
		if d == tensor.C64 {
			widen, narrow = "convert_double2(z)", "convert_float2(r)"
		}
		for _, u := range unary {
			defHelper(u.name+"_"+ct(d).sfx, expand("inline $T "+u.name+"_$S($T z) { const double2 w = "+widen+"; const double2 r = "+u.body+"; return "+narrow+"; }", d),
				true, u.dep)
		}
	}
}
