package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// controlCases are programs with loops and branches, each with the same
// program written without control flow (the loop unrolled in Go, the
// branch taken in Go): the results must be bit-identical, on the CPU
// backend and in the reference evaluator.
var controlCases = []struct {
	name     string
	fn       func(x, y kiln.Value) []kiln.Value
	unrolled func(x, y kiln.Value) []kiln.Value
}{
	{"fori", func(x, y kiln.Value) []kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(7), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(y).Add(i.Astype(tensor.F32)).Abs().Sub(kiln.Float(1)), c[1].Add(c[0].Sum())}
		}, x, kiln.Float(0))
	}, func(x, y kiln.Value) []kiln.Value {
		a, s := x, kiln.Value(kiln.Float(0))
		for i := range 7 {
			a, s = a.Mul(y).Add(kiln.Const(tensor.Scalar(float32(i)))).Abs().Sub(kiln.Float(1)), s.Add(a.Sum())
		}
		return []kiln.Value{a, s}
	}},
	{"while", func(x, y kiln.Value) []kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(kiln.Int(5)) },
			func(c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(kiln.Float(1.5)).Add(y), c[1].Add(kiln.Int(1))}
			}, x, kiln.Int(0))
	}, func(x, y kiln.Value) []kiln.Value {
		a := x
		for range 5 {
			a = a.Mul(kiln.Float(1.5)).Add(y)
		}
		return []kiln.Value{a, kiln.Const(tensor.Scalar(int64(5))).Astype(tensor.I64)}
	}},
	{"cond", func(x, y kiln.Value) []kiln.Value {
		r := kiln.Cond(y.Sum().Gt(kiln.Int(0)), func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Exp(), o[0].Sum()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg(), o[0].Max()} }, x)
		s := kiln.Switch(kiln.Int(7), []func([]kiln.Value) []kiln.Value{
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0]} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(y)} },
		}, x)
		return append(r, s...)
	}, func(x, y kiln.Value) []kiln.Value {
		return []kiln.Value{x.Exp(), x.Sum(), x.Mul(y)} // y is positive in the inputs below
	}},
	{"scan", func(x, y kiln.Value) []kiln.Value {
		c, ys := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
			n := c[0].Mul(y.Index(0)).Add(xs[0])
			return []kiln.Value{n}, []kiln.Value{n, n.Mul(n)}
		}, []kiln.Value{kiln.Float(0)}, []kiln.Value{x})
		r, rys := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
			n := c[0].Add(xs[0])
			return []kiln.Value{n}, []kiln.Value{n}
		}, []kiln.Value{kiln.Const(tensor.Scalar(float32(0)))}, []kiln.Value{x}, kiln.ScanOptions{Reverse: true})
		return append(append(append(c, ys...), r...), rys...)
	}, func(x, y kiln.Value) []kiln.Value {
		n := kiln.Value(kiln.Const(tensor.Scalar(float32(0))))
		var ys, sq []kiln.Value
		for i := range 6 {
			n = n.Mul(y.Index(0)).Add(x.Index(i))
			ys, sq = append(ys, n), append(sq, n.Mul(n))
		}
		r := kiln.Value(kiln.Const(tensor.Scalar(float32(0))))
		rys := make([]kiln.Value, 6)
		for i := 5; i >= 0; i-- {
			r = r.Add(x.Index(i))
			rys[i] = r
		}
		return []kiln.Value{n, kiln.Stack(0, ys...), kiln.Stack(0, sq...), r, kiln.Stack(0, rys...)}
	}},
}

func controlInputs() []*tensor.Array {
	x, _ := tensor.FromSlice([]float32{0.5, -1.25, 2, 0.125, 3, -0.75})
	y, _ := tensor.FromSlice([]float32{0.75, 1.5, 0.25, 1, 2, 0.5})
	return []*tensor.Array{x, y}
}

