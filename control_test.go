package kiln_test

import (
	"errors"
	"fmt"
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
// error, a *DerivError.
func TestControlReverseModeRefused(t *testing.T) {
	fn := func(x kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(kiln.Float(10)) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(kiln.Float(2))} }, x)[0]
	}
	_, err := kiln.Jit(kiln.Grad(fn)).Run(tensor.Scalar(1.5))
	var de *trace.DerivError
	const want = "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values"
	if !errors.As(err, &de) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "control_test.go:") {
		t.Errorf("got %v, want a *DerivError saying %q at the loop's line", err, want)
	}
	hi := func(x, n kiln.Value) kiln.Value { // fori_loop with a traced bound is a dynamic while
		return kiln.ForiLoop(kiln.Int(0), n, func(i kiln.Value, c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(c[0])} }, x)[0]
	}
	_, err = kiln.Jit(kiln.Grad(hi)).Run(tensor.Scalar(1.5), tensor.Scalar(int64(3)))
	if !errors.As(err, &de) || !strings.Contains(err.Error(), want) {
		t.Errorf("fori_loop with a traced bound: got %v, want %q", err, want)
	}
}

// controlGradFns are functions of two scalars with loops and branches,
// differentiated in reverse mode (and checked against central
// differences) by TestControlGrad.
var controlGradFns = map[string]func(x, w kiln.Value) kiln.Value{
	"fori": func(x, w kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(5), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(w).Sin().Add(c[1]), c[1].Mul(kiln.Float(0.9)).Add(i.Astype(tensor.F64).Mul(w))}
		}, x, x.Mul(x))[0]
	},
	"scan": func(x, w kiln.Value) kiln.Value {
		xs := kiln.Const(tensor.Must(tensor.FromSlice([]float64{0.1, 0.2, -0.3, 0.4})))
		c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
			n := c[0].Mul(w).Add(e[0]).Tanh()
			return []kiln.Value{n}, []kiln.Value{n.Mul(n)}
		}, []kiln.Value{x}, []kiln.Value{xs.Mul(w)})
		return c[0].Add(ys[0].Sum())
	},
	"scan reverse": func(x, w kiln.Value) kiln.Value {
		xs := kiln.Const(tensor.Must(tensor.FromSlice([]float64{0.1, 0.2, -0.3}))).Mul(x)
		c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
			return []kiln.Value{c[0].Mul(e[0]).Add(w)}, []kiln.Value{c[0].Exp()}
		}, []kiln.Value{w}, []kiln.Value{xs}, kiln.ScanOptions{Reverse: true})
		return c[0].Mul(ys[0].Index(0))
	},
	"cond": func(x, w kiln.Value) kiln.Value {
		return kiln.Cond(x.Gt(kiln.Float(0.3)), func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Exp().Mul(w)} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Cos().Add(x)} }, x.Mul(x))[0]
	},
	"switch": func(x, w kiln.Value) kiln.Value {
		return kiln.Switch(kiln.Int(1), []func([]kiln.Value) []kiln.Value{
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0]} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(o[1]).Sin()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{w} },
		}, x, w)[0]
	},
	"nested": func(x, w kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			inner := kiln.ForiLoop(kiln.Int(0), kiln.Int(2), func(j kiln.Value, d []kiln.Value) []kiln.Value {
				return []kiln.Value{d[0].Mul(w).Add(kiln.Float(0.1)).Sin()}
			}, c[0])
			return kiln.Cond(inner[0].Gt(kiln.Float(0)), func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(x)} },
				func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} }, inner[0])
		}, x)[0]
	},
}

// Reverse mode through fori_loop (static bounds), scan, cond and switch
// agrees with central differences, for both arguments.
func TestControlGrad(t *testing.T) {
	for name, fn := range controlGradFns {
		g := kiln.Jit(kiln.Grad(fn, 0, 1), kiln.Verify())
		f := kiln.Jit(fn)
		for _, pt := range [][2]float64{{0.25, 0.8}, {0.7, -0.6}} {
			got, err := g.RunAll(tensor.Scalar(pt[0]), tensor.Scalar(pt[1]))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for arg := range 2 {
				const h = 1e-6
				at := func(d float64) float64 {
					p := pt
					p[arg] += d
					out, err := f.Run(tensor.Scalar(p[0]), tensor.Scalar(p[1]))
					if err != nil {
						t.Fatal(err)
					}
					return out.Data().([]float64)[0]
				}
				fd := (at(h) - at(-h)) / (2 * h)
				gv := got[arg].Data().([]float64)[0]
				if d := gv - fd; d > 1e-6 || d < -1e-6 {
					t.Errorf("%s at %v: d/dx%d = %v, central differences %v", name, pt, arg, gv, fd)
				}
			}
		}
	}
}

// Second derivatives through loops and branches: the gradient of the
// gradient agrees with central differences of the gradient.
func TestControlSecondDerivative(t *testing.T) {
	for _, name := range []string{"fori", "scan", "cond", "nested"} {
		fn := controlGradFns[name]
		g := kiln.Jit(kiln.Grad(fn, 0))
		gg := kiln.Jit(kiln.Grad(func(x, w kiln.Value) kiln.Value { return kiln.Grad(fn, 0)(x, w)[0] }, 0), kiln.Verify())
		x0, w0 := 0.25, 0.8
		got, err := gg.Run(tensor.Scalar(x0), tensor.Scalar(w0))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		const h = 1e-5
		hi, err1 := g.Run(tensor.Scalar(x0+h), tensor.Scalar(w0))
		lo, err2 := g.Run(tensor.Scalar(x0-h), tensor.Scalar(w0))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		fd := (hi.Data().([]float64)[0] - lo.Data().([]float64)[0]) / (2 * h)
		if d := got.Data().([]float64)[0] - fd; d > 1e-5 || d < -1e-5 {
			t.Errorf("%s: second derivative %v, central differences of the gradient %v", name, got.Data().([]float64)[0], fd)
		}
	}
}

