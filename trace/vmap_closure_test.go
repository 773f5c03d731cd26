package trace_test

import (
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestVmapClosureOverLoopIndex is JAX's
//
//	fori_loop(0, 3, lambda i, c: c + vmap(lambda r: r * i)(x), init)
//
// with x an argument of the enclosing function: Vmap is called inside the
// loop's body on an operand of the outer trace only, with a function that
// closes over the body's i. JAX traces the vmapped function inside the
// body's trace (the innermost trace in use), so i is an ordinary value
// there and the result is init + x * (0 + 1 + 2).
//
// Kiln picks a transformation's trace from its operands (builderOf): the
// outer one. When init is x, the loop body's trace is real and Vmap's
// sub-trace, meeting i, is adopted into it (builder.adopt): that works.
// When init is free (zeros, as kiln eval's zeros(3)), the loop is first
// traced in a probe, then again in the trace its body wants; in that
// order Vmap's sub-trace meets i of a trace that encloses neither, and
// the trace fails with "a value from another trace was used" — kiln
// eval's fori_loop(0, 3, lambda i, c: c + vmap(lambda r: r * i)(x),
// zeros(3)) fails this way. A nested ForiLoop fails the same way there;
// Grad fails with either init (its sub-trace is never adopted). An
// operand from the body's trace (x + 0 * c) avoids all of them.
func TestVmapClosureOverLoopIndex(t *testing.T) {
	x := tensor.Must(tensor.New(tensor.F32, []int{3}, []float32{1, 2, 3}))
	for _, c := range []struct {
		name  string
		inner func(x, i V) V // x * i, from a function of x closing over i
	}{
		{"vmap", func(x, i V) V {
			return trace.Vmap(func(r []V) []V { return []V{r[0].Mul(i)} }, trace.VmapOptions{})(x)[0]
		}},
		{"grad", func(x, i V) V {
			return trace.Grad(func(r []V) []V { return []V{r[0].Mul(r[0]).Mul(i).Sum().Mul(trace.Float(0.5))} }, trace.GradOptions{})(x)[0]
		}},
		{"fori_loop", func(x, i V) V {
			return trace.ForiLoop(trace.Int(0), trace.Int(1), func(_ V, y []V) []V { return []V{y[0].Mul(i)} }, x)[0]
		}},
	} {
		for _, freeInit := range []bool{false, true} {
			name, want := c.name+"/init=x", []float32{4, 8, 12}
			if freeInit {
				name, want = c.name+"/init=zeros", []float32{3, 6, 9}
			}
			t.Run(name, func(t *testing.T) {
				p, err := trace.Trace(promote.Config{}, []trace.Abstract{trace.AbstractOf(tensor.F32, []int{3})}, func(a []V) []V {
					init := a[0]
					if freeInit {
						init = trace.Zeros([]int{3}, tensor.F32)
					}
					return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, carry []V) []V {
						return []V{carry[0].Add(c.inner(a[0], i))}
					}, init)
				})
				if err != nil {
					t.Fatalf("%s inside a loop body, on the outer trace's x, closing over the body's i: %v", c.name, err)
				}
				got, err := reference.Eval(p, []*tensor.Array{x}, reference.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if g := got[0].Data().([]float32); len(g) != 3 || g[0] != want[0] || g[1] != want[1] || g[2] != want[2] {
					t.Errorf("got %v, want %v", got[0], want)
				}
			})
		}
	}
}
