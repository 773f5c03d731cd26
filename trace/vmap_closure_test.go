package trace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// closureCases are JAX programs of the form
//
//	fori_loop(0, 3, lambda i, c: c + inner(x, i), init)
//
// with x an argument of the enclosing function: inner calls a
// transformation or control-flow op inside the loop's body on x, a value
// of the outer trace only, with a function that closes over the body's i.
// JAX traces that function inside the body's trace (the innermost trace
// in use), so i is an ordinary value there. Every inner gives x * i, so
// the loop gives init + x * (0 + 1 + 2).
var closureCases = []struct {
	name  string
	inner func(x, i V) V
}{
	{"vmap", func(x, i V) V {
		return trace.Vmap(func(r []V) []V { return []V{r[0].Mul(i)} }, trace.VmapOptions{})(x)[0]
	}},
	{"grad", func(x, i V) V {
		return trace.Grad(func(r []V) []V { return []V{r[0].Mul(r[0]).Mul(i).Sum().Mul(trace.Float(0.5))} }, trace.GradOptions{})(x)[0]
	}},
	{"jvp", func(x, i V) V {
		_, t := trace.JVP(func(r []V) []V { return []V{r[0].Mul(i)} }, []V{x}, []V{x})
		return t[0]
	}},
	{"vjp", func(x, i V) V {
		_, pullback := trace.VJP(func(r []V) []V { return []V{r[0].Mul(i)} }, x)
		return pullback(x)[0]
	}},
	{"fori_loop", func(x, i V) V {
		return trace.ForiLoop(trace.Int(0), trace.Int(1), func(_ V, y []V) []V { return []V{y[0].Mul(i)} }, x)[0]
	}},
	{"scan", func(x, i V) V {
		_, ys := trace.Scan(func(c, r []V) ([]V, []V) { return c, []V{r[0].Mul(i)} }, []V{trace.Float(0)}, []V{x})
		return ys[0]
	}},
	{"cond", func(x, i V) V {
		return trace.Cond(trace.Bool(true),
			func(ops []V) []V { return []V{ops[0].Mul(i)} },
			func(ops []V) []V { return ops }, x)[0]
	}},
	{"vmap_of_grad", func(x, i V) V {
		g := trace.Grad(func(s []V) []V { return []V{s[0].Mul(s[0]).Mul(i).Mul(trace.Float(0.5))} }, trace.GradOptions{})
		return trace.Vmap(func(r []V) []V { return g(r[0]) }, trace.VmapOptions{})(x)[0]
	}},
	{"grad_of_vmap", func(x, i V) V {
		f := trace.Vmap(func(s []V) []V { return []V{s[0].Mul(s[0]).Mul(i).Mul(trace.Float(0.5))} }, trace.VmapOptions{})
		return trace.Grad(func(r []V) []V { return []V{f(r[0])[0].Sum()} }, trace.GradOptions{})(x)[0]
	}},
	{"free_loop_in_free_loop", func(x, i V) V {
		// A second loop from a free init inside the body: probed too,
		// its body's vmap closing over the outer body's i.
		return trace.ForiLoop(trace.Int(0), trace.Int(1), func(_ V, y []V) []V {
			return []V{y[0].Add(trace.Vmap(func(r []V) []V { return []V{r[0].Mul(i)} }, trace.VmapOptions{})(x)[0])}
		}, trace.Zeros([]int{3}, tensor.F32))[0]
	}},
}

