package opencl

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// The generated OpenCL C calls small inline helper functions for anything
// that is more than one C operator: wrapping integer arithmetic, floor
// division, IEEE maximum, f16/bf16 rounding, complex arithmetic, …. Each
// helper is defined once here (per dtype where it matters), with the helpers
// it calls; a program includes only those it uses, in this table's order,
// so every definition precedes its uses.

type helperDef struct {
	name string
	deps []string
	src  string
	fp64 bool // uses double: the program needs cl_khr_fp64
}

var (
	helperList  []helperDef
	helperIndex = map[string]int{}
)

// defHelper registers a helper; deps must already be registered.
func defHelper(name, src string, fp64 bool, deps ...string) {
	if _, dup := helperIndex[name]; dup {
		panic("opencl: helper " + name + " defined twice")
	}
	for _, d := range deps {
		if _, ok := helperIndex[d]; !ok {
			panic("opencl: helper " + name + " depends on undefined " + d)
		}
	}
	helperIndex[name] = len(helperList)
	helperList = append(helperList, helperDef{name: name, deps: deps, src: strings.TrimSpace(src) + "\n", fp64: fp64})
}

// helperSet collects the helpers one program uses.
type helperSet map[string]bool

func (h helperSet) use(name string) {
	if h[name] {
		return
	}
	i, ok := helperIndex[name]
	if !ok {
		panic("opencl: unknown helper " + name) // a generator bug, caught by the tests
	}
	h[name] = true
	for _, d := range helperList[i].deps {
		h.use(d)
	}
}

// source returns the used helpers' definitions in table order.
func (h helperSet) source() (string, bool) {
	var b strings.Builder
	fp64 := false
	for _, d := range helperList {
		if h[d.name] {
			b.WriteString(d.src)
			b.WriteString("\n")
			fp64 = fp64 || d.fp64
		}
	}
	return b.String(), fp64
}

// expand substitutes a dtype's C names into a helper template:
// $T compute type, $U unsigned type, $W wide unsigned type, $B bits,
// $S suffix, $P part (float/double) type, $ONE the part type's 1.
func expand(src string, d tensor.DType) string {
	c := ct(d)
	p := ct(partType(d)).compute
	one := "1.0f"
	if p == "double" {
		one = "1.0"
	}
	return strings.NewReplacer("$T", c.compute, "$U", c.uns, "$W", c.wide, "$B", fmt.Sprint(c.bits),
		"$S", c.sfx, "$P", p, "$ONE", one).Replace(src)
}

func init() {
	defNarrowHelpers()
	for _, d := range tensor.StandardDTypes() {
		switch {
		case d.IsInteger():
			defIntHelpers(d)
		case d == tensor.F32 || d == tensor.F64:
			defFloatHelpers(d)
		}
		if !d.IsComplex() {
			defArgHelpers(d)
		}
	}
	defTrigHelpers()
	defComplexHelpers()
	defConvertHelpers()
	defMathOps()
	defPRNGHelpers()
}

