package reference

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// iota returns 0, 1, …, n−1 as dtype d in the given shape.
func iota(d tensor.DType, shape ...int) *tensor.Array {
	a, err := tensor.Must(tensor.Arange(d, trace.ShapeSize(shape))).Reshape(shape...)
	if err != nil {
		panic(err)
	}
	return a
}

func TestStructuralOps(t *testing.T) {
	cases := []opCase{
		{"transpose 2-D", in(iota(tensor.I32, 2, 3)), unary(func(x trace.Value) trace.Value { return x.Transpose() }), arr(shp(3, 2), int32(0), 3, 1, 4, 2, 5)},
		// Result dim i is operand dim perm[i]: out[a,b,0] = in[b,0,a] = 3b + a.
		{"transpose 3-D", in(iota(tensor.I32, 2, 1, 3)), unary(func(x trace.Value) trace.Value { return x.Transpose(2, 0, 1) }), arr(shp(3, 2, 1), int32(0), 3, 1, 4, 2, 5)},
		{"reshape", in(iota(tensor.U8, 2, 3)), unary(func(x trace.Value) trace.Value { return x.Reshape(3, 2) }), arr(shp(3, 2), uint8(0), 1, 2, 3, 4, 5)},
		{"expand and squeeze", in(iota(tensor.I8, 3)), unary(func(x trace.Value) trace.Value { return x.ExpandDims(0, 2).Squeeze(0) }), arr(shp(3, 1), int8(0), 1, 2)},
		// x[2:10:3] after clamping −8 and 100.
		{"slice step", in(iota(tensor.I16, 10)), unary(func(x trace.Value) trace.Value { return x.Slice(0, -8, 100, 3) }), vec[int16](2, 5, 8)},
		{"slice inner axis", in(iota(tensor.I16, 2, 5)), unary(func(x trace.Value) trace.Value { return x.Slice(1, 1, 4, 2) }), arr(shp(2, 2), int16(1), 3, 6, 8)},
		{"slice to nothing", in(iota(tensor.I16, 4)), unary(func(x trace.Value) trace.Value { return x.Slice(0, 3, 1, 1) }), arr[int16](shp(0))},
		{"concatenate axis 0", in(iota(tensor.I64, 2, 2), vec[int64](7, 8)), binary(func(x, y trace.Value) trace.Value { return trace.Concatenate(0, x, y.Reshape(1, 2)) }), arr(shp(3, 2), int64(0), 1, 2, 3, 7, 8)},
		{"concatenate axis 1", in(iota(tensor.I64, 2, 2), arr(shp(2, 1), int64(9), 8)), binary(func(x, y trace.Value) trace.Value { return trace.Concatenate(1, x, y) }), arr(shp(2, 3), int64(0), 1, 9, 2, 3, 8)},
		{"concatenate three with an empty one", in(vec[int64](1), arr[int64](shp(0)), vec[int64](2, 3)), func(a []trace.Value) trace.Value { return trace.Concatenate(0, a...) }, vec[int64](1, 2, 3)},
		{"concatenate promotes", in(vec[int8](-1), vec(h16(0x3800)...)), binary(func(x, y trace.Value) trace.Value { return trace.Concatenate(0, x, y) }), vec(h16(0xbc00, 0x3800)...)},
		{"broadcast_to", in(vec[float32](1, 2, 3)), unary(func(x trace.Value) trace.Value { return x.BroadcastTo(2, 3) }), arr(shp(2, 3), float32(1), 2, 3, 1, 2, 3)},
		{"broadcast_to size-1 dim", in(arr(shp(2, 1), float32(1), 2)), unary(func(x trace.Value) trace.Value { return x.BroadcastTo(2, 3) }), arr(shp(2, 3), float32(1), 1, 1, 2, 2, 2)},
		// [2,1,3] + [4,1] → [2,4,3]: out[i,j,k] = a[i,0,k] + b[j,0].
		{"elementwise broadcasting", in(iota(tensor.F32, 2, 1, 3), arr(shp(4, 1), int16(0), 10, 20, 30)), binary(trace.Value.Add), arr(shp(2, 4, 3), float32(0), 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 3, 4, 5, 13, 14, 15, 23, 24, 25, 33, 34, 35)},
		{"scalar broadcasting", in(vec[float64](1, 2), scalar(10.0)), binary(trace.Value.Sub), vec[float64](-9, -8)},
		{"where", in(vec(true, false, true), vec[float32](1, 2, 3), scalar[float32](-1)), func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[2]) }, vec[float32](1, -1, 3)},
		{"where int condition", in(vec[int32](0, 5, -1), vec[uint8](1, 2, 3)), binary(func(c, x trace.Value) trace.Value { return trace.Where(c, x, trace.Int(7)) }), vec[uint8](7, 2, 3)},
		{"where broadcasts the condition", in(arr(shp(2, 1), true, false), iota(tensor.I8, 2, 2), scalar[int8](9)), func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[2]) }, arr(shp(2, 2), int8(0), 1, 9, 9)},
		{"where keeps NaN bits", in(vec(true), vec(f32b(0x7f800001)), vec[float32](0)), func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[2]) }, vec(f32b(0x7f800001))},
	}
	runCases(t, promote.Config{}, cases)
}

