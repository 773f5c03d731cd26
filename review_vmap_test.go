package kiln_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// reviewPerExample runs Jit(Vmap(fn, InAxes(inAxes...))) on args and
// compares every result, bit for bit, with Jit(fn) run on each example
// (the batch axis of every batched argument taken apart, results stacked
// along axis 0).
func reviewPerExample(t *testing.T, name string, fn any, inAxes []int, opts []kiln.Option, args ...*tensor.Array) {
	t.Helper()
	n := -1
	for i, a := range args {
		if inAxes[i] != kiln.NoAxis {
			n = a.Shape()[normAxis(inAxes[i], a.Rank())]
		}
	}
	anyArgs := func(xs []*tensor.Array) []any {
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = x
		}
		return out
	}
	got, err := kiln.Jit(kiln.Vmap(fn, kiln.InAxes(inAxes...)), opts...).RunAll(anyArgs(args)...)
	if err != nil {
		t.Fatalf("%s: vmapped: %v", name, err)
	}
	one := kiln.Jit(fn, opts...)
	per := make([][]*tensor.Array, len(got))
	for b := range n {
		ex := make([]*tensor.Array, len(args))
		for i, a := range args {
			if inAxes[i] == kiln.NoAxis {
				ex[i] = a
			} else {
				ex[i] = takeAxis(a, normAxis(inAxes[i], a.Rank()), b)
			}
		}
		want, err := one.RunAll(anyArgs(ex)...)
		if err != nil {
			t.Fatalf("%s: example %d: %v", name, b, err)
		}
		for k := range want {
			per[k] = append(per[k], want[k])
		}
	}
	for k := range got {
		if n == 0 {
			if got[k].Shape()[0] != 0 {
				t.Errorf("%s: result %d: shape %v for an empty batch", name, k, got[k].Shape())
			}
			continue
		}
		if d := diffArrays(got[k], stackAxis(per[k], 0), true); d != "" {
			t.Errorf("%s: result %d: %s\ngot  %s\nwant %s", name, k, d, formatArray(got[k]), formatArray(stackAxis(per[k], 0)))
		}
	}
}

func ri32(shape []int, v ...int32) *tensor.Array { return tensor.Must(tensor.FromSlice(v, shape...)) }
func rf32(shape []int, v ...float32) *tensor.Array {
	return tensor.Must(tensor.FromSlice(v, shape...))
}

