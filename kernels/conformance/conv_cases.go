package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"

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
	// last on its smaller form (40 on 12-row tiles: 12·2 + 8 + 8).
	{"kernel-cotangent-wide", []int{8, 14, 14, 40}, []int{8, 12, 12, 5}, trace.ConvOptions{
		DimensionNumbers: [3]string{"CHWN", "IHWO", "HWNC"}}},
	// Output features whole micro-kernel panels (64 on 32 columns): the
	// products read the output cotangent in place (Run2), a batch of 20
	// as panels of 12 + 8 rows.
	{"kernel-cotangent-in-place", []int{8, 12, 12, 20}, []int{8, 12, 12, 64}, trace.ConvOptions{
		Padding: [][2]int{{1, 1}, {1, 1}}, DimensionNumbers: [3]string{"CHWN", "IHWO", "HWNC"}}},
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
	cs = append(cs, convInt8Cases()...)
	cs = append(cs, bf16ConvCases()...)
	return append(cs, poolCases()...)
}

// byteInput is an int8 (or uint8, int4) array a third of whose values
// are the extremes -128, 127 and -1 (0, 255 as uint8; -8, 7 as int4), the
// rest uniform: sums of -128·-128 products leave int16 behind.
func byteInput(d tensor.DType, seed uint64, shape ...int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, 8))
	vals := make([]int8, trace.ShapeSize(shape))
	for i := range vals {
		vals[i] = int8(r.IntN(256) - 128)
		if r.IntN(3) == 0 {
			vals[i] = [3]int8{-128, 127, -1}[r.IntN(3)]
		}
		if d == tensor.I4 {
			vals[i] >>= 4
		}
	}
	a, _ := tensor.FromSlice(vals, shape...)
	return a.Astype(d) // uint8: the same bytes, -128 is 128
}

// convInt8Cases are convolutions of byte operands (the CPU runs them on
// its int8 GEMM: kernels/conv_int8.go) with extreme values: every
// configuration i8 × i8 and u8 × i8 into i32 by preferred_element_type,
// the first ones i8 × u8, u8 × u8 and i4 × i4 into i32 and u8 × u8 into
// u16 too; a contraction past the GEMM's k block of 512 (K = 750, no
// multiple of 4); a bias added after (the fused epilogue); and the
// convolution inside a fori_loop body, accumulated into an int32 carry.
func convInt8Cases() []Case {
	var cs []Case
	conv := func(name string, c convConfig, l, r, res tensor.DType, seed uint64, bias bool) {
		pref := trace.PreferredElementType(res)
		cs = append(cs, Case{Name: fmt.Sprintf("conv-int8/%s/%s/%s/%s", name, l, r, res),
			Inputs: []*tensor.Array{byteInput(l, seed, c.lhs...), byteInput(r, seed+1, c.rhs...)},
			Fn: one(func(a []trace.Value) trace.Value {
				y := trace.ConvGeneralDilated(a[0], a[1], c.opts, pref)
				if bias { // NHWC: the features are the last dim
					y = y.Add(trace.Iota(res, y.Shape(), len(c.lhs)-1).Mul(trace.Int(1001)))
				}
				return y
			})})
	}
	for i, c := range convConfigs {
		types := [][3]tensor.DType{{tensor.I8, tensor.I8, tensor.I32}, {tensor.U8, tensor.I8, tensor.I32}}
		if i < 6 {
			types = append(types, [][3]tensor.DType{{tensor.I8, tensor.U8, tensor.I32}, {tensor.U8, tensor.U8, tensor.I32},
				{tensor.U8, tensor.U8, tensor.U16}, {tensor.I4, tensor.I4, tensor.I32}}...)
		}
		for j, ty := range types {
			conv(c.name, c, ty[0], ty[1], ty[2], uint64(200+10*i+j), false)
		}
	}
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	long := convConfig{"long-k", []int{2, 9, 150}, []int{5, 150, 33}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}}
	odd := convConfig{"odd-features", []int{3, 6, 7, 5}, []int{3, 3, 5, 7}, trace.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{1, 2}, DimensionNumbers: nhwc}}
	for _, ty := range [][3]tensor.DType{{tensor.I8, tensor.I8, tensor.I32}, {tensor.U8, tensor.U8, tensor.I32}, {tensor.I8, tensor.U8, tensor.I16}} {
		conv(long.name, long, ty[0], ty[1], ty[2], 400, false)
		conv("bias-"+odd.name, odd, ty[0], ty[1], ty[2], 410, true)
	}
	c := odd
	cs = append(cs, Case{Name: "conv-int8/fori_loop/i8/i8/i32",
		Inputs: []*tensor.Array{byteInput(tensor.I8, 420, c.lhs...), byteInput(tensor.I8, 421, c.rhs...), Input(tensor.I32, 422, 3, 6, 4, 7)},
		Fn: func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, v []trace.Value) []trace.Value {
				return []trace.Value{v[0].Add(trace.ConvGeneralDilated(a[0], a[1], c.opts, trace.PreferredElementType(tensor.I32)))}
			}, a[2])
		}})
	return cs
}

