package kiln_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestNumPyConv holds conv_general_dilated to a NumPy definition written
// with explicit loops over the dilated, padded input (the conv helper of
// numpyPrelude), bit for bit, in every layout and window parameter and
// dtype class (the random programs of TestNumPy draw convolutions too);
// and the pooling compositions of package nn and trace.ReduceWindow*.
func TestNumPyConv(t *testing.T) {
	numpyOrSkip(t)
	configs := []struct {
		name     string
		lhs, rhs []int
		opts     trace.ConvOptions
	}{
		{"nchw-same", []int{2, 3, 5, 6}, []int{4, 3, 3, 2}, trace.ConvOptions{PaddingMode: "SAME"}},
		{"nhwc-strided-dilated", []int{2, 7, 6, 3}, []int{2, 3, 3, 4}, trace.ConvOptions{
			WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 2}, {0, 1}}, LhsDilation: []int{1, 2}, RhsDilation: []int{2, 1},
			DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
		{"1d-groups", []int{2, 7, 4}, []int{3, 2, 6}, trace.ConvOptions{
			FeatureGroupCount: 2, PaddingMode: "VALID", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}},
		{"3d", []int{1, 2, 3, 4, 3}, []int{2, 2, 2, 2, 2}, trace.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{1, 2, 1}}},
		{"depthwise-same-lower", []int{1, 5, 5, 4}, []int{3, 3, 1, 8}, trace.ConvOptions{
			FeatureGroupCount: 4, PaddingMode: "SAME_LOWER", WindowStrides: []int{2, 2}, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
		{"negative-padding", []int{1, 2, 6, 5}, []int{3, 2, 2, 2}, trace.ConvOptions{Padding: [][2]int{{-1, 1}, {2, -1}}, LhsDilation: []int{2, 1}}},
		{"scrambled", []int{3, 4, 2, 5}, []int{2, 3, 4, 3}, trace.ConvOptions{Padding: [][2]int{{1, 0}, {0, 1}}, DimensionNumbers: [3]string{"CWNH", "HOWI", "WHCN"}}},
	}
	var cases []numpyCase
	for i, c := range configs {
		for j, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I8, tensor.U8, tensor.I32} {
			x := conformance.Input(d, uint64(100+10*i+j), c.lhs...)
			w := conformance.Input(d, uint64(200+10*i+j), c.rhs...)
			opts := c.opts
			cases = append(cases, numpyCase{fmt.Sprintf("conv %s %s", c.name, d), &progen.Case{
				Inputs: []trace.Abstract{{Type: promote.Strong(d), Shape: c.lhs}, {Type: promote.Strong(d), Shape: c.rhs}},
				Arrays: []*tensor.Array{x, w},
				Fn: func(a []trace.Value) []trace.Value {
					return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], opts)}
				},
			}})
		}
	}
	pools := []struct {
		name string
		f    func(x trace.Value) trace.Value
	}{
		{"max_pool same", func(x trace.Value) trace.Value { return nn.MaxPool(x, []int{3, 2}, []int{2, 1}, "SAME") }},
		{"avg_pool exclude pad", func(x trace.Value) trace.Value { return nn.AvgPool(x, []int{2, 3}, nil, "SAME", false) }},
		{"sum_pool", func(x trace.Value) trace.Value { return nn.SumPool(x, []int{2, 2}, []int{2, 2}, "VALID") }},
		{"reduce_window min dilated", func(x trace.Value) trace.Value {
			return trace.ReduceWindowMin(x, []int{1, 2, 2, 1}, trace.WindowOptions{WindowDilation: []int{1, 2, 1, 1}, Padding: [][2]int{{0, 0}, {1, -1}, {2, 0}, {0, 0}}})
		}},
	}
	for i, pl := range pools {
		for j, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I8} {
			x := conformance.Input(d, uint64(300+10*i+j), 2, 7, 6, 3)
			f := pl.f
			cases = append(cases, numpyCase{fmt.Sprintf("%s %s", pl.name, d), &progen.Case{
				Inputs: []trace.Abstract{{Type: promote.Strong(d), Shape: x.Shape()}},
				Arrays: []*tensor.Array{x},
				Fn:     func(a []trace.Value) []trace.Value { return []trace.Value{f(a[0])} },
			}})
		}
	}
	runNumPyBatch(t, cases)
}
