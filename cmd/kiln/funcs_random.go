package main

import (
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The jax.random functions of the expression language, under their names
// (random.normal(key(0), (3, 4))); key(seed) is jax.random.key's data.
func init() {
	or := func(a *bound, name string, def trace.Value) trace.Value {
		if v, ok := a.vals[name]; ok {
			return v
		}
		return def
	}
	shape := func(a *bound, name string) []int {
		if s, ok := a.ints[name]; ok {
			if s == nil {
				return []int{}
			}
			return s
		}
		return nil
	}
	key := &function{params: []param{{"seed", kArray, ""}},
		summary: "jax.random.PRNGKey(seed): the u32[2] key [seed >> 32, seed & 0xFFFFFFFF]",
		apply:   func(a *bound) trace.Value { return random.KeyFrom(a.x("seed")) }}
	functions["key"] = key
	functions["random.key"] = key
	functions["random.PRNGKey"] = key
	functions["random.split"] = &function{params: []param{{"key", kArray, ""}, {"num", kAxis, "2"}},
		summary: "num new keys, u32[num, 2] (threefry of the counters 0…num−1)",
		apply:   func(a *bound) trace.Value { return random.Split(a.x("key"), a.ints["num"][0]) }}
	functions["random.fold_in"] = &function{params: []param{{"key", kArray, ""}, {"data", kArray, ""}},
		summary: "a new key mixing in a scalar integer (modulo 2³²)",
		apply:   func(a *bound) trace.Value { return random.FoldIn(a.x("key"), a.x("data")) }}
	functions["random.bits"] = &function{params: []param{{"key", kArray, ""}, {"shape", kInts, "()"}, {"dtype", kDType, "None"}},
		summary: "random unsigned integers (default u64; u32 with --x32)",
		apply:   func(a *bound) trace.Value { return random.Bits(a.x("key"), shape(a, "shape"), a.optDType()...) }}
	functions["random.uniform"] = &function{
		params:  []param{{"key", kArray, ""}, {"shape", kInts, "()"}, {"dtype", kDType, "None"}, {"minval", kOptArray, "0.0"}, {"maxval", kOptArray, "1.0"}},
		summary: "uniform in [minval, maxval) (default float dtype)",
		apply: func(a *bound) trace.Value {
			return random.UniformIn(a.x("key"), shape(a, "shape"), or(a, "minval", trace.Float(0)), or(a, "maxval", trace.Float(1)), a.optDType()...)
		}}
	functions["random.normal"] = &function{params: []param{{"key", kArray, ""}, {"shape", kInts, "()"}, {"dtype", kDType, "None"}},
		summary: "standard normal, √2·erfinv(uniform(−1, 1)) (float or complex dtype)",
		apply:   func(a *bound) trace.Value { return random.Normal(a.x("key"), shape(a, "shape"), a.optDType()...) }}
	functions["random.truncated_normal"] = &function{
		params:  []param{{"key", kArray, ""}, {"lower", kArray, ""}, {"upper", kArray, ""}, {"shape", kInts, "None"}, {"dtype", kDType, "None"}},
		summary: "standard normal truncated to (lower, upper)",
		apply: func(a *bound) trace.Value {
			return random.TruncatedNormal(a.x("key"), a.x("lower"), a.x("upper"), shape(a, "shape"), a.optDType()...)
		}}
	functions["random.bernoulli"] = &function{params: []param{{"key", kArray, ""}, {"p", kOptArray, "0.5"}, {"shape", kInts, "None"}},
		summary: "booleans true with probability p (p's float dtype)",
		apply: func(a *bound) trace.Value {
			return random.Bernoulli(a.x("key"), or(a, "p", trace.Const(tensor.Scalar(float32(0.5)))), shape(a, "shape"))
		}}
	functions["random.gumbel"] = &function{params: []param{{"key", kArray, ""}, {"shape", kInts, "()"}, {"dtype", kDType, "None"}},
		summary: "standard Gumbel, −log(−log(uniform(tiny, 1)))",
		apply:   func(a *bound) trace.Value { return random.Gumbel(a.x("key"), shape(a, "shape"), a.optDType()...) }}
	functions["random.categorical"] = &function{params: []param{{"key", kArray, ""}, {"logits", kArray, ""}, {"axis", kAxis, "-1"}, {"shape", kInts, "None"}},
		summary: "class indices drawn with the softmax of logits along axis",
		apply: func(a *bound) trace.Value {
			return random.Categorical(a.x("key"), a.x("logits"), a.ints["axis"][0], shape(a, "shape"))
		}}
	functions["random.permutation"] = &function{params: []param{{"key", kArray, ""}, {"x", kAxis, ""}},
		summary: "a random order of 0…x−1 (JAX's sort-based shuffle)",
		apply:   func(a *bound) trace.Value { return random.Permutation(a.x("key"), a.ints["x"][0]) }}
}
