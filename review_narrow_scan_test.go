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
