package main

import (
	"fmt"

	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/trace"
)

// Convolution and pooling: jax.lax.conv_general_dilated and lax.conv, and
// flax.linen's max_pool, avg_pool and sum_pool (reduce_window
// compositions) on [batch, spatial…, features] inputs.
func init() {
	functions["conv_general_dilated"] = &function{
		params: []param{{"lhs", kArray, ""}, {"rhs", kArray, ""}, {"window_strides", kInts, ""}, {"padding", kPadding, ""},
			{"lhs_dilation", kInts, "None"}, {"rhs_dilation", kInts, "None"}, {"dimension_numbers", kStrs, "None"},
			{"feature_group_count", kAxis, "1"}, {"batch_group_count", kAxis, "1"}, {"preferred_element_type", kDType, "None"}},
		summary: "lax.conv_general_dilated(x, w, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC')): FMA-accumulated convolution",
		apply: func(a *bound) trace.Value {
			o, err := convOptions(a)
			if err != nil {
				return trace.Failure(err)
			}
			if v, ok := a.ints["lhs_dilation"]; ok {
				o.LhsDilation = v
			}
			if v, ok := a.ints["rhs_dilation"]; ok {
				o.RhsDilation = v
			}
			if ds, ok := a.strList["dimension_numbers"]; ok {
				if len(ds) != 3 {
					return trace.Failure(&trace.ShapeError{Op: "conv_general_dilated", Pos: trace.CallerPos(), Msg: fmt.Sprintf("dimension_numbers needs 3 strings (lhs, rhs, out), got %d", len(ds))})
				}
				o.DimensionNumbers = [3]string{ds[0], ds[1], ds[2]}
			}
			// The library reads a zero count as the default 1 (Go's zero
			// value); here the count is written out, and lax refuses ≤ 0.
			for _, k := range []string{"feature_group_count", "batch_group_count"} {
				if g := a.ints[k][0]; g < 1 {
					return trace.Failure(&trace.ShapeError{Op: "conv_general_dilated", Pos: trace.CallerPos(), Msg: fmt.Sprintf("%s must be a positive integer, got %d", k, g)})
				}
			}
			o.FeatureGroupCount = a.ints["feature_group_count"][0]
			o.BatchGroupCount = a.ints["batch_group_count"][0]
			return trace.ConvGeneralDilated(a.x("lhs"), a.x("rhs"), o, a.dotOptions()...)
		}}
	functions["conv"] = &function{
		params:  []param{{"lhs", kArray, ""}, {"rhs", kArray, ""}, {"window_strides", kInts, ""}, {"padding", kPadding, ""}, {"preferred_element_type", kDType, "None"}},
		summary: "lax.conv(x, w, (1, 1), 'SAME'): NCHW input, OIHW kernel",
		apply: func(a *bound) trace.Value {
			o, err := convOptions(a)
			if err != nil {
				return trace.Failure(err)
			}
			return trace.ConvGeneralDilated(a.x("lhs"), a.x("rhs"), o, a.dotOptions()...)
		}}
	pool := func(name, summary string, f func(x trace.Value, window, strides []int, padding string, a *bound) trace.Value, extra ...param) {
		functions[name] = &function{
			params:  append([]param{{"inputs", kArray, ""}, {"window_shape", kInts, ""}, {"strides", kInts, "None"}, {"padding", kStr, "'VALID'"}}, extra...),
			summary: summary,
			apply: func(a *bound) trace.Value {
				padding := "VALID"
				if s, ok := a.strs["padding"]; ok {
					padding = s
				}
				return f(a.x("inputs"), a.ints["window_shape"], a.ints["strides"], padding, a)
			}}
	}
	pool("max_pool", "flax.linen.max_pool(x, (2, 2), strides=(2, 2), padding='SAME'): x [batch, spatial…, features]",
		func(x trace.Value, w, s []int, p string, _ *bound) trace.Value { return nn.MaxPool(x, w, s, p) })
	pool("avg_pool", "flax.linen.avg_pool: window mean; count_include_pad=False divides by the non-padding count",
		func(x trace.Value, w, s []int, p string, a *bound) trace.Value {
			return nn.AvgPool(x, w, s, p, a.flags["count_include_pad"])
		}, param{"count_include_pad", kBool, "True"})
	pool("sum_pool", "flax.linen.sum_pool: window sum in x's dtype",
		func(x trace.Value, w, s []int, p string, _ *bound) trace.Value { return nn.SumPool(x, w, s, p) })
}

// convOptions reads window_strides and padding.
func convOptions(a *bound) (trace.ConvOptions, error) {
	o := trace.ConvOptions{WindowStrides: a.ints["window_strides"]}
	if s, ok := a.strs["padding"]; ok {
		o.PaddingMode = s
	} else {
		o.Padding = a.pairs["padding"]
		if o.Padding == nil {
			o.Padding = [][2]int{}
		}
	}
	return o, nil
}
