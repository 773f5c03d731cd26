package kiln_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestDifferentialRegressions pins the bugs the differential tests found,
// each as its minimal reproducer with the correct answer.
func TestDifferentialRegressions(t *testing.T) {
	u16, _ := tensor.FromSlice([]uint16{65509, 300})
	u64, _ := tensor.FromSlice([]uint64{1, 2})
	f32, _ := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	c128, _ := tensor.FromSlice([]complex128{0})
	c128y, _ := tensor.FromSlice([]complex128{complex(math.NaN(), math.Inf(1))})
	bools, _ := tensor.FromSlice([]bool{false, true})
	f64s, _ := tensor.FromSlice([]float64{256})
	f64s, _ = f64s.Reshape()
	tests := []struct {
		name string
		fn   any
		args []any
		want string // results as printed, joined by " | "
	}{
		{"weak u64 + int literal panicked in trace (the weak float node used as a dtype)",
			func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(1)) }, []any{kiln.Weak(u64)}, "f64[2] [2 3]"},
		{"an output computed by reshapes alone did not compile",
			func(x kiln.Value) kiln.Value { return x.Reshape(3, 2) }, []any{f32}, "f32[3,2] [[1 2] [3 4] [5 6]]"},
		{"an output that is a reshaped broadcast constant was computed by no kernel",
			func(x kiln.Value) (kiln.Value, kiln.Value) {
				return x.Neg(), kiln.Where(x.Gt(kiln.Int(0)), kiln.Float(1), kiln.Float(1)).Reshape(6)
			}, []any{f32}, "f32[2,3] [[-1 -2 -3] [-4 -5 -6]] | f64[6] [1 1 1 1 1 1]"},
		{"int→float→int converts were folded into a wrapping int→int convert (float→int saturates)",
			func(x kiln.Value) kiln.Value { return x.Astype(tensor.F32).Astype(tensor.U8) }, []any{u16}, "u8[2] [255 255]"},
		{"a select of equal constants, simplified to a broadcast constant, was read by transpose from a wrong buffer",
			func(x kiln.Value) kiln.Value {
				return kiln.Where(x.Gt(kiln.Int(0)), kiln.Float(1), kiln.Float(1)).Transpose()
			}, []any{f32}, "f64[3,2] [[1 1] [1 1] [1 1]]"},
		{"complex pow 0 ** (NaN+Inf·i) panicked in math/cmplx.Pow",
			func(x, y kiln.Value) kiln.Value { return x.Pow(y) }, []any{c128, c128y}, "c128[1] [(nan+nanj)]"},
		{"bool→f8e8m0fnu→bf16 was folded into bool→bf16, but f8e8m0fnu has no zero: false is its NaN (seed 60027897)",
			func(x kiln.Value) kiln.Value { return x.Astype(tensor.F8E8M0FNU).Astype(tensor.BF16) }, []any{bools}, "bf16[2] [nan 1]"},
		{"reshape(broadcast(y, [1]), []) of a fused y became a broadcast of y to its own shape, which the loop kernel read from y's input's buffer (seed 68002648)",
			func(x kiln.Value) kiln.Value {
				y := x.Log2()
				return y.BroadcastTo(1).Reshape().Add(y)
			}, []any{f64s}, "f64[] 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runRecover(tt.fn, tt.args)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// runRecover runs a jitted fn, turning a panic into an error.
func runRecover(fn any, args []any) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	outs, err := kiln.Jit(fn).RunAll(args...)
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = o.String()
	}
	return strings.Join(parts, " | "), err
}

// TestConstantsKeepNaNSigns: two constants that differ only in a NaN's
// sign or payload, or in a zero's sign, are not merged as one (copysign
// and a bitcast see the difference).
func TestConstantsKeepNaNSigns(t *testing.T) {
	pos, _ := tensor.FromSlice([]float32{math.Float32frombits(0x7fc00000)})
	neg, _ := tensor.FromSlice([]float32{math.Float32frombits(0xffc00000)})
	pay, _ := tensor.FromSlice([]float32{math.Float32frombits(0x7fc00001)})
	zero, _ := tensor.FromSlice([]float32{0})
	negZero, _ := tensor.FromSlice([]float32{float32(math.Copysign(0, -1))})
	x, _ := tensor.FromSlice([]float32{2, 3})
	f := kiln.Jit(func(v ...kiln.Value) []kiln.Value {
		return []kiln.Value{
			v[0].Copysign(kiln.Const(pos)), v[0].Copysign(kiln.Const(neg)),
			v[0].Copysign(kiln.Const(zero)), v[0].Copysign(kiln.Const(negZero)),
			kiln.Const(pos).BitcastConvert(tensor.U32), kiln.Const(pay).BitcastConvert(tensor.U32),
		}
	})
	got, err := f.RunAll(x)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[2 3]", "[-2 -3]", "[2 3]", "[-2 -3]", "[2143289344]", "[2143289345]"}
	for i, w := range want {
		if s := fmt.Sprint(got[i].Data()); s != w {
			t.Errorf("result %d = %s, want %s", i, s, w)
		}
	}
}
