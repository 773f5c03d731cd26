package trace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/trace"
)

// TestProfilesInEveryFamily: the profile's rules reach every op family
// that promotes — elementwise ops, where, composites, true division,
// float functions, reductions, cumulative ops — and rank counts under
// torch in each multi-operand one.
func TestProfilesInEveryFamily(t *testing.T) {
	torch, numpy := promote.Config{Rules: promote.Torch}, promote.Config{Rules: promote.NumPy}
	type fn = func(a []trace.Value) trace.Value
	for _, c := range []struct {
		name   string
		cfg    promote.Config
		inputs []string
		f      fn
		want   string // a result type, or "error: substring"
	}{
		{"torch add 0-dim", torch, []string{"u8[3]", "i8[]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, "u8"},
		{"torch add 0-dim first", torch, []string{"i8[]", "u8[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, "u8"},
		{"torch compare 0-dim", torch, []string{"f16[3]", "f64[]"}, func(a []trace.Value) trace.Value { return a[0].Lt(a[1]).Astype(a[0].DType()) }, "f16"},
		{"torch where 0-dim", torch, []string{"bool[3]", "f32[3]", "f64[]"}, func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[2]) }, "f32"},
		{"torch where scalar", torch, []string{"bool[3]", "i16[3]"}, func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], trace.Float(0.5)) }, "f32"},
		{"torch composite 0-dim", torch, []string{"f32[3]", "f64[]"}, func(a []trace.Value) trace.Value { return a[0].LogAddExp(a[1]) }, "f32"},
		{"torch maximum 0-dim", torch, []string{"i16[3]", "i64[]"}, func(a []trace.Value) trace.Value { return a[0].Maximum(a[1]) }, "i16"},
		{"torch div ints", torch, []string{"i64[3]", "i8[]"}, func(a []trace.Value) trace.Value { return a[0].Div(a[1]) }, "f32"},
		{"torch exp int", torch, []string{"u8[3]"}, func(a []trace.Value) trace.Value { return a[0].Exp() }, "f32"},
		{"torch inexact int", torch, []string{"i64[3]"}, func(a []trace.Value) trace.Value { return trace.Inexact(a[0]) }, "f32"},
		{"torch sum u8", torch, []string{"u8[3]"}, func(a []trace.Value) trace.Value { return a[0].Sum() }, "i64"},
		{"torch prod bool", torch, []string{"bool[3]"}, func(a []trace.Value) trace.Value { return a[0].Prod() }, "i64"},
		{"torch cumsum i8", torch, []string{"i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Cumsum(0) }, "i64"},
		{"torch mean int", torch, []string{"i32[3]"}, func(a []trace.Value) trace.Value { return a[0].Mean() }, "error: do not convert i32 to a float for mean"},
		{"torch mean f16", torch, []string{"f16[3]"}, func(a []trace.Value) trace.Value { return a[0].Mean() }, "f16"},
		{"torch hypot int", torch, []string{"i32[3]", "i32[3]"}, func(a []trace.Value) trace.Value { return a[0].Hypot(a[1]) }, "error: for hypot"},
		{"torch literal wraps", torch, []string{"i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Int(1000)) }, "i8"},
		{"torch complex32", torch, []string{"f16[3]", "c128[]"}, func(a []trace.Value) trace.Value { return a[0].Mul(a[1]) }, "error: complex32"},
		{"numpy 0-dim is an array", numpy, []string{"u8[3]", "i8[]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, "i16"},
		{"numpy where literal", numpy, []string{"bool[3]", "u8[3]"}, func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], trace.Int(1)) }, "i64"},
		{"numpy add literal", numpy, []string{"u8[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Int(1)) }, "u8"},
		{"numpy exp i16", numpy, []string{"i16[3]"}, func(a []trace.Value) trace.Value { return a[0].Exp() }, "f32"},
		{"numpy atan2 u8 i8", numpy, []string{"u8[3]", "i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Atan2(a[1]) }, "f16"},
		{"numpy logaddexp u16 i8", numpy, []string{"u16[3]", "i8[3]"}, func(a []trace.Value) trace.Value { return a[0].LogAddExp(a[1]) }, "f32"},
		{"numpy div i8", numpy, []string{"i8[3]", "i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Div(a[1]) }, "f64"},
		{"numpy mean i8", numpy, []string{"i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Mean() }, "f64"},
		{"numpy literal overflows", numpy, []string{"u8[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Int(1000)) }, "error: 1000 overflows u8"},
		{"lax div refused", promote.Config{Rules: promote.Lax}, []string{"i32[3]", "i32[3]"}, func(a []trace.Value) trace.Value { return a[0].Div(a[1]) }, "error: lax rules do not convert i32"},
		{"tensorflow div i32", promote.Config{Rules: promote.TensorFlow}, []string{"i32[3]", "i32[3]"}, func(a []trace.Value) trace.Value { return a[0].Div(a[1]) }, "f64"},
		{"tensorflow sum keeps", promote.Config{Rules: promote.TensorFlow}, []string{"i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Sum() }, "i8"},
		{"anvil literal i32", promote.Config{Rules: promote.Anvil}, nil, func(a []trace.Value) trace.Value { return trace.Int(1).Add(trace.Int(2)) }, "i32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := traceOne(t, c.cfg, c.inputs, c.f)
			if want, ok := strings.CutPrefix(c.want, "error: "); ok {
				var oe *trace.OpError
				if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &oe) {
					t.Fatalf("got %v, want an *OpError containing %q", err, want)
				}
				if !strings.Contains(err.Error(), "profile_test.go:") {
					t.Errorf("%v does not name the caller's file:line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Outputs[0].Type.DType.String(); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}