// TestReviewVmapScatterDuplicates: x.at[idx].add(u) and .set(u) with
// repeated indices, every operand batched or not in turn.
func TestReviewVmapScatterDuplicates(t *testing.T) {
	x1 := rf32([]int{5}, 1, 2, 3, 4, 5)
	x := rf32([]int{3, 5}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
	idx1 := ri32([]int{3}, 4, 4, 4)
	idx := ri32([]int{3, 3}, 0, 0, 1, 3, 3, 3, 2, 1, 2)
	u1 := rf32([]int{3}, 1e8, 1, -1e8)
	u := rf32([]int{3, 3}, 0.5, 0.25, 0.125, 1e8, 1, -1e8, 3, 4, 5)
	xT, idxT, uT := moveAxisArray(t, x, 0, 1), moveAxisArray(t, idx, 0, 1), moveAxisArray(t, u, 0, 1)
	for _, op := range []string{"add", "set", "mul", "min", "max"} {
		f := func(x, idx, u kiln.Value) kiln.Value {
			r := x.At(idx)
			switch op {
			case "add":
				return r.Add(u)
			case "set":
				return r.Set(u)
			case "mul":
				return r.Mul(u)
			case "min":
				return r.Min(u)
			}
			return r.Max(u)
		}
		N := kiln.NoAxis
		for _, c := range []struct {
			ax   []int
			args []*tensor.Array
		}{
			{[]int{0, 0, 0}, []*tensor.Array{x, idx, u}},
			{[]int{N, 0, 0}, []*tensor.Array{x1, idx, u}},
			{[]int{N, N, 0}, []*tensor.Array{x1, idx1, u}},
			{[]int{0, N, N}, []*tensor.Array{x, idx1, u1}},
			{[]int{N, 0, N}, []*tensor.Array{x1, idx, u1}},
			{[]int{0, 0, N}, []*tensor.Array{x, idx, u1}},
			{[]int{1, 1, -1}, []*tensor.Array{xT, idxT, uT}},
			{[]int{-1, 0, 1}, []*tensor.Array{xT, idx, uT}},
		} {
			reviewPerExample(t, fmt.Sprintf("%s %v", op, c.ax), f, c.ax, nil, c.args...)
		}
	}
}

// TestReviewVmapDynamicSliceOutOfRange: batched starts out of range are
// clamped per example, as lax.dynamic_slice clamps them.
func TestReviewVmapDynamicSliceOutOfRange(t *testing.T) {
	x := rf32([]int{4, 5}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
	s0 := ri32([]int{4}, -7, 2, 100, 3)
	s1 := ri32([]int{4}, 4, -1, 2, 1000)
	f := func(x, a, b kiln.Value) kiln.Value { return kiln.DynamicSlice(x, []kiln.Value{a, b}, []int{2, 3}) }
	reviewPerExample(t, "slice x shared", f, []int{kiln.NoAxis, 0, 0}, nil, x, s0, s1)
	reviewPerExample(t, "slice one start batched", f, []int{kiln.NoAxis, 0, kiln.NoAxis}, nil, x, s0, tensor.Scalar(int32(9)))
	xb := rf32([]int{4, 2, 5}, make([]float32, 40)...)
	for i := range 40 {
		xb.Data().([]float32)[i] = float32(i)
	}
	reviewPerExample(t, "slice all batched", f, []int{0, 0, 0}, nil, xb, s0, s1)
	u := rf32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	g := func(x, a, b, u kiln.Value) kiln.Value { return kiln.DynamicUpdateSlice(x, u, []kiln.Value{a, b}) }
	reviewPerExample(t, "update x shared", g, []int{kiln.NoAxis, 0, 0, kiln.NoAxis}, nil, x, s0, s1, u)
	reviewPerExample(t, "update all batched", g, []int{0, 0, 0, kiln.NoAxis}, nil, xb, s0, s1, u)
}

// TestReviewVmapCondTakenFault: a cond with a batched predicate runs both
// branches for every example (JAX turns it into a select); unchecked, the
// untaken branch's fault is selected away, and checked, an example that
// takes the faulting branch fails. (Checked mode also fails an example
// whose *untaken* branch faults — a known limitation, SPEC §6 "Checked
// mode under vmap".)
func TestReviewVmapCondTakenFault(t *testing.T) {
	p := ri32([]int{3}, 0, 5, 2) // divisor, and the index
	x := ri32([]int{3}, 7, 8, 9)
	div := func(p, x kiln.Value) kiln.Value {
		return kiln.Cond(p.Ne(kiln.Int(0)), func(o []kiln.Value) []kiln.Value {
			return []kiln.Value{o[1].FloorDiv(o[0])}
		}, func(o []kiln.Value) []kiln.Value {
			return []kiln.Value{o[1]}
		}, p, x)[0]
	}
	t.Run("division unchecked", func(t *testing.T) { reviewPerExample(t, "division", div, []int{0, 0}, nil, p, x) })
	t.Run("taken fault still fails", func(t *testing.T) {
		// An example that does take the faulting branch must still fail.
		bad := func(p, x kiln.Value) kiln.Value {
			return kiln.Cond(p.Ne(kiln.Int(1)), func(o []kiln.Value) []kiln.Value {
				return []kiln.Value{o[1].FloorDiv(o[0])}
			}, func(o []kiln.Value) []kiln.Value {
				return []kiln.Value{o[1]}
			}, p, x)[0]
		}
		_, err := kiln.Jit(kiln.Vmap(bad), kiln.Checked()).Run(ri32([]int{2}, 1, 0), ri32([]int{2}, 3, 4))
		var ce *kiln.CheckError
		if !errors.As(err, &ce) {
			t.Errorf("example 1 divides by zero in the branch it takes: err = %v, want a *CheckError", err)
		}
	})
}

// TestReviewVmapWhileMaskedOut: a while with a batched predicate runs its
// body for every example until all are done; the iterations of an example
// already done are masked out, and their out-of-range gathers (clamped,
// unchecked) do not change its result. (Checked mode reports such a
// masked-out fault — the known limitation of SPEC §6.)
func TestReviewVmapWhileMaskedOut(t *testing.T) {
	table := ri32([]int{4}, 10, 20, 30, 40)
	f := func(start, table kiln.Value) kiln.Value {
		out := kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(kiln.Int(3)) },
			func(c []kiln.Value) []kiln.Value {
				i := c[0].Add(kiln.Int(1))
				return []kiln.Value{i, c[1].Add(table.Index(i))}
			}, start, kiln.ZerosLike(start))
		return out[1]
	}
	starts := ri32([]int{3}, 2, -3, 0)
	reviewPerExample(t, "while", f, []int{0, kiln.NoAxis}, nil, starts, table)
}
