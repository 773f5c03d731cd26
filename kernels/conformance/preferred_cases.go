package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// preferredPairs are operand and preferred_element_type dtypes JAX allows
// (trace.PreferredElementType): accumulating wide (bf16, f16 → f32;
// i8, u8 → i32; f32 → f64; c64 → c128), integers into floats, bool into
// an integer, and the operands' own dtype.
var preferredPairs = [][3]tensor.DType{
	{tensor.BF16, tensor.BF16, tensor.F32}, {tensor.F16, tensor.F16, tensor.F32}, {tensor.BF16, tensor.BF16, tensor.F64},
	{tensor.I8, tensor.I8, tensor.I32}, {tensor.U8, tensor.I8, tensor.I32}, {tensor.U8, tensor.U8, tensor.I32},
	{tensor.U8, tensor.U8, tensor.U16}, {tensor.I16, tensor.I16, tensor.I64}, {tensor.I8, tensor.I8, tensor.F32},
	{tensor.U8, tensor.U8, tensor.BF16}, {tensor.F32, tensor.F32, tensor.F64}, {tensor.C64, tensor.C64, tensor.C128},
	{tensor.Bool, tensor.Bool, tensor.I32}, {tensor.F32, tensor.F32, tensor.F32}, {tensor.F16, tensor.F16, tensor.BF16},
}

// preferredCases run dot_general and matmul with a preferred_element_type:
// the reference evaluates it by definition (operands converted, then the
// dot), the backends through lowering's expansion.
func preferredCases() []Case {
	var cs []Case
	for _, p := range preferredPairs {
		name := fmt.Sprintf("%s,%s->%s", p[0], p[1], p[2])
		pref := trace.PreferredElementType(p[2])
		cs = append(cs,
			Case{Name: "matmul-preferred/" + name, Inputs: []*tensor.Array{Input(p[0], 40, 5, 70), Input(p[1], 41, 70, 3)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.MatMul(a[0], a[1], pref) })},
			Case{Name: "matmul-preferred-batch/" + name, Inputs: []*tensor.Array{Input(p[0], 42, 2, 1, 4, 9), Input(p[1], 43, 3, 9, 5)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.MatMul(a[0], a[1], pref) })},
			Case{Name: "dot-preferred-transposed/" + name, Inputs: []*tensor.Array{Input(p[0], 44, 6, 4), Input(p[1], 45, 5, 6)},
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}, pref)
				})},
		)
	}
	for _, p := range [][2]tensor.DType{{tensor.BF16, tensor.F32}, {tensor.I8, tensor.I32}, {tensor.F16, tensor.F64}} {
		cs = append(cs, Case{Name: fmt.Sprintf("einsum-preferred/%s->%s", p[0], p[1]),
			Inputs: []*tensor.Array{Input(p[0], 48, 3, 4, 20), Input(p[0], 49, 20, 5), Input(p[0], 50, 5, 2)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.EinsumPreferred("ixk,kj,jl->li", p[1], a[0], a[1], a[2])
			})})
	}
	// Convolutions: NCHW with strides and padding, NHWC grouped and dilated.
	for _, p := range [][2]tensor.DType{{tensor.BF16, tensor.F32}, {tensor.I8, tensor.I32}, {tensor.F16, tensor.F32}, {tensor.U8, tensor.F64}} {
		pref := trace.PreferredElementType(p[1])
		cs = append(cs,
			Case{Name: fmt.Sprintf("conv-preferred/%s->%s", p[0], p[1]), Inputs: []*tensor.Array{Input(p[0], 53, 2, 3, 7, 6), Input(p[0], 54, 4, 3, 3, 2)},
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{2, 1}}, pref)
				})},
			Case{Name: fmt.Sprintf("conv-preferred-nhwc-groups/%s->%s", p[0], p[1]), Inputs: []*tensor.Array{Input(p[0], 55, 1, 6, 5, 4), Input(p[0], 56, 2, 2, 2, 6)},
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{Padding: [][2]int{{1, 2}, {0, 1}}, LhsDilation: []int{2, 1}, RhsDilation: []int{1, 2},
						FeatureGroupCount: 2, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, pref)
				})})
	}
	// Inside a loop body (lowered as its own sub-module): an f32 carry
	// accumulating bf16 products in f32, and an int32 one of int8 products.
	for _, p := range [][2]tensor.DType{{tensor.BF16, tensor.F32}, {tensor.I8, tensor.I32}} {
		cs = append(cs, Case{Name: fmt.Sprintf("fori_loop-matmul-preferred/%s->%s", p[0], p[1]),
			Inputs: []*tensor.Array{Input(p[0], 57, 3, 16), Input(p[0], 58, 16, 2), Input(p[1], 59, 3, 2)},
			Fn: func(a []trace.Value) []trace.Value {
				return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
					return []trace.Value{c[0].Add(trace.MatMul(a[0], a[1], trace.PreferredElementType(p[1])))}
				}, a[2])
			}})
	}
	// Weak operands: lax.dot_general's result stays weak, jnp.matmul's is
	// strong (a convert of its own).
	cs = append(cs, Case{Name: "dot-preferred-weak/f32->f64", Inputs: []*tensor.Array{Input(tensor.F32, 51, 3, 8), Input(tensor.F32, 52, 8, 2)},
		Weak: []bool{true, true}, Fn: func(a []trace.Value) []trace.Value {
			f64 := trace.PreferredElementType(tensor.F64)
			return []trace.Value{trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}, f64).Add(trace.Float(0.5)),
				trace.MatMul(a[0], a[1], f64).Add(trace.Float(0.5))}
		}})
	// The preferred product feeding elementwise work and a second dot.
	cs = append(cs, Case{Name: "dot-preferred-chain/bf16", Inputs: []*tensor.Array{Input(tensor.BF16, 46, 4, 33), Input(tensor.BF16, 47, 33, 4)},
		Fn: one(func(a []trace.Value) trace.Value {
			h := trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32))
			return h.Tanh().MatMul(h).Add(trace.Float(1))
		}), Tolerance: 1e-5})
	return cs
}