// bf16ConvCases hold bf16 convolutions to dot_general's bf16 rule over the
// conv's K order (kernel positions row-major, then the group's input
// features) — k in pairs, the odd product first, DAZ and FTZ — with bf16
// results and f32 ones (preferred_element_type: the accumulator itself),
// on BF16RuleInput's corners: odd and even K, every CPU path (NCHW
// relayout, NHWC runs, groups, lhs dilation, the implicit-GEMM and
// batch-major shapes), a kernel cotangent and an input cotangent of a
// bf16 conv, and a fused bias and relu.
func bf16ConvCases() []Case {
	var cs []Case
	f32 := trace.PreferredElementType(tensor.F32)
	for i, c := range convConfigs {
		if c.name == "empty-window" || c.name == "empty-batch" || c.name == "empty-features-nchw" {
			continue
		}
		for _, pref := range []bool{false, true} {
			name, opts := "bf16-rule/conv-"+c.name, []trace.DotOption(nil)
			if pref {
				name, opts = name+"-f32", []trace.DotOption{f32}
			}
			co := c.opts
			cs = append(cs, Case{Name: name, Inputs: []*tensor.Array{BF16RuleInput(uint64(100+2*i), c.lhs...), BF16RuleInput(uint64(101+2*i), c.rhs...)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.ConvGeneralDilated(a[0], a[1], co, opts...) })})
		}
	}
	nhwc := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	// The pair order, not k in order: each output element of this 1×3
	// kernel over 3 input features (K = 9, odd) sums products such as
	// 2²⁴ + 1 + 1 − 2²⁴, which is 1 in pairs and 0 in order.
	cancel := func(seed uint64, shape ...int) *tensor.Array {
		r := rand.New(rand.NewPCG(seed, 17))
		vals := []float32{1 << 12, -(1 << 12), 1, -1, 0.5, 3, 0x1p-130, -0x1p-64, 0x1p-63}
		v := make([]float32, trace.ShapeSize(shape))
		for i := range v {
			v[i] = vals[r.IntN(len(vals))]
		}
		return tensor.Must(tensor.FromSlice(v, shape...)).Astype(tensor.BF16)
	}
	for _, pref := range []bool{false, true} {
		name, opts := "bf16-rule/conv-cancel", []trace.DotOption(nil)
		if pref {
			name, opts = name+"-f32", []trace.DotOption{f32}
		}
		cs = append(cs, Case{Name: name, Inputs: []*tensor.Array{cancel(1, 2, 5, 9, 3), cancel(2, 1, 3, 3, 4)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.ConvGeneralDilated(a[0], a[1], nhwc, opts...) })})
	}
	// Narrow floats exact in bf16 with preferred f32 are the bf16 rule on
	// the operands converted to bf16 (as their dots); f8e8m0fnu keeps the
	// f32 rule.
	for _, d := range []tensor.DType{tensor.F8E4M3FN, tensor.F8E5M2, tensor.F4E2M1FN, tensor.F8E8M0FNU} {
		cs = append(cs, Case{Name: "bf16-rule/conv-narrow-f32/" + d.String(), Inputs: []*tensor.Array{Input(d, 138, 2, 5, 9, 3), Input(d, 139, 1, 3, 3, 4)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.ConvGeneralDilated(a[0], a[1], nhwc, f32) })})
	}
	// Derivatives (of finite values): the cotangent convolutions of a
	// bf16 conv are bf16 convolutions and follow the same rule.
	cs = append(cs,
		Case{Name: "bf16-rule/conv-grad", Inputs: []*tensor.Array{cancel(130, 2, 6, 7, 5), cancel(131, 3, 3, 5, 4)},
			Fn: func(a []trace.Value) []trace.Value {
				loss := func(x []trace.Value) []trace.Value {
					return []trace.Value{trace.ConvGeneralDilated(x[0], x[1], nhwc).Square().Sum()}
				}
				return trace.Grad(loss, trace.GradOptions{Argnums: []int{0, 1}})(a...)
			}},
		Case{Name: "bf16-rule/conv-f32-bias-relu", Inputs: []*tensor.Array{BF16RuleInput(132, 2, 8, 9, 6), BF16RuleInput(133, 3, 3, 6, 10), Input(tensor.F32, 134, 10)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.ConvGeneralDilated(a[0], a[1], nhwc, f32).Add(a[2]).Maximum(trace.Float(0))
			})},
		Case{Name: "bf16-rule/conv-bias-relu", Inputs: []*tensor.Array{BF16RuleInput(135, 2, 8, 9, 6), BF16RuleInput(136, 3, 3, 6, 10), BF16RuleInput(137, 10)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.ConvGeneralDilated(a[0], a[1], nhwc).Add(a[2]).Maximum(trace.Float(0))
			})},
	)
	return cs
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
	// Windows full of ties between zeros of both signs, and NaNs: the
	// value of a max (min) pooling is the first window element equal to
	// the extremum, whose bits the backends compute from the extremum
	// alone (lower.WithoutFirstChosen).
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
		vals := make([]float64, 2*7*6*3)
		for i := range vals {
			switch {
			case i%17 == 5:
				vals[i] = math.NaN()
			case i%3 == 0:
				vals[i] = math.Copysign(0, -1)
			case i%3 == 1:
				vals[i] = 0
			default:
				vals[i] = float64(i%7) - 5
			}
		}
		a, _ := tensor.FromSlice(vals, 2, 7, 6, 3)
		x := a.Astype(d)
		cs = append(cs,
			Case{Name: "pool/max-zeros-nan/" + d.String(), Inputs: []*tensor.Array{x}, Fn: one(func(a []trace.Value) trace.Value {
				return trace.ReduceWindowMax(a[0], []int{1, 3, 3, 1}, trace.WindowOptions{Strides: []int{1, 2, 2, 1}, PaddingMode: "SAME"})
			})},
			Case{Name: "pool/min-zeros-nan/" + d.String(), Inputs: []*tensor.Array{x}, Fn: one(func(a []trace.Value) trace.Value {
				return trace.ReduceWindowMin(a[0], []int{1, 2, 2, 1}, trace.WindowOptions{Padding: [][2]int{{0, 0}, {1, 0}, {0, 1}, {0, 0}}})
			})})
	}
	return cs
}