// f16 and bf16 live in ushort buffers and compute in float. f16 is loaded
// with vload_half (core OpenCL, no cl_khr_fp16; exact for every value but a
// NaN's payload, which is not part of the contract) and stored, already
// rounded, by bit operations (f16_bits), as bf16 is; rounding after each op stays in
// float (rnd_f16, rnd_bf16), and 64-bit sources reach the 16-bit formats
// in one correctly rounded step (small_from_mag).
func defNarrowHelpers() {
	defHelper("f16_to_float", `
// f16 bits -> float (exact).
inline float f16_to_float(ushort h) {
	const uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0x1f) return as_float(s | 0x7f800000U | (m != 0 ? 0x400000U | (m << 13) : 0U));
	if (e == 0) return as_float(s | as_uint((float)m * 0x1p-24f));
	return as_float(s | ((e + 112) << 23) | (m << 13));
}`, false)
	defHelper("rnd_f16", `
// Rounds a float to the nearest f16 value, ties to even, without leaving
// float (docs/SPEC.md section 3 rounds after every op): the mantissa is rounded at bit 13
// in f16's normal range, to a multiple of 2^-24 below it, and beyond 65504
// it overflows to Inf. Branch-free, so loops stay vectorized.
inline float rnd_f16(float x) {
	const float a = fabs(x);
	const uint b = as_uint(a);
	float r = as_float((b + 0xfffU + ((b >> 13) & 1U)) & ~0x1fffU);
	r = a < 0x1p-14f ? (a + 0.5f) - 0.5f : r;
	r = r > 65504.0f ? INFINITY : r;
	return isnan(x) ? x : copysign(r, x);
}`, false)
	defHelper("f16_bits", `
// A float already rounded to f16 -> its bits (exact; branch-free, which
// PoCL vectorizes better than vstore_half_rte).
inline ushort f16_bits(float x) {
	const uint b = as_uint(x);
	const uint s = (b >> 16) & 0x8000, a = b & 0x7fffffffU;
	const uint normal = (a >> 13) - (112U << 10);
	const uint subnormal = (uint)(as_float(a) * 0x1p24f);
	const uint special = 0x7c00U | (a > 0x7f800000U ? 0x200U | ((a >> 13) & 0x3ff) : 0U);
	return (ushort)(s | (a >= 0x7f800000U ? special : a < 0x38800000U ? subnormal : normal));
}`, false)
	defHelper("bf16_to_float", `
// bf16 bits -> float (exact).
inline float bf16_to_float(ushort h) { return as_float((uint)h << 16); }`, false)
	defHelper("bf16_daz", `
// bf16 bits -> float, a subnormal read as a zero of its sign (the bf16
// dot's DAZ).
inline float bf16_daz(ushort h) { return as_float((uint)((h & 0x7f80U) ? h : (h & 0x8000U)) << 16); }`, false)
	defHelper("bf16_step", `
// One product of the bf16 dot (docs/SPEC.md section 3, one lane of VDPBF16PS):
// fma(x, y, acc) flushed to a zero of its sign when tiny, tininess decided
// after rounding to 24 bits with an unbounded exponent as x86 does: a sum
// that rounds to +-2^-126 here but just below it with an unbounded
// exponent is decided again with acc and the smaller factor scaled by
// 2^64 (exact; such a sum has both terms below 2^-78).
inline float bf16_step(float x, float y, float acc) {
	const float r = fma(x, y, acc);
	const float m = fabs(r);
	if (!(m <= 0x1p-126f) || m == 0.0f) return r;
	if (m < 0x1p-126f) return copysign(0.0f, r);
	const float s = fabs(x) <= fabs(y) ? fma(x * 0x1p64f, y, acc * 0x1p64f) : fma(x, y * 0x1p64f, acc * 0x1p64f);
	return fabs(s) < 0x1p-62f ? copysign(0.0f, r) : r;
}`, false)
	defHelper("rnd_bf16", `
// Rounds a float to the nearest bf16 value, ties to even (NaN kept, quiet).
inline float rnd_bf16(float x) {
	const uint b = as_uint(x);
	return isnan(x) ? as_float(b | 0x400000U) : as_float((b + 0x7fffU + ((b >> 16) & 1U)) & 0xffff0000U);
}`, false)
	defHelper("float_to_bf16", `
// A float already rounded to bf16 -> its bits.
inline ushort float_to_bf16(float x) { return (ushort)(as_uint(x) >> 16); }`, false)
	defHelper("small_from_mag", `
// Rounds +/-m*2^e (m > 0) to a 16-bit binary format with mant fraction and
// expw exponent bits in ONE step, ties to even (tensor's fromMagnitude):
// 64-bit integers and doubles reach f16/bf16 without double rounding.
inline ushort small_from_mag(int neg, ulong m, int e, int mant, int expw) {
	const int bias = (1 << (expw - 1)) - 1, emin = 1 - bias;
	const uint expMask = (1U << expw) - 1;
	const uint sign = neg ? 1U << (mant + expw) : 0U;
	const int top = 63 - (int)clz(m) + e;
	const int q = max(top, emin) - mant;
	const int shift = q - e;
	ulong M;
	if (shift <= 0) {
		if (-shift >= (int)clz(m)) return (ushort)(sign | expMask << mant);
		M = m << (-shift);
	} else if (shift >= 64) {
		M = 0;
	} else {
		M = m >> shift;
		const ulong rem = m & ((1UL << shift) - 1), hl = 1UL << (shift - 1);
		if (rem > hl || (rem == hl && (M & 1))) M++;
	}
	const ulong enc = ((ulong)(q - emin + mant) << mant) + M;
	if (enc >= ((ulong)expMask << mant)) return (ushort)(sign | expMask << mant);
	return (ushort)(sign | (uint)enc);
}`, false)
	defHelper("small_from_double", `
// Rounds a double to a 16-bit binary format in one step; NaN stays NaN.
inline ushort small_from_double(double x, int mant, int expw) {
	const ulong b = as_ulong(x);
	const uint expMask = (1U << expw) - 1;
	const uint sign = (uint)(b >> 63) << (mant + expw);
	const int e64 = (int)(b >> 52) & 0x7ff;
	const ulong m64 = b & 0xfffffffffffffUL;
	if (e64 == 0x7ff && m64 != 0) return (ushort)(sign | expMask << mant | (uint)(m64 >> (52 - mant)) | 1U << (mant - 1));
	if (e64 == 0x7ff) return (ushort)(sign | expMask << mant);
	if (e64 == 0 && m64 == 0) return (ushort)sign;
	if (e64 == 0) return small_from_mag((int)(b >> 63), m64, -1074, mant, expw);
	return small_from_mag((int)(b >> 63), m64 | (1UL << 52), e64 - 1075, mant, expw);
}`, true, "small_from_mag")
}

