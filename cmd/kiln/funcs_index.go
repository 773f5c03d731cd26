package main

import "github.com/kiln-go/kiln/trace"

// The indexing functions of the expression language, under their
// jax.numpy (and, for the dynamic slices, jax.lax) names.
func init() {
	modeParams := []param{{"mode", kMode, "None"}, {"fill_value", kLit, "None"}}
	functions["take"] = &function{
		params:  append([]param{{"a", kArray, ""}, {"indices", kArray, ""}, {"axis", kAxis, "None"}}, modeParams...),
		summary: "elements at indices along axis (None: flattened); out of bounds: fill (NaN, …; mode='clip' clamps)",
		apply: func(a *bound) trace.Value {
			ax := trace.AxisNone
			if v, ok := a.axes("axis"); ok {
				ax = v[0]
			}
			return trace.Take(a.x("a"), a.x("indices"), ax, a.opts...)
		}}
	functions["take_along_axis"] = &function{
		params:  append([]param{{"arr", kArray, ""}, {"indices", kArray, ""}, {"axis", kAxis, "-1"}}, modeParams...),
		summary: "arr's elements at indices (arr's rank) along axis; out of bounds as take",
		apply: func(a *bound) trace.Value {
			ax := trace.AxisNone
			if v, ok := a.axes("axis"); ok {
				ax = v[0]
			}
			return trace.TakeAlongAxis(a.x("arr"), a.x("indices"), ax, a.opts...)
		}}
	functions["flip"] = &function{params: []param{{"m", kArray, ""}, {"axis", kAxes, "None"}}, summary: "reverse axes (default: all), as m[::-1]",
		apply: func(a *bound) trace.Value { ax, _ := a.axes("axis"); return a.x("m").Flip(ax...) }}
	functions["fliplr"] = &function{params: []param{{"m", kArray, ""}}, summary: "reverse axis 1",
		apply: func(a *bound) trace.Value { return a.x("m").Flip(1) }}
	functions["flipud"] = &function{params: []param{{"m", kArray, ""}}, summary: "reverse axis 0",
		apply: func(a *bound) trace.Value { return a.x("m").Flip(0) }}
	functions["one_hot"] = &function{
		params:  []param{{"x", kArray, ""}, {"num_classes", kAxis, ""}, {"dtype", kDType, "None"}, {"axis", kAxis, "-1"}},
		summary: "jax.nn.one_hot: x == arange(num_classes) on a new axis, as dtype (default float)",
		apply: func(a *bound) trace.Value {
			opts := []trace.IndexOption{trace.WithAxis(a.ints["axis"][0])}
			if a.dtSet {
				opts = append(opts, trace.WithDType(a.dtype))
			}
			return trace.OneHot(a.x("x"), a.ints["num_classes"][0], opts...)
		}}
	functions["dynamic_slice"] = &function{
		params:  []param{{"operand", kArray, ""}, {"start_indices", kArrays, ""}, {"slice_sizes", kInts, ""}},
		summary: "lax.dynamic_slice(x, (i, j), (2, 3)): starts traced, clamped so the window fits",
		apply: func(a *bound) trace.Value {
			return trace.DynamicSlice(a.x("operand"), a.listVals, a.ints["slice_sizes"])
		}}
	functions["dynamic_update_slice"] = &function{
		params:  []param{{"operand", kArray, ""}, {"update", kArray, ""}, {"start_indices", kArrays, ""}},
		summary: "lax.dynamic_update_slice(x, u, (i, j)): starts clamped so u fits",
		apply: func(a *bound) trace.Value {
			return trace.DynamicUpdateSlice(a.x("operand"), a.x("update"), a.listVals)
		}}
}
