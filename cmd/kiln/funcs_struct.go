package main

import (
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jax.numpy's constructors and statistics under their names.
func init() {
	intArg := func(a *bound, name string, def int) int {
		if v, ok := a.ints[name]; ok && len(v) > 0 {
			return v[0]
		}
		return def
	}
	shape := func(a *bound) []int {
		if s := a.ints["shape"]; s != nil {
			return s
		}
		return []int{}
	}
	functions["zeros"] = &function{params: []param{{"shape", kInts, ""}, {"dtype", kDType, "None"}},
		summary: "zeros of a shape (default float)", apply: func(a *bound) trace.Value { return trace.Zeros(shape(a), a.optDType()...) }}
	functions["ones"] = &function{params: []param{{"shape", kInts, ""}, {"dtype", kDType, "None"}},
		summary: "ones of a shape (default float)", apply: func(a *bound) trace.Value { return trace.Ones(shape(a), a.optDType()...) }}
	functions["full"] = &function{params: []param{{"shape", kInts, ""}, {"fill_value", kArray, ""}, {"dtype", kDType, "None"}},
		summary: "fill_value broadcast to shape (its type, weak for a literal)",
		apply:   func(a *bound) trace.Value { return trace.Full(shape(a), a.x("fill_value"), a.optDType()...) }}
	functions["zeros_like"] = &function{params: []param{{"a", kArray, ""}, {"dtype", kDType, "None"}},
		summary: "zeros of a's shape and type", apply: func(a *bound) trace.Value { return trace.ZerosLike(a.x("a"), a.optDType()...) }}
	functions["ones_like"] = &function{params: []param{{"a", kArray, ""}, {"dtype", kDType, "None"}},
		summary: "ones of a's shape and type", apply: func(a *bound) trace.Value { return trace.OnesLike(a.x("a"), a.optDType()...) }}
	functions["full_like"] = &function{params: []param{{"a", kArray, ""}, {"fill_value", kArray, ""}, {"dtype", kDType, "None"}},
		summary: "fill_value in a's shape and type", apply: func(a *bound) trace.Value { return trace.FullLike(a.x("a"), a.x("fill_value"), a.optDType()...) }}
	functions["arange"] = &function{params: []param{{"start", kNum, ""}, {"stop", kNum, "None"}, {"step", kNum, "None"}, {"dtype", kDType, "None"}},
		summary: "arange(stop) or arange(start, stop, step): ints give the default int, a float argument NumPy's float values (default float)",
		apply: func(a *bound) trace.Value {
			if len(a.floats) > 0 {
				num := func(name string, def float64) float64 {
					if f, ok := a.floats[name]; ok {
						return f
					}
					if v, ok := a.ints[name]; ok {
						return float64(v[0])
					}
					return def
				}
				start, stop := 0.0, num("start", 0)
				if _, ok := a.floats["stop"]; ok {
					start, stop = stop, num("stop", 0)
				} else if _, ok := a.ints["stop"]; ok {
					start, stop = stop, num("stop", 0)
				}
				return trace.ArangeFloat(start, stop, num("step", 1), a.optDType()...)
			}
			start, stop := 0, intArg(a, "start", 0)
			if v, ok := a.ints["stop"]; ok && len(v) > 0 {
				start, stop = stop, v[0]
			}
			return trace.Arange(start, stop, intArg(a, "step", 1), a.optDType()...)
		}}
	functions["eye"] = &function{params: []param{{"N", kAxis, ""}, {"M", kAxis, "None"}, {"k", kAxis, "0"}, {"dtype", kDType, "None"}},
		summary: "ones on diagonal k of an N×M matrix (default float)",
		apply: func(a *bound) trace.Value {
			n := intArg(a, "N", 0)
			return trace.Eye(n, intArg(a, "M", n), intArg(a, "k", 0), a.optDType()...)
		}}
	functions["tri"] = &function{params: []param{{"N", kAxis, ""}, {"M", kAxis, "None"}, {"k", kAxis, "0"}, {"dtype", kDType, "None"}},
		summary: "ones on and below diagonal k (default float)",
		apply: func(a *bound) trace.Value {
			n := intArg(a, "N", 0)
			m := trace.Tri(n, intArg(a, "M", n), intArg(a, "k", 0))
			if a.dtSet {
				return m.Astype(a.dtype)
			}
			return trace.WithConfig(m, func(cfg promote.Config) trace.Value { return m.Astype(cfg.DefaultFloat()) })
		}}
	functions["tril"] = &function{params: []param{{"m", kArray, ""}, {"k", kAxis, "0"}},
		summary: "m with the elements above diagonal k zeroed (a causal mask: tril(ones((n, n), bool)))",
		apply:   func(a *bound) trace.Value { return trace.Tril(a.x("m"), intArg(a, "k", 0)) }}
	functions["triu"] = &function{params: []param{{"m", kArray, ""}, {"k", kAxis, "0"}},
		summary: "m with the elements below diagonal k zeroed",
		apply:   func(a *bound) trace.Value { return trace.Triu(a.x("m"), intArg(a, "k", 0)) }}

	keep := func(a *bound, plain func(trace.Value, ...int) trace.Value, kept func(trace.KeptDims, ...int) trace.Value) trace.Value {
		ax, _ := a.axes("axis")
		if a.flags["keepdims"] {
			return kept(a.x("x").KeepDims(), ax...)
		}
		return plain(a.x("x"), ax...)
	}
	for name, f := range map[string]struct {
		plain   func(trace.Value, ...int) trace.Value
		kept    func(trace.KeptDims, ...int) trace.Value
		summary string
	}{
		"logsumexp": {trace.Value.LogSumExp, trace.KeptDims.LogSumExp, "log Σ exp(x) without overflow (jax.nn.logsumexp)"},
		"any":       {trace.Value.Any, trace.KeptDims.Any, "whether some element is nonzero"},
		"all":       {trace.Value.All, trace.KeptDims.All, "whether every element is nonzero"},
		"nansum":    {trace.Value.NanSum, trace.KeptDims.NanSum, "sum with NaN as 0"},
		"nanmean":   {trace.Value.NanMean, trace.KeptDims.NanMean, "mean of the elements that are not NaN"},
		"nanmax":    {trace.Value.NanMax, trace.KeptDims.NanMax, "max ignoring NaN (NaN if all are)"},
		"nanmin":    {trace.Value.NanMin, trace.KeptDims.NanMin, "min ignoring NaN (NaN if all are)"},
		"nanprod":   {trace.Value.NanProd, trace.KeptDims.NanProd, "product with NaN as 1"},
	} {
		functions[name] = &function{params: reduceParams, summary: f.summary,
			apply: func(a *bound) trace.Value { return keep(a, f.plain, f.kept) }}
	}
	for name, nanStd := range map[string]bool{"nanvar": false, "nanstd": true} {
		functions[name] = &function{params: []param{{"x", kArray, ""}, {"axis", kAxes, "None"}, {"ddof", kAxis, "0"}, {"keepdims", kBool, "False"}},
			summary: name[3:] + " over the elements that are not NaN",
			apply: func(a *bound) trace.Value {
				ax, _ := a.axes("axis")
				ddof := intArg(a, "ddof", 0)
				switch {
				case nanStd && a.flags["keepdims"]:
					return a.x("x").KeepDims().NanStd(ddof, ax...)
				case nanStd:
					return a.x("x").NanStd(ddof, ax...)
				case a.flags["keepdims"]:
					return a.x("x").KeepDims().NanVar(ddof, ax...)
				}
				return a.x("x").NanVar(ddof, ax...)
			}}
	}
	for name, std := range map[string]bool{"var": false, "std": true} {
		summary := "variance: Σ|x − mean|² / (n − ddof), in the inexact dtype"
		if std {
			summary = "standard deviation, √var"
		}
		functions[name] = &function{params: []param{{"x", kArray, ""}, {"axis", kAxes, "None"}, {"ddof", kAxis, "0"}, {"keepdims", kBool, "False"}},
			summary: summary,
			apply: func(a *bound) trace.Value {
				ax, _ := a.axes("axis")
				ddof := intArg(a, "ddof", 0)
				switch {
				case std && a.flags["keepdims"]:
					return a.x("x").KeepDims().Std(ddof, ax...)
				case std:
					return a.x("x").Std(ddof, ax...)
				case a.flags["keepdims"]:
					return a.x("x").KeepDims().Var(ddof, ax...)
				}
				return a.x("x").Var(ddof, ax...)
			}}
	}
}

// The structural functions with static arguments.
func init() {
	functions["pad"] = &function{
		params:  []param{{"array", kArray, ""}, {"pad_width", kPadWidth, ""}, {"mode", kStr, "'constant'"}, {"constant_values", kPadVals, "0"}},
		summary: "jnp.pad: pad_width n, (before, after), or per axis ((b0, a0), (b1, a1), …); mode 'constant' (constant_values v, or per axis ((b0, a0), …)) 'edge' 'reflect' 'symmetric' 'wrap'",
		apply:   pad,
	}
	functions["split"] = &function{params: []param{{"ary", kArray, ""}, {"indices_or_sections", kInts, ""}, {"axis", kAxis, "0"}},
		summary: "jnp.split: an int n cuts axis into n equal parts, a tuple of indices cuts before each; a tuple result, indexed: split(x, 3)[0]",
		tuple: func(a *bound) []trace.Value {
			ax, _ := a.axes("axis")
			if a.tupled["indices_or_sections"] {
				return trace.SplitAt(a.x("ary"), a.ints["indices_or_sections"], ax[0])
			}
			return trace.Split(a.x("ary"), a.ints["indices_or_sections"][0], ax[0])
		},
		size: func(a *bound) int {
			if v := a.ints["indices_or_sections"]; a.tupled["indices_or_sections"] {
				return len(v) + 1
			} else if len(v) == 1 {
				return max(v[0], 1)
			}
			return 1
		}}
	functions["roll"] = &function{params: []param{{"a", kArray, ""}, {"shift", kAxis, ""}, {"axis", kAxis, "None"}},
		summary: "shift elements along axis (None: the flattened array), wrapping around",
		apply: func(a *bound) trace.Value {
			ax := trace.AxisNone
			if v, ok := a.axes("axis"); ok {
				ax = v[0]
			}
			return trace.Roll(a.x("a"), a.ints["shift"][0], ax)
		}}
	functions["tile"] = &function{params: []param{{"A", kArray, ""}, {"reps", kInts, ""}},
		summary: "repeat A reps times along each axis",
		apply:   func(a *bound) trace.Value { return trace.Tile(a.x("A"), a.ints["reps"]...) }}
	functions["repeat"] = &function{params: []param{{"a", kArray, ""}, {"repeats", kInts, ""}, {"axis", kAxis, "None"}},
		summary: "repeat each element (one count, or one per element) along axis (None: flattened)",
		apply: func(a *bound) trace.Value {
			ax := trace.AxisNone
			if v, ok := a.axes("axis"); ok {
				ax = v[0]
			}
			return trace.Repeat(a.x("a"), a.ints["repeats"], ax)
		}}
	functions["stack"] = &function{params: []param{{"arrays", kArrays, ""}, {"axis", kAxis, "0"}},
		summary: "join arrays of one shape along a new axis",
		apply:   func(a *bound) trace.Value { return trace.Stack(a.ints["axis"][0], a.listVals...) }}
}

// The cumulative reductions (a log-depth scan; see trace.Value.Cumsum).
func init() {
	for name, f := range map[string]func(trace.Value, int, []tensor.DType) trace.Value{
		"cumsum":  func(x trace.Value, ax int, d []tensor.DType) trace.Value { return x.Cumsum(ax, d...) },
		"cumprod": func(x trace.Value, ax int, d []tensor.DType) trace.Value { return x.Cumprod(ax, d...) },
		"cummax":  func(x trace.Value, ax int, _ []tensor.DType) trace.Value { return x.Cummax(ax) },
		"cummin":  func(x trace.Value, ax int, _ []tensor.DType) trace.Value { return x.Cummin(ax) },
	} {
		params := []param{{"a", kArray, ""}, {"axis", kAxis, "None"}}
		if name == "cumsum" || name == "cumprod" {
			params = append(params, param{"dtype", kDType, "None"})
		}
		functions[name] = &function{params: params,
			summary: "running " + name[3:] + " along axis (None: flattened); narrow ints accumulate in the default int",
			apply: func(a *bound) trace.Value {
				ax := trace.AxisNone
				if v, ok := a.axes("axis"); ok {
					ax = v[0]
				}
				return f(a.x("a"), ax, a.optDType())
			}}
	}
}

func init() {
	functions["einsum"] = &function{params: []param{{"subscripts", kStr, ""}, {"operands", kRest, ""}, {"preferred_element_type", kDType, "None"}},
		summary: "einsum('ij,jk->ik', a, b): contraction by subscripts (dot_general; '...' broadcasts, no diagonals); preferred_element_type as matmul's",
		apply: func(a *bound) trace.Value {
			if a.dtSet {
				return trace.EinsumPreferred(a.strs["subscripts"], a.dtype, a.listVals...)
			}
			return trace.Einsum(a.strs["subscripts"], a.listVals...)
		}}
}
