package kernels_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// int8ConvShape is one convolution of TestInt8ConvReference: operand
// shapes, options, and which dim of the output holds its features (for
// the bias of the epilogue).
type int8ConvShape struct {
	name     string
	lhs, rhs []int
	opts     trace.ConvOptions
	outC     int
}

var int8ConvShapes = []int8ConvShape{
	// NHWC × HWIO with SAME padding, 5 input features (K = 45, no
	// multiple of 4) and 7 outputs, batch 2: the output written in place.
	{"nhwc-same-odd", []int{2, 6, 7, 5}, []int{3, 3, 5, 7}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, 3},
	// NCHW × OIHW with strides and uneven padding, batch 3: relaid out
	// lhs, output stored through its strides.
	{"nchw-strided", []int{3, 3, 9, 8}, []int{6, 3, 3, 2}, trace.ConvOptions{WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 2}, {0, 1}}}, 1},
	// lhs and rhs dilation, negative padding.
	{"nhwc-dilated", []int{2, 7, 6, 3}, []int{2, 3, 3, 4}, trace.ConvOptions{
		WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 2}, {-1, 1}}, LhsDilation: []int{1, 2}, RhsDilation: []int{2, 1},
		DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, 3},
	// Feature groups (each group's outputs a column range of the
	// in-place output) and depthwise.
	{"groups", []int{2, 5, 5, 6}, []int{3, 3, 3, 10}, trace.ConvOptions{FeatureGroupCount: 2, PaddingMode: "SAME",
		DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, 3},
	{"depthwise-nchw", []int{1, 4, 6, 6}, []int{8, 1, 3, 3}, trace.ConvOptions{FeatureGroupCount: 4, PaddingMode: "SAME_LOWER", WindowStrides: []int{2, 2}}, 1},
	// A scrambled layout and a 3-d one.
	{"scrambled", []int{3, 4, 2, 5}, []int{2, 3, 4, 3}, trace.ConvOptions{Padding: [][2]int{{1, 0}, {0, 1}}, DimensionNumbers: [3]string{"CWNH", "HOWI", "WHCN"}}, 2},
	{"3d", []int{1, 2, 3, 4, 3}, []int{2, 2, 2, 2, 2}, trace.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{1, 2, 1}}, 1},
	// A long contraction (K = 5·150 = 750: past the GEMM's k block of
	// 512), whose -128·-128 sums leave int16 far behind.
	{"1d-long-k", []int{2, 9, 150}, []int{5, 150, 33}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}, 2},
	// 64 → 64 features (whole 32-column panels, rows of 12), and 900
	// output positions (two blocks of positions, the second short).
	{"nhwc-64", []int{2, 6, 7, 64}, []int{3, 3, 64, 64}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, 3},
	{"blocks", []int{1, 30, 30, 3}, []int{3, 3, 3, 9}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, 3},
}

// int8ConvTypes are the operand dtypes and the preferred_element_type
// (0: none; the result is the promoted dtype) of TestInt8ConvReference.
var int8ConvTypes = [][3]tensor.DType{
	{tensor.I8, tensor.I8, tensor.I32}, {tensor.U8, tensor.I8, tensor.I32}, {tensor.I8, tensor.U8, tensor.I32},
	{tensor.U8, tensor.U8, tensor.I32}, {tensor.I8, tensor.I8, tensor.I16}, {tensor.U8, tensor.U8, tensor.U16},
	{tensor.U8, tensor.U8, tensor.U32}, {tensor.I8, tensor.I8, 0}, {tensor.U8, tensor.U8, 0}, {tensor.I8, tensor.U8, 0},
	{tensor.I4, tensor.I4, tensor.I32},
}

