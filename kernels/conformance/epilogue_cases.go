package conformance

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// epilogueCases are products followed by elementwise consumers, which
// lowering fuses into the product's kernel (lower.FuseEpilogues): a dense
// layer in every dtype class, one crossing the CPU GEMM's k and column
// blocks with a gelu and an output convert, a batched transposed one, and
// an int8 product summed in int32 (VNNI where present), and convolutions
// with a bias and an activation in NHWC (the CPU's per-block path) and
// NCHW — every backend held to the reference with its epilogue fused.
func epilogueCases() []Case {
	var cs []Case
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I32, tensor.C64} {
		cs = append(cs, Case{Name: "dense-epilogue/" + d.String(), Inputs: []*tensor.Array{Input(d, 60, 9, 70), Input(d, 61, 70, 21), Input(d, 62, 21)},
			Fn: one(func(a []trace.Value) trace.Value {
				y := a[0].MatMul(a[1]).Add(a[2])
				switch {
				case d.IsInteger():
					return y.Maximum(trace.Int(0)).Mul(trace.Int(3))
				case d.IsComplex():
					return y.Mul(trace.Float(0.5))
				}
				return y.Mul(trace.Float(0.5)).Tanh()
			})})
	}
	nhwc := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	for _, d := range []tensor.DType{tensor.F32, tensor.F16, tensor.I32} {
		cs = append(cs, Case{Name: "conv-epilogue-nhwc/" + d.String(), Inputs: []*tensor.Array{Input(d, 72, 2, 9, 8, 3), Input(d, 73, 3, 3, 3, 5), Input(d, 74, 5)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.ConvGeneralDilated(a[0], a[1], nhwc).Add(a[2]).Maximum(trace.Int(0))
			})})
	}
	cs = append(cs, Case{Name: "conv-epilogue-nchw", Inputs: []*tensor.Array{Input(tensor.F64, 75, 2, 3, 7, 6), Input(tensor.F64, 76, 4, 3, 3, 3), Input(tensor.F64, 77, 4, 1, 1)},
		Fn: one(func(a []trace.Value) trace.Value {
			return trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{PaddingMode: "SAME"}).Mul(trace.Float(0.5)).Add(a[2]).Tanh()
		})})
	// A kernel cotangent (the conv's VJP, batch-major on the CPU: kernels'
	// convBatch) with an SGD step fused after it, f32 and bf16.
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
		cs = append(cs, Case{Name: "conv-kernel-grad-epilogue/" + d.String(), Inputs: []*tensor.Array{Input(d, 78, 3, 12, 12, 9), Input(d, 79, 3, 3, 9, 20), Input(d, 88, 3, 12, 12, 20)},
			Fn: one(func(a []trace.Value) trace.Value {
				_, pull := trace.VJP(func(w []trace.Value) []trace.Value { return []trace.Value{trace.ConvGeneralDilated(a[0], w[0], nhwc)} }, a[1])
				return a[1].Sub(pull(a[2])[0].Mul(trace.Float(0.01)))
			})})
	}
	return append(cs,
		Case{Name: "dense-epilogue-gemm-blocks", Inputs: []*tensor.Array{Input(tensor.F32, 63, 37, 600), Input(tensor.F32, 64, 600, 530), Input(tensor.F32, 65, 530)},
			Fn: one(func(a []trace.Value) trace.Value {
				x := a[0].MatMul(a[1]).Add(a[2])
				half := trace.Float(0.7071067811865476)
				return trace.Float(0.5).Mul(x).Mul(x.Neg().Mul(half).Erfc()).Astype(tensor.F16) // exact gelu
			})},
		Case{Name: "dense-epilogue-batched-transposed", Inputs: []*tensor.Array{Input(tensor.F64, 66, 3, 40, 7), Input(tensor.F64, 67, 3, 11, 40), Input(tensor.F64, 68, 11)},
			Fn: one(func(a []trace.Value) trace.Value {
				y := trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{1}, RhsContract: []int{2}}).Add(a[2])
				return trace.Where(y.Gt(trace.Int(0)), y, trace.Int(0))
			})},
		// The product read elsewhere too: the epilogue fusion's second
		// output (a relu's pre-activation recomputed for a reduced mask,
		// and the product itself as an output).
		Case{Name: "dense-epilogue-shared", Inputs: []*tensor.Array{Input(tensor.F32, 78, 9, 70), Input(tensor.F32, 79, 70, 21), Input(tensor.F32, 80, 21), Input(tensor.F32, 81, 9, 21)},
			Fn: func(a []trace.Value) []trace.Value {
				y := a[0].MatMul(a[1])
				z := y.Add(a[2])
				return []trace.Value{z.Maximum(trace.Int(0)), trace.Where(z.Gt(trace.Int(0)), a[3], trace.Int(0)).Sum(1), y}
			}},
		// A multi-output loop joined whole: a relu, its mask (bool), an
		// f16 copy and a result reading the relu, the product an output
		// too; and a conv's relu, mask and a result reading the relu.
		Case{Name: "dense-epilogue-multi", Inputs: []*tensor.Array{Input(tensor.F32, 82, 9, 70), Input(tensor.F32, 83, 70, 21), Input(tensor.F32, 84, 21)},
			Fn: func(a []trace.Value) []trace.Value {
				y := a[0].MatMul(a[1])
				z := y.Add(a[2])
				r := z.Maximum(trace.Int(0))
				return []trace.Value{r, z.Gt(trace.Int(0)), z.Astype(tensor.F16), r.Mul(y), y}
			}},
		Case{Name: "conv-epilogue-multi-nhwc", Inputs: []*tensor.Array{Input(tensor.F32, 85, 2, 9, 8, 3), Input(tensor.F32, 86, 3, 3, 3, 5), Input(tensor.F32, 87, 5)},
			Fn: func(a []trace.Value) []trace.Value {
				z := trace.ConvGeneralDilated(a[0], a[1], nhwc).Add(a[2])
				r := z.Maximum(trace.Int(0))
				return []trace.Value{r, z.Gt(trace.Int(0)), r.Mul(z)}
			}},
		Case{Name: "dense-epilogue-i8", Inputs: []*tensor.Array{Input(tensor.I8, 69, 37, 300), Input(tensor.I8, 70, 300, 53), Input(tensor.I32, 71, 53)},
			Fn: one(func(a []trace.Value) trace.Value {
				y := trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32)).Add(a[2])
				return y.Maximum(trace.Int(0)).Astype(tensor.F32).Logistic()
			})},
	)
}
