package reference

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func TestIntegerOps(t *testing.T) {
	i8s := func(v ...int8) *tensor.Array { return vec(v...) }
	i32s := func(v ...int32) *tensor.Array { return vec(v...) }
	u8s := func(v ...uint8) *tensor.Array { return vec(v...) }
	bools := func(v ...bool) *tensor.Array { return vec(v...) }
	cases := []opCase{
		{"add wraps", in(i8s(127, -128), i8s(1, -1)), binary(trace.Value.Add), i8s(-128, 127)},
		{"sub wraps unsigned", in(u8s(0, 5), u8s(1, 3)), binary(trace.Value.Sub), u8s(255, 2)},
		{"mul wraps", in(i8s(64, 16, -3), i8s(2, 16, 5)), binary(trace.Value.Mul), i8s(-128, 0, -15)},
		{"neg MinInt", in(i8s(-128, 5, 0)), unary(trace.Value.Neg), i8s(-128, -5, 0)},
		{"neg unsigned wraps", in(u8s(1, 0)), unary(trace.Value.Neg), u8s(255, 0)},
		{"abs MinInt", in(i8s(-128, -3, 4)), unary(trace.Value.Abs), i8s(-128, 3, 4)},
		{"abs unsigned", in(u8s(200)), unary(trace.Value.Abs), u8s(200)},
		{"sign", in(i32s(-7, 0, 9)), unary(trace.Value.Sign), i32s(-1, 0, 1)},
		{"sign unsigned", in(u8s(0, 200)), unary(trace.Value.Sign), u8s(0, 1)},
		// Python: 7//2=3 -7//2=-4 7//-2=-4 -7//-2=3; a zero divisor gives 0.
		{"floordiv signs", in(i32s(7, -7, 7, -7, 6, -6, 5, 0), i32s(2, 2, -2, -2, 3, 3, 0, 3)), binary(trace.Value.FloorDiv), i32s(3, -4, -4, 3, 2, -2, 0, 0)},
		{"rem signs", in(i32s(7, -7, 7, -7, 6, -6, 5, 0), i32s(2, 2, -2, -2, 3, 3, 0, 3)), binary(trace.Value.Rem), i32s(1, 1, -1, -1, 0, 0, 0, 0)},
		{"floordiv MinInt by -1", in(i8s(-128, -128), i8s(-1, 1)), binary(trace.Value.FloorDiv), i8s(-128, -128)},
		{"rem MinInt by -1", in(i8s(-128, -128), i8s(-1, 3)), binary(trace.Value.Rem), i8s(0, 1)},
		{"floordiv unsigned", in(u8s(200, 7, 9), u8s(7, 200, 0)), binary(trace.Value.FloorDiv), u8s(28, 0, 0)},
		{"rem unsigned", in(u8s(200, 7, 9), u8s(7, 200, 0)), binary(trace.Value.Rem), u8s(4, 7, 0)},
		// Shifts by the width or more, or by a negative amount: shl gives
		// 0, shr fills with the sign bit.
		{"shl", in(i8s(1, 1, 1, -1, 3), i8s(3, 7, 8, -1, 100)), binary(trace.Value.Shl), i8s(8, -128, 0, 0, 0)},
		{"shr signed", in(i8s(-128, -128, 64, -1, 5, -5), i8s(1, 8, 9, -2, 100, 1)), binary(trace.Value.Shr), i8s(-64, -1, 0, -1, 0, -3)},
		{"shr unsigned", in(u8s(255, 128, 255), u8s(7, 8, 200)), binary(trace.Value.Shr), u8s(1, 0, 0)},
		{"shl unsigned", in(u8s(255, 1), u8s(1, 255)), binary(trace.Value.Shl), u8s(254, 0)},
		{"shl u64 by 63 and 64", in(vec[uint64](1, 1), vec[uint64](63, 64)), binary(trace.Value.Shl), vec[uint64](1<<63, 0)},
		// Negative exponents give 0 except for bases 1 and −1.
		{"pow", in(i32s(2, 3, 0, 2, 1, -1, -1, 2, 0, -2), i32s(10, 3, 0, -1, -5, -3, -4, 31, 5, 3)), binary(trace.Value.Pow), i32s(1024, 27, 1, 0, 1, -1, 1, math.MinInt32, 0, -8)},
		{"pow wraps i8", in(i8s(3, 2), i8s(5, 7)), binary(trace.Value.Pow), i8s(-13, -128)},
		{"pow wraps u8", in(u8s(2, 3, 255), u8s(8, 5, 2)), binary(trace.Value.Pow), u8s(0, 243, 1)},
		{"max", in(vec[int16](3, -5), vec[int16](-4, 2)), binary(trace.Value.Maximum), vec[int16](3, 2)},
		{"min", in(vec[int16](3, -5), vec[int16](-4, 2)), binary(trace.Value.Minimum), vec[int16](-4, -5)},
		{"and", in(u8s(12), u8s(10)), binary(trace.Value.And), u8s(8)},
		{"or", in(u8s(12), u8s(10)), binary(trace.Value.Or), u8s(14)},
		{"xor", in(u8s(12), u8s(10)), binary(trace.Value.Xor), u8s(6)},
		{"not unsigned", in(u8s(12)), unary(trace.Value.Not), u8s(243)},
		{"not signed", in(i8s(0, -1, 5)), unary(trace.Value.Not), i8s(-1, 0, -6)},
		{"eq", in(i32s(1, 2, 3), i32s(2, 2, 2)), binary(trace.Value.Eq), bools(false, true, false)},
		{"ne", in(i32s(1, 2, 3), i32s(2, 2, 2)), binary(trace.Value.Ne), bools(true, false, true)},
		{"lt", in(i32s(1, 2, 3), i32s(2, 2, 2)), binary(trace.Value.Lt), bools(true, false, false)},
		{"le", in(i32s(1, 2, 3), i32s(2, 2, 2)), binary(trace.Value.Le), bools(true, true, false)},
		{"gt", in(i32s(1, 2, 3), i32s(2, 2, 2)), binary(trace.Value.Gt), bools(false, false, true)},
		{"ge", in(i32s(1, 2, 3), i32s(2, 2, 2)), binary(trace.Value.Ge), bools(false, true, true)},
		{"lt unsigned large", in(vec[uint64](1<<63), vec[uint64](1)), binary(trace.Value.Lt), bools(false)},
		{"isnan", in(i32s(1, -1)), unary(trace.Value.IsNaN), bools(false, false)},
		{"isfinite", in(i32s(1, -1)), unary(trace.Value.IsFinite), bools(true, true)},
		{"real", in(i32s(1, -1)), unary(trace.Value.Real), i32s(1, -1)},
		{"imag", in(i32s(1, -1)), unary(trace.Value.Imag), i32s(0, 0)},
		{"conj", in(i32s(1, -1)), unary(trace.Value.Conj), i32s(1, -1)},
		{"literal", in(u8s(250)), unary(func(x trace.Value) trace.Value { return x.Add(trace.Int(10)) }), u8s(4)},
		{"true division is float", in(i32s(1, -7)), unary(func(x trace.Value) trace.Value { return x.Div(trace.Int(2)) }), vec[float32](0.5, -3.5)},
		{"i64 division is f64", in(vec[int64](1<<53 + 1)), unary(func(x trace.Value) trace.Value { return x.Div(trace.Int(1)) }), vec[float64](1 << 53)},
	}
	runCases(t, promote.Config{}, cases)
}

