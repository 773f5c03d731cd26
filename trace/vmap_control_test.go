package trace_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestVmapLoops checks while_loop, fori_loop and scan with batched
// carries, captured values, bounds and predicates, on every in_axes: a
// batched predicate runs each example for its own number of steps.
func TestVmapLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	ints := func(lo, hi int, shape ...int) *tensor.Array { return randInts(r, tensor.I32, lo, hi, shape...) }
	fori := func(a []V) []V {
		return trace.ForiLoop(trace.Int(0), trace.Int(5), func(i V, c []V) []V {
			return []V{c[0].Mul(a[1]).Add(i.Astype(tensor.F32)), c[1].Add(c[0].Sum())}
		}, a[0], trace.Float(0))
	}
	foriBound := func(a []V) []V {
		return trace.ForiLoop(a[1], a[2], func(i V, c []V) []V {
			return []V{c[0].Mul(trace.Float(1.5)).Add(i.Astype(tensor.F32))}
		}, a[0])
	}
	// Each example doubles (and counts) until its sum passes its limit.
	grow := func(a []V) []V {
		return trace.WhileLoop(func(c []V) V { return c[0].Sum().Lt(a[1]) },
			func(c []V) []V {
				return []V{c[0].Abs().Mul(trace.Float(2)).Add(trace.Float(1)), c[1].Add(trace.Int(1))}
			},
			a[0], trace.Int(0))
	}
	// The predicate reads only the counter: unbatched, one loop.
	count := func(a []V) []V {
		return trace.WhileLoop(func(c []V) V { return c[1].Lt(trace.Int(4)) },
			func(c []V) []V { return []V{c[0].Mul(a[1]).Add(trace.Float(0.5)), c[1].Add(trace.Int(1))} },
			a[0], trace.Int(0))
	}
	cumsum := func(a []V) []V {
		c, ys := trace.Scan(func(c, x []V) ([]V, []V) {
			n := c[0].Add(x[0]).Mul(a[1])
			return []V{n}, []V{n, x[0].Sum()}
		}, []V{a[1].Mul(trace.Float(0))}, []V{a[0]})
		return append(c, ys...)
	}
	reverse := func(a []V) []V {
		c, ys := trace.Scan(func(c, x []V) ([]V, []V) {
			return []V{c[0].Mul(x[0]).Add(c[1]), c[1].Sub(trace.Float(1))}, []V{c[0].Max()}
		}, []V{a[0], trace.Float(1)}, []V{a[1]}, trace.ScanOptions{Reverse: true})
		return append(c, ys...)
	}
	runVmapCases(t, []vmapCase{
		{"fori carry", fori, inAxes(0, none), []*tensor.Array{f32(3, 4), f32(4)}},
		{"fori capture", fori, inAxes(none, 1), []*tensor.Array{f32(4), f32(4, 3)}},
		{"fori both", fori, inAxes(-1, 0), []*tensor.Array{f32(4, 3), f32(3, 4)}},
		{"fori upper bound", foriBound, inAxes(none, none, 0), []*tensor.Array{f32(2), ints(0, 0), ints(-1, 6, 5)}},
		{"fori lower bound", foriBound, inAxes(1, 0, none), []*tensor.Array{f32(2, 4), ints(-2, 6, 4), ints(4, 4)}},
		{"while predicate", grow, inAxes(0, 0), []*tensor.Array{f32(5, 3), tensor.Must(tensor.FromSlice([]float32{-100, 0, 10, 100, 1000}))}},
		{"while predicate limit", grow, inAxes(none, 0), []*tensor.Array{f32(3), tensor.Must(tensor.FromSlice([]float32{-1, 5, 50, 500}))}},
		{"while predicate carry", grow, inAxes(-1, none), []*tensor.Array{randArray(r, tensor.F32, 2, 4).Astype(tensor.F32), tensor.Scalar(float32(40)).Astype(tensor.F32)}},
		{"while counter", count, inAxes(0, none), []*tensor.Array{f32(3, 2), f32(2)}},
		{"while counter capture", count, inAxes(none, 1), []*tensor.Array{f32(2), f32(2, 3)}},
		{"scan xs", cumsum, inAxes(1, none), []*tensor.Array{f32(4, 3, 2), f32(2)}},
		{"scan capture", cumsum, inAxes(none, 0), []*tensor.Array{f32(4, 2), f32(3, 2)}},
		{"scan reverse carry", reverse, inAxes(0, none), []*tensor.Array{f32(3, 2), f32(5, 2)}},
		{"scan reverse xs", reverse, inAxes(none, -1), []*tensor.Array{f32(2), f32(5, 2, 3)}},
	})
}