// Convolutions of int8 and uint8 operands (kernels/conv_int8.go: the
// int8 GEMM) against the reference evaluator, exactly, in every
// simd.Mode (the VNNI GEMM, or the f32/f64 GEMM where VNNI is hidden or
// missing) on one, two and three workers:
// i8, u8 and mixed operands into i32, i16, u16 and u32 by
// preferred_element_type, and wrapping into the promoted dtype (i8, u8;
// i16 for i8 × u8), with and without a bias added after (the fused
// epilogue), over the layouts, strides, padding, dilation and feature
// groups of int8ConvShapes; int4 operands passed unpacked and packed.
// A third of the inputs are -128, 127 or -1
// (0, 255 as uint8), so the sums overflow int16.
func TestInt8ConvReference(t *testing.T) {
	cpus := []*kernels.CPU{
		kernels.NewCPU(kernels.CPUOptions{Workers: 1}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 3, ParallelMin: 1}),
	}
	modes := simd.Modes()
	seed := uint64(100)
	for _, s := range int8ConvShapes {
		for ti, ty := range int8ConvTypes {
			for _, bias := range []bool{false, true} {
				seed += 3
				if !longtest.Enabled() && (ti+int(seed))%3 != 0 && ti != 0 {
					continue // KILN_LONG=1 runs every pair; by default a third and i8 × i8 → i32
				}
				in := func(d tensor.DType, seed uint64, shape []int) *tensor.Array {
					if d == tensor.I4 {
						return i4Input(seed, shape...)
					}
					return i8Input(d, seed, shape...)
				}
				inputs := []*tensor.Array{in(ty[0], seed, s.lhs), in(ty[1], seed+1, s.rhs)}
				res := "promoted"
				if ty[2] != 0 {
					res = ty[2].String()
				}
				name := fmt.Sprintf("%s/%v×%v→%s/bias=%v", s.name, ty[0], ty[1], res, bias)
				c := conformance.Case{Name: name, Inputs: inputs, Fn: func(a []trace.Value) []trace.Value {
					var opts []trace.DotOption
					if ty[2] != 0 {
						opts = append(opts, trace.PreferredElementType(ty[2]))
					}
					y := trace.ConvGeneralDilated(a[0], a[1], s.opts, opts...)
					if bias {
						y = y.Add(trace.Iota(y.DType(), y.Shape(), s.outC).Mul(trace.Int(97)))
					}
					return []trace.Value{y}
				}}
				p, want, err := conformance.Reference(c)
				if err != nil {
					t.Fatalf("%s: reference: %v", name, err)
				}
				mod, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
				if err != nil {
					t.Fatal(err)
				}
				for _, mode := range modes {
					restore := mode.Set()
					for w, cpu := range cpus {
						exe, err := cpu.Compile(mod)
						if err != nil {
							t.Fatalf("%s %v: %v", name, mode, err)
						}
						got, err := exe.Run(inputs)
						if err != nil {
							t.Fatalf("%s %v: %v", name, mode, err)
						}
						if msg := conformance.Compare(got[0], want[0], 0); msg != "" {
							t.Fatalf("%s %v, %d workers: %s", name, mode, w+1, msg)
						}
						if ty[0] != tensor.I4 {
							continue
						}
						// Passed packed: unpacked for the run (only
						// dot_general's int8 products read packed inputs).
						packed := make([]*tensor.Array, len(inputs))
						for i, in := range inputs {
							if packed[i], err = in.Pack(); err != nil {
								t.Fatal(err)
							}
						}
						if got, err = exe.Run(packed); err != nil {
							t.Fatalf("%s %v packed: %v", name, mode, err)
						}
						if msg := conformance.Compare(got[0], want[0], 0); msg != "" {
							t.Fatalf("%s %v, %d workers, packed: %s", name, mode, w+1, msg)
						}
					}
					restore()
				}
			}
		}
	}
}

// i4Input is an int4 array of the values -8 … 7, a third of them -8.
func i4Input(seed uint64, shape ...int) *tensor.Array {
	a := i8Input(tensor.I8, seed, shape...)
	v, _ := tensor.Data[int8](a)
	for i := range v {
		v[i] = v[i] >> 4
	}
	b, _ := tensor.FromSlice(v, shape...)
	return b.Astype(tensor.I4)
}