func TestControlDifferential(t *testing.T) {
	in := controlInputs()
	for _, tc := range controlCases {
		t.Run(tc.name, func(t *testing.T) {
			f := kiln.Jit(func(x, y kiln.Value) []kiln.Value { return tc.fn(x, y) }, kiln.Verify())
			got, err := f.RunAll(in[0], in[1])
			if err != nil {
				t.Fatal(err)
			}
			want, err := kiln.Jit(func(x, y kiln.Value) []kiln.Value { return tc.unrolled(x, y) }).RunAll(in[0], in[1])
			if err != nil {
				t.Fatal(err)
			}
			p, err := f.Trace(in[0], in[1])
			if err != nil {
				t.Fatal(err)
			}
			ref, err := reference.Eval(p, in, reference.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d outputs, unrolled %d", len(got), len(want))
			}
			for i := range got {
				if !tensor.Equal(got[i], want[i]) {
					t.Errorf("output %d: %v, unrolled %v", i, got[i], want[i])
				}
				if !tensor.Equal(ref[i], want[i]) {
					t.Errorf("output %d: reference %v, unrolled %v", i, ref[i], want[i])
				}
			}
		})
	}
}

// Forward mode through loops and branches agrees with central differences.
func TestControlJVP(t *testing.T) {
	fns := map[string]func(x kiln.Value) kiln.Value{
		"fori": func(x kiln.Value) kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(5), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(x).Sin().Add(c[1]), c[1].Mul(kiln.Float(0.9))}
			}, x, x.Mul(x))[0]
		},
		"while": func(x kiln.Value) kiln.Value {
			return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(kiln.Int(4)) },
				func(c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Mul(c[0]).Mul(kiln.Float(0.5)).Add(x), c[1].Add(kiln.Int(1))}
				},
				x, kiln.Int(0))[0]
		},
		"cond": func(x kiln.Value) kiln.Value {
			return kiln.Cond(x.Gt(kiln.Float(0.3)), func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Exp().Mul(x)} },
				func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Cos()} }, x.Mul(x))[0]
		},
		"scan": func(x kiln.Value) kiln.Value {
			xs := kiln.Const(tensor.Must(tensor.FromSlice([]float64{0.1, 0.2, -0.3, 0.4})))
			c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
				n := c[0].Mul(x).Add(e[0]).Tanh()
				return []kiln.Value{n}, []kiln.Value{n.Mul(n)}
			}, []kiln.Value{x}, []kiln.Value{xs})
			return c[0].Add(ys[0].Sum())
		},
	}
	for name, fn := range fns {
		for _, x0 := range []float64{0.25, 0.7} {
			f := kiln.Jit(func(x kiln.Value) []kiln.Value {
				_, t := kiln.JVP(func(x kiln.Value) kiln.Value { return fn(x) }, []kiln.Value{x}, []kiln.Value{kiln.Float(1)})
				return t
			}, kiln.Verify())
			got, err := f.Run(tensor.Scalar(x0))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			g := kiln.Jit(fn)
			const h = 1e-6
			hi, err1 := g.Run(tensor.Scalar(x0 + h))
			lo, err2 := g.Run(tensor.Scalar(x0 - h))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			fd := (hi.Data().([]float64)[0] - lo.Data().([]float64)[0]) / (2 * h)
			if d := got.Data().([]float64)[0] - fd; d > 1e-6 || d < -1e-6 {
				t.Errorf("%s at %v: JVP %v, central differences %v", name, x0, got.Data().([]float64)[0], fd)
			}
		}
	}
}

// Reverse mode through a while loop with a dynamic trip count is JAX's
// error; through the other control flow, Kiln's own (not supported yet).
func TestControlReverseModeRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(x kiln.Value) kiln.Value
		want string
	}{
		{"dynamic while", func(x kiln.Value) kiln.Value {
			return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(kiln.Float(10)) },
				func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(kiln.Float(2))} }, x)[0]
		}, "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values"},
		{"static fori", func(x kiln.Value) kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(c[0])} }, x)[0]
		}, "reverse-mode differentiation through fori_loop or scan is not supported by Kiln yet"},
		{"cond", func(x kiln.Value) kiln.Value {
			return kiln.Cond(x.Gt(kiln.Float(0)), func(o []kiln.Value) []kiln.Value { return o }, func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} }, x)[0]
		}, "reverse-mode differentiation through cond or switch is not supported by Kiln yet"},
	} {
		_, err := kiln.Jit(kiln.Grad(tc.fn)).Run(tensor.Scalar(1.5))
		var de *trace.DerivError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a *DerivError saying %q", tc.name, err, tc.want)
		}
	}
}
