package trace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The math ops follow jax.numpy's dtype rules: the inexact ones compute
// integers and bool in f32 (f64 for 64-bit integers), keep weak flags and
// refuse complex where JAX does; fmod, square and the is*inf tests keep
// integers; the composites promote their operands together first.
func TestMathDTypeRules(t *testing.T) {
	abs := func(d tensor.DType, weak bool) trace.Abstract {
		ty := promote.Strong(d)
		if weak {
			ty = promote.WeakOf(d)
		}
		return trace.Abstract{Type: ty, Shape: []int{2}}
	}
	cases := []struct {
		name string
		in   []trace.Abstract
		fn   func(a []trace.Value) trace.Value
		want string // the result type, or "error"
	}{
		{"asin of i32 is f32", []trace.Abstract{abs(tensor.I32, false)}, func(a []trace.Value) trace.Value { return a[0].Asin() }, "f32"},
		{"log2 of i64 is f64", []trace.Abstract{abs(tensor.I64, false)}, func(a []trace.Value) trace.Value { return a[0].Log2() }, "f64"},
		{"erf of weak f64 stays weak", []trace.Abstract{abs(tensor.F64, true)}, func(a []trace.Value) trace.Value { return a[0].Erf() }, "f64*"},
		{"cosh of c64", []trace.Abstract{abs(tensor.C64, false)}, func(a []trace.Value) trace.Value { return a[0].Cosh() }, "c64"},
		{"erf of c64 is refused", []trace.Abstract{abs(tensor.C64, false)}, func(a []trace.Value) trace.Value { return a[0].Erf() }, "error"},
		{"cbrt of c128 is refused", []trace.Abstract{abs(tensor.C128, false)}, func(a []trace.Value) trace.Value { return a[0].Cbrt() }, "error"},
		{"atan2 promotes i8 with f16", []trace.Abstract{abs(tensor.I8, false), abs(tensor.F16, false)}, func(a []trace.Value) trace.Value { return a[0].Atan2(a[1]) }, "f16"},
		{"hypot of c64 is refused", []trace.Abstract{abs(tensor.C64, false), abs(tensor.C64, false)}, func(a []trace.Value) trace.Value { return a[0].Hypot(a[1]) }, "error"},
		{"fmod keeps integers", []trace.Abstract{abs(tensor.I16, false), abs(tensor.I16, false)}, func(a []trace.Value) trace.Value { return a[0].Fmod(a[1]) }, "i16"},
		{"fmod of bool is the default int", []trace.Abstract{abs(tensor.Bool, false), abs(tensor.Bool, false)}, func(a []trace.Value) trace.Value { return a[0].Fmod(a[1]) }, "i64"},
		{"copysign of ints is inexact", []trace.Abstract{abs(tensor.I16, false), abs(tensor.I16, false)}, func(a []trace.Value) trace.Value { return a[0].Copysign(a[1]) }, "f32"},
		{"isinf is bool", []trace.Abstract{abs(tensor.U8, false)}, func(a []trace.Value) trace.Value { return a[0].IsInf() }, "bool"},
		{"isposinf of complex is refused", []trace.Abstract{abs(tensor.C64, false)}, func(a []trace.Value) trace.Value { return a[0].IsPosInf() }, "error"},
		{"square of bool is the default int", []trace.Abstract{abs(tensor.Bool, false)}, func(a []trace.Value) trace.Value { return a[0].Square() }, "i64"},
		{"square keeps i8", []trace.Abstract{abs(tensor.I8, false)}, func(a []trace.Value) trace.Value { return a[0].Square() }, "i8"},
		{"reciprocal of i32 is f32, not f64", []trace.Abstract{abs(tensor.I32, false)}, func(a []trace.Value) trace.Value { return a[0].Reciprocal() }, "f32"},
		{"logaddexp of i8 and f16 is f16", []trace.Abstract{abs(tensor.I8, false), abs(tensor.F16, false)}, func(a []trace.Value) trace.Value { return a[0].LogAddExp(a[1]) }, "f16"},
		{"logaddexp with a literal keeps bf16", []trace.Abstract{abs(tensor.BF16, false)}, func(a []trace.Value) trace.Value { return a[0].LogAddExp(trace.Int(0)) }, "bf16"},
		{"logaddexp of complex is refused", []trace.Abstract{abs(tensor.C64, false), abs(tensor.C64, false)}, func(a []trace.Value) trace.Value { return a[0].LogAddExp(a[1]) }, "error"},
		{"clip promotes with its bounds", []trace.Abstract{abs(tensor.I8, false)}, func(a []trace.Value) trace.Value { return a[0].Clip(trace.Float(0.5), trace.Value{}) }, "f64*"},
		{"clip with int bounds keeps i8", []trace.Abstract{abs(tensor.I8, false)}, func(a []trace.Value) trace.Value { return a[0].Clip(trace.Int(0), trace.Int(5)) }, "i8"},
		{"stop_gradient keeps the type", []trace.Abstract{abs(tensor.F16, true)}, func(a []trace.Value) trace.Value { return trace.StopGradient(a[0]) }, "f16*"},
		{"Inexact of u16 is f32", []trace.Abstract{abs(tensor.U16, false)}, func(a []trace.Value) trace.Value { return trace.Inexact(a[0]) }, "f32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := trace.Trace(promote.Config{}, c.in, func(a []trace.Value) []trace.Value { return []trace.Value{c.fn(a)} })
			if c.want == "error" {
				var de *trace.DTypeError
				if !errors.As(err, &de) {
					t.Fatalf("err = %v, want a *trace.DTypeError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Outputs[0].Type.String(); got != c.want {
				t.Errorf("result %s, want %s\n%s", got, c.want, p)
			}
		})
	}
}

// Elementwise applies any elementwise op of the table by its Op, and
// refuses the others with an *OpError.
func TestElementwiseByOp(t *testing.T) {
	in := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{3}}}
	p, err := trace.Trace(promote.Config{}, in, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.Elementwise(trace.OpAtan, a[0]), trace.Elementwise(trace.OpHypot, a[0], a[0]), trace.Elementwise(trace.OpRound, a[0])}
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.String(); !containsAll(s, "atan a", "hypot a a", "round a") {
		t.Errorf("program:\n%s", s)
	}
	for _, bad := range []func(a []trace.Value) trace.Value{
		func(a []trace.Value) trace.Value { return trace.Elementwise(trace.OpReduceSum, a[0]) },
		func(a []trace.Value) trace.Value { return trace.Elementwise(trace.OpAtan2, a[0]) },
	} {
		_, err := trace.Trace(promote.Config{}, in, func(a []trace.Value) []trace.Value { return []trace.Value{bad(a)} })
		var oe *trace.OpError
		if !errors.As(err, &oe) {
			t.Errorf("err = %v, want an *trace.OpError", err)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
