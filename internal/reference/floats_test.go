package reference

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func TestFloatOps(t *testing.T) {
	f32s := func(v ...float32) *tensor.Array { return vec(v...) }
	f64s := func(v ...float64) *tensor.Array { return vec(v...) }
	bools := func(v ...bool) *tensor.Array { return vec(v...) }
	n0 := float32(neg0)
	nanA, nanB := f32b(0x7fc00001), f32b(0xffc00002) // two distinguishable NaNs
	cases := []opCase{
		// float32(0.1)+float32(0.2) is exactly float32(0.3); in f64 it is not.
		{"add f32", in(f32s(0.1), f32s(0.2)), binary(trace.Value.Add), f32s(f32b(0x3e99999a))},
		{"add f64", in(f64s(0.1), f64s(0.2)), binary(trace.Value.Add), f64s(f64b(0x3fd3333333333334))},
		{"sub to +0", in(f32s(1.5), f32s(1.5)), binary(trace.Value.Sub), f32s(0)},
		{"mul rounds", in(f32s(1+1.0/(1<<12)), f32s(1+1.0/(1<<12))), binary(trace.Value.Mul), f32s(1 + 1.0/(1<<11))},
		{"div f32", in(f32s(1, 1, -1, 0), f32s(3, 0, 0, 0)), binary(trace.Value.Div), f32s(f32b(0x3eaaaaab), inf32, -inf32, nan32)},
		{"div f64", in(f64s(1), f64s(3)), binary(trace.Value.Div), f64s(f64b(0x3fd5555555555555))},
		{"sqrt f32", in(f32s(2, -1, 4)), unary(trace.Value.Sqrt), f32s(f32b(0x3fb504f3), f32b(0x7fc00000), 2)},
		{"sqrt f64", in(f64s(2)), unary(trace.Value.Sqrt), f64s(f64b(0x3ff6a09e667f3bcd))},
		{"neg", in(f32s(0, n0, 2)), unary(trace.Value.Neg), f32s(n0, 0, -2)},
		{"abs", in(f32s(n0, -3.5, -inf32, f32b(0xffc00000))), unary(trace.Value.Abs), f32s(0, 3.5, inf32, f32b(0x7fc00000))},
		{"sign", in(f64s(-2.5, neg0, 0, 3, nan64, math.Inf(-1))), unary(trace.Value.Sign), f64s(-1, 0, 0, 1, nan64, -1)},
		{"floor", in(f32s(-0.5, 1.5, -2, n0)), unary(trace.Value.Floor), f32s(-1, 1, -2, n0)},
		{"ceil", in(f32s(-0.5, 1.5, -2)), unary(trace.Value.Ceil), f32s(n0, 2, -2)},
		{"round half to even", in(f32s(0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6)), unary(trace.Value.Round), f32s(0, 2, 2, n0, -2, 2, 3)},
		{"isnan", in(f32s(1, nan32, inf32, -inf32)), unary(trace.Value.IsNaN), bools(false, true, false, false)},
		{"isfinite", in(f32s(1, nan32, inf32, -inf32)), unary(trace.Value.IsFinite), bools(true, false, false, false)},
		{"real", in(f32s(n0, 2)), unary(trace.Value.Real), f32s(n0, 2)},
		{"imag", in(f32s(n0, 2)), unary(trace.Value.Imag), f32s(0, 0)},
		{"conj", in(f32s(n0, 2)), unary(trace.Value.Conj), f32s(n0, 2)},
		// IEEE 754-2019 maximum/minimum: NaN propagates (the first NaN's
		// bits), −0 < +0.
		{"max", in(f32s(nanA, 1, n0, 0, 2, nanA), f32s(1, nanB, 0, n0, 3, nanB)), binary(trace.Value.Maximum), f32s(nanA, nanB, 0, 0, 3, nanA)},
		{"min", in(f32s(nanA, 1, n0, 0, 2, nanB), f32s(1, nanB, 0, n0, 3, nanA)), binary(trace.Value.Minimum), f32s(nanA, nanB, n0, n0, 2, nanB)},
		{"min both -0", in(f32s(n0), f32s(n0)), binary(trace.Value.Minimum), f32s(n0)},
		{"eq NaN", in(f32s(nan32, 0), f32s(nan32, n0)), binary(trace.Value.Eq), bools(false, true)},
		{"ne NaN", in(f32s(nan32, 0), f32s(nan32, n0)), binary(trace.Value.Ne), bools(true, false)},
		{"lt NaN", in(f32s(nan32, 1, n0), f32s(1, nan32, 0)), binary(trace.Value.Lt), bools(false, false, false)},
		{"ge", in(f32s(nan32, 1, n0), f32s(1, 1, 0)), binary(trace.Value.Ge), bools(false, true, true)},
		{"pow", in(f64s(2, 0, -8, 4), f64s(10, 0, 1.0/3, 0.5)), binary(trace.Value.Pow), f64s(1024, 1, nan64, 2)},
		{"transcendentals at exact points", in(f64s(0)), unary(func(x trace.Value) trace.Value {
			one := x.Add(trace.Float(1))
			return trace.Concatenate(0, x.Exp(), one.Log(), x.Log1p(), x.Expm1(), x.Sin(), x.Cos(), x.Tan(), x.Tanh(), x.Logistic(), one.Add(trace.Float(3)).Rsqrt())
		}), f64s(1, 0, 0, 0, 0, 1, 0, 0, 0.5, 0.5)},
		{"exp f32 rounds math.Exp", in(f32s(1)), unary(trace.Value.Exp), f32s(f32b(0x402df854))},
		{"log of zero and negative", in(f64s(0, -1)), unary(trace.Value.Log), f64s(math.Inf(-1), nan64)},
	}
	runCases(t, promote.Config{}, cases)
}