// A loop or branch whose operands belong to an enclosing program while
// its function uses the parameters of a function being differentiated
// inside it (an RNN's scan over the data, closing over the weights) is
// emitted in the differentiated function's trace.
func TestControlClosesOverInnerTrace(t *testing.T) {
	xs := tensor.Must(tensor.FromSlice([]float64{0.5, -0.25, 1}))
	f := func(data, w kiln.Value) kiln.Value {
		c, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
			h := c[0].Mul(w).Add(x[0]).Tanh()
			return []kiln.Value{h}, []kiln.Value{h}
		}, []kiln.Value{kiln.Float(0)}, []kiln.Value{data})
		r := kiln.Cond(data.Sum().Gt(kiln.Float(0)), func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(w)} },
			func(o []kiln.Value) []kiln.Value { return o }, c[0])
		return r[0].Add(ys[0].Sum())
	}
	g := kiln.Jit(func(data, w kiln.Value) []kiln.Value {
		return kiln.Grad(func(w kiln.Value) kiln.Value { return f(data, w) })(w)
	}, kiln.Verify())
	got, err := g.Run(xs, tensor.Scalar(0.7))
	if err != nil {
		t.Fatal(err)
	}
	at := func(w float64) float64 {
		out, err := kiln.Jit(f).Run(xs, tensor.Scalar(w))
		if err != nil {
			t.Fatal(err)
		}
		return out.Data().([]float64)[0]
	}
	fd := (at(0.7+1e-6) - at(0.7-1e-6)) / 2e-6
	if d := got.Data().([]float64)[0] - fd; d > 1e-6 || d < -1e-6 {
		t.Errorf("gradient %v, central differences %v", got.Data().([]float64)[0], fd)
	}
}

// BenchmarkScanSteps times a scan stacking a f32[256] output per step, at
// 100 and 1,000 steps. Each step writes its slice of the stacked output in
// place, so ns/step stays within cache effects of flat (measured 474 and
// 1,347 ns/step); copying the whole stack every step, as before
// kernels/control.go's in-place carries, measured 5,148 and 56,973.
func BenchmarkScanSteps(b *testing.B) {
	for _, steps := range []int{100, 1000} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			xs := tensor.Must(tensor.Zeros(tensor.F32, steps, 256))
			f := kiln.Jit(func(xs kiln.Value) []kiln.Value {
				_, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
					n := c[0].Mul(kiln.Float(0.5)).Add(x[0])
					return []kiln.Value{n}, []kiln.Value{n}
				}, []kiln.Value{kiln.Const(tensor.Must(tensor.Zeros(tensor.F32, 256)))}, []kiln.Value{xs})
				return ys
			})
			outs, err := f.RunAll(xs)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := f.RunInto(outs, xs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/step")
		})
	}
}

// Loops and branches whose operands are all literals or constants but
// whose functions use a traced value (x below) are traced where x lives,
// whichever operand order the functions use, and return every result.
func TestControlFreeOperands(t *testing.T) {
	f := kiln.Jit(func(x kiln.Value) []kiln.Value {
		a := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{x.Mul(c[0])}
		}, kiln.Float(1))[0]
		b := kiln.Cond(kiln.Bool(false), func(o []kiln.Value) []kiln.Value { return []kiln.Value{x, x} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{x.Neg(), x.Mul(kiln.Int(3))} })
		c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
			return []kiln.Value{c[0].Add(e[0].Mul(x))}, []kiln.Value{c[0]}
		}, []kiln.Value{kiln.Float(0)}, []kiln.Value{kiln.Const(tensor.Must(tensor.FromSlice([]float64{1, 2, 3})))})
		return []kiln.Value{a, b[0], b[1], c[0], ys[0]}
	}, kiln.Verify())
	out, err := f.RunAll(tensor.Scalar(2.0))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"f64[] 8", "f64[] -2", "f64[] 6", "f64[] 12", "f64[3] [0 2 6]"}
	for i, w := range want {
		if got := out[i].String(); got != w {
			t.Errorf("result %d: %s, want %s", i, got, w)
		}
	}
}

// BenchmarkScanGradXs times the gradient of a scan with respect to the
// sequence it scans (the reverse loop adds each step's cotangent into
// its window of xs' accumulated cotangent, in place), at 100 and 1,000
// steps of f32[256]: measured 1.5–1.8 µs/step at both lengths; before the
// in-place accumulation 6.2 and 121 µs/step (a copy of every sequence-long
// carry per step).
func BenchmarkScanGradXs(b *testing.B) {
	for _, steps := range []int{100, 1000} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			xs := tensor.Must(tensor.Zeros(tensor.F32, steps, 256))
			f := kiln.Jit(kiln.Grad(func(xs kiln.Value) kiln.Value {
				_, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
					n := c[0].Mul(kiln.Float(0.5)).Add(x[0])
					return []kiln.Value{n}, []kiln.Value{n}
				}, []kiln.Value{kiln.Const(tensor.Must(tensor.Zeros(tensor.F32, 256)))}, []kiln.Value{xs})
				return ys[0].Sum()
			}))
			outs, err := f.RunAll(xs)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := f.RunInto(outs, xs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/step")
		})
	}
}
