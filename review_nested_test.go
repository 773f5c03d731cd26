package kiln_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewNestedClosures: Jit(w, xs) → Vmap over xs → Grad in v →
// ForiLoop whose body closes over w (the Jit's argument), x (the vmap's
// example), v (the gradient's argument) and its own index:
// f(v) = Σ_{i<3} w·v²·x·i = 3·w·v²·x, so df/dv = 6·w·v·x.
func TestReviewNestedClosures(t *testing.T) {
	f := kiln.Jit(func(w, xs, vs kiln.Value) kiln.Value {
		return kiln.Vmap(func(x, v kiln.Value) kiln.Value {
			return kiln.Grad(func(v kiln.Value) kiln.Value {
				return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Add(w.Mul(v).Mul(v).Mul(x).Mul(i.Astype(tensor.F32)))}
				}, kiln.ZerosLike(v))[0]
			})(v)[0]
		})(xs, vs)[0]
	})
	w := tensor.Scalar(float32(1.5))
	xs := rf32([]int{3}, 1, 2, -3)
	vs := rf32([]int{3}, 0.5, 4, 2)
	got, err := f.Run(w, xs, vs)
	if err != nil {
		t.Fatal(err)
	}
	for b := range 3 {
		want := 6 * 1.5 * float64(vs.Data().([]float32)[b]) * float64(xs.Data().([]float32)[b])
		if g := float64(got.Data().([]float32)[b]); math.Abs(g-want) > 1e-5*math.Abs(want) {
			t.Errorf("example %d: %v, want %v", b, g, want)
		}
	}
}

// TestReviewLeakedValues: a Value that escapes the trace it belongs to
// (jax's UnexpectedTracerError) and is used elsewhere gives an error from
// Run, never a panic or an answer.
func TestReviewLeakedValues(t *testing.T) {
	x := rf32([]int{3}, 1, 2, 3)
	cases := map[string]func() *kiln.Func{
		"from an earlier Jit": func() *kiln.Func {
			var leaked kiln.Value
			f1 := kiln.Jit(func(x kiln.Value) kiln.Value { leaked = x.Mul(kiln.Int(2)); return x })
			if _, err := f1.Run(x); err != nil {
				t.Fatal(err)
			}
			return kiln.Jit(func(y kiln.Value) kiln.Value { return y.Add(leaked) })
		},
		"a vmap body's value returned by the caller": func() *kiln.Func {
			return kiln.Jit(func(xs kiln.Value) kiln.Value {
				var inner kiln.Value
				kiln.Vmap(func(x kiln.Value) kiln.Value { inner = x.Sin(); return x })(xs)
				return inner
			})
		},
		"a grad body's value used after": func() *kiln.Func {
			return kiln.Jit(func(x kiln.Value) kiln.Value {
				var inner kiln.Value
				g := kiln.Grad(func(v kiln.Value) kiln.Value { inner = v.Mul(v); return inner.Sum() })(x)[0]
				return g.Add(inner)
			})
		},
		"a loop index returned": func() *kiln.Func {
			return kiln.Jit(func(x kiln.Value) kiln.Value {
				var idx kiln.Value
				kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value { idx = i; return c }, x)
				return x.Add(idx)
			})
		},
		"a loop body's value used in another loop": func() *kiln.Func {
			return kiln.Jit(func(x kiln.Value) kiln.Value {
				var body kiln.Value
				a := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
					body = c[0].Mul(kiln.Int(2))
					return []kiln.Value{body}
				}, x)[0]
				return kiln.ForiLoop(kiln.Int(0), kiln.Int(2), func(i kiln.Value, c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Add(body)}
				}, a)[0]
			})
		},
		"a vmap body's value used in a second vmap": func() *kiln.Func {
			return kiln.Jit(func(xs kiln.Value) kiln.Value {
				var inner kiln.Value
				kiln.Vmap(func(x kiln.Value) kiln.Value { inner = x.Sin(); return x })(xs)
				return kiln.Vmap(func(x kiln.Value) kiln.Value { return x.Add(inner) })(xs)[0]
			})
		},
		"a cond branch's value used in the other branch": func() *kiln.Func {
			return kiln.Jit(func(x kiln.Value) kiln.Value {
				var tv kiln.Value
				return kiln.Cond(x.Sum().Gt(kiln.Int(0)), func(o []kiln.Value) []kiln.Value {
					tv = o[0].Mul(kiln.Int(3))
					return []kiln.Value{tv}
				}, func(o []kiln.Value) []kiln.Value {
					return []kiln.Value{tv}
				}, x)[0]
			})
		},
		"a *Func's value, under Grad, used by the caller": func() *kiln.Func {
			var inner kiln.Value
			g := kiln.Jit(func(v kiln.Value) kiln.Value { inner = v.Exp(); return v.Sum() })
			return kiln.Jit(func(x kiln.Value) kiln.Value {
				return kiln.Grad(g)(x)[0].Add(inner)
			})
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			var out *tensor.Array
			var err error
			func() {
				defer func() {
					if e := recover(); e != nil {
						err = fmt.Errorf("panic: %v", e)
						t.Errorf("panic: %v", e)
					}
				}()
				out, err = mk().Run(x)
			}()
			var oe *kiln.OpError
			if !errors.As(err, &oe) {
				t.Errorf("err = %v (result %v), want a *OpError", err, out)
			}
		})
	}
}

