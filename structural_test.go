package kiln_test

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func evalArr(t *testing.T, v kiln.Value, opts ...kiln.Option) *tensor.Array {
	t.Helper()
	a, err := kiln.Eval(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// typeString is v's traced dtype with JAX's weak mark.
func typeString(t *testing.T, v kiln.Value, cfg promote.Config) string {
	t.Helper()
	p, err := trace.Trace(cfg, nil, func([]trace.Value) []trace.Value { return []trace.Value{v} })
	if err != nil {
		t.Fatal(err)
	}
	return p.Outputs[0].Type.String()
}

// The constructors' values, dtypes and weak types are jax.numpy's.
func TestConstructors(t *testing.T) {
	for _, c := range []struct {
		name  string
		v     kiln.Value
		dtype string // with the weak mark
		shape []int
		want  []float64
	}{
		{"zeros", trace.Zeros([]int{2, 2}), "f64", []int{2, 2}, []float64{0, 0, 0, 0}},
		{"ones i8", trace.Ones([]int{3}, tensor.I8), "i8", []int{3}, []float64{1, 1, 1}},
		{"full weak", trace.Full([]int{2}, kiln.Float(2.5)), "f64*", []int{2}, []float64{2.5, 2.5}},
		{"full f16", trace.Full([]int{2}, kiln.Float(0.1), tensor.F16), "f16", []int{2}, []float64{0.0999755859375, 0.0999755859375}},
		{"zeros_like i8", trace.ZerosLike(kiln.Const(tensor.Must(tensor.FromSlice([]int8{4, 5})))), "i8", []int{2}, []float64{0, 0}},
		{"full_like weak stays weak", trace.FullLike(kiln.Float(3).Add(kiln.Float(0)), kiln.Int(7)), "f64*", []int{}, []float64{7}},
		{"ones_like dtype", trace.OnesLike(kiln.Const(tensor.Must(tensor.FromSlice([]int8{4, 5}))), tensor.F32), "f32", []int{2}, []float64{1, 1}},
		{"arange", trace.Arange(0, 5, 1), "i64", []int{5}, []float64{0, 1, 2, 3, 4}},
		{"arange step", trace.Arange(10, 1, -3, tensor.F32), "f32", []int{3}, []float64{10, 7, 4}},
		{"arange empty", trace.Arange(3, 3, 1), "i64", []int{0}, []float64{}},
		{"eye", trace.Eye(2, 3, 1), "f64", []int{2, 3}, []float64{0, 1, 0, 0, 0, 1}},
		{"tri", trace.Tri(2, 2, 0), "bool", []int{2, 2}, []float64{1, 0, 1, 1}},
	} {
		a := evalArr(t, c.v)
		got := typeString(t, c.v, promote.Config{})
		if got != c.dtype || !slices.Equal(a.Shape(), c.shape) || !slices.Equal(f64s(t, a), c.want) {
			t.Errorf("%s = %s%v %v, want %s%v %v", c.name, got, a.Shape(), f64s(t, a), c.dtype, c.shape, c.want)
		}
	}
	// X32 defaults: f32 and i32.
	if d := evalArr(t, trace.Zeros([]int{1}), kiln.X32()).DType(); d != tensor.F32 {
		t.Errorf("zeros under X32: %v", d)
	}
	if d := evalArr(t, trace.Arange(0, 2, 1), kiln.X32()).DType(); d != tensor.I32 {
		t.Errorf("arange under X32: %v", d)
	}
}

// tril and triu as NumPy's: a causal mask, offsets, batches.
func TestTriangles(t *testing.T) {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3)))
	for _, c := range []struct {
		name string
		v    kiln.Value
		want []float64
	}{
		{"tril", trace.Tril(x, 0), []float64{1, 0, 0, 4, 5, 0, 7, 8, 9}},
		{"tril -1", trace.Tril(x, -1), []float64{0, 0, 0, 4, 0, 0, 7, 8, 0}},
		{"triu", trace.Triu(x, 0), []float64{1, 2, 3, 0, 5, 6, 0, 0, 9}},
		{"triu 1", trace.Triu(x, 1), []float64{0, 2, 3, 0, 0, 6, 0, 0, 0}},
		{"causal mask", trace.Where(trace.Tril(trace.Ones([]int{3, 3}, tensor.Bool), 0), x, kiln.Float(math.Inf(-1))).Exp(),
			[]float64{math.Exp(1), 0, 0, math.Exp(4), math.Exp(5), 0, math.Exp(7), math.Exp(8), math.Exp(9)}},
	} {
		got := f64s(t, evalArr(t, c.v))
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-5*math.Abs(c.want[i]) {
				t.Errorf("%s = %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	batch := evalArr(t, trace.Triu(trace.Ones([]int{2, 2, 2}, tensor.I32), 0))
	if got := f64s(t, batch); !slices.Equal(got, []float64{1, 1, 0, 1, 1, 1, 0, 1}) || batch.DType() != tensor.I32 {
		t.Errorf("batched triu = %v %v", batch.DType(), got)
	}
	var se *trace.ShapeError
	if _, err := kiln.Eval(trace.Tril(kiln.Const(tensor.Must(tensor.FromSlice([]float32{1, 2}))), 0)); !errors.As(err, &se) {
		t.Errorf("tril of a vector: %v, want a *trace.ShapeError", err)
	}
	if _, err := kiln.Eval(trace.Arange(0, 3, 0)); !errors.As(err, &se) {
		t.Errorf("arange step 0: %v", err)
	}
	if _, err := kiln.Eval(trace.Zeros([]int{-1})); !errors.As(err, &se) {
		t.Errorf("zeros of a negative shape: %v", err)
	}
}

// var, std, logsumexp, any, all and the nan reductions against their
// definitions.
func TestStatistics(t *testing.T) {
	xs := []float64{1, 2, 4, 7, 11, 16}
	x := kiln.Const(tensor.Must(tensor.FromSlice(xs, 2, 3)))
	mean := func(v []float64) float64 {
		s := 0.0
		for _, e := range v {
			s += e
		}
		return s / float64(len(v))
	}
	variance := func(v []float64, ddof int) float64 {
		m, s := mean(v), 0.0
		for _, e := range v {
			s += (e - m) * (e - m)
		}
		return s / float64(len(v)-ddof)
	}
	near := func(name string, got, want []float64) {
		t.Helper()
		for i := range want {
			if !(math.Abs(got[i]-want[i]) <= 1e-12*math.Max(1, math.Abs(want[i]))) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Errorf("%s = %v, want %v", name, got, want)
				return
			}
		}
	}
	near("var", f64s(t, evalArr(t, x.Var(0))), []float64{variance(xs, 0)})
	near("var ddof 1 axis 1", f64s(t, evalArr(t, x.Var(1, 1))), []float64{variance(xs[:3], 1), variance(xs[3:], 1)})
	near("std axis 0", f64s(t, evalArr(t, x.Std(0, 0))), []float64{3, 4.5, 6})
	kept := evalArr(t, x.KeepDims().Var(0, 1))
	if !slices.Equal(kept.Shape(), []int{2, 1}) {
		t.Errorf("keepdims var shape %v", kept.Shape())
	}
	iv := evalArr(t, kiln.Const(tensor.Must(tensor.FromSlice([]int8{1, 2, 3, 4}))).Var(0))
	if iv.DType() != tensor.F64 || f64s(t, iv)[0] != 1.25 {
		t.Errorf("var of i8 = %v %v, want f64 1.25", iv.DType(), f64s(t, iv))
	}
	hv := evalArr(t, kiln.Const(tensor.Must(tensor.FromSlice([]float64{1, 2, 3, 4}))).Astype(tensor.F16).Var(0))
	if hv.DType() != tensor.F16 || f64s(t, hv)[0] != 1.25 {
		t.Errorf("var of f16 = %v %v, want f16 1.25", hv.DType(), f64s(t, hv))
	}
	cv := evalArr(t, kiln.Const(tensor.Must(tensor.FromSlice([]complex128{1i, -1i}))).Var(0))
	if cv.DType() != tensor.F64 || f64s(t, cv)[0] != 1 {
		t.Errorf("var of c128 = %v %v, want f64 1", cv.DType(), f64s(t, cv))
	}

	big := kiln.Const(tensor.Must(tensor.FromSlice([]float64{1000, 1001, 1002, math.Inf(-1)}, 2, 2)))
	lse := func(a, b float64) float64 { m := math.Max(a, b); return m + math.Log(math.Exp(a-m)+math.Exp(b-m)) }
	near("logsumexp", f64s(t, evalArr(t, big.LogSumExp(1))), []float64{lse(1000, 1001), 1002})
	minf := kiln.Const(tensor.Must(tensor.FromSlice([]float64{math.Inf(-1), math.Inf(-1)})))
	if got := f64s(t, evalArr(t, minf.LogSumExp())); !math.IsInf(got[0], -1) {
		t.Errorf("logsumexp of -inf = %v, want -Inf", got)
	}

	b := kiln.Const(tensor.Must(tensor.FromSlice([]float64{0, 0, math.NaN(), 0, 2, 0}, 2, 3)))
	if got := evalArr(t, b.Any(1)); !slices.Equal(got.Data().([]bool), []bool{true, true}) {
		t.Errorf("any = %v", got)
	}
	if got := evalArr(t, b.All(0)); !slices.Equal(got.Data().([]bool), []bool{false, false, false}) {
		t.Errorf("all = %v", got)
	}
	if got := evalArr(t, kiln.Const(tensor.Must(tensor.FromSlice([]int32{}))).All()); !got.Data().([]bool)[0] {
		t.Errorf("all of nothing = %v, want true", got)
	}

	n := kiln.Const(tensor.Must(tensor.FromSlice([]float64{1, math.NaN(), 3, math.NaN(), math.NaN(), math.NaN()}, 2, 3)))
	near("nansum", f64s(t, evalArr(t, n.NanSum(1))), []float64{4, 0})
	near("nanmean", f64s(t, evalArr(t, n.NanMean(1))), []float64{2, math.NaN()})
	near("nanmax", f64s(t, evalArr(t, n.NanMax(1))), []float64{3, math.NaN()})
	near("nanmin", f64s(t, evalArr(t, n.NanMin(1))), []float64{1, math.NaN()})
	near("nanprod", f64s(t, evalArr(t, n.NanProd(1))), []float64{3, 1})
	near("nanvar", f64s(t, evalArr(t, n.NanVar(0, 1))), []float64{1, math.NaN()})
	near("nanstd ddof 1", f64s(t, evalArr(t, n.NanStd(1, 1))), []float64{math.Sqrt2, math.NaN()})
	near("nanvar of ints is var", f64s(t, evalArr(t, x.NanVar(0))), []float64{variance(xs, 0)})
}

// A free value (built from constants, outside any trace) used on many
// paths is replayed once per trace: doubling x 60 times by x + x made
// 2⁶⁰ replays before, and the random package's sorting network made such
// DAGs.
func TestSharedFreeValues(t *testing.T) {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]float64{1, 3})))
	for range 60 {
		x = x.Add(x)
	}
	got := f64s(t, evalArr(t, x))
	if want := math.Ldexp(1, 60); got[0] != want || got[1] != 3*want {
		t.Errorf("x doubled 60 times = %v, want [%v %v]", got, want, 3*want)
	}
	// Traces on several goroutines share the free value (and its memo).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := kiln.Jit(func(y kiln.Value) kiln.Value { return y.Mul(x) })
			a, err := f.Run(tensor.Must(tensor.FromSlice([]float64{2, float64(g)})))
			if err != nil || a.Data().([]float64)[1] != 3*float64(g)*math.Ldexp(1, 60) {
				t.Errorf("goroutine %d: the shared free value inside Jit: %v, %v", g, a, err)
			}
		}()
	}
	wg.Wait()
}
