package kiln_test

import (
	"errors"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Conversions as ml_dtypes' C++ ConvertImpl (kSaturate=false): one
// rounding from the f64 or i64 source, never through f32.
func TestReviewNarrowConvertOneRounding(t *testing.T) {
	// 1 + 2^-4 + 1e-12 is just above the f8e4m3fn tie between 1 and
	// 1.125: one rounding gives 1.125; through f32 (1.0625 exactly, a
	// tie) it would give 1.
	x := tensor.Must(tensor.FromSlice([]float64{1 + 1.0/16 + 1e-12}))
	if v := f32Of(t, x.Astype(tensor.F8E4M3FN)); v[0] != 1.125 {
		t.Errorf("f64 → f8e4m3fn = %v, want 1.125 (one rounding)", v[0])
	}
	// 2^24+1 and 2^53+1 are not f32 values: in f8e5m2 both overflow to
	// +inf; in f8e8m0fnu 2^53+1 is 2^53 (just above it).
	i := tensor.Must(tensor.FromSlice([]int64{1<<24 + 1, 1<<53 + 1, 17, -9, math.MinInt64}))
	if v := f32Of(t, i.Astype(tensor.F8E8M0FNU)); v[0] != 1<<24 || v[1] != 1<<53 || v[2] != 16 || !math.IsNaN(float64(v[3])) || !math.IsNaN(float64(v[4])) {
		t.Errorf("i64 → f8e8m0fnu = %v", v)
	}
	// 0x7E (448) ± : 464 is the tie 448|480 and 480 is not a value
	// (0x7F is NaN): 464 → 448 (even), 465 → NaN (fn: overflow is NaN).
	o := tensor.Must(tensor.FromSlice([]float64{464, 465, -464, -465, math.Inf(1)}))
	if v := f32Of(t, o.Astype(tensor.F8E4M3FN)); v[0] != 448 || !math.IsNaN(float64(v[1])) || v[2] != -448 || !math.IsNaN(float64(v[3])) || !math.IsNaN(float64(v[4])) {
		t.Errorf("overflow to f8e4m3fn = %v, want [448 NaN -448 NaN NaN]", v)
	}
	// The MX formats have neither: they saturate.
	if v := f32Of(t, o.Astype(tensor.F4E2M1FN)); v[0] != 6 || v[3] != -6 || v[4] != 6 {
		t.Errorf("overflow to f4e2m1fn = %v, want ±6", v)
	}
	// fnuz: −0 converts to +0 (0x00), never to 0x80 (the NaN).
	nz := tensor.Must(tensor.FromSlice([]float32{float32(math.Copysign(0, -1)), -1e-30}))
	for _, d := range []tensor.DType{tensor.F8E4M3FNUZ, tensor.F8E5M2FNUZ, tensor.F8E4M3B11FNUZ} {
		b, _, _ := tensor.NarrowBytes(nz.Astype(d).Data())
		if b[0] != 0 || b[1] != 0 {
			t.Errorf("−0 and −1e-30 → %s = %#x %#x, want 0 0", d, b[0], b[1])
		}
	}
	// e8m0 has no zero and no sign: 0 and −1 are NaN (0xFF).
	z := tensor.Must(tensor.FromSlice([]float32{0, -1}))
	if b, _, _ := tensor.NarrowBytes(z.Astype(tensor.F8E8M0FNU).Data()); b[0] != 0xFF || b[1] != 0xFF {
		t.Errorf("0, −1 → f8e8m0fnu = %#x %#x, want 0xff 0xff", b[0], b[1])
	}
	// float → i4 truncates toward zero and saturates, NaN → 0 (XLA's
	// clamping convert); int → i4 wraps.
	f := tensor.Must(tensor.FromSlice([]float32{7.9, -8.9, 100, -100, float32(math.NaN())}))
	if v := f.Astype(tensor.I4).Astype(tensor.I32).Data().([]int32); v[0] != 7 || v[1] != -8 || v[2] != 7 || v[3] != -8 || v[4] != 0 {
		t.Errorf("f32 → i4 = %v", v)
	}
	w := tensor.Must(tensor.FromSlice([]int32{8, -9, 1000, 15}))
	if v := w.Astype(tensor.I4).Astype(tensor.I32).Data().([]int32); v[0] != -8 || v[1] != 7 || v[2] != -8 || v[3] != -1 {
		t.Errorf("i32 → i4 = %v, want wrapped [-8 7 -8 -1]", v)
	}
}

// Arithmetic: int4 wraps after every op, fp8 rounds after every op, weak
// literals keep the narrow dtype and an out-of-range int literal is an
// error; f8 with a strong int32 array is f8 (JAX's lattice: i32 < f* <
// f8e4m3fn).
func TestReviewNarrowArithmetic(t *testing.T) {
	i4 := tensor.Must(tensor.FromSlice([]int32{7, -8, 3})).Astype(tensor.I4)
	out, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(1)).Mul(x) }).Run(i4)
	// (7+1 → −8)·7 = −56 → wrap 8 → −8; (−8+1)·−8 = 56 → 8 → −8; 4·3 = 12 → −4.
	if err != nil || out.DType() != tensor.I4 || out.String() != "i4[3] [-8 -8 -4]" {
		t.Errorf("(x+1)*x on i4 = %v, %v", out, err)
	}
	if _, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(8)) }).Run(i4); err == nil {
		t.Errorf("i4 + 8 (literal out of range) gave no error")
	}
	f8 := tensor.Must(tensor.FromSlice([]float32{1, 16, 448})).Astype(tensor.F8E4M3FN)
	out, err = kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Float(1.5)).Add(kiln.Float(0.5)) }).Run(f8)
	// 1+1.5 = 2.5 → 2.5, +0.5 = 3; 16+1.5 = 17.5 → 18 (spacing 2), +0.5 → 18.5 → 18;
	// 448+1.5 → 448, +0.5 → 448 (each rounded; not 450 → NaN).
	if err != nil || out.DType() != tensor.F8E4M3FN {
		t.Fatalf("f8 + 1.5 + 0.5: %v, %v", out, err)
	}
	if v := f32Of(t, out); v[0] != 3 || v[1] != 18 || v[2] != 448 {
		t.Errorf("f8 + 1.5 + 0.5 = %v, want [3 18 448]", v)
	}
	// The i32 operand converts to f8e4m3fn first (as JAX's
	// _promote_dtypes): 3 + [1 16 448] = [4, 19 → 20 (tie, even), 451 → 448];
	// 1000 converts to NaN (past 464), so every sum is NaN.
	add := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(y) })
	for _, c := range []struct {
		i    int32
		want []float32
	}{{3, []float32{4, 20, 448}}, {1000, []float32{nanF, nanF, nanF}}} {
		out, err = add.Run(f8, tensor.Must(tensor.FromSlice([]int32{c.i})))
		if err != nil || out.DType() != tensor.F8E4M3FN {
			t.Errorf("f8e4m3fn + i32 array: %v, %v; want f8e4m3fn", out, err)
			continue
		}
		for k, v := range f32Of(t, out) {
			if v != c.want[k] && !(v != v && c.want[k] != c.want[k]) {
				t.Errorf("f8e4m3fn + i32(%d) = %v, want %v", c.i, f32Of(t, out), c.want)
				break
			}
		}
	}
	f32 := tensor.Must(tensor.FromSlice([]float32{1, 2, 3}))
	_, err = kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(y) }).Run(f8, f32)
	var pe *promote.PromotionError
	if !errors.As(err, &pe) {
		t.Errorf("f8e4m3fn + f32: %T %v, want a *promote.PromotionError", err, err)
	}
}