func TestBoolOps(t *testing.T) {
	bools := func(v ...bool) *tensor.Array { return vec(v...) }
	x := bools(false, false, true, true)
	y := bools(false, true, false, true)
	cases := []opCase{
		{"add is or", in(x, y), binary(trace.Value.Add), bools(false, true, true, true)},
		{"mul is and", in(x, y), binary(trace.Value.Mul), bools(false, false, false, true)},
		{"max is or", in(x, y), binary(trace.Value.Maximum), bools(false, true, true, true)},
		{"min is and", in(x, y), binary(trace.Value.Minimum), bools(false, false, false, true)},
		{"and", in(x, y), binary(trace.Value.And), bools(false, false, false, true)},
		{"or", in(x, y), binary(trace.Value.Or), bools(false, true, true, true)},
		{"xor", in(x, y), binary(trace.Value.Xor), bools(false, true, true, false)},
		{"eq", in(x, y), binary(trace.Value.Eq), bools(true, false, false, true)},
		{"ne", in(x, y), binary(trace.Value.Ne), bools(false, true, true, false)},
		{"lt: false < true", in(x, y), binary(trace.Value.Lt), bools(false, true, false, false)},
		{"le", in(x, y), binary(trace.Value.Le), bools(true, true, false, true)},
		{"gt", in(x, y), binary(trace.Value.Gt), bools(false, false, true, false)},
		{"ge", in(x, y), binary(trace.Value.Ge), bools(true, false, true, true)},
		{"not", in(bools(true, false)), unary(trace.Value.Not), bools(false, true)},
		{"isnan", in(bools(true, false)), unary(trace.Value.IsNaN), bools(false, false)},
		{"isfinite", in(bools(true, false)), unary(trace.Value.IsFinite), bools(true, true)},
		{"abs", in(bools(true, false)), unary(trace.Value.Abs), bools(true, false)},
		{"floordiv in the default int", in(x, bools(true, true, true, false)), binary(trace.Value.FloorDiv), vec[int64](0, 0, 1, 0)},
		{"sqrt in f32", in(bools(true, false)), unary(trace.Value.Sqrt), vec[float32](1, 0)},
		{"and with an int literal", in(bools(true, false)), unary(func(x trace.Value) trace.Value { return x.And(trace.Int(3)) }), vec[int64](1, 0)},
	}
	runCases(t, promote.Config{}, cases)
}
