package kiln_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// review2Data is n f64 values, deterministic and varied.
func review2Data(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(i)*0.37)*3 + float64(i%7)
	}
	return v
}

// TestReview2LeafPassSums: sums long enough for the leaf pass (more than
// one 1,024-value group per output), of x, of x·x and of (x − c)² with c
// per row (a broadcast, not a scalar), a parameter scalar, over the last
// axis and over the first, and chains of them over the same x (whose
// later passes run backwards), equal their unfused runs bit for bit.
func TestReview2LeafPassSums(t *testing.T) {
	const rows, cols = 3, 5000
	x := tensor.Must(tensor.FromSlice(review2Data(rows*cols), rows, cols))
	xt := tensor.Must(tensor.FromSlice(review2Data(rows*cols), cols, rows))
	c := tensor.Must(tensor.FromSlice([]float64{1.5}, 1))
	cases := map[string]struct {
		f    any
		args []any
	}{
		"sum rows": {func(x kiln.Value) kiln.Value { return x.Sum(1) }, []any{x}},
		"sum cols": {func(x kiln.Value) kiln.Value { return x.Sum(0) }, []any{xt}},
		"sq diff row mean": {func(x kiln.Value) kiln.Value {
			d := x.Sub(x.Mean(1).Reshape(rows, 1))
			return d.Mul(d).Sum(1)
		}, []any{x}},
		"sq diff col mean": {func(x kiln.Value) kiln.Value {
			d := x.Sub(x.Mean(0).Reshape(1, rows))
			return d.Mul(d).Sum(0)
		}, []any{xt}},
		"sq diff param": {func(x, c kiln.Value) kiln.Value {
			d := x.Sub(c.Reshape())
			return d.Mul(d).Sum(1)
		}, []any{x, c}},
		"squares rows": {func(x kiln.Value) kiln.Value { return x.Mul(x).Sum(1) }, []any{x}},
		"squares cols": {func(x kiln.Value) kiln.Value { return x.Mul(x).Sum(0) }, []any{xt}},
		"moments rows": {func(x kiln.Value) kiln.Value {
			m := x.Mean(1)
			return x.Mul(x).Mean(1).Sub(m.Mul(m))
		}, []any{x}},
		"variance twice": {func(x kiln.Value) kiln.Value {
			d := x.Sub(x.Mean(1).Reshape(rows, 1))
			e := x.Sub(d.Mul(d).Mean(1).Reshape(rows, 1))
			return e.Mul(e).Sum(1)
		}, []any{x}},
		"sq diff iota": {func(x kiln.Value) kiln.Value {
			d := x.Sub(kiln.Arange(0, rows, 1).Astype(x.DType()).Reshape(rows, 1))
			return d.Mul(d).Sum(1)
		}, []any{x}},
	}
	for name, tc := range cases {
		want, err := kiln.Jit(tc.f, kiln.NoFusion()).Run(tc.args...)
		if err != nil {
			t.Fatalf("%s unfused: %v", name, err)
		}
		got, err := kiln.Jit(tc.f).Run(tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !tensor.Equal(got, want) {
			t.Errorf("%s: fused %v, unfused %v", name, got, want)
		}
	}
}

// TestReview2LeafPassScalarChanges: the (x − c)² leaf pass keeps c in a
// register filled per worker; runs of one Func with another c (a
// parameter, and the mean of another x) must use the new c, one run after
// another and with workers reused.
func TestReview2LeafPassScalarChanges(t *testing.T) {
	const n = 5000
	sq := func(x, c kiln.Value) kiln.Value {
		d := x.Sub(c)
		return d.Mul(d).Sum()
	}
	variance := func(x kiln.Value) kiln.Value {
		d := x.Sub(x.Mean())
		return d.Mul(d).Sum()
	}
	fs, us := kiln.Jit(sq), kiln.Jit(sq, kiln.NoFusion())
	fv, uv := kiln.Jit(variance), kiln.Jit(variance, kiln.NoFusion())
	for i, cv := range []float64{1.5, -2.25, 1e3, 1.5} {
		data := review2Data(n)
		for j := range data {
			data[j] *= float64(i + 1)
		}
		x := tensor.Must(tensor.FromSlice(data, n))
		c := tensor.Scalar(cv)
		got, err := fs.Run(x, c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := us.Run(x, c)
		if err != nil {
			t.Fatal(err)
		}
		if !tensor.Equal(got, want) {
			t.Errorf("run %d, c = %v: %v, unfused %v", i, cv, got, want)
		}
		got, err = fv.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		want, err = uv.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		if !tensor.Equal(got, want) {
			t.Errorf("run %d: variance %v, unfused %v", i, got, want)
		}
	}
}