// Integers wrap: arithmetic is done in the unsigned type $W (uint or
// ulong), where C defines wraparound, and reinterpreted with as_$T; C's
// signed overflow, INT_MIN / -1 and over-wide shifts never happen.
func defIntHelpers(d tensor.DType) {
	c := ct(d)
	wrap := func(x string) string { // back from $W to $T
		if c.signed {
			return "as_$T(($U)(" + x + "))"
		}
		return "($T)(" + x + ")"
	}
	for _, op := range []struct{ name, sym string }{{"add", "+"}, {"sub", "-"}, {"mul", "*"}} {
		defHelper(op.name+"_"+c.sfx, expand("inline $T "+op.name+"_$S($T a, $T b) { return "+wrap("($W)a "+op.sym+" ($W)b")+"; }", d), false)
	}
	defHelper("neg_"+c.sfx, expand("inline $T neg_$S($T a) { return "+wrap("($W)0 - ($W)a")+"; }", d), false)
	over, fill := "b >= $B", "($T)0"
	if c.signed {
		over, fill = "b < 0 || b >= $B", "(a < 0 ? ($T)-1 : ($T)0)"
	}
	defHelper("shl_"+c.sfx, expand(`
// a << b; a shift by the width or more (or negative) gives 0.
inline $T shl_$S($T a, $T b) { return (`+over+`) ? ($T)0 : `+wrap("($W)a << b")+`; }`, d), false)
	defHelper("shr_"+c.sfx, expand(`
// a >> b (arithmetic for signed); a shift by the width or more fills with the sign bit.
inline $T shr_$S($T a, $T b) { return (`+over+`) ? `+fill+` : ($T)(a >> b); }`, d), false)
	if c.signed {
		defHelper("floordiv_"+c.sfx, expand(`
// Floor division; a zero divisor gives 0, MIN // -1 wraps to MIN.
inline $T floordiv_$S($T x, $T y) {
	if (y == 0) return 0;
	if (y == -1) return neg_$S(x);
	$T q = ($T)(x / y);
	if (x % y != 0 && ((x < 0) != (y < 0))) q--;
	return q;
}`, d), false, "neg_"+c.sfx)
		defHelper("rem_"+c.sfx, expand(`
// Python's modulus: the sign of the divisor; a zero divisor gives 0.
inline $T rem_$S($T x, $T y) {
	if (y == 0 || y == -1) return 0;
	$T r = ($T)(x % y);
	if (r != 0 && ((r < 0) != (y < 0))) r += y;
	return r;
}`, d), false)
		defHelper("pow_"+c.sfx, expand(`
// Integer power by squaring, wrapping; a negative exponent gives 0 except for bases 1 and -1.
inline $T pow_$S($T base, $T e) {
	if (e < 0) return base == 1 ? ($T)1 : base == -1 ? ((e & 1) ? base : ($T)1) : ($T)0;
	$T r = 1;
	while (e > 0) {
		if (e & 1) r = mul_$S(r, base);
		base = mul_$S(base, base);
		e >>= 1;
	}
	return r;
}`, d), false, "mul_"+c.sfx)
		defHelper("abs_"+c.sfx, expand("inline $T abs_$S($T a) { return a < 0 ? neg_$S(a) : a; }", d), false, "neg_"+c.sfx)
		defHelper("sign_"+c.sfx, expand("inline $T sign_$S($T a) { return ($T)((a > 0) - (a < 0)); }", d), false)
		return
	}
	defHelper("floordiv_"+c.sfx, expand("inline $T floordiv_$S($T x, $T y) { return y == 0 ? ($T)0 : ($T)(x / y); }", d), false)
	defHelper("rem_"+c.sfx, expand("inline $T rem_$S($T x, $T y) { return y == 0 ? ($T)0 : ($T)(x % y); }", d), false)
	defHelper("pow_"+c.sfx, expand(`
// Integer power by squaring, wrapping.
inline $T pow_$S($T base, $T e) {
	$T r = 1;
	while (e > 0) {
		if (e & 1) r = mul_$S(r, base);
		base = mul_$S(base, base);
		e >>= 1;
	}
	return r;
}`, d), false, "mul_"+c.sfx)
}

