package kiln_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// review2Pair runs two functions jitted on args and fails unless every
// result is bit for bit the same.
func review2Pair(t *testing.T, name string, want, got any, args ...any) {
	t.Helper()
	w, err := kiln.Jit(want).RunAll(args...)
	if err != nil {
		t.Fatalf("%s (plain): %v", name, err)
	}
	g, err := kiln.Jit(got).RunAll(args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(g) != len(w) {
		t.Fatalf("%s: %d results, plain %d", name, len(g), len(w))
	}
	for i := range w {
		if !tensor.Equal(g[i], w[i]) {
			t.Errorf("%s: result %d is\n%v\nplain\n%v", name, i, g[i], w[i])
		}
	}
}

func review2Body(x kiln.Value) kiln.Value { return x.Sin().Mul(x).Exp().Tanh() }

// TestReview2CheckpointNesting: Checkpoint in Checkpoint, Checkpoint in
// Vmap and Vmap in Checkpoint, Checkpoint around and inside loops, and a
// checkpointed function returning its argument, a constant and one value
// twice: gradients (and values) equal the plain function's bit for bit.
func TestReview2CheckpointNesting(t *testing.T) {
	x := tensor.Must(tensor.FromSlice([]float64{0.3, -1.2, 2.5, 0.01, 0.7, -0.4}, 2, 3))
	plain := func(x kiln.Value) kiln.Value { return review2Body(review2Body(x)).Sum() }
	inner := kiln.Checkpoint(review2Body)
	outer := kiln.Checkpoint(func(x kiln.Value) kiln.Value { return review2Body(inner(x)[0]) })
	nested := func(x kiln.Value) kiln.Value { return outer(x)[0].Sum() }
	review2Pair(t, "grad of nested checkpoints", kiln.ValueAndGrad(plain), kiln.ValueAndGrad(nested), x)
	// Second derivatives agree to rounding only, as TestCheckpointTransparent
	// has it: the recomputed values get cotangents of their own, summed in
	// another order.
	gw, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(plain)(x)[0].Sum() })).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	gg, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(nested)(x)[0].Sum() })).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range f64s(t, gg) {
		if w := f64s(t, gw)[i]; !near(g, w, 1e-14) {
			t.Errorf("grad of grad of nested checkpoints [%d] = %v, plain %v", i, g, w)
		}
	}

	row := func(x kiln.Value) kiln.Value { return review2Body(review2Body(x)).Sum() }
	ckRow := func(x kiln.Value) kiln.Value { return kiln.Checkpoint(row)(x)[0] }
	review2Pair(t, "vmap of grad of checkpoint", kiln.Vmap(kiln.Grad(row)), kiln.Vmap(kiln.Grad(ckRow)), x)
	review2Pair(t, "grad of vmap of checkpoint",
		kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Vmap(row)(x)[0].Sum() }),
		kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Vmap(ckRow)(x)[0].Sum() }), x)
	review2Pair(t, "grad of checkpoint of vmap",
		kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Vmap(row)(x)[0].Sum() }),
		kiln.Grad(func(x kiln.Value) kiln.Value {
			return kiln.Checkpoint(func(x kiln.Value) kiln.Value { return kiln.Vmap(row)(x)[0] })(x)[0].Sum()
		}), x)

	loop := func(x kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{review2Body(c[0]).Add(x)}
		}, x)[0].Sum()
	}
	review2Pair(t, "grad of checkpointed loop", kiln.ValueAndGrad(loop),
		kiln.ValueAndGrad(func(x kiln.Value) kiln.Value { return kiln.Checkpoint(loop)(x)[0] }), x)
	ckBody := kiln.Checkpoint(func(c, x kiln.Value) kiln.Value { return review2Body(c).Add(x) })
	review2Pair(t, "grad of loop of checkpoint", kiln.ValueAndGrad(loop),
		kiln.ValueAndGrad(func(x kiln.Value) kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{ckBody(c[0], x)[0]}
			}, x)[0].Sum()
		}), x)
	scan := func(ck bool) func(x kiln.Value) kiln.Value {
		return func(x kiln.Value) kiln.Value {
			step := func(c, e kiln.Value) kiln.Value { return review2Body(c.Mul(e)) }
			if ck {
				s := kiln.Checkpoint(step)
				step = func(c, e kiln.Value) kiln.Value { return s(c, e)[0] }
			}
			c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
				n := step(c[0], e[0])
				return []kiln.Value{n}, []kiln.Value{n.Sin()}
			}, []kiln.Value{x.Sum(0)}, []kiln.Value{x})
			return c[0].Sum().Add(ys[0].Sum())
		}
	}
	review2Pair(t, "grad of scan of checkpoint", kiln.ValueAndGrad(scan(false)), kiln.ValueAndGrad(scan(true)), x)

	odd := kiln.Checkpoint(func(x kiln.Value) []kiln.Value {
		y := review2Body(x)
		return []kiln.Value{x, kiln.Float(2), y, y}
	})
	review2Pair(t, "grad of checkpoint returning its argument, a constant and a value twice",
		kiln.ValueAndGrad(func(x kiln.Value) kiln.Value {
			y := review2Body(x)
			return x.Mul(kiln.Float(2)).Add(y).Mul(y).Sum()
		}),
		kiln.ValueAndGrad(func(x kiln.Value) kiln.Value {
			r := odd(x)
			return r[0].Mul(r[1]).Add(r[2]).Mul(r[3]).Sum()
		}), x)
}