// TestVmapConds checks cond and switch with a batched predicate or index
// (every branch, selected) and an unbatched one (a cond of batched
// branches), with captured values batched in one branch only.
func TestVmapConds(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	ints := func(lo, hi int, shape ...int) *tensor.Array { return randInts(r, tensor.I32, lo, hi, shape...) }
	cond := func(a []V) []V {
		return trace.Cond(a[1].Gt(trace.Float(0)),
			func(o []V) []V { return []V{o[0].Sin(), o[0].Sum()} },
			func(o []V) []V { return []V{o[0].Mul(a[2]), trace.Float(3).Astype(tensor.F32)} }, a[0])
	}
	intPred := func(a []V) []V {
		return trace.Cond(a[1], func(o []V) []V { return []V{o[0].Neg()} }, func(o []V) []V { return o }, a[0])
	}
	switch3 := func(a []V) []V {
		return trace.Switch(a[1], []func([]V) []V{
			func(o []V) []V { return []V{o[0].Add(trace.Float(1)), trace.Int(0).Astype(tensor.I32)} },
			func(o []V) []V { return []V{o[0].Mul(a[2]), trace.Int(1).Astype(tensor.I32)} },
			func(o []V) []V { return []V{o[0].Exp(), o[0].Sum().Astype(tensor.I32)} },
		}, a[0])
	}
	noOperands := func(a []V) []V {
		return trace.Switch(a[0], []func([]V) []V{
			func([]V) []V { return []V{trace.Float(1).Astype(tensor.F32)} },
			func([]V) []V { return []V{trace.Float(2).Astype(tensor.F32)} },
		})
	}
	runVmapCases(t, []vmapCase{
		{"cond predicate", cond, inAxes(none, 0, none), []*tensor.Array{f32(3), f32(6), f32(3)}},
		{"cond all", cond, inAxes(1, 0, -1), []*tensor.Array{f32(3, 6), f32(6), f32(3, 6)}},
		{"cond operand", cond, inAxes(0, none, none), []*tensor.Array{f32(4, 3), tensor.Scalar(float32(1)).Astype(tensor.F32), f32(3)}},
		{"cond operand false", cond, inAxes(0, none, none), []*tensor.Array{f32(4, 3), tensor.Scalar(float32(-1)).Astype(tensor.F32), f32(3)}},
		{"cond capture", cond, inAxes(none, none, 0), []*tensor.Array{f32(3), tensor.Scalar(float32(-1)).Astype(tensor.F32), f32(2, 3)}},
		{"cond int predicate", intPred, inAxes(0, 0), []*tensor.Array{f32(5, 2), ints(-1, 1, 5)}},
		{"switch index", switch3, inAxes(none, 0, none), []*tensor.Array{f32(2), ints(-2, 4, 7), f32(2)}},
		{"switch all", switch3, inAxes(-1, 0, 0), []*tensor.Array{f32(2, 7), ints(-2, 4, 7), f32(7, 2)}},
		{"switch operand", switch3, inAxes(0, none, none), []*tensor.Array{f32(3, 2), tensor.Scalar(int32(1)).Astype(tensor.I32), f32(2)}},
		{"switch capture", switch3, inAxes(none, none, 1), []*tensor.Array{f32(2), tensor.Scalar(int32(1)).Astype(tensor.I32), f32(2, 3)}},
		{"switch no operands", noOperands, inAxes(0), []*tensor.Array{ints(-1, 2, 5)}},
	})
}