// Floats: IEEE 754-2019 maximum/minimum, NumPy's sign and divmod. f16 and
// bf16 use the f32 helpers on their float compute values.
func defFloatHelpers(d tensor.DType) {
	fp64 := d == tensor.F64
	defHelper("maximum_"+ct(d).sfx, expand(`
// IEEE maximum: a NaN operand gives that NaN (the first), and -0 < +0.
inline $T maximum_$S($T x, $T y) { return isnan(x) ? x : isnan(y) ? y : (x > y || (x == y && !signbit(x))) ? x : y; }`, d), fp64)
	defHelper("minimum_"+ct(d).sfx, expand(`
// IEEE minimum: a NaN operand gives that NaN (the first), and -0 < +0.
inline $T minimum_$S($T x, $T y) { return isnan(x) ? x : isnan(y) ? y : (x < y || (x == y && signbit(x))) ? x : y; }`, d), fp64)
	defHelper("sign_"+ct(d).sfx, expand(`
// NumPy's sign: -1, 0 or 1; +0 for +/-0; NaN stays NaN.
inline $T sign_$S($T x) { return x > 0 ? ($T)1 : x < 0 ? ($T)-1 : x == 0 ? ($T)0 : x; }`, d), fp64)
	defHelper("floordiv_"+ct(d).sfx, expand(`
// NumPy's npy_divmod, the quotient: floor(a / b) computed from fmod.
inline $T floordiv_$S($T a, $T b) {
	$T mod = fmod(a, b);
	if (b == 0) return a / b;
	$T div = (a - mod) / b;
	if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
	if (div == 0) return copysign(($T)0, a / b);
	$T fl = floor(div);
	if (div - fl > ($T)0.5) fl += 1;
	return fl;
}`, d), fp64)
	defHelper("rem_"+ct(d).sfx, expand(`
// NumPy's npy_divmod, the remainder: Python's modulus, with the sign of b.
inline $T rem_$S($T a, $T b) {
	$T mod = fmod(a, b);
	if (b == 0) return mod;
	if (mod == 0) return copysign(($T)0, b);
	if ((b < 0) != (mod < 0)) mod += b;
	return mod;
}`, d), fp64)
}