// TestReview2CustomHigherOrder: Grad of Grad through a CustomJVP, JVP of
// Grad through a CustomJVP and through a CustomVJP, against the plain
// function (the rules compute what its own derivatives do, so the
// results must agree to rounding).
func TestReview2CustomHigherOrder(t *testing.T) {
	x := tensor.Must(tensor.FromSlice([]float64{0.3, -1.2, 2.5}, 3))
	f := func(x kiln.Value) kiln.Value { return x.Exp().Log1p() } // softplus
	sp := kiln.CustomJVP(f, func(p, ts []kiln.Value) ([]kiln.Value, []kiln.Value) {
		return []kiln.Value{f(p[0])}, []kiln.Value{ts[0].Mul(review2Sig(p[0]))}
	})
	spv := kiln.CustomVJP(f, func(p []kiln.Value) ([]kiln.Value, []kiln.Value) {
		return []kiln.Value{f(p[0])}, []kiln.Value{p[0]}
	}, func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{cts[0].Mul(review2Sig(res[0]))} })
	loss := func(g func(args ...kiln.Value) []kiln.Value) func(x kiln.Value) kiln.Value {
		return func(x kiln.Value) kiln.Value { return g(x)[0].Mul(x).Sum() }
	}
	plainLoss := func(x kiln.Value) kiln.Value { return f(x).Mul(x).Sum() }
	gg := func(l func(kiln.Value) kiln.Value) any {
		return kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(l)(x)[0].Mul(x).Sum() })
	}
	jg := func(l func(kiln.Value) kiln.Value) any {
		return func(x kiln.Value) []kiln.Value {
			_, ts := kiln.JVP(kiln.Grad(l), []kiln.Value{x}, []kiln.Value{x.Cos()})
			return ts
		}
	}
	want := map[string]*tensor.Array{}
	for name, fn := range map[string]any{"grad of grad": gg(plainLoss), "jvp of grad": jg(plainLoss)} {
		w, err := kiln.Jit(fn).Run(x)
		if err != nil {
			t.Fatalf("%s plain: %v", name, err)
		}
		want[name] = w
	}
	cases := map[string]any{
		"grad of grad/custom_jvp": gg(loss(sp)),
		"jvp of grad/custom_jvp":  jg(loss(sp)),
		"grad of grad/custom_vjp": gg(loss(spv)),
		"jvp of grad/custom_vjp":  jg(loss(spv)),
	}
	for name, fn := range cases {
		got, err := kiln.Jit(fn).Run(x)
		if name == "jvp of grad/custom_vjp" {
			// JAX refuses forward mode over a custom_vjp's bwd too
			// ("can't apply forward-mode autodiff (jvp) to a custom_vjp
			// function"): jax.hessian of one fails the same way.
			var de *trace.DerivError
			if !errors.As(err, &de) || de.Op != "custom_vjp" {
				t.Errorf("%s: %v, want a custom_vjp *trace.DerivError", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		w := want[name[:len(name)-len("/custom_jvp")]]
		for i, g := range f64s(t, got) {
			if wi := f64s(t, w)[i]; !near(g, wi, 1e-13) {
				t.Errorf("%s[%d] = %v, plain %v", name, i, g, wi)
			}
		}
	}
}

// TestReview2CustomVJPLiteralCotangents: bwd returning weak literals — a
// Go float for an f32 scalar argument is an f32 cotangent (JAX's weak
// typing), for an f32 vector it is a typed error (the shape is not the
// argument's; JAX: "Custom VJP bwd rule must produce an output with the
// same shape/dtypes"), never a panic; and an f64 cotangent for an f32
// argument is refused. The same for a CustomJVP rule's literal tangent of
// a vector result. Before the fix, the literal skipped the shape check:
// Grad of the f32[2] argument came out f32[] (2), and JVP's tangent of
// the f32[2] result f32[] (3), silently.
func TestReview2CustomVJPLiteralCotangents(t *testing.T) {
	sq := func(x kiln.Value) kiln.Value { return x.Mul(x).Sum() }
	fwd := func(p []kiln.Value) ([]kiln.Value, []kiln.Value) { return []kiln.Value{sq(p[0])}, nil }
	lit := kiln.CustomVJP(sq, fwd, func(_, cts []kiln.Value) []kiln.Value { return []kiln.Value{kiln.Float(2)} })
	s := tensor.Scalar(float32(1.5))
	g, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return lit(x)[0] })).Run(s)
	if err != nil {
		t.Fatalf("weak literal cotangent of an f32 scalar: %v", err)
	}
	if g.DType() != tensor.F32 || fmt.Sprint(g.Data()) != "[2]" {
		t.Errorf("weak literal cotangent of an f32 scalar: %v, want f32 2", g)
	}
	v := tensor.Must(tensor.FromSlice([]float32{1.5, 2}, 2))
	_, err = kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return lit(x)[0] })).Run(v)
	var de *trace.DerivError
	if !errors.As(err, &de) || de.Op != "custom_vjp" {
		t.Errorf("weak scalar cotangent of an f32[2]: %v, want a custom_vjp *trace.DerivError", err)
	}
	sqv := func(x kiln.Value) kiln.Value { return x.Mul(x) }
	litJVP := kiln.CustomJVP(sqv, func(p, ts []kiln.Value) ([]kiln.Value, []kiln.Value) {
		return []kiln.Value{sqv(p[0])}, []kiln.Value{kiln.Float(3)}
	})
	_, err = kiln.Jit(func(x kiln.Value) []kiln.Value {
		_, ts := kiln.JVP(func(x kiln.Value) kiln.Value { return litJVP(x)[0] }, []kiln.Value{x}, []kiln.Value{x})
		return ts
	}).RunAll(v)
	if !errors.As(err, &de) || de.Op != "custom_jvp" {
		t.Errorf("weak scalar tangent of an f32[2] result: %v, want a custom_jvp *trace.DerivError", err)
	}
	wide := kiln.CustomVJP(sq, fwd, func(_, cts []kiln.Value) []kiln.Value {
		return []kiln.Value{cts[0].Astype(tensor.F64)}
	})
	_, err = kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return wide(x)[0] })).Run(s)
	if !errors.As(err, &de) || de.Op != "custom_vjp" {
		t.Errorf("f64 cotangent of an f32 scalar: %v, want a custom_vjp *trace.DerivError", err)
	}
}

