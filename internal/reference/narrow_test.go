package reference

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// f16 and bf16 compute in f32 and round to nearest even after every op.
// Expected bits are worked out by hand in the comments: an f16 has 10
// fraction bits, so in [2^e, 2^(e+1)) its spacing is 2^(e−10); a bf16 has
// 7 fraction bits.
func TestHalfOps(t *testing.T) {
	f16 := func(b ...uint16) *tensor.Array { return vec(h16(b...)...) }
	bf := func(b ...uint16) *tensor.Array { return vec(b16(b...)...) }
	cases := []opCase{
		// 0.1 is 0x2e66 = 1638·2^-14, 0.2 is 0x3266 = 1638·2^-13. Their sum
		// 4914·2^-14 = 1228.5·2^-12 is a tie in [0.25, 0.5) (spacing 2^-12):
		// to even, 1228·2^-12 = 0.2998046875 = 0x34cc. NumPy prints 0.2998.
		{"0.1+0.2", in(f16(0x2e66), f16(0x3266)), binary(trace.Value.Add), f16(0x34cc)},
		// 1/3 in f32 is 0.3333333432…; in [0.25, 0.5) that is 1365.33·2^-12
		// → 1365 = 0x155 above 0x3400: 0x3555.
		{"1/3", in(f16(0x3c00), f16(0x4200)), binary(trace.Value.Div), f16(0x3555)},
		// 65504 is the largest f16; 65504+8 rounds back down, 65504+16 is
		// the tie with 65536 (even) and so overflows to +Inf.
		{"overflow by rounding", in(f16(0x7bff, 0x7bff), f16(0x4800, 0x4c00)), binary(trace.Value.Add), f16(0x7bff, 0x7c00)},
		{"overflow", in(f16(0x7b53), f16(0x70e2)), binary(trace.Value.Add), f16(0x7c00)}, // 60000 + 10000
		// The smallest subnormal 2^-24 times 0.5 is the tie 2^-25 → 0 (even);
		// times 1.5 is the tie 1.5·2^-24 → 2·2^-24.
		{"subnormal ties", in(f16(0x0001, 0x0001), f16(0x3800, 0x3e00)), binary(trace.Value.Mul), f16(0x0000, 0x0002)},
		// sqrt(2) in f32 is 1.41421354; ×1024 above 1: 424.15 → 0x1a8.
		{"sqrt", in(f16(0x4000)), unary(trace.Value.Sqrt), f16(0x3da8)},
		// e in f32 is 2.71828175; in [2, 4) spacing 2^-9: 1391.76 → 1392·2^-9
		// = 2.71875 = 0x4170 (NumPy: np.exp(np.float16(1)) = 2.719).
		{"exp", in(f16(0x3c00)), unary(trace.Value.Exp), f16(0x4170)},
		{"compare exact values", in(f16(0x3c00, 0x3c01, 0x8000), f16(0x3c01, 0x3c01, 0x0000)), binary(trace.Value.Lt), vec(true, false, false)},
		{"eq -0 +0", in(f16(0x8000)), unary(func(x trace.Value) trace.Value { return x.Eq(trace.Float(0)) }), vec(true)},
		{"max -0 +0 NaN", in(f16(0x8000, 0x7e00, 0x3c00)), unary(func(x trace.Value) trace.Value { return x.Maximum(trace.Float(0)) }), f16(0x0000, 0x7e00, 0x3c00)},
		{"isnan", in(f16(0x7c01, 0x7c00)), unary(trace.Value.IsNaN), vec(true, false)},
		{"neg", in(f16(0x3c00, 0x0000)), unary(trace.Value.Neg), f16(0xbc00, 0x8000)},
		// floordiv/rem: npy_divmod in f32, rounded: 7.5 // 2 = 3, 7.5 % 2 = 1.5.
		{"floordiv", in(f16(0x4780), f16(0x4000)), binary(trace.Value.FloorDiv), f16(0x4200)},
		{"rem", in(f16(0x4780), f16(0xc000)), binary(trace.Value.Rem), f16(0xb800)}, // 7.5 % −2 = −0.5
		// bf16: 1 + 2^-8 is the tie between 1 and 1+2^-7 → 1 (even);
		// 1 + 3·2^-8 is the tie between 1+2^-7 and 1+2^-6 → 1+2^-6.
		{"bf16 add ties", in(bf(0x3f80, 0x3f80), bf(0x3b80, 0x3c40)), binary(trace.Value.Add), bf(0x3f80, 0x3f82)},
		// 1/3 in f32 is 0x3eaaaaab; its top half 0x3eaa, rounded by the
		// next bit (1, with more set bits below) up to 0x3eab.
		{"bf16 1/3", in(bf(0x3f80), bf(0x4040)), binary(trace.Value.Div), bf(0x3eab)},
		{"bf16 overflow", in(bf(0x7f7f), bf(0x7f7f)), binary(trace.Value.Add), bf(0x7f80)},
		{"bf16 sign", in(bf(0xc040, 0x8000, 0x7fc0)), unary(trace.Value.Sign), bf(0xbf80, 0x0000, 0x7fc0)},
	}
	runCases(t, promote.Config{}, cases)
}

