package opencl

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// Converts follow tensor.ConvertSlice (docs/SPEC.md §3): float → int truncates
// toward zero and saturates, NaN → 0; int → float rounds to nearest even
// in one step; anything → bool is x != 0.

var intLimits = map[tensor.DType][2]string{ // min, max
	tensor.U8: {"0", "UCHAR_MAX"}, tensor.U16: {"0", "USHRT_MAX"}, tensor.U32: {"0", "UINT_MAX"}, tensor.U64: {"0", "ULONG_MAX"},
	tensor.I8: {"CHAR_MIN", "CHAR_MAX"}, tensor.I16: {"SHRT_MIN", "SHRT_MAX"}, tensor.I32: {"INT_MIN", "INT_MAX"}, tensor.I64: {"LONG_MIN", "LONG_MAX"},
}

func defConvertHelpers() {
	for _, src := range []tensor.DType{tensor.F32, tensor.F64} {
		for _, dst := range tensor.StandardDTypes() {
			if !dst.IsInteger() {
				continue
			}
			c := ct(dst)
			lim := intLimits[dst]
			f := ct(src).compute
			sfx := "f"
			if src == tensor.F64 {
				sfx = ""
			}
			var body string
			if c.signed {
				body = fmt.Sprintf("if (x <= -0x1p%d%s) return %s; if (x >= 0x1p%d%s) return %s;", c.bits-1, sfx, lim[0], c.bits-1, sfx, lim[1])
			} else {
				body = fmt.Sprintf("if (x <= 0) return 0; if (x >= 0x1p%d%s) return %s;", c.bits, sfx, lim[1])
			}
			defHelper(ct(src).sfx+"_to_"+c.sfx, fmt.Sprintf(`
// %s -> %s: truncates toward zero, saturates, NaN -> 0.
inline %s %s_to_%s(%s x) { if (isnan(x)) return 0; %s return (%s)x; }`,
				src, dst, c.compute, ct(src).sfx, c.sfx, f, body, c.compute), src == tensor.F64)
		}
	}
	defHelper("u64_to_bf16", `
// An integer magnitude rounded to bf16 in one step (not through float,
// whose 24 bits would round a 32- or 64-bit integer twice).
inline float u64_to_bf16(ulong v) { return v == 0 ? 0.0f : bf16_to_float(small_from_mag(0, v, 0, 7, 8)); }`, false, "small_from_mag", "bf16_to_float")
	defHelper("i64_to_bf16", `
inline float i64_to_bf16(long v) {
	if (v == 0) return 0.0f;
	return bf16_to_float(small_from_mag(v < 0, v < 0 ? 0UL - (ulong)v : (ulong)v, 0, 7, 8));
}`, false, "small_from_mag", "bf16_to_float")
	defHelper("f64_to_f16", `
// double -> f16 in one correctly rounded step.
inline float f64_to_f16(double x) { return f16_to_float(small_from_double(x, 10, 5)); }`, true, "small_from_double", "f16_to_float")
	defHelper("f64_to_bf16", `
// double -> bf16 in one correctly rounded step.
inline float f64_to_bf16(double x) { return bf16_to_float(small_from_double(x, 7, 8)); }`, true, "small_from_double", "bf16_to_float")
}

// convertExpr converts compute value x of dtype from to dtype to.
func (g *gen) convertExpr(to, from tensor.DType, x string) string {
	if to == from {
		return x
	}
	tc := ct(to)
	switch {
	case to == tensor.Bool:
		if from.IsComplex() {
			return "(uchar)(" + x + ".x != 0 || " + x + ".y != 0)"
		}
		return "(uchar)(" + x + " != 0)"
	case from.IsComplex():
		part := partType(from)
		re := x + ".x"
		if to.IsComplex() {
			return "convert_" + tc.compute + "(" + x + ")"
		}
		return g.convertExpr(to, part, re)
	case to.IsComplex():
		part := partType(to)
		return "(" + tc.compute + ")(" + g.convertExpr(part, from, x) + ", 0)"
	}
	switch {
	case to.IsInteger() && (from.IsInteger() || from == tensor.Bool):
		// Widening (or same-width signedness change) keeps the value mod
		// 2^bits; narrowing to a signed type goes through the unsigned one.
		if tc.signed && ct(from).bits > tc.bits {
			return "as_" + tc.compute + "((" + tc.uns + ")" + x + ")"
		}
		if tc.signed && ct(from).bits == tc.bits && from != tensor.Bool {
			return "as_" + tc.compute + "(" + x + ")"
		}
		return "(" + tc.compute + ")" + x
	case to.IsInteger(): // from a float
		src := tensor.F32
		if from == tensor.F64 {
			src = tensor.F64
		}
		name := ct(src).sfx + "_to_" + tc.sfx
		g.helpers.use(name)
		return name + "(" + x + ")"
	case to == tensor.F32:
		return "(float)" + x // ints: one rounding to nearest even; f64: round to nearest; f16/bf16: exact
	case to == tensor.F64:
		return "(double)" + x
	case narrow(to) && (from == tensor.Bool || from == tensor.I8 || from == tensor.U8):
		return "(float)" + x // exact in both 16-bit formats
	case to == tensor.F16:
		if from == tensor.F64 {
			return g.call("f64_to_f16", x)
		}
		// Every integer below 2^24 is exact in float and every larger one
		// rounds to ±Inf in f16 either way, so float is a safe way through.
		return g.call("rnd_f16", "(float)"+x)
	case to == tensor.BF16:
		switch {
		case from == tensor.F64:
			return g.call("f64_to_bf16", x)
		case from == tensor.U32 || from == tensor.U64:
			return g.call("u64_to_bf16", "(ulong)"+x)
		case from == tensor.I32 || from == tensor.I64:
			return g.call("i64_to_bf16", "(long)"+x)
		}
		return g.call("rnd_bf16", "(float)"+x)
	}
	panic(fmt.Sprintf("opencl: no convert %s -> %s", from, to))
}

// call emits a helper call and records the helper as used.
func (g *gen) call(name string, args ...string) string {
	g.helpers.use(name)
	s := name + "("
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a
	}
	return s + ")"
}
