package main

import "github.com/kiln-go/kiln/trace"

// Sorting: jax.numpy's sort and argsort, and lax.top_k. An expression has
// one array as its value, so lax.top_k's two results are two functions:
// top_k (the values) and top_k_indices.
func init() {
	// stable=False allows any order of equal elements; Kiln's stable
	// order is one, so the flag is accepted and changes nothing.
	sortParams := []param{{"a", kArray, ""}, {"axis", kAxis, "-1"}, {"stable", kBool, "True"}, {"descending", kBool, "False"}}
	bind := func(f func(trace.Value, int, ...trace.SortOption) trace.Value) func(a *bound) trace.Value {
		return func(a *bound) trace.Value {
			ax := trace.AxisNone
			if v, ok := a.axes("axis"); ok {
				ax = v[0]
			}
			var opts []trace.SortOption
			if a.flags["descending"] {
				opts = append(opts, trace.Descending())
			}
			return f(a.x("a"), ax, opts...)
		}
	}
	functions["sort"] = &function{params: sortParams,
		summary: "sorted along axis (None: flattened), stable; NaN last, -0 == 0 (descending=True reverses)",
		apply:   bind(trace.Sort)}
	functions["argsort"] = &function{params: sortParams,
		summary: "indices that sort along axis, stable, default int; descending=True keeps equal elements in order",
		apply:   bind(trace.Argsort)}
	topK := []param{{"operand", kArray, ""}, {"k", kAxis, ""}}
	functions["top_k"] = &function{params: topK,
		summary: "lax.top_k's values: the k largest along the last axis, largest first (NaN largest)",
		apply:   func(a *bound) trace.Value { v, _ := trace.TopK(a.x("operand"), a.ints["k"][0]); return v }}
	functions["top_k_indices"] = &function{params: topK,
		summary: "lax.top_k's int32 indices of those values; ties: the lower index first",
		apply:   func(a *bound) trace.Value { _, i := trace.TopK(a.x("operand"), a.ints["k"][0]); return i }}
}
