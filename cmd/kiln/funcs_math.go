package main

import (
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/trace"
)

// The elementwise math of jax.numpy, jax.scipy.special, jax.lax and
// jax.nn (trace/math.go, package nn), under their jax.numpy names and the
// array-API aliases (asin for arcsin, …).
func init() {
	for _, u := range []struct {
		name    string
		f       func(trace.Value) trace.Value
		summary string
	}{
		{"arcsin", trace.Value.Asin, "inverse sine; NaN outside [-1, 1]"},
		{"arccos", trace.Value.Acos, "inverse cosine; NaN outside [-1, 1]"},
		{"arctan", trace.Value.Atan, "inverse tangent"},
		{"sinh", trace.Value.Sinh, "hyperbolic sine"},
		{"cosh", trace.Value.Cosh, "hyperbolic cosine"},
		{"arcsinh", trace.Value.Asinh, "inverse hyperbolic sine"},
		{"arccosh", trace.Value.Acosh, "inverse hyperbolic cosine; NaN below 1"},
		{"arctanh", trace.Value.Atanh, "inverse hyperbolic tangent; +-inf at +-1"},
		{"exp2", trace.Value.Exp2, "2**x, exact at integers"},
		{"log2", trace.Value.Log2, "base-2 logarithm, exact at powers of two"},
		{"log10", trace.Value.Log10, "base-10 logarithm, exact at powers of ten"},
		{"cbrt", trace.Value.Cbrt, "real cube root (real dtypes)"},
		{"erf", trace.Value.Erf, "jax.scipy.special.erf (real dtypes)"},
		{"erfc", trace.Value.Erfc, "1 - erf(x) without cancellation (real dtypes)"},
		{"erfinv", trace.Value.ErfInv, "jax.scipy.special.erfinv: the inverse of erf (real dtypes)"},
		{"isinf", trace.Value.IsInf, "x is +-inf (false for integers; complex: either part)"},
		{"isposinf", trace.Value.IsPosInf, "x is +inf (not complex)"},
		{"isneginf", trace.Value.IsNegInf, "x is -inf (not complex)"},
		{"square", trace.Value.Square, "x * x (bool as the default int)"},
		{"reciprocal", trace.Value.Reciprocal, "1 / x in the inexact dtype"},
		{"stop_gradient", trace.StopGradient, "x, through which derivatives do not flow (jax.lax.stop_gradient)"},
		{"relu", nn.Relu, "jax.nn.relu: max(x, 0), slope 0 at 0"},
		{"softplus", nn.Softplus, "jax.nn.softplus: log(1 + exp(x)) = logaddexp(x, 0)"},
		{"silu", nn.Silu, "jax.nn.silu: x * sigmoid(x)"},
	} {
		f := u.f
		functions[u.name] = &function{params: x1, summary: u.summary, apply: func(a *bound) trace.Value { return f(a.x("x")) }}
	}
	for alias, name := range map[string]string{"asin": "arcsin", "acos": "arccos", "atan": "arctan",
		"asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "erf_inv": "erfinv", "swish": "silu"} {
		f := *functions[name]
		f.summary = "alias of " + name
		functions[alias] = &f
	}

	for name, f := range map[string]func(x, y trace.Value) trace.Value{
		"arctan2": trace.Value.Atan2, "hypot": trace.Value.Hypot, "copysign": trace.Value.Copysign,
		"nextafter": trace.Value.Nextafter, "fmod": trace.Value.Fmod, "remainder": trace.Value.Remainder,
		"logaddexp": trace.Value.LogAddExp,
	} {
		functions[name] = &function{params: x2, summary: "elementwise", apply: func(a *bound) trace.Value { return f(a.x("a"), a.x("b")) }}
	}
	functions["arctan2"].summary = "the angle of the point (b, a): arctan(a/b) in its quadrant"
	functions["atan2"] = &function{params: x2, summary: "alias of arctan2", apply: functions["arctan2"].apply}
	functions["fmod"].summary = "C's fmod: the sign of a (integers: a % 0 = 0)"
	functions["remainder"].summary = "a % b, the sign of b (Python's %)"
	functions["logaddexp"].summary = "log(exp(a) + exp(b)) without overflow"

	functions["clip"] = &function{params: []param{{"x", kArray, ""}, {"a_min", kOptArray, "None"}, {"a_max", kOptArray, "None"}},
		summary: "maximum(a_min, x), then minimum(a_max, .); None leaves a side open",
		apply:   func(a *bound) trace.Value { return a.x("x").Clip(a.x("a_min"), a.x("a_max")) }}
	functions["gelu"] = &function{params: []param{{"x", kArray, ""}, {"approximate", kBool, "True"}},
		summary: "jax.nn.gelu: the tanh form (approximate=True, JAX's default) or the exact erf form",
		apply:   func(a *bound) trace.Value { return nn.Gelu(a.x("x"), a.flags["approximate"]) }}
	for name, f := range map[string]func(trace.Value, int) trace.Value{"softmax": nn.Softmax, "log_softmax": nn.LogSoftmax} {
		functions[name] = &function{params: []param{{"x", kArray, ""}, {"axis", kAxis, "-1"}},
			summary: "jax.nn." + name + " along axis",
			apply: func(a *bound) trace.Value {
				ax, _ := a.axes("axis")
				return f(a.x("x"), ax[0])
			}}
	}
}
