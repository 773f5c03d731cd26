package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// convConfig is one conv_general_dilated configuration of convCases.
type convConfig struct {
	name     string
	lhs, rhs []int
	opts     trace.ConvOptions
}

// convConfigs cover every parameter of conv_general_dilated: 1, 2 and 3
// spatial dims, NCHW, NHWC and a scrambled layout, strides, SAME, VALID,
// explicit and negative padding, lhs and rhs dilation, feature groups
// (depthwise too), empty results, and a size past the parallel threshold.
var convConfigs = []convConfig{
	{"nchw-same", []int{2, 3, 5, 6}, []int{4, 3, 3, 2}, trace.ConvOptions{PaddingMode: "SAME"}},
	{"nhwc-strided-dilated", []int{2, 7, 6, 3}, []int{2, 3, 3, 4}, trace.ConvOptions{
		WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 2}, {0, 1}}, LhsDilation: []int{1, 2}, RhsDilation: []int{2, 1},
		DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	{"1d-groups", []int{2, 7, 4}, []int{3, 2, 6}, trace.ConvOptions{
		FeatureGroupCount: 2, PaddingMode: "VALID", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}},
	{"3d-same", []int{1, 2, 3, 4, 3}, []int{2, 2, 2, 2, 2}, trace.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{1, 2, 1}}},
	{"depthwise", []int{1, 5, 5, 4}, []int{3, 3, 1, 8}, trace.ConvOptions{
		FeatureGroupCount: 4, PaddingMode: "SAME_LOWER", WindowStrides: []int{2, 2}, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	{"negative-padding", []int{1, 2, 6, 5}, []int{3, 2, 2, 2}, trace.ConvOptions{Padding: [][2]int{{-1, 1}, {2, -1}}, LhsDilation: []int{2, 1}}},
	{"scrambled-layout", []int{3, 4, 2, 5}, []int{2, 3, 4, 3}, trace.ConvOptions{
		Padding: [][2]int{{1, 0}, {0, 1}}, DimensionNumbers: [3]string{"CWNH", "HOWI", "WHCN"}}},
	{"empty-window", []int{1, 2, 2, 2}, []int{1, 2, 3, 3}, trace.ConvOptions{}},
	{"empty-features", []int{2, 4, 4, 0}, []int{3, 3, 0, 5}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	{"empty-features-nchw", []int{2, 0, 4, 4}, []int{5, 0, 3, 3}, trace.ConvOptions{PaddingMode: "SAME"}},
	{"empty-batch", []int{0, 2, 4, 4}, []int{3, 2, 2, 2}, trace.ConvOptions{PaddingMode: "SAME"}},
	{"nhwc-runs", []int{2, 6, 7, 5}, []int{3, 2, 5, 4}, trace.ConvOptions{
		WindowStrides: []int{1, 2}, Padding: [][2]int{{1, 1}, {2, 0}}, RhsDilation: []int{2, 1}, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	{"groups-unit-spatial", []int{4, 3, 1}, []int{6, 1, 3}, trace.ConvOptions{ // features contiguous and a size-1 spatial dim of stride 1: not one run across groups
		FeatureGroupCount: 3, PaddingMode: "SAME", WindowStrides: []int{3}, DimensionNumbers: [3]string{"NCH", "OIH", "HNC"}}},
	// ctrlflow2's report: a grouped f16 conv (three groups of one feature)
	// and the transposed layout of its gradient.
	{"groups-padded", []int{5, 3, 1}, []int{3, 1, 3}, trace.ConvOptions{FeatureGroupCount: 3, Padding: [][2]int{{1, 1}},
		DimensionNumbers: [3]string{"NCH", "OIH", "NCH"}}},
	{"groups-padded-cnh", []int{3, 5, 1}, []int{3, 1, 3}, trace.ConvOptions{FeatureGroupCount: 3, Padding: [][2]int{{1, 1}},
		DimensionNumbers: [3]string{"CNH", "OIH", "NCH"}}},
	// Few output positions, many batch elements and a long contraction
	// run batch-major on the CPU (kernels' convBatch): a kernel cotangent's
	// own layout (the input read as CHWN, the output cotangent as IHWO,
	// HWIO out, as trace's convTransposeRHS makes it for an NHWC conv), and
	// an NHWC one with strides, uneven padding, rhs dilation outside the
	// last dim, a batch that is no multiple of a micro-kernel's rows and
	// output features no multiple of its columns.
	{"kernel-cotangent", []int{8, 12, 12, 16}, []int{8, 12, 12, 7}, trace.ConvOptions{
		Padding: [][2]int{{1, 1}, {1, 1}}, DimensionNumbers: [3]string{"CHWN", "IHWO", "HWNC"}}},
	// Batch elements for several tiles of the micro-kernel's rows, the
	// last on its smaller form (40 on 12-row tiles: 12·3 + 4).
	{"kernel-cotangent-wide", []int{8, 14, 14, 40}, []int{8, 12, 12, 5}, trace.ConvOptions{
		DimensionNumbers: [3]string{"CHWN", "IHWO", "HWNC"}}},
	{"batch-major-strided", []int{13, 20, 18, 9}, []int{8, 16, 9, 5}, trace.ConvOptions{
		WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 2}, {0, 1}}, RhsDilation: []int{2, 1}, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	// NHWC inputs and outputs run as an implicit GEMM on the CPU (kernels'
	// convBatch in lines mode): a line of output positions no multiple of
	// a micro-kernel's rows, output features no multiple of its columns,
	// and one with strides, uneven padding and rhs dilation outside the
	// last dim whose tiles write the output in place.
	{"lines-same", []int{2, 9, 27, 12}, []int{3, 3, 12, 20}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	{"lines-strided", []int{3, 10, 31, 16}, []int{2, 4, 16, 32}, trace.ConvOptions{
		WindowStrides: []int{2, 3}, Padding: [][2]int{{1, 0}, {2, 1}}, RhsDilation: []int{2, 1}, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
	{"parallel", []int{2, 12, 12, 8}, []int{3, 3, 8, 16}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
}

// ConvConfig is one conv_general_dilated configuration of the suite: its
// name, operand shapes and options.
type ConvConfig struct {
	Name     string
	Lhs, Rhs []int
	Opts     trace.ConvOptions
}

// ConvConfigs returns the suite's first n configurations (the non-empty,
// small ones: every parameter of conv_general_dilated), for other tests,
// such as the root package's NumPy comparison, to run the same shapes.
func ConvConfigs(n int) []ConvConfig {
	out := make([]ConvConfig, 0, n)
	for _, c := range convConfigs[:n] {
		out = append(out, ConvConfig{c.name, c.lhs, c.rhs, c.opts})
	}
	return out
}

// convCases run every configuration in the dtypes convolution takes, and
// the promotions of mixed and weak operands.
func convCases() []Case {
	var cs []Case
	for _, c := range convConfigs {
		dts := []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I8, tensor.U8, tensor.I32, tensor.I64, tensor.U16}
		if c.name == "parallel" {
			dts = []tensor.DType{tensor.F32, tensor.BF16, tensor.I16}
		}
		for _, d := range dts {
			opts := c.opts
			cs = append(cs, Case{Name: fmt.Sprintf("conv/%s/%s", c.name, d), Inputs: []*tensor.Array{Input(d, 80, c.lhs...), Input(d, 81, c.rhs...)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.ConvGeneralDilated(a[0], a[1], opts) })})
		}
	}
	c := convConfigs[1]
	cs = append(cs,
		Case{Name: "conv/promote-i8-f32", Inputs: []*tensor.Array{Input(tensor.I8, 82, c.lhs...), Input(tensor.F32, 83, c.rhs...)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.ConvGeneralDilated(a[0], a[1], c.opts) })},
		Case{Name: "conv/weak-rhs", Inputs: []*tensor.Array{Input(tensor.F16, 84, c.lhs...), Input(tensor.F32, 85, c.rhs...)}, Weak: []bool{false, true},
			Fn: one(func(a []trace.Value) trace.Value { return trace.ConvGeneralDilated(a[0], a[1], c.opts) })},
	)
	return append(cs, poolCases()...)
}

// poolCases cover the reduce_window compositions (max, min, sum pooling
// and average pooling both ways of counting) with strides, SAME and
// explicit (negative too) padding and window dilation.
func poolCases() []Case {
	var cs []Case
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I8, tensor.U8, tensor.I32} {
		x := Input(d, 90, 2, 7, 6, 3)
		s := d.String()
		add := func(name string, f func(a trace.Value) trace.Value) {
			cs = append(cs, Case{Name: "pool/" + name + "/" + s, Inputs: []*tensor.Array{x}, Fn: one(func(a []trace.Value) trace.Value { return f(a[0]) })})
		}
		add("max-same", func(a trace.Value) trace.Value {
			return trace.ReduceWindowMax(a, []int{1, 3, 3, 1}, trace.WindowOptions{Strides: []int{1, 2, 2, 1}, PaddingMode: "SAME"})
		})
		add("min-dilated", func(a trace.Value) trace.Value {
			return trace.ReduceWindowMin(a, []int{1, 2, 2, 1}, trace.WindowOptions{WindowDilation: []int{1, 2, 1, 1}, Padding: [][2]int{{0, 0}, {1, -1}, {2, 0}, {0, 0}}})
		})
		add("sum-valid", func(a trace.Value) trace.Value {
			return trace.ReduceWindowSum(a, []int{1, 2, 3, 2}, trace.WindowOptions{Strides: []int{1, 1, 3, 1}})
		})
		add("avg-include-pad", func(a trace.Value) trace.Value {
			return trace.ReduceWindowSum(a, []int{1, 3, 2, 1}, trace.WindowOptions{PaddingMode: "SAME"}).Div(trace.Int(6))
		})
	}
	return cs
}