// TestNumPyHalf checks whole expressions against the values NumPy gives
// for float16 (which also computes each op in float32 and rounds), worked
// out step by step in the comments.
func TestNumPyHalf(t *testing.T) {
	f16 := func(b ...uint16) *tensor.Array { return vec(h16(b...)...) }
	// f16(0.1) = 0x2e66, f16(1000.5) = 0x63d1 (exact), f16(3.14) = 0x4248
	// (3.140625: 3.14·512 = 1607.68 → 1608).
	for _, c := range []struct {
		v    float64
		bits uint16
	}{{0.1, 0x2e66}, {1000.5, 0x63d1}, {3.14, 0x4248}} {
		if got := tensor.Float64ToF16(c.v).Bits(); got != c.bits {
			t.Fatalf("test premise: f16(%v) = %#04x, want %#04x", c.v, got, c.bits)
		}
	}
	cases := []opCase{
		// (x*2 + y) * 0.5 with x int8 = [3, -7, 100], y float16:
		//  x*2 stays int8 (weak literal): [6, -14, -56] (200 wraps);
		//  6 + 0.0999755859375 = 6.0999755859375, in [4, 8) spacing 2^-8:
		//    1561.59 → 1562·2^-8 = 6.1015625; ×0.5 = 3.05078125 = 0x421a;
		//  −14 + 1000.5 = 986.5 (exact); ×0.5 = 493.25 = 0x5fb5;
		//  −56 + 3.140625 = −52.859375, in [32, 64) spacing 2^-5: the tie
		//    1691.5 → 1692·2^-5 = −52.875; ×0.5 = −26.4375 = 0xce9c.
		{"(x*2+y)*0.5", in(vec[int8](3, -7, 100), f16(0x2e66, 0x63d1, 0x4248)), binary(func(x, y trace.Value) trace.Value {
			return x.Mul(trace.Int(2)).Add(y).Mul(trace.Float(0.5))
		}), f16(0x421a, 0x5fb5, 0xce9c)},
		// Ten 0.1s sum in f32 (exactly 16380·2^-14 = 0.999755859375) and
		// round once: in [0.5, 1) spacing 2^-11, the tie 2047.5 → 2048·2^-11
		// = 1.0, where adding in f16 would round after each of nine adds.
		{"sum of ten 0.1", in(f16(0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66)), unary(func(x trace.Value) trace.Value { return x.Sum() }), scalar(h16(0x3c00)[0])},
		// mean: the f32 sum / 10 = 1638·2^-14 exactly, back to 0x2e66.
		{"mean of ten 0.1", in(f16(0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66, 0x2e66)), unary(func(x trace.Value) trace.Value { return x.Mean() }), scalar(h16(0x2e66)[0])},
		// 2048 + 1 + 1 in f16 op by op: 2049 is a tie in [2048, 4096)
		// (spacing 2) → 2048, twice. NumPy: np.float16(2048)+1+1 = 2048.
		{"2048+1+1", in(f16(0x6800)), unary(func(x trace.Value) trace.Value { return x.Add(trace.Int(1)).Add(trace.Int(1)) }), f16(0x6800)},
		// …but a dot accumulates in f32: 2050 = 0x6801.
		{"dot accumulates in f32", in(f16(0x6800, 0x3c00, 0x3c00), f16(0x3c00, 0x3c00, 0x3c00)), binary(trace.Value.MatMul), scalar(h16(0x6801)[0])},
	}
	runCases(t, promote.Config{}, cases)
}

