package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The MX formats (f6e2m3fn, f6e3m2fn, f4e2m1fn) have no NaN: a NaN
// rounds to −0 and a −NaN to +0 (ml_dtypes). So the sign of a NaN an op
// makes in f32 becomes a visible value, and the CPU kernels must make the
// same one as the reference evaluator given the backend's transcendental
// functions (SPEC §3: bit-identical). Note: the value still depends on the
// NaN's sign, which §3 leaves unspecified: rsqrt(−1) is −0 here (xmath's
// +NaN) while 1/sqrt(−1) would be +0 (the hardware's −NaN).
func TestReviewNarrowMXNaNSign(t *testing.T) {
	ops := map[string]func(x trace.Value) trace.Value{
		"rsqrt": trace.Value.Rsqrt, "sqrt": trace.Value.Sqrt, "log": trace.Value.Log,
		"0/0":   func(x trace.Value) trace.Value { return x.Sub(x).Div(x.Sub(x)) },
		"log1p": trace.Value.Log1p,
	}
	for _, d := range []tensor.DType{tensor.F6E2M3FN, tensor.F6E3M2FN, tensor.F4E2M1FN} {
		x := tensor.Must(tensor.FromSlice([]float32{-1, -2, 1, -6})).Astype(d)
		for name, op := range ops {
			p, err := trace.Trace(promote.Config{}, []trace.Abstract{trace.AbstractOf(d, []int{4})},
				func(a []trace.Value) []trace.Value { return []trace.Value{op(a[0])} })
			if err != nil {
				t.Fatal(err)
			}
			want, err := reference.Eval(p, []*tensor.Array{x}, reference.Options{Transcendental: kernels.Transcendental})
			if err != nil {
				t.Fatal(err)
			}
			got, err := kiln.Jit(func(v kiln.Value) kiln.Value { return op(v) }).Run(x)
			if err != nil {
				t.Fatal(err)
			}
			gb, _, _ := tensor.NarrowBytes(got.Data())
			wb, _, _ := tensor.NarrowBytes(want[0].Data())
			if string(gb) != string(wb) {
				t.Errorf("%s(%v) in %s: CPU bytes % x, reference % x", name, x, d, gb, wb)
			}
		}
	}
}
