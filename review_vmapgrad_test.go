package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewGradOfVmap: the gradient of the sum of a vmapped function
// (in_axes 1, out_axes -1) is every example's gradient stacked along
// axis 1 — through sort, cumsum, a gather, a scatter-add, a cond with a
// batched predicate and a fori_loop.
func TestReviewGradOfVmap(t *testing.T) {
	idx := kiln.Const(ri32([]int{4}, 3, 0, 3, 1))
	f := func(x kiln.Value) kiln.Value {
		s := x.Sort(0).Mul(x)
		c := s.Cumsum(0).Tanh()
		g := c.Index(idx).Mul(x.Index(idx))
		sc := kiln.ZerosLike(x).At(idx).Add(g)
		b := kiln.Cond(x.Sum().Gt(kiln.Int(0)), func(o []kiln.Value) []kiln.Value {
			return []kiln.Value{o[0].Sin()}
		}, func(o []kiln.Value) []kiln.Value {
			return []kiln.Value{o[0].Mul(o[0])}
		}, sc)[0]
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, cr []kiln.Value) []kiln.Value {
			return []kiln.Value{cr[0].Mul(kiln.Float(0.9)).Add(b.Mul(x))}
		}, b)[0]
	}
	xs := rf32([]int{4, 3}, 0.5, -1, 2, 1.5, -0.25, -3, -0.75, 0.125, 1, 0.3, -2, 0.7)
	grad := kiln.Jit(kiln.Grad(func(xs kiln.Value) kiln.Value {
		return kiln.Vmap(f, kiln.InAxes(1), kiln.OutAxes(-1))(xs)[0].Sum()
	}))
	got, err := grad.Run(xs)
	if err != nil {
		t.Fatal(err)
	}
	one := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return f(x).Sum() }))
	var per []*tensor.Array
	for b := range 3 {
		g, err := one.Run(takeAxis(xs, 1, b))
		if err != nil {
			t.Fatal(err)
		}
		per = append(per, g)
	}
	if d := diffArrays(got, stackAxis(per, 1), false); d != "" {
		t.Errorf("grad of vmap vs per-example grads: %s\ngot  %s\nwant %s", d, formatArray(got), formatArray(stackAxis(per, 1)))
	}
	// And vmap of grad.
	vg, err := kiln.Jit(kiln.Vmap(kiln.Grad(func(x kiln.Value) kiln.Value { return f(x).Sum() }), kiln.InAxes(1), kiln.OutAxes(1))).Run(xs)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffArrays(vg, stackAxis(per, 1), false); d != "" {
		t.Errorf("vmap of grad vs per-example grads: %s", d)
	}
}