// TestTransformClosureOverLoopIndex checks closureCases with the loop's
// init x (the body is traced once, in the trace around it) and zeros(3),
// a free value (kiln eval's zeros(3)): the loop is then first traced in a
// probe, whose body's transformation, on the outer x, meets the probe's i.
// Kiln once picked a transformation's trace from its operands only (the
// outer one), and failed these with "a value from another trace was used".
func TestTransformClosureOverLoopIndex(t *testing.T) {
	x := tensor.Must(tensor.New(tensor.F32, []int{3}, []float32{1, 2, 3}))
	for _, c := range closureCases {
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

// TestTransformLoopInvariantStaysOut checks that a transformation called
// inside a loop body on values of the outer trace only, closing over
// nothing of the body, is emitted in the outer trace (where all it uses
// lives), not once per iteration inside the body.
func TestTransformLoopInvariantStaysOut(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{trace.AbstractOf(tensor.F32, []int{3})}, func(a []V) []V {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, carry []V) []V {
			twice := trace.Vmap(func(r []V) []V { return []V{r[0].Mul(trace.Float(2))} }, trace.VmapOptions{})(a[0])[0]
			return []V{carry[0].Add(twice)}
		}, a[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func(p *trace.Program) int {
		n := 0
		for _, e := range p.Eqns {
			if e.Op == trace.OpMul {
				n++
			}
		}
		return n
	}
	var body *trace.Program
	for _, e := range p.Eqns {
		if e.Op == trace.OpWhile {
			body = e.Params.Control.Subs[1]
		}
	}
	if body == nil {
		t.Fatalf("no while equation in\n%v", p)
	}
	if count(p) != 1 || count(body) != 0 {
		t.Errorf("the vmapped x*2 should be computed once, outside the loop: %d mul in the outer program, %d in the body\n%v", count(p), count(body), p)
	}
}

// TestTransformClosureOverLeakedIndex checks that a transformation whose
// function closes over a value of a trace that has ended — a loop body's
// index kept in a Go variable and used after the loop — still fails the
// trace with an *OpError saying so, as JAX's
// UnexpectedTracerError refuses a leaked tracer, for an init traced
// directly and for a free one (probed first).
func TestTransformClosureOverLeakedIndex(t *testing.T) {
	for _, c := range closureCases[:2] {
		for _, freeInit := range []bool{false, true} {
			t.Run(map[bool]string{false: c.name + "/init=x", true: c.name + "/init=zeros"}[freeInit], func(t *testing.T) {
				_, err := trace.Trace(promote.Config{}, []trace.Abstract{trace.AbstractOf(tensor.F32, []int{3})}, func(a []V) []V {
					init := a[0]
					if freeInit {
						init = trace.Zeros([]int{3}, tensor.F32)
					}
					var leaked V
					out := trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, carry []V) []V {
						leaked = i
						return carry
					}, init)
					return []V{out[0].Add(c.inner(a[0], leaked))}
				})
				var oe *trace.OpError
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), "another trace") && !strings.Contains(err.Error(), "different traces") {
					t.Fatalf("a loop index used after its loop: got %v, want an *OpError saying it is a value of another trace", err)
				}
			})
		}
	}
}

// TestTransformClosureInLoopInGrad checks a loop over the outer trace's x
// inside a differentiated function, whose body vmaps over x with a
// function closing over both the body's i and the differentiated
// argument w: the vmap's function is traced in the body, the body in the
// differentiated function's trace (not the outer one its operands come
// from). f(w) = sum(c) for c = init + Σ_i x·i·sum(w), so ∇f = 3·sum(x)
// everywhere.
func TestTransformClosureInLoopInGrad(t *testing.T) {
	x := tensor.Must(tensor.New(tensor.F32, []int{3}, []float32{1, 2, 3}))
	for _, freeInit := range []bool{false, true} {
		t.Run(map[bool]string{false: "init=x", true: "init=zeros"}[freeInit], func(t *testing.T) {
			p, err := trace.Trace(promote.Config{}, []trace.Abstract{trace.AbstractOf(tensor.F32, []int{3})}, func(a []V) []V {
				f := func(w []V) []V {
					init := a[0]
					if freeInit {
						init = trace.Zeros([]int{3}, tensor.F32)
					}
					c := trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, carry []V) []V {
						v := trace.Vmap(func(r []V) []V { return []V{r[0].Mul(i).Mul(w[0].Sum())} }, trace.VmapOptions{})(a[0])[0]
						return []V{carry[0].Add(v)}
					}, init)
					return []V{c[0].Sum()}
				}
				return trace.Grad(f, trace.GradOptions{})(a[0])
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := reference.Eval(p, []*tensor.Array{x}, reference.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g := got[0].Data().([]float32); len(g) != 3 || g[0] != 18 || g[1] != 18 || g[2] != 18 {
				t.Errorf("got %v, want [18 18 18]", got[0])
			}
		})
	}
}

// TestBranchValueInOtherBranch checks that a value of one branch used in
// the other (two traces of one tree, neither enclosing the other) fails
// the trace, whether the cond's operand is traced or free (probed).
func TestBranchValueInOtherBranch(t *testing.T) {
	for _, free := range []bool{false, true} {
		t.Run(map[bool]string{false: "traced", true: "free"}[free], func(t *testing.T) {
			_, err := trace.Trace(promote.Config{}, []trace.Abstract{trace.AbstractOf(tensor.F32, []int{3})}, func(a []V) []V {
				x := a[0]
				if free {
					x = trace.Zeros([]int{3}, tensor.F32)
				}
				var leaked V
				// The false branch is traced first (it is branch 0).
				out := trace.Cond(trace.Bool(true),
					func(ops []V) []V { return []V{ops[0].Add(leaked)} },
					func(ops []V) []V { leaked = ops[0].Mul(trace.Float(2)); return ops }, x)
				return []V{out[0].Add(a[0])}
			})
			var oe *trace.OpError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), "different traces") {
				t.Fatalf("got %v, want the *OpError 'operands come from two different traces'", err)
			}
		})
	}
}