// TestReview2CheckpointConcurrent: one Func of ValueAndGrad through a
// checkpointed loop and a custom VJP, run from 8 goroutines at once (with
// -race: scratch reuse and loop carries are per run), equals a lone run.
func TestReview2CheckpointConcurrent(t *testing.T) {
	x := tensor.Must(tensor.FromSlice([]float64{0.3, -1.2, 2.5, 0.01, 0.7, -0.4}, 2, 3))
	lse := customLSE(new(int))
	f := kiln.Jit(kiln.ValueAndGrad(func(x kiln.Value) kiln.Value {
		y := kiln.Checkpoint(func(x kiln.Value) kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(4), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{review2Body(c[0]).Add(x)}
			}, x)[0]
		})(x)[0]
		return lse(y.Reshape(6))[0].Add(review2Body(y).Sum())
	}))
	want, err := f.RunAll(x)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got, err := f.RunAll(x)
				if err != nil {
					errs <- err
					return
				}
				for i := range want {
					if !tensor.Equal(got[i], want[i]) {
						errs <- fmt.Errorf("result %d: %v, lone run %v", i, got[i], want[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// review2Sig is eˣ/(1 + eˣ), softplus's derivative as its ops compute it.
func review2Sig(x kiln.Value) kiln.Value { return x.Exp().Div(x.Exp().Add(kiln.Float(1))) }
