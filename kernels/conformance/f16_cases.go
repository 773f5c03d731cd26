package conformance

import (
	"fmt"
	"math/rand/v2"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// F16DotInput is an f16 array for products: subnormals (which must widen
// exactly), ±0, ±Inf, NaNs with payloads, ±65504 (whose products and sums
// overflow f16 but not the f32 accumulator) and ordinary values of mixed
// magnitude.
func F16DotInput(seed uint64, shape ...int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, 17))
	v := make([]tensor.Float16, trace.ShapeSize(shape))
	for i := range v {
		sign := uint16(r.IntN(2)) << 15
		var bits uint16
		switch r.IntN(24) {
		case 0, 1:
			bits = uint16(r.IntN(0x400)) // subnormal or zero
		case 2:
			bits = 0x7c00 // Inf
		case 3:
			bits = 0x7c00 | uint16(1+r.IntN(0x3ff)) // NaN, its payload
		case 4:
			bits = 0x7bff // 65504
		case 5, 6:
			bits = uint16(r.IntN(3)+1)<<10 | uint16(r.IntN(0x400)) // tiny normal
		default:
			bits = uint16(r.IntN(10)+10)<<10 | uint16(r.IntN(0x400))
		}
		v[i] = tensor.Float16FromBits(sign | bits)
	}
	return tensor.Must(tensor.Must(tensor.FromSlice(v)).Reshape(shape...))
}

// f16DotCases hold f16 dots — f32 accumulation, in order, one rounding
// to f16 (docs/SPEC.md §3), operands read as stored by the CPU's GEMM —
// to the reference: sizes of one element, primes, past the GEMM's k and
// column blocks; transposed operands (read in place), operands whose dims
// do not merge into one stride (gathered), batches; fused epilogues on
// the product (bias + relu, the product kept as a second result, an f32
// convert); and f16 mixed with f32 or with preferred_element_type=f32
// (converts the CPU reads past), transposed, swapped, with epilogues.
func f16DotCases() []Case {
	var cs []Case
	mm := one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })
	for _, s := range [][3]int{{1, 1, 1}, {13, 35, 1}, {13, 35, 7}, {37, 29, 300}, {3, 530, 41}, {70, 90, 1030}} {
		cs = append(cs, Case{Name: fmt.Sprintf("f16-dot/matmul-%dx%dx%d", s[0], s[1], s[2]),
			Inputs: []*tensor.Array{F16DotInput(uint64(90+s[2]), s[0], s[2]), F16DotInput(uint64(91+s[2]), s[2], s[1])}, Fn: mm})
	}
	cs = append(cs,
		Case{Name: "f16-dot/lhs-transposed", Inputs: []*tensor.Array{F16DotInput(100, 300, 37), F16DotInput(101, 300, 53)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})
			})},
		Case{Name: "f16-dot/rhs-transposed", Inputs: []*tensor.Array{F16DotInput(102, 37, 300), F16DotInput(103, 53, 300)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}})
			})},
		Case{Name: "f16-dot/both-transposed", Inputs: []*tensor.Array{F16DotInput(104, 300, 37), F16DotInput(105, 53, 300)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}})
			})},
		// Contracting dims 0 and 2 of [5, 7, 6] do not merge: gathered.
		Case{Name: "f16-dot/unmerged-contract", Inputs: []*tensor.Array{F16DotInput(106, 5, 7, 6), F16DotInput(107, 5, 6, 11)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0, 2}, RhsContract: []int{0, 1}})
			})},
		Case{Name: "f16-dot/batched", Inputs: []*tensor.Array{F16DotInput(108, 3, 17, 40), F16DotInput(109, 3, 40, 23)}, Fn: mm},
		// A batch dim in the middle of the lhs: batch, row and column
		// strides all differ from the row-major ones.
		Case{Name: "f16-dot/batch-middle", Inputs: []*tensor.Array{F16DotInput(110, 19, 3, 33), F16DotInput(111, 3, 33, 21)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}})
			})},
		Case{Name: "f16-dot/bias-relu", Inputs: []*tensor.Array{F16DotInput(112, 70, 300), F16DotInput(113, 300, 90), F16DotInput(114, 90)},
			Fn: one(func(a []trace.Value) trace.Value {
				return a[0].MatMul(a[1]).Add(a[2]).Maximum(trace.Float(0))
			})},
		Case{Name: "f16-dot/epilogue-and-product", Inputs: []*tensor.Array{F16DotInput(115, 41, 67), F16DotInput(116, 67, 29), F16DotInput(117, 41, 29)},
			Fn: func(a []trace.Value) []trace.Value {
				p := a[0].MatMul(a[1])
				return []trace.Value{p.Mul(a[2]).Add(trace.Float(1)), p}
			}},
		Case{Name: "f16-dot/transposed-epilogue-f32", Inputs: []*tensor.Array{F16DotInput(118, 300, 37), F16DotInput(119, 53, 300), Input(tensor.F32, 120, 53)},
			Fn: one(func(a []trace.Value) trace.Value {
				p := trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}})
				return p.Astype(tensor.F32).Mul(a[2]).Tanh()
			})},
		Case{Name: "f16-dot/mixed-f32", Inputs: []*tensor.Array{F16DotInput(121, 37, 300), Input(tensor.F32, 122, 300, 23)}, Fn: mm},
		Case{Name: "f16-dot/mixed-f32-transposed", Inputs: []*tensor.Array{Input(tensor.F32, 125, 37, 300), F16DotInput(126, 53, 300)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}})
			})},
		// A weight gradient xᵀ·dy of f16 activations and f32 gradients
		// with few columns: the CPU runs it swapped.
		Case{Name: "f16-dot/mixed-f32-narrow-swapped", Inputs: []*tensor.Array{F16DotInput(127, 200, 70), Input(tensor.F32, 128, 200, 10)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})
			})},
		// The widened operand read by the epilogue too.
		Case{Name: "f16-dot/mixed-f32-epilogue-reads-operand", Inputs: []*tensor.Array{F16DotInput(129, 23, 23), Input(tensor.F32, 130, 23, 23)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]).Add(a[0]).Maximum(trace.Float(0)) })},
		Case{Name: "f16-dot/preferred-f32", Inputs: []*tensor.Array{F16DotInput(123, 37, 300), F16DotInput(124, 300, 23)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32))
			})},
		Case{Name: "f16-dot/preferred-f32-bias-relu-batched", Inputs: []*tensor.Array{F16DotInput(131, 2, 70, 300), F16DotInput(132, 300, 90), Input(tensor.F32, 133, 90)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32)).Add(a[2]).Maximum(trace.Float(0))
			})},
	)
	return cs
}
