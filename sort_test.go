package kiln_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The order of JAX's sort, bit for bit: −0 and +0 equal (kept in their
// order), every NaN — −NaN too — equal and last, the infinities at the
// ends; descending argsort keeps equal elements in order; top_k is XLA's
// total order (+NaN first, +0 above −0, −NaN last) with ties to the lower
// index.
func TestSortOrder(t *testing.T) {
	negZero, negNaN := math.Copysign(0, -1), math.Copysign(math.NaN(), -1)
	vals := []float64{0, math.NaN(), negZero, 1, negNaN, math.Inf(-1), negZero, 0, math.Inf(1), 1}
	for _, d := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16, tensor.BF16} {
		x := arr(t, vals).Astype(d)
		run := func(f func(x kiln.Value) kiln.Value) []float64 {
			out, err := kiln.Jit(f).Run(x)
			if err != nil {
				t.Fatal(err)
			}
			v, err := tensor.Data[float64](out.Astype(tensor.F64))
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		ints := func(f func(x kiln.Value) kiln.Value) string {
			out, err := kiln.Jit(f).Run(x)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(out)
		}
		sorted := run(func(x kiln.Value) kiln.Value { return kiln.Sort(x, 0) })
		// Stable: the zeros appear as in x (0, −0, −0, 0), the NaNs as in x (+, −).
		want := []float64{math.Inf(-1), 0, negZero, negZero, 0, 1, 1, math.Inf(1), math.NaN(), negNaN}
		for i := range want {
			if math.Float64bits(sorted[i])>>63 != math.Float64bits(want[i])>>63 || math.IsNaN(sorted[i]) != math.IsNaN(want[i]) || !math.IsNaN(want[i]) && sorted[i] != want[i] {
				t.Errorf("%s: sort = %v, want %v", d, sorted, want)
				break
			}
		}
		got := ints(func(x kiln.Value) kiln.Value { return kiln.Argsort(x, 0) })
		if w := "i64[10] [5 0 2 6 7 3 9 8 1 4]"; got != w {
			t.Errorf("%s: argsort = %s, want %s", d, got, w)
		}
		got = ints(func(x kiln.Value) kiln.Value { return kiln.Argsort(x, 0, kiln.Descending()) })
		if w := "i64[10] [1 4 8 3 9 0 2 6 7 5]"; got != w {
			t.Errorf("%s: argsort descending = %s, want %s", d, got, w)
		}
		got = ints(func(x kiln.Value) kiln.Value { _, i := kiln.TopK(x, 10); return i })
		if w := "i32[10] [1 8 3 9 0 7 2 6 5 4]"; got != w {
			t.Errorf("%s: top_k indices = %s, want %s", d, got, w)
		}
	}
}

// Every dtype sorts, and the edge sizes: an empty axis, one element, a
// prime length; argsort's dtype is the default int (i32 with X32).
func TestSortDTypesAndSizes(t *testing.T) {
	// The narrow dtypes do not all hold 3, −1, 2, 0 (u2 wraps, f8e8m0fnu
	// has no 0): conformance's sort cases sort them.
	for _, d := range tensor.StandardDTypes() {
		x := arr(t, []int64{3, -1, 2, 0, 2}).Astype(d)
		out, err := kiln.Jit(func(x kiln.Value) kiln.Value { return kiln.Argsort(x, -1) }).Run(x)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		want := "i64[5] [1 3 2 4 0]"
		switch {
		case d == tensor.Bool:
			want = "i64[5] [3 0 1 2 4]"
		case d.IsUnsigned(): // −1 wraps to the largest
			want = "i64[5] [3 2 4 0 1]"
		}
		if got := fmt.Sprint(out); got != want {
			t.Errorf("%s: argsort = %s, want %s", d, got, want)
		}
		if d.IsComplex() {
			continue
		}
		out, err = kiln.Jit(func(x kiln.Value) kiln.Value { _, i := kiln.TopK(x, 5); return i }).Run(x)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		want = "i32[5] [0 2 4 3 1]"
		switch {
		case d == tensor.Bool:
			want = "i32[5] [0 1 2 4 3]"
		case d.IsUnsigned():
			want = "i32[5] [1 0 2 4 3]"
		}
		if got := fmt.Sprint(out); got != want {
			t.Errorf("%s: top_k indices = %s, want %s", d, got, want)
		}
	}
	for _, shape := range [][]int{{0}, {3, 0}, {1}, {4, 1}, {13}, {2, 97}} {
		x, _ := tensor.Zeros(tensor.F32, shape...)
		out, err := kiln.Jit(func(x kiln.Value) []kiln.Value {
			return []kiln.Value{kiln.Sort(x, -1), kiln.Argsort(x, -1)}
		}).RunAll(x)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if !out[0].HasShape(shape) || !out[1].HasShape(shape) {
			t.Errorf("%v: shapes %v %v", shape, out[0].Shape(), out[1].Shape())
		}
	}
	x32, err := kiln.Jit(func(x kiln.Value) kiln.Value { return kiln.Argsort(x, 0) }, kiln.X32()).Run(arr(t, []float32{2, 1}))
	if err != nil || fmt.Sprint(x32) != "i32[2] [1 0]" {
		t.Errorf("argsort with X32 = %v, %v", x32, err)
	}
}