// TestReviewNestedPlacement: transformations inside control-flow bodies
// closing over the bodies' values: a vmap in a while's predicate, a grad
// inside a vmap inside a cond branch closing over the Jit's argument, and
// a vmap of a scan body's x; each against the value worked by hand.
func TestReviewNestedPlacement(t *testing.T) {
	// while sum(vmap(x ↦ x·c)(v)) < 100: c += 1; v fixed [1, 2] → c
	// stops at the first c with 3c ≥ 100: 34.
	f := kiln.Jit(func(v, c0 kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value {
			return kiln.Vmap(func(x kiln.Value) kiln.Value { return x.Mul(c[0]) })(v)[0].Sum().Lt(kiln.Int(100))
		}, func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Int(1))} }, c0)[0]
	})
	got, err := f.Run(rf32([]int{2}, 1, 2), tensor.Scalar(float32(0)))
	if err != nil || got.Data().([]float32)[0] != 34 {
		t.Errorf("vmap in a while predicate: %v %v, want 34", got, err)
	}
	// cond(p, xs ↦ vmap(x ↦ grad(v ↦ w·v³)(x))(xs), xs ↦ xs): 3·w·x².
	g := kiln.Jit(func(p, w, xs kiln.Value) kiln.Value {
		return kiln.Cond(p, func(o []kiln.Value) []kiln.Value {
			return kiln.Vmap(func(x kiln.Value) kiln.Value {
				return kiln.Grad(func(v kiln.Value) kiln.Value { return w.Mul(v).Mul(v).Mul(v) })(x)[0]
			})(o[0])
		}, func(o []kiln.Value) []kiln.Value { return o }, xs)[0]
	})
	got, err = g.Run(tensor.Scalar(true), tensor.Scalar(float32(2)), rf32([]int{3}, 1, 2, 3))
	if err != nil || fmt.Sprint(got.Data()) != "[6 24 54]" {
		t.Errorf("grad in vmap in a cond branch: %v %v, want [6 24 54]", got, err)
	}
	// scan over rows r: carry += sum(vmap(e ↦ e·r[0])(r)).
	h := kiln.Jit(func(m kiln.Value) kiln.Value {
		c, _ := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
			r := xs[0]
			s := kiln.Vmap(func(e kiln.Value) kiln.Value { return e.Mul(r.Index(0)) })(r)[0].Sum()
			return []kiln.Value{c[0].Add(s)}, []kiln.Value{s}
		}, []kiln.Value{kiln.Const(tensor.Scalar(float32(0)))}, []kiln.Value{m})
		return c[0]
	})
	got, err = h.Run(rf32([]int{2, 2}, 1, 2, 3, 4)) // 1·(1+2) + 3·(3+4) = 24
	if err != nil || got.Data().([]float32)[0] != 24 {
		t.Errorf("vmap in a scan body over its x: %v %v, want 24", got, err)
	}
}

// TestReviewRunInsideTrace: running another Func, or Eval, on a value of
// the trace being built (JAX would stage it; Kiln runs concretely) is an
// error, not a panic or a deadlock; running it on concrete arrays works.
func TestReviewRunInsideTrace(t *testing.T) {
	var innerErr, evalErr, okErr error
	var ok *tensor.Array
	f1 := kiln.Jit(func(x kiln.Value) kiln.Value {
		f2 := kiln.Jit(func(y kiln.Value) kiln.Value { return y.Add(x) })
		_, innerErr = f2.Run(rf32([]int{3}, 1, 2, 3))
		_, evalErr = kiln.Eval(x.Mul(kiln.Int(2)))
		ok, okErr = kiln.Jit(func(y kiln.Value) kiln.Value { return y.Mul(kiln.Int(2)) }).Run(rf32([]int{1}, 4))
		return x
	})
	done := make(chan error, 1)
	go func() {
		defer func() {
			if e := recover(); e != nil {
				done <- fmt.Errorf("panic: %v", e)
			}
		}()
		_, err := f1.Run(rf32([]int{3}, 1, 2, 3))
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatalf("outer run: %v", err)
	}
	if innerErr == nil {
		t.Errorf("Run of a Func closing over the outer trace's value: no error")
	}
	if evalErr == nil {
		t.Errorf("Eval of a traced value: no error")
	}
	if okErr != nil || ok.Data().([]float32)[0] != 8 {
		t.Errorf("a concrete Run inside a trace: %v %v", ok, okErr)
	}
}