func TestComplexOps(t *testing.T) {
	c64s := func(v ...complex64) *tensor.Array { return vec(v...) }
	c128s := func(v ...complex128) *tensor.Array { return vec(v...) }
	inf := float32(math.Inf(1))
	cases := []opCase{
		{"add", in(c64s(1+2i), c64s(3-1i)), binary(trace.Value.Add), c64s(4 + 1i)},
		{"sub", in(c64s(1+2i), c64s(3-1i)), binary(trace.Value.Sub), c64s(-2 + 3i)},
		{"mul", in(c64s(1+2i), c64s(3+4i)), binary(trace.Value.Mul), c64s(-5 + 10i)},
		// Smith: |3| < |4|, rat = 0.75, scl = 1/6.25 rounded; 6.25·scl and
		// 12.5·scl round back to 1 and 2 in f32.
		{"div", in(c64s(-5+10i), c64s(3+4i)), binary(trace.Value.Div), c64s(1 + 2i)},
		{"div by zero", in(c64s(1-1i), c64s(0)), binary(trace.Value.Div), c64s(complex(inf, -inf))},
		{"abs", in(c64s(3+4i, -5, 0)), unary(trace.Value.Abs), vec[float32](5, 5, 0)},
		{"sign", in(c64s(3+4i, 0, -2)), unary(trace.Value.Sign), c64s(complex(float32(0.6), float32(0.8)), 0, -1)},
		{"real", in(c128s(1 + 2i)), unary(trace.Value.Real), vec(1.0)},
		{"imag", in(c128s(1 + 2i)), unary(trace.Value.Imag), vec(2.0)},
		{"conj", in(c128s(1 + 2i)), unary(trace.Value.Conj), c128s(1 - 2i)},
		{"neg", in(c128s(1 - 2i)), unary(trace.Value.Neg), c128s(-1 + 2i)},
		{"exp", in(c128s(0)), unary(trace.Value.Exp), c128s(1)},
		{"sqrt", in(c128s(-4)), unary(trace.Value.Sqrt), c128s(2i)},
		{"isnan", in(c64s(complex(float32(math.NaN()), 0), 1)), unary(trace.Value.IsNaN), vec(true, false)},
		{"isfinite", in(c64s(complex(0, inf), 1)), unary(trace.Value.IsFinite), vec(false, true)},
		{"eq", in(c64s(1+2i, 1+2i), c64s(1+2i, 1-2i)), binary(trace.Value.Eq), vec(true, false)},
		{"ne", in(c64s(1+2i, 1+2i), c64s(1+2i, 1-2i)), binary(trace.Value.Ne), vec(false, true)},
		{"f32 times 1j", in(vec[float32](2)), unary(func(x trace.Value) trace.Value { return x.Mul(trace.Complex(1i)) }), c64s(2i)},
		{"sum", in(c64s(1+2i, 3-1i)), unary(func(x trace.Value) trace.Value { return x.Sum() }), scalar[complex64](4 + 1i)},
		{"prod", in(c64s(1+2i, 3-1i)), unary(func(x trace.Value) trace.Value { return x.Prod() }), scalar[complex64](5 + 5i)},
	}
	runCases(t, promote.Config{}, cases)
}