func TestConvert(t *testing.T) {
	astype := func(d tensor.DType) func(a []trace.Value) trace.Value {
		return func(a []trace.Value) trace.Value { return a[0].Astype(d) }
	}
	cases := []opCase{
		{"int wraps", in(vec[int32](300, -1)), astype(tensor.U8), vec[uint8](44, 255)},
		{"float to int truncates and saturates", in(vec[float32](1e10, -1e10, nan32, -3.7, 3.7)), astype(tensor.I8), vec[int8](127, -128, 0, -3, 3)},
		{"float to unsigned", in(vec(-1.5, 1e20, 255.9)), astype(tensor.U8), vec[uint8](0, 255, 255)},
		{"f64 to f16 in one step", in(vec(0.1)), astype(tensor.F16), vec(h16(0x2e66)...)},
		// 1 + 2^-11 + 2^-40 is just above the f16 tie 1 + 2^-11: one-step
		// rounding goes up; rounding through f32 first would hit the tie
		// and go down to 1.
		{"no double rounding", in(vec(1 + math.Ldexp(1, -11) + math.Ldexp(1, -40))), astype(tensor.F16), vec(h16(0x3c01)...)},
		{"to bool", in(vec[float32](0, float32(neg0), nan32, 2)), astype(tensor.Bool), vec(false, false, true, true)},
		{"complex to real keeps the real part", in(vec[complex64](3 + 4i)), astype(tensor.F32), vec[float32](3)},
		{"bool to int", in(vec(true, false)), astype(tensor.I16), vec[int16](1, 0)},
		// 2^40·(1 + 2^-8 + 2^-40) is just above the bf16 tie 2^40·(1 + 2^-8):
		// up to 2^40·(1 + 2^-7) = 0x5381 in one step; through f32 it would
		// lose the 1, hit the tie and go down to 0x5380.
		{"i64 to bf16 in one step", in(vec[int64](1<<40 + 1<<32 + 1)), astype(tensor.BF16), vec(b16(0x5381)...)},
	}
	runCases(t, promote.Config{}, cases)
}