// TestFloorDivRem pins NumPy 1.24's npy_divmod, signs of zeros included.
func TestFloorDivRem(t *testing.T) {
	type row struct{ a, b, div, mod float64 }
	inf := inf64
	rows := []row{
		{7, 2, 3, 1},
		{-7, 2, -4, 1},
		{7, -2, -4, -1},
		{-7, -2, 3, -1},
		{5.5, 2, 2, 1.5},
		{-5.5, 2, -3, 0.5},
		{1, 0, inf, nan64},                 // a/b and fmod(1, 0)
		{-1, 0, -inf, nan64},               //
		{0, 0, nan64, nan64},               //
		{0, 5, 0, 0},                       // mod takes b's sign, div a/b's
		{neg0, 5, neg0, 0},                 //
		{0, -5, neg0, neg0},                //
		{4, -2, -2, neg0},                  // exact: mod is copysign(0, b)
		{-4, 2, -2, 0},                     //
		{1, inf, 0, 1},                     // fmod(1, inf) = 1
		{-1, inf, -1, inf},                 // mod += b, div −= 1
		{inf, 1, nan64, nan64},             // fmod(inf, 1) is NaN
		{nan64, 1, nan64, nan64},           //
		{1, nan64, nan64, nan64},           //
		{0.5, 0.1, 4, 0.09999999999999998}, // 5·0.1 > 0.5 in binary: fmod is 0.5 − 4·0.1, exactly
	}
	var a, b, div, mod []float64
	for _, r := range rows {
		a, b, div, mod = append(a, r.a), append(b, r.b), append(div, r.div), append(mod, r.mod)
	}
	runCases(t, promote.Config{}, []opCase{
		{"floordiv f64", in(vec(a...), vec(b...)), binary(trace.Value.FloorDiv), vec(div...)},
		{"rem f64", in(vec(a...), vec(b...)), binary(trace.Value.Rem), vec(mod...)},
		// f32 runs the same steps in float32: 0.5 − 4·0.1f is 3355443·2^-25,
		// one f32 ulp below 0.1f.
		{"floordiv f32", in(vec[float32](7, -7, 0, 1, 0.5), vec[float32](-2, 2, -5, 0, 0.1)), binary(trace.Value.FloorDiv), vec[float32](-4, -4, float32(neg0), inf32, 4)},
		{"rem f32", in(vec[float32](7, -7, 0, 1, 0.5), vec[float32](-2, 2, -5, 0, 0.1)), binary(trace.Value.Rem), vec[float32](-1, 1, float32(neg0), nan32, f32b(0x3dcccccc))},
	})
}