// TestVmapNestedControl checks control flow inside control flow: a scan
// whose step takes a per-example branch holding a per-example while
// loop, and a fori loop in a switch.
func TestVmapNestedControl(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	nested := func(a []V) []V {
		c, ys := trace.Scan(func(c, x []V) ([]V, []V) {
			out := trace.Cond(x[0].Sum().Gt(trace.Float(0)),
				func(o []V) []V {
					return trace.WhileLoop(func(w []V) V { return w[0].Sum().Lt(trace.Float(30)) },
						func(w []V) []V { return []V{w[0].Mul(trace.Float(2)).Add(trace.Float(1))} }, o[0].Abs())
				},
				func(o []V) []V { return []V{o[0].Sub(x[0])} }, c[0])
			return out, []V{out[0].Sum()}
		}, []V{a[0]}, []V{a[1]})
		return append(c, ys...)
	}
	inSwitch := func(a []V) []V {
		return trace.Switch(a[1], []func([]V) []V{
			func(o []V) []V { return o },
			func(o []V) []V {
				return trace.ForiLoop(trace.Int(0), a[1], func(i V, c []V) []V { return []V{c[0].Mul(trace.Float(1.5))} }, o[0])
			},
		}, a[0])
	}
	foriInWhile := func(a []V) []V {
		return trace.WhileLoop(func(c []V) V { return c[1].Lt(trace.Int(3)) }, func(c []V) []V {
			x := trace.ForiLoop(trace.Int(0), trace.Int(2), func(i V, f []V) []V { return []V{f[0].Add(a[1].Mul(f[0]))} }, c[0].Minimum(a[1]))
			return []V{x[0], c[1].Add(trace.Int(1))}
		}, a[0], trace.Int(0).Astype(tensor.I32))
	}
	runVmapCases(t, []vmapCase{
		{"scan cond while", nested, inAxes(0, 1), []*tensor.Array{f32(4, 2), f32(5, 4, 2)}},
		{"scan cond while carry", nested, inAxes(-1, none), []*tensor.Array{f32(2, 4), f32(5, 2)}},
		{"scan cond while xs", nested, inAxes(none, 0), []*tensor.Array{f32(2), f32(4, 5, 2)}},
		{"switch fori", inSwitch, inAxes(0, 0), []*tensor.Array{f32(5, 3), randInts(r, tensor.I32, -1, 4, 5)}},
		// The inner loop's result 0 (its counter) is unbatched, its
		// result 1 batched: the outer loop's carry is batched by it.
		{"while fori", foriInWhile, inAxes(none, 0), []*tensor.Array{f32(2), f32(3, 2)}},
	})
	// Vmap of Vmap through a loop.
	inner := func(a []V) []V { return trace.Vmap(nested, trace.VmapOptions{InAxes: []int{0, 1}})(a...) }
	checkVmap(t, inner, inAxes(1, 0), f32(3, 2, 2), f32(2, 5, 3, 2))
}

// TestVmapWhileKeepsStaticTrips checks that an unbatched predicate keeps
// the loop's static trip count (so reverse mode goes through it) and a
// batched one makes one loop over the batch that runs while any example's
// predicate holds.
func TestVmapWhileKeepsStaticTrips(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{in(t, "f32[3,2]"), in(t, "i32[3]")}, func(a []V) []V {
		static := trace.Vmap(func(e []V) []V {
			return trace.ForiLoop(trace.Int(0), trace.Int(4), func(i V, c []V) []V { return []V{c[0].Sin()} }, e[0])
		}, trace.VmapOptions{})(a[0])
		dynamic := trace.Vmap(func(e []V) []V {
			return trace.ForiLoop(trace.Int(0), e[1], func(i V, c []V) []V { return []V{c[0].Sin()} }, e[0])
		}, trace.VmapOptions{})(a[0], a[1])
		return append(static, dynamic...)
	})
	if err != nil {
		t.Fatal(err)
	}
	s := p.String()
	if strings.Count(s, "trips=4") != 1 || strings.Count(s, "while[") != 2 {
		t.Errorf("want one while with trips=4 and one without:\n%s", s)
	}
}

