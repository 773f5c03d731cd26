package kiln_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// narrowVals is an array of narrow float d holding vals (converted from f32).
func narrowVals(t *testing.T, d tensor.DType, vals ...float32) *tensor.Array {
	t.Helper()
	return tensor.Must(tensor.FromSlice(vals)).Astype(d)
}

func f32Of(t *testing.T, a *tensor.Array) []float32 {
	t.Helper()
	return a.Astype(tensor.F32).Data().([]float32)
}

// Every narrow float with a NaN: max/min reductions and maximum/minimum
// propagate it, comparisons with it are false (ne true), sort puts it
// last, argmax points at it — as JAX (lax.max propagates NaN, sort uses
// a total order with NaN last).
func TestReviewNarrowNaNSemantics(t *testing.T) {
	nan := float32(math.NaN())
	for _, d := range tensor.NarrowDTypes() {
		f, ok := d.FloatFormat()
		if !ok || !f.HasNaN() {
			continue
		}
		t.Run(d.String(), func(t *testing.T) {
			lo := float32(1)
			if !f.Signed() {
				lo = 0.5
			}
			x := narrowVals(t, d, 2, nan, lo, 4)
			run := func(fn any, args ...any) *tensor.Array {
				t.Helper()
				out, err := kiln.Jit(fn).Run(args...)
				if err != nil {
					t.Fatalf("%v", err)
				}
				return out
			}
			if v := f32Of(t, run(func(x kiln.Value) kiln.Value { return x.Max() }, x)); !math.IsNaN(float64(v[0])) {
				t.Errorf("max = %v, want NaN", v)
			}
			if v := f32Of(t, run(func(x kiln.Value) kiln.Value { return x.Min() }, x)); !math.IsNaN(float64(v[0])) {
				t.Errorf("min = %v, want NaN", v)
			}
			y := narrowVals(t, d, 1, 1, 1, 1)
			if v := f32Of(t, run(func(x, y kiln.Value) kiln.Value { return x.Maximum(y) }, x, y)); !math.IsNaN(float64(v[1])) || v[3] != 4 {
				t.Errorf("maximum = %v, want NaN at 1", v)
			}
			if v := f32Of(t, run(func(x, y kiln.Value) kiln.Value { return x.Minimum(y) }, x, y)); !math.IsNaN(float64(v[1])) {
				t.Errorf("minimum = %v, want NaN at 1", v)
			}
			for name, fn := range map[string]func(x, y kiln.Value) kiln.Value{
				"lt": kiln.Value.Lt, "le": kiln.Value.Le, "gt": kiln.Value.Gt, "ge": kiln.Value.Ge, "eq": kiln.Value.Eq,
			} {
				b := run(fn, x, x).Data().([]bool)
				if b[1] {
					t.Errorf("%s(NaN, NaN) is true", name)
				}
			}
			if b := run(kiln.Value.Ne, x, x).Data().([]bool); !b[1] {
				t.Errorf("ne(NaN, NaN) is false")
			}
			s := f32Of(t, run(func(x kiln.Value) kiln.Value { return x.Sort(0) }, x))
			if s[0] != lo || s[1] != 2 || s[2] != 4 || !math.IsNaN(float64(s[3])) {
				t.Errorf("sort = %v, want [%v 2 4 NaN]", s, lo)
			}
			if v := run(func(x kiln.Value) kiln.Value { return x.ArgMax(0) }, x).Astype(tensor.I64).Data().([]int64); v[0] != 1 {
				t.Errorf("argmax = %v, want 1 (the NaN)", v)
			}
			if v := run(func(x kiln.Value) kiln.Value { return x.ArgMin(0) }, x).Astype(tensor.I64).Data().([]int64); v[0] != 1 {
				t.Errorf("argmin = %v, want 1 (the NaN)", v)
			}
			if b := run(kiln.Value.IsNaN, x).Data().([]bool); !b[1] || b[0] {
				t.Errorf("isnan = %v", b)
			}
		})
	}
}