// lax.sort of several operands: two keys lexicographically, a payload.
func TestSortMany(t *testing.T) {
	k1 := arr(t, []int32{1, 0, 1, 0, 1})
	k2 := arr(t, []float32{2, 5, 1, 5, 2})
	p := arr(t, []int8{10, 11, 12, 13, 14})
	out, err := kiln.Jit(func(a, b, c kiln.Value) []kiln.Value { return kiln.SortMany([]kiln.Value{a, b, c}, 0, 2, true) }).RunAll(k1, k2, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out); got != "[i32[5] [0 0 1 1 1] f32[5] [5 5 1 2 2] i8[5] [11 13 12 10 14]]" {
		t.Errorf("lax.sort = %s", got)
	}
}

// Bad sorts give typed errors naming the op and the caller's line, and
// leave the inputs alone.
func TestBadSort(t *testing.T) {
	m := func() *tensor.Array { return arr(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3) }
	c := func() *tensor.Array { return arr(t, []complex64{1, 2}) }
	var (
		shapeErr   *trace.ShapeError
		dtypeErr   *trace.DTypeError
		opErr      *trace.OpError
		operandErr *trace.OperandError
	)
	type single = func(x kiln.Value) kiln.Value
	cases := []badCase{
		{"sort axis", single(func(x kiln.Value) kiln.Value { return kiln.Sort(x, 2) }), []any{m()}, &shapeErr, "axis 2 is out of range for [2,3]"},
		{"argsort axis", single(func(x kiln.Value) kiln.Value { return kiln.Argsort(x, -3) }), []any{m()}, &shapeErr, "axis -3 is out of range for [2,3]"},
		{"sort a scalar", single(func(x kiln.Value) kiln.Value { return kiln.Sort(x.Sum(), 0) }), []any{m()}, &shapeErr, "axis 0 is out of range for []"},
		{"top_k k", single(func(x kiln.Value) kiln.Value { v, _ := kiln.TopK(x, 4); return v }), []any{m()}, &shapeErr, "k 4 is out of range for the last axis of [2,3]"},
		{"top_k negative k", single(func(x kiln.Value) kiln.Value { _, i := kiln.TopK(x, -1); return i }), []any{m()}, &shapeErr, "k -1 is out of range"},
		{"top_k of complex", single(func(x kiln.Value) kiln.Value { v, _ := kiln.TopK(x, 1); return v }), []any{c()}, &dtypeErr, "complex numbers are not ordered"},
		{"lax.sort shapes", single(func(x kiln.Value) kiln.Value { return kiln.SortMany([]kiln.Value{x, x.Sum(0)}, 0, 1, true)[0] }), []any{m()}, &shapeErr,
			"operands sorted together must have one shape, got [2,3] and [3]"},
		{"lax.sort num_keys", single(func(x kiln.Value) kiln.Value { return kiln.SortMany([]kiln.Value{x}, 0, 2, true)[0] }), []any{m()}, &opErr,
			"num_keys 2 with 1 operands"},
		{"lax.sort of nothing", single(func(x kiln.Value) kiln.Value { return kiln.SortMany(nil, 0, 1, true)[0] }), []any{m()}, &opErr, "at least one operand"},
		{"zero Value", single(func(x kiln.Value) kiln.Value { return kiln.Sort(kiln.Value{}, 0) }), []any{m()}, &operandErr, "sort"},
	}
	runBadCases(t, "sort_test.go:", cases)
}

func ExampleArgsort() {
	x, _ := tensor.FromSlice([]float32{3, float32(math.NaN()), -1, 3, 0})
	f := kiln.Jit(func(x kiln.Value) []kiln.Value {
		v, i := kiln.TopK(x, 2)
		return []kiln.Value{kiln.Sort(x, 0), kiln.Argsort(x, 0), kiln.Argsort(x, 0, kiln.Descending()), v, i}
	})
	out, _ := f.RunAll(x)
	for _, a := range out {
		fmt.Println(a)
	}
	// Output:
	// f32[5] [-1 0 3 3 nan]
	// i64[5] [2 4 0 3 1]
	// i64[5] [1 0 3 4 2]
	// f32[2] [nan 3]
	// i32[2] [1 0]
}
