package conformance

import (
	"fmt"
	"math/rand/v2"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BF16RuleInput is a bf16 array whose products and sums reach the bf16
// dot rule's corners (docs/SPEC.md §3): subnormals (read as zeros), ±0,
// ±Inf, NaN, exponents near 2⁻⁶³ whose products land around 2⁻¹²⁶ (the
// accumulator flushes there) and ordinary values of mixed magnitude.
func BF16RuleInput(seed uint64, shape ...int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, 16))
	v := make([]tensor.BFloat16, trace.ShapeSize(shape))
	for i := range v {
		sign := uint16(r.IntN(2)) << 15
		var bits uint16
		switch r.IntN(16) {
		case 0:
			bits = uint16(r.IntN(0x80)) // subnormal or zero
		case 1:
			bits = 0x7f80 // Inf
		case 2:
			if r.IntN(3) == 0 {
				bits = 0x7fc0 // NaN
			} else {
				bits = uint16(r.IntN(3)+1)<<7 | uint16(r.IntN(0x80)) // tiny normal
			}
		case 3, 4, 5, 6:
			bits = uint16(r.IntN(4)+61)<<7 | uint16(r.IntN(0x80)) // near 2⁻⁶³
		default:
			bits = uint16(r.IntN(24)+115)<<7 | uint16(r.IntN(0x80))
		}
		v[i] = tensor.BFloat16FromBits(sign | bits)
	}
	return tensor.Must(tensor.Must(tensor.FromSlice(v)).Reshape(shape...))
}

// bf16RuleCases hold bf16 dots to the bf16 rule — k in pairs, the odd
// product first, DAZ and FTZ — with bf16 results (rounded once from the
// accumulator) and f32 ones (preferred_element_type: the accumulator
// itself): odd and even K, K of one pair and of several GEMM blocks,
// transposed and batched operands, on inputs that reach every corner.
func bf16RuleCases() []Case {
	var cs []Case
	f32 := trace.PreferredElementType(tensor.F32)
	for _, k := range []int{1, 2, 3, 8, 33, 1030} {
		for _, pref := range []bool{false, true} {
			name := fmt.Sprintf("bf16-rule/matmul-k%d", k)
			var opts []trace.DotOption
			if pref {
				name, opts = name+"-f32", []trace.DotOption{f32}
			}
			cs = append(cs, Case{Name: name, Inputs: []*tensor.Array{BF16RuleInput(uint64(60+k), 13, k), BF16RuleInput(uint64(61+k), k, 35)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.MatMul(a[0], a[1], opts...) })})
		}
	}
	for _, pref := range []bool{false, true} {
		var opts []trace.DotOption
		suffix := ""
		if pref {
			opts, suffix = []trace.DotOption{f32}, "-f32"
		}
		cs = append(cs,
			// lhs contracted on its first dim and rhs on its last: both
			// read transposed.
			Case{Name: "bf16-rule/dot-transposed" + suffix, Inputs: []*tensor.Array{BF16RuleInput(70, 9, 14), BF16RuleInput(71, 33, 9)},
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}, opts...)
				})},
			// Batched, two contracting dims (K = 5·3, odd).
			Case{Name: "bf16-rule/dot-batch-2k" + suffix, Inputs: []*tensor.Array{BF16RuleInput(72, 2, 5, 4, 3), BF16RuleInput(73, 2, 3, 5, 6)},
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{1, 3}, RhsContract: []int{2, 1}}, opts...)
				})},
			// Big enough for both workers and the bf16 GEMM's blocks.
			Case{Name: "bf16-rule/matmul-large" + suffix, Inputs: []*tensor.Array{BF16RuleInput(74, 70, 300), BF16RuleInput(75, 300, 90)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.MatMul(a[0], a[1], opts...) })},
		)
	}
	// A vector dot (M = N = 1) and a product feeding elementwise work.
	cs = append(cs, Case{Name: "bf16-rule/vdot", Inputs: []*tensor.Array{BF16RuleInput(76, 41), BF16RuleInput(77, 41)},
		Fn: one(func(a []trace.Value) trace.Value {
			return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})
		})},
		Case{Name: "bf16-rule/matmul-then-add", Inputs: []*tensor.Array{BF16RuleInput(78, 6, 7), BF16RuleInput(79, 7, 5), BF16RuleInput(80, 6, 5)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.MatMul(a[0], a[1]).Add(a[2]) })},
		// An f32 product with a bias and relu after it (a fused epilogue).
		Case{Name: "bf16-rule/matmul-f32-bias-relu", Inputs: []*tensor.Array{BF16RuleInput(81, 20, 33), BF16RuleInput(82, 33, 40), Input(tensor.F32, 83, 40)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.MatMul(a[0], a[1], f32).Add(a[2]).Maximum(trace.Float(0))
			})})
	return cs
}