func TestDot(t *testing.T) {
	big := float32(two24)
	dotGeneral := func(d trace.DotDims) func(a []trace.Value) trace.Value {
		return func(a []trace.Value) trace.Value { return trace.DotGeneral(a[0], a[1], d) }
	}
	ones := arr(shp(2, 2), float32(1), 1, 1, 1)
	// 1+2^-13 squared is 1 + 2^-12 + 2^-26, which rounds to 1 + 2^-12 in
	// f32; an FMA would keep the 2^-26 and leave it after the subtraction.
	e32 := float32(1 + 1.0/(1<<13))
	e64 := 1 + math.Ldexp(1, -30)
	cases := []opCase{
		{"matmul", in(arr(shp(2, 2), int32(1), 2, 3, 4), arr(shp(2, 2), int32(5), 6, 7, 8)), binary(trace.Value.MatMul), arr(shp(2, 2), int32(19), 22, 43, 50)},
		{"matmul wraps", in(vec[int8](100, 100), vec[int8](2, 1)), binary(trace.Value.MatMul), scalar[int8](44)},
		// Batch 0: 1·5 + 2·6; batch 1: 3·7 + 4·8.
		{"batch dims", in(arr(shp(2, 1, 2), int64(1), 2, 3, 4), arr(shp(2, 2, 1), int64(5), 6, 7, 8)), binary(trace.Value.MatMul), arr(shp(2, 1, 1), int64(17), 53)},
		// Result dims are batch, lhs free, rhs free: [2 (batch), 3 (lhs), 1 (rhs)].
		{"dot_general dims order", in(arr(shp(3, 2), int32(1), 2, 3, 4, 5, 6), arr(shp(2, 1), int32(10), 20)),
			dotGeneral(trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{0}}), arr(shp(2, 3, 1), int32(10), 30, 50, 40, 80, 120)},
		{"contract lhs dim 0", in(arr(shp(3, 2), int32(1), 2, 3, 4, 5, 6), vec[int32](1, 1, 1)),
			dotGeneral(trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}}), vec[int32](9, 12)},
		// Two contracting dims: products in row-major order of the tuple,
		// added left to right from 0. lhs = [[1, 2^24], [1, 1]]:
		// 1 + 2^24 → 2^24 (tie, even), then both 1s are lost.
		{"contracting tuple order", in(arr(shp(2, 2), float32(1), big, 1, 1), ones),
			dotGeneral(trace.DotDims{LhsContract: []int{0, 1}, RhsContract: []int{0, 1}}), scalar(big)},
		// Pairs (1,0): the tuple walks lhs dim 1 slowest, so the order is
		// lhs[0][0], lhs[1][0], lhs[0][1], lhs[1][1] = 1, 1, 2^24, 1:
		// 2 + 2^24 exact, then 2^24+3 → 2^24+4 (tie, even).
		{"contracting pairs order", in(arr(shp(2, 2), float32(1), big, 1, 1), ones),
			dotGeneral(trace.DotDims{LhsContract: []int{1, 0}, RhsContract: []int{1, 0}}), scalar(big + 4)},
		{"starts from +0", in(vec(float32(neg0)), vec[float32](1)), binary(trace.Value.MatMul), scalar[float32](0)},
		// e² = 1 + 2e' + e'² with e' = e − 1: rounding the product drops
		// e'², so products rounded before adding would give 0; one FMA per
		// step keeps it (the SPEC's dot contract).
		{"one FMA per step f32", in(vec(1, e32), vec(-(1+1.0/(1<<12)), e32)), binary(trace.Value.MatMul), scalar(float32(math.Ldexp(1, -26)))},
		{"one FMA per step f64", in(vec(1, e64), vec(-(1+math.Ldexp(1, -29)), e64)), binary(trace.Value.MatMul), scalar(math.Ldexp(1, -60))},
		{"complex", in(vec[complex64](1+2i, 1i), vec[complex64](3+4i, 1i)), binary(trace.Value.MatMul), scalar[complex64](-6 + 10i)},
		{"bool is or of ands", in(arr(shp(2, 2), true, false, false, true), arr(shp(2, 1), false, true)), binary(trace.Value.MatMul), arr(shp(2, 1), false, true)},
		// 256 + 1 + 1 = 258 = 256·(1 + 2^-7) in f32, exact in bf16 (0x4381);
		// adding in bf16 would round 257 (a tie) down to 256 twice.
		{"bf16 accumulates in f32", in(vec(b16(0x4380, 0x3f80, 0x3f80)...), vec(b16(0x3f80, 0x3f80, 0x3f80)...)), binary(trace.Value.MatMul), scalar(b16(0x4381)[0])},
	}
	runCases(t, promote.Config{}, cases)
}