var nanF = float32(math.NaN())

// Grad through fp8: allowed (an inexact dtype), tangents in the same
// dtype, as JAX; grad of an int4 input is refused with JAX's message.
func TestReviewNarrowGrad(t *testing.T) {
	g := kiln.Grad(func(x kiln.Value) kiln.Value { return x.Mul(x).Sum() })
	f8 := tensor.Must(tensor.FromSlice([]float32{1, 3, 240})).Astype(tensor.F8E5M2)
	out, err := kiln.Jit(func(x kiln.Value) kiln.Value { return g(x)[0] }).Run(f8)
	if err != nil || out.DType() != tensor.F8E5M2 {
		t.Fatalf("grad f8e5m2: %v, %v", out, err)
	}
	// 2x in f8e5m2: 2, 6, 480 → 448|512 spacing 64: 480 is the tie, to even 512.
	if v := f32Of(t, out); v[0] != 2 || v[1] != 6 || v[2] != 512 {
		t.Errorf("grad = %v, want [2 6 512]", v)
	}
	i4 := tensor.Must(tensor.FromSlice([]int32{1})).Astype(tensor.I4)
	if _, err := kiln.Jit(func(x kiln.Value) kiln.Value { return g(x)[0] }).Run(i4); err == nil {
		t.Errorf("grad of an int4 input gave no error")
	}
}