// TestVmapGradLoops checks per-example gradients through loops both
// ways: Vmap of Grad, and Grad of a sum of a Vmap (which, the examples
// being independent, is each example's gradient), against each example's
// Grad bit for bit.
func TestVmapGradLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	// loss(x, w): a scan over the rows of w, a fori loop and a cond.
	loss := func(a []V) []V {
		c, _ := trace.Scan(func(c, w []V) ([]V, []V) {
			n := c[0].Mul(w[0]).Tanh()
			return []V{n}, []V{n}
		}, []V{a[0]}, []V{a[1]})
		f := trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, k []V) []V { return []V{k[0].Mul(k[0]).Add(c[0])} }, c[0])
		s := trace.Cond(f[0].Sum().Gt(trace.Float(0)), func(o []V) []V { return []V{o[0].Sin()} }, func(o []V) []V { return []V{o[0].Mul(o[0])} }, f[0])
		return []V{s[0].Sum()}
	}
	grad := trace.Grad(loss, trace.GradOptions{Argnums: []int{0, 1}})
	gradFn := func(a []V) []V { return grad(a...) }
	x, w := randArray(r, tensor.F64, 4, 3), randArray(r, tensor.F64, 5, 3)
	t.Run("vmap grad", func(t *testing.T) { checkVmap(t, gradFn, inAxes(0, none), x, w) })
	t.Run("vmap grad xs", func(t *testing.T) {
		checkVmap(t, gradFn, inAxes(none, 0), randArray(r, tensor.F64, 3), randArray(r, tensor.F64, 2, 5, 3))
	})
	t.Run("grad vmap", func(t *testing.T) { gradOfVmap(t, loss, x, w) })
}

// gradOfVmap is Grad of the batch's total of Vmap(loss) with respect to
// argument 0 (batched at axis 0), which is every example's gradient.
func gradOfVmap(t *testing.T, loss func([]V) []V, ins ...*tensor.Array) {
	t.Helper()
	axes := make([]int, len(ins))
	for i := range axes {
		axes[i] = none
	}
	axes[0] = 0
	g := trace.Grad(func(a []V) []V {
		return []V{trace.Vmap(loss, trace.VmapOptions{InAxes: axes})(a...)[0].Sum()}
	}, trace.GradOptions{Argnums: []int{0}})
	cfg := promote.Config{}
	p, err := trace.Trace(cfg, abstractsOf(ins), func(a []V) []V { return g(a...) })
	if err != nil {
		t.Fatalf("grad of vmap: %v", err)
	}
	got, err := reference.Eval(p, ins, reference.Options{})
	if err != nil {
		t.Fatalf("grad of vmap: %v", err)
	}
	ge := trace.Grad(loss, trace.GradOptions{Argnums: []int{0}})
	for b := range ins[0].Dim(0) {
		ex := append([]*tensor.Array{takeAxis(ins[0], 0, b)}, ins[1:]...)
		pe, err := trace.Trace(cfg, abstractsOf(ex), func(a []V) []V { return ge(a...) })
		if err != nil {
			t.Fatalf("grad: %v", err)
		}
		want, err := reference.Eval(pe, ex, reference.Options{})
		if err != nil {
			t.Fatalf("grad: %v", err)
		}
		if g := takeAxis(got[0], 0, b); !tensor.Equal(g, want[0]) {
			t.Fatalf("example %d: grad of vmap gives %v, the example's grad %v", b, g, want[0])
		}
	}
}

