package kiln_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// cumsum/cummax/cummin of a narrow float must not pad the scan with an
// identity the format cannot hold: 0 is NaN in f8e8m0fnu and ∓inf is NaN
// in the fn/fnuz formats, which made every output NaN. JAX's cumulative
// reductions (associative_scan on CPU) combine elements only, so the
// first output is the first element and no NaN appears.
func TestReviewNarrowCumulative(t *testing.T) {
	x := []float32{1, 2, 0.5, 4}
	cases := []struct {
		d    tensor.DType
		op   string
		want []float32
	}{
		{tensor.F8E8M0FNU, "cumsum", []float32{1, 4, 4, 8}}, // 1, 3→4 (ties up), 3.5→4, 7.5→8
		{tensor.F8E4M3FN, "cummax", []float32{1, 2, 2, 4}},
		{tensor.F8E4M3FN, "cummin", []float32{1, 1, 0.5, 0.5}},
		{tensor.F8E4M3FNUZ, "cummax", []float32{1, 2, 2, 4}},
		{tensor.F8E5M2FNUZ, "cummin", []float32{1, 1, 0.5, 0.5}},
		{tensor.F8E8M0FNU, "cummax", []float32{1, 2, 2, 4}},
		{tensor.F8E8M0FNU, "cummin", []float32{1, 1, 0.5, 0.5}},
		{tensor.F8E4M3B11FNUZ, "cumsum", []float32{1, 3, 3.5, 7.5}},
	}
	for _, c := range cases {
		fn := map[string]func(v kiln.Value) kiln.Value{
			"cumsum": func(v kiln.Value) kiln.Value { return v.Cumsum(0) },
			"cummax": func(v kiln.Value) kiln.Value { return v.Cummax(0) },
			"cummin": func(v kiln.Value) kiln.Value { return v.Cummin(0) },
		}[c.op]
		out, err := kiln.Jit(fn).Run(tensor.Must(tensor.FromSlice(x)).Astype(c.d))
		if err != nil {
			t.Errorf("%s %s: %v", c.op, c.d, err)
			continue
		}
		got := f32Of(t, out)
		for i := range got {
			if got[i] != c.want[i] || math.IsNaN(float64(got[i])) {
				t.Errorf("%s of %v in %s = %v, want %v", c.op, x, c.d, got, c.want)
				break
			}
		}
	}
}

// reduce_window max/min pad with the format's lowest/highest finite value
// where it has no infinity (JAX's _get_max_identity: finfo(dtype).min when
// not dtypes.supports_inf), not with ∓inf, which is NaN in the fn, fnuz and
// e8m0 formats and made every padded window NaN.
func TestReviewNarrowReduceWindowPadding(t *testing.T) {
	for _, d := range []tensor.DType{tensor.F8E4M3FN, tensor.F8E4M3FNUZ, tensor.F8E5M2FNUZ, tensor.F8E4M3B11FNUZ, tensor.F8E8M0FNU, tensor.F4E2M1FN, tensor.F8E5M2} {
		x := tensor.Must(tensor.FromSlice([]float32{1, 2, 0.5, 4})).Astype(d)
		for _, c := range []struct {
			name string
			fn   func(v kiln.Value) kiln.Value
			want []float32
		}{
			{"max", func(v kiln.Value) kiln.Value {
				return kiln.ReduceWindowMax(v, []int{2}, kiln.WindowOptions{PaddingMode: "SAME"})
			}, []float32{2, 2, 4, 4}},
			{"min", func(v kiln.Value) kiln.Value {
				return kiln.ReduceWindowMin(v, []int{2}, kiln.WindowOptions{PaddingMode: "SAME"})
			}, []float32{1, 0.5, 0.5, 4}},
		} {
			out, err := kiln.Jit(c.fn).Run(x)
			if err != nil {
				t.Errorf("%s %s: %v", c.name, d, err)
				continue
			}
			got := f32Of(t, out)
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("reduce_window %s of %v in %s (SAME) = %v, want %v", c.name, x, d, got, c.want)
					break
				}
			}
		}
	}
}
