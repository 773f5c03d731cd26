package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
)

// TestReview2StaleScratch: a kernel's result given a scratch buffer a dead
// value of the same dtype and size held before (the planner reuses
// buffers now): kernels that write only part of their result, or
// accumulate into it, must not see the dead value's data. Each program
// first computes a garbage matrix g (read by one kernel, then dead), then
// the op under test into a scratch result read by a transpose; results
// are held to the reference evaluator and to the unfused run.
func TestReview2StaleScratch(t *testing.T) {
	const n = 6
	x := review2Matrix(n, n, 5)
	empty := tensor.Must(tensor.FromSlice([]float32{}, n, 0))
	garbage := func(x kiln.Value) kiln.Value { return x.Mul(kiln.Float(7)).Add(kiln.Float(1)).Transpose(1, 0).Sum() }
	cases := map[string]struct {
		op   func(x, e kiln.Value) kiln.Value
		args []any
	}{
		"dot with no contraction": {func(x, e kiln.Value) kiln.Value {
			return e.MatMul(e.Transpose(1, 0))
		}, []any{x, empty}},
		"pad": {func(x, e kiln.Value) kiln.Value {
			return kiln.Pad(e, [][2]int{{0, 0}, {3, 3}}, kiln.PadConstant, kiln.Float(0))
		}, []any{x, empty}},
		"window sum, padded": {func(x, e kiln.Value) kiln.Value {
			return kiln.ReduceWindowSum(x.Neg(), []int{3, 3}, kiln.WindowOptions{PaddingMode: "SAME"})
		}, []any{x, empty}},
		"concatenate with an empty piece": {func(x, e kiln.Value) kiln.Value {
			return kiln.Concatenate(1, e, x.Neg(), e)
		}, []any{x, empty}},
		"cumsum": {func(x, e kiln.Value) kiln.Value { return x.Neg().Cumsum(1) }, []any{x, empty}},
		"window sum": {func(x, e kiln.Value) kiln.Value {
			return kiln.ReduceWindowSum(x.Neg(), []int{1, 1}, kiln.WindowOptions{})
		}, []any{x, empty}},
		"take, fill mode": {func(x, e kiln.Value) kiln.Value {
			return kiln.Take(x.Neg(), kiln.Arange(-2, n-2, 1), 1, kiln.WithMode(kiln.ModeFill))
		}, []any{x, empty}},
	}
	for name, tc := range cases {
		f := func(x, e kiln.Value) []kiln.Value {
			return []kiln.Value{garbage(x), tc.op(x, e).Transpose(1, 0)}
		}
		review2Same(t, name, 1, f, tc.args...)
		p, err := kiln.Jit(f).Trace(tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref, err := reference.Eval(p, []*tensor.Array{x, empty}, refOptions)
		if err != nil {
			t.Fatalf("%s: reference: %v", name, err)
		}
		got, err := kiln.Jit(f).RunAll(tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range ref {
			if !tensor.Equal(got[i], ref[i]) {
				t.Errorf("%s: result %d is\n%v\nthe reference's\n%v", name, i, got[i], ref[i])
			}
		}
	}
}