// TestVmapWhileTripCounts checks a while whose predicate depends on the
// example: each example stops after its own number of steps, its carry
// frozen while the others go on, and reverse mode through that loop is
// the while loop's *DerivError, as JAX's.
func TestVmapWhileTripCounts(t *testing.T) {
	grow := func(a []V) []V {
		return trace.WhileLoop(func(c []V) V { return c[0].Lt(a[0]) },
			func(c []V) []V { return []V{c[0].Mul(trace.Float(2)).Add(trace.Float(1)), c[1].Add(trace.Int(1))} },
			trace.Float(1).Astype(tensor.F32), trace.Int(0).Astype(tensor.I32))
	}
	limits := tensor.Must(tensor.FromSlice([]float32{0, 2, 10, 100}))
	p, err := trace.Trace(promote.Config{}, abstractsOf([]*tensor.Array{limits}), func(a []V) []V {
		return trace.Vmap(grow, trace.VmapOptions{})(a...)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reference.Eval(p, []*tensor.Array{limits}, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if x, n := got[0].Data().([]float32), got[1].Data().([]int32); !slices.Equal(x, []float32{1, 3, 15, 127}) || !slices.Equal(n, []int32{0, 1, 3, 6}) {
		t.Errorf("carries %v, steps %v; want [1 3 15 127] after [0 1 3 6] steps", x, n)
	}
	_, err = trace.Trace(promote.Config{}, abstractsOf([]*tensor.Array{limits}), func(a []V) []V {
		return trace.Grad(func(b []V) []V {
			return []V{trace.Vmap(func(e []V) []V {
				r := trace.WhileLoop(func(c []V) V { return c[0].Lt(trace.Float(10)) }, func(c []V) []V { return []V{c[0].Mul(e[0]).Add(trace.Float(1))} }, e[0])
				return r
			}, trace.VmapOptions{})(b...)[0].Sum()}
		}, trace.GradOptions{})(a...)
	})
	var de *trace.DerivError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "Reverse-mode differentiation does not work for lax.while_loop") {
		t.Errorf("grad of a while with a batched predicate: %v, want the while loop's *DerivError", err)
	}
}

// TestVmapGradIndexConv checks per-example gradients of a loss built of
// an embedding lookup (gather), a dynamic slice, a scatter-add and a
// convolution — whose derivatives are scatters, dynamic update slices,
// gathers and convolutions — both ways, and forward mode through a while
// with a batched predicate.
func TestVmapGradIndexConv(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	loss := func(a []V) []V {
		// a[0]: per-example input [2, 5, 4]; a[1]: table [6, 4]; a[2]: ids [3]; a[3]: kernel [3, 2, 2, 2]
		emb := trace.Take(a[1], a[2], 0)                                                              // [3, 4]
		x := trace.DynamicSlice(a[0], []V{a[2].Index(0), trace.Int(1), trace.Int(0)}, []int{2, 3, 4}) // [2, 3, 4]
		x = x.At(trace.All, a[2].Index(1)).Add(emb.Index(2))
		y := trace.ConvGeneralDilated(x.Reshape(1, 2, 3, 4), a[3], trace.ConvOptions{PaddingMode: "SAME"})
		return []V{y.Tanh().Sum().Add(emb.Mul(emb).Sum())}
	}
	grad := trace.Grad(loss, trace.GradOptions{Argnums: []int{0, 1, 3}})
	gradFn := func(a []V) []V { return grad(a...) }
	x, table, kernel := randArray(r, tensor.F64, 3, 2, 5, 4), randArray(r, tensor.F64, 6, 4), randArray(r, tensor.F64, 3, 2, 2, 2)
	ids := randInts(r, tensor.I32, -2, 7, 3, 3)
	t.Run("vmap grad", func(t *testing.T) { checkVmap(t, gradFn, inAxes(0, none, 0, none), x, table, ids, kernel) })
	t.Run("vmap grad kernel", func(t *testing.T) {
		checkVmap(t, gradFn, inAxes(none, none, none, 0), takeAxis(x, 0, 0), table, takeAxis(ids, 0, 1), randArray(r, tensor.F64, 2, 3, 2, 2, 2))
	})
	t.Run("grad vmap", func(t *testing.T) {
		// Argument 0 batched, the others (ids too) shared.
		gradOfVmap(t, loss, x, table, takeAxis(ids, 0, 2), kernel)
	})
	t.Run("vmap jvp while", func(t *testing.T) {
		grow := func(a []V) []V {
			return trace.WhileLoop(func(c []V) V { return c[0].Sum().Lt(trace.Float(20)) },
				func(c []V) []V { return []V{c[0].Mul(c[0]).Add(trace.Float(1))} }, a[0])
		}
		jvp := func(a []V) []V {
			outs, ts := trace.JVP(grow, a[:1], a[1:])
			return append(outs, ts...)
		}
		checkVmap(t, jvp, inAxes(0, 0), randArray(r, tensor.F64, 4, 2), randArray(r, tensor.F64, 4, 2))
	})
}

// TestVmapControlEdges checks empty batches, scans of no step, weak
// outputs of batched branches and Vmap of Vmap of a while whose
// predicate depends on both batch axes.
func TestVmapControlEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	grow := func(a []V) []V {
		return trace.WhileLoop(func(c []V) V { return c[0].Sum().Lt(a[1]) },
			func(c []V) []V { return []V{c[0].Abs().Add(trace.Float(1)), c[1].Add(trace.Int(1))} },
			a[0], trace.Int(0))
	}
	scan := func(a []V) []V {
		c, ys := trace.Scan(func(c, x []V) ([]V, []V) { return []V{c[0].Add(x[0])}, []V{c[0].Mul(x[0])} }, []V{a[1]}, []V{a[0]})
		return append(c, ys...)
	}
	weak := func(a []V) []V {
		return trace.Cond(a[1].Gt(trace.Float(0)),
			func(o []V) []V { return []V{trace.Float(2), o[0].Sum()} },
			func(o []V) []V { return []V{trace.Float(-1), trace.Float(0.5).Astype(tensor.F32)} }, a[0])
	}
	runVmapCases(t, []vmapCase{
		{"empty batch while", grow, inAxes(0, 0), []*tensor.Array{f32(0, 3), f32(0)}},
		{"empty batch cond", weak, inAxes(0, 0), []*tensor.Array{f32(0, 3), f32(0)}},
		{"empty batch gather", oneOut(func(a []V) V { return trace.Take(a[0], a[1], 0) }), inAxes(0, 0), []*tensor.Array{f32(0, 4), randInts(r, tensor.I32, 0, 3, 0, 2)}},
		{"empty batch scatter", oneOut(func(a []V) V { return a[0].At(a[1]).Add(a[2]) }), inAxes(0, 0, 0), []*tensor.Array{f32(0, 4), randInts(r, tensor.I32, 0, 3, 0, 2), f32(0, 2)}},
		{"empty batch dynamic slice", oneOut(func(a []V) V { return trace.DynamicSlice(a[0], []V{a[1]}, []int{2}) }), inAxes(0, 0), []*tensor.Array{f32(0, 4), randInts(r, tensor.I32, 0, 3, 0)}},
		{"empty batch dynamic update slice", oneOut(func(a []V) V { return trace.DynamicUpdateSlice(a[0], a[2], []V{a[1]}) }), inAxes(0, 0, 0), []*tensor.Array{f32(0, 4), randInts(r, tensor.I32, 0, 3, 0), f32(0, 2)}},
		{"scan of no step", scan, inAxes(0, none), []*tensor.Array{f32(3, 0, 2), f32(2)}},
		{"scan of no step carry", scan, inAxes(none, 1), []*tensor.Array{f32(0, 2), f32(2, 3)}},
		{"weak branch outputs", weak, inAxes(0, 0), []*tensor.Array{f32(4, 3), f32(4)}},
		{"weak branch outputs unbatched index", weak, inAxes(1, none), []*tensor.Array{f32(3, 4), tensor.Scalar(float32(1)).Astype(tensor.F32)}},
	})
	inner := func(a []V) []V { return trace.Vmap(grow, trace.VmapOptions{InAxes: []int{0, none}})(a...) }
	checkVmap(t, inner, inAxes(1, 0), f32(3, 4, 2), tensor.Must(tensor.FromSlice([]float32{-1, 4, 30, 9})))
}

// TestVmapCondStaysCond checks that a cond whose predicate every example
// shares stays a cond (only the chosen branch runs), and one whose
// predicate depends on the example becomes a select of both branches.
func TestVmapCondStaysCond(t *testing.T) {
	for _, tc := range []struct {
		axes []int
		ins  []string
		cond bool
	}{
		{[]int{0, none}, []string{"f32[3,2]", "f32[]"}, true},
		{[]int{0, 0}, []string{"f32[3,2]", "f32[3]"}, false},
	} {
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{in(t, tc.ins[0]), in(t, tc.ins[1])}, func(a []V) []V {
			return trace.Vmap(func(e []V) []V {
				return trace.Cond(e[1].Gt(trace.Float(0)), func(o []V) []V { return []V{o[0].Sin()} }, func(o []V) []V { return []V{o[0].Cos()} }, e[0])
			}, trace.VmapOptions{InAxes: tc.axes})(a...)
		})
		if err != nil {
			t.Fatal(err)
		}
		if s := p.String(); strings.Contains(s, "cond[") != tc.cond || strings.Contains(s, "select") == tc.cond {
			t.Errorf("in_axes %v: want a cond %v, a select %v:\n%s", tc.axes, tc.cond, !tc.cond, s)
		}
	}
}
