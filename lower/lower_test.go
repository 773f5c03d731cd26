package lower_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/golden"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func compile(t *testing.T, inputs []trace.Abstract, opts lower.Options, fn func(a []trace.Value) []trace.Value) *lower.Module {
	t.Helper()
	p, err := trace.Trace(promote.Config{}, inputs, fn)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("%v\n%s", err, m.FusedString())
	}
	return m
}

func abs(d tensor.DType, shape ...int) trace.Abstract {
	return trace.Abstract{Type: promote.Strong(d), Shape: shape}
}

func TestMixedExpressionIsOneLoop(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.I8, 3), abs(tensor.F16, 3)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5))}
	})
	if len(m.Fusions) != 1 || m.Fusions[0].Kind != lower.FusionLoop {
		t.Fatalf("want one loop fusion:\n%s", m.FusedString())
	}
	golden.Check(t, "testdata/mixed.golden", m.String()+"\n\n"+m.FusedString())
}

func TestReductionFusion(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F64, 1000)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		x := a[0]
		return []trace.Value{x.Sub(x.Mean()).Pow(trace.Int(2)).Sum()}
	})
	last := m.Fusions[len(m.Fusions)-1]
	if last.Kind != lower.FusionReduce || len(last.Instrs) < 3 {
		t.Fatalf("the outer sum should fuse its elementwise producers:\n%s", m.FusedString())
	}
	golden.Check(t, "testdata/variance.golden", m.FusedString())
}

func TestNoFusionIsOpByOp(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 8)}, lower.Options{NoFusion: true}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(a[0]).Add(trace.Float(1)).Sqrt()}
	})
	for _, f := range m.Fusions {
		if len(f.Instrs) != 1 {
			t.Errorf("op-by-op fusion has %d instructions:\n%s", len(f.Instrs), f)
		}
	}
}

func TestSimplify(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.I8, 2, 3)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		x := a[0]
		y := x.Astype(tensor.I32).Astype(tensor.F64)                     // exact: folds to one convert
		z := x.Astype(tensor.F16).Astype(tensor.F64)                     // i8 fits f16 exactly too
		w := y.Div(trace.Float(3)).Astype(tensor.F32).Astype(tensor.F64) // rounds: both stay
		r := x.Reshape(3, 2).Reshape(6).Reshape(2, 3)                    // back to x
		tt := x.Transpose().Transpose()                                  // identity
		s := trace.Where(x.Gt(trace.Int(0)), x, x)                       // select(c, x, x) → x
		return []trace.Value{y.Add(z).Add(w), r.Add(tt).Add(s), x.Add(trace.Int(1)), x.Add(trace.Int(1))}
	})
	text := m.String()
	if n := strings.Count(text, "convert("); n != 3 {
		t.Errorf("want 3 converts (i8→f64 once after CSE, f64→f32, f32→f64), got %d:\n%s", n, text)
	}
	for _, op := range []string{"reshape(", "transpose(", "select("} {
		if strings.Contains(text, op) {
			t.Errorf("%s should have been simplified away:\n%s", op, text)
		}
	}
	if m.Outputs[2] != m.Outputs[3] {
		t.Errorf("CSE should merge the two x+1:\n%s", text)
	}
}

func TestConstantFolding(t *testing.T) {
	calls := 0
	fold := func(in *lower.Instr, args []*tensor.Array) (*tensor.Array, error) {
		if in.Op != trace.OpAdd {
			return nil, nil
		}
		calls++
		// A stand-in evaluator: only the adds of two f64 scalars this test makes.
		a, _ := tensor.Data[float64](args[0].Astype(tensor.F64))
		b, _ := tensor.Data[float64](args[1].Astype(tensor.F64))
		return tensor.Scalar(a[0] + b[0]).Astype(in.DType), nil
	}
	m := compile(t, []trace.Abstract{abs(tensor.F64, 4)}, lower.Options{Fold: fold}, func(a []trace.Value) []trace.Value {
		c, _ := tensor.FromSlice([]float64{2})
		k := trace.Const(c).Reshape().Add(trace.Float(3))
		return []trace.Value{a[0].Mul(k)}
	})
	if calls == 0 || !strings.Contains(m.String(), "value=5") {
		t.Errorf("2 + 3 was not folded (%d calls):\n%s", calls, m)
	}
}

func TestOutputsNeverAliasInputs(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 4)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0], a[0].Reshape(2, 2), a[0].Neg(), a[0].Neg()}
	})
	if len(m.Outputs) != 4 {
		t.Fatal("outputs lost")
	}
}

func TestPrinters(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 2, 3), abs(tensor.F32, 3, 4)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].MatMul(a[1]).Tanh().Sum(1)}
	})
	dot := m.DOT()
	if !strings.HasPrefix(dot, "digraph kiln {") || !strings.Contains(dot, "cluster_") || !strings.Contains(dot, "dot_general") {
		t.Errorf("DOT output:\n%s", dot)
	}
	golden.Check(t, "testdata/matmul.golden", m.String()+"\n\n"+m.FusedString())
}

// A value that is an output is materialized even when a reduction reads it:
// it must not disappear into the reduction's fusion.
func TestOutputIsNeverFusedAway(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 3, 4)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		p := a[0].Mul(trace.Float(2))
		return []trace.Value{p, p.Sum(1)}
	})
	if _, ok := m.Plan.Of[m.Outputs[0]]; !ok {
		t.Fatalf("output 0 has no buffer:\n%s", m.FusedString())
	}
	for _, f := range m.Fusions {
		for _, in := range f.Instrs {
			if in == m.Outputs[0] && f.Outputs[0] != in {
				t.Errorf("output 0 is fused into fusion.%d:\n%s", f.ID, m.FusedString())
			}
		}
	}
}

// TestCheapProducersAreRecomputed: a ReLU's pre-activation feeds both its
// mask and its select, and the mask is read again by the backward select
// (as in a training step). The add is recomputed in the mask's and the
// select's fusions instead of being written out; the bool mask is written
// once and read by both selects (recomputing it would read four bytes per
// element for one); an expensive producer (exp) is computed once.
func TestCheapProducersAreRecomputed(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 4, 8), abs(tensor.F32, 8), abs(tensor.F32, 4, 8)}, lower.Options{NoSiblings: true}, func(a []trace.Value) []trace.Value {
		pre := a[0].Add(a[1])
		mask := pre.Gt(trace.Int(0))
		h := trace.Where(mask, pre, trace.Int(0))
		g := trace.Where(mask, a[2], trace.Int(0))
		e := a[2].Exp()
		return []trace.Value{h, g, e.Add(h), e.Mul(g)}
	})
	loops := 0
	for _, f := range m.Fusions {
		for _, in := range f.Instrs {
			if in.Op == trace.OpExp && in != f.Outputs[0] {
				t.Errorf("exp is recomputed in fusion.%d:\n%s", f.ID, m.FusedString())
			}
		}
		if f.Kind == lower.FusionLoop {
			loops++
		}
	}
	// mask, h, g, exp, e+h, e·g: six loops; the add is none.
	if loops != 6 {
		t.Errorf("%d loop fusions, want 6:\n%s", loops, m.FusedString())
	}
	for _, in := range m.Instrs {
		_, materialized := m.Plan.Of[in]
		if in.Op == trace.OpAdd && in.Args[1].Op == trace.OpBroadcastInDim && materialized {
			t.Errorf("%s is materialized:\n%s", in, m.FusedString())
		}
		if in.Op == trace.OpGt && !materialized {
			t.Errorf("%s is recomputed:\n%s", in, m.FusedString())
		}
	}
}

// TestRecomputedReaderOfAnExpensiveValue: exp(x)+1 has two readers in
// different fusions. Recomputing it in both would need exp(x) in both too,
// and exp is not recomputed: exp(x)+1 is written out once, with exp(x) in
// its fusion (Verify, in compile, checks that every fusion's inputs are
// computed).
func TestRecomputedReaderOfAnExpensiveValue(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 4, 8)}, lower.Options{NoSiblings: true}, func(a []trace.Value) []trace.Value {
		p := a[0].Exp().Add(trace.Float(1))
		return []trace.Value{p.Mul(trace.Float(2)), p.Mul(trace.Float(3))}
	})
	exps := 0
	for _, f := range m.Fusions {
		for _, in := range f.Instrs {
			if in.Op == trace.OpExp {
				exps++
			}
		}
	}
	if exps != 1 || len(m.Fusions) != 3 {
		t.Errorf("exp in %d fusions, %d fusions; want 1 and 3:\n%s", exps, len(m.Fusions), m.FusedString())
	}
}

// TestRecomputedReaderOfAProduct: x@w+b feeds a ReLU's mask and its
// select, so the add is recomputed in both fusions and both read the
// product; the product must keep a kernel and a buffer of its own rather
// than becoming one fusion's epilogue.
func TestRecomputedReaderOfAProduct(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 8, 4), abs(tensor.F32, 4, 6), abs(tensor.F32, 6), abs(tensor.F32, 8, 6)}, lower.Options{NoSiblings: true}, func(a []trace.Value) []trace.Value {
		pre := a[0].MatMul(a[1]).Add(a[2])
		mask := pre.Gt(trace.Int(0))
		return []trace.Value{trace.Where(mask, pre, trace.Int(0)), trace.Where(mask, a[3], trace.Int(0))}
	})
	for _, in := range m.Instrs {
		if _, ok := m.Plan.Of[in]; in.Op == trace.OpDot && !ok {
			t.Errorf("the product has no buffer:\n%s", m.FusedString())
		}
	}
}

// TestSiblingsShareOnePass: a ReLU's mask and activation, and an Adam
// update's two moments and new weights, each run as one multi-output loop
// (lower.FuseSiblings); a loop whose result another kernel reads in
// between keeps its own kernel.
func TestSiblingsShareOnePass(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 4, 8), abs(tensor.F32, 8), abs(tensor.F32, 8, 3)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		pre := a[0].Add(a[1])
		mask := pre.Gt(trace.Int(0))
		h := trace.Where(mask, pre, trace.Int(0))
		y := h.MatMul(a[2]) // reads h between h's loop and the next one
		g := trace.Where(mask, h.Mul(trace.Float(2)), trace.Int(0))
		return []trace.Value{y, g}
	})
	var outs [][]trace.Op
	for _, f := range m.Fusions {
		if f.Kind == lower.FusionLoop {
			var ops []trace.Op
			for _, o := range f.Outputs {
				ops = append(ops, o.Op)
			}
			outs = append(outs, ops)
		}
	}
	// mask and h together; g after the product, which reads h, alone.
	if len(outs) != 2 || len(outs[0]) != 2 || outs[0][0] != trace.OpGt || outs[0][1] != trace.OpSelect || len(outs[1]) != 1 {
		t.Errorf("loop outputs %v, want [[gt select] [select]]:\n%s", outs, m.FusedString())
	}

	adam := compile(t, []trace.Abstract{abs(tensor.F32, 16), abs(tensor.F32, 16), abs(tensor.F32, 16), abs(tensor.F32, 16)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		p, g, mo, v := a[0], a[1], a[2], a[3]
		mo = mo.Mul(trace.Float(0.9)).Add(g.Mul(trace.Float(0.1)))
		v = v.Mul(trace.Float(0.999)).Add(g.Mul(g).Mul(trace.Float(0.001)))
		return []trace.Value{p.Sub(mo.Div(v.Sqrt().Add(trace.Float(1e-8))).Mul(trace.Float(0.003))), mo, v}
	})
	if len(adam.Fusions) != 1 || len(adam.Fusions[0].Outputs) != 3 {
		t.Errorf("want one loop with three results:\n%s", adam.FusedString())
	}
	if off := compile(t, []trace.Abstract{abs(tensor.F32, 16), abs(tensor.F32, 16)}, lower.Options{NoSiblings: true}, func(a []trace.Value) []trace.Value {
		s := a[0].Add(a[1])
		return []trace.Value{s, s.Mul(a[1])}
	}); len(off.Fusions) != 2 {
		t.Errorf("NoSiblings: want two loops:\n%s", off.FusedString())
	}
}

// TestFoldedOpOfBroadcastConstant: the gradient of a mean over a batch,
// −(1/n) broadcast to the batch and reshaped to a column, becomes one
// scalar constant broadcast where it is read: no neg, no reshape, and no
// fusion computing the column.
func TestFoldedOpOfBroadcastConstant(t *testing.T) {
	folds := 0
	fold := func(in *lower.Instr, args []*tensor.Array) (*tensor.Array, error) {
		if in.Op != trace.OpNeg || in.DType != tensor.F32 {
			return nil, nil
		}
		folds++
		v, _ := tensor.Data[float32](args[0])
		return tensor.Scalar(-v[0]), nil
	}
	m := compile(t, []trace.Abstract{abs(tensor.F32, 4, 3)}, lower.Options{Fold: fold}, func(a []trace.Value) []trace.Value {
		c, _ := tensor.FromSlice([]float32{0.25}, 1)
		col := trace.Const(c).BroadcastTo(4).Neg().Reshape(4, 1)
		return []trace.Value{a[0].Mul(col)}
	})
	text := m.String()
	if folds != 1 || !strings.Contains(text, "value=-0.25") {
		t.Errorf("neg(0.25) was not folded to a scalar (%d folds):\n%s", folds, text)
	}
	for _, op := range []string{"neg(", "reshape("} {
		if strings.Contains(text, op) {
			t.Errorf("%s should be gone:\n%s", op, text)
		}
	}
	if len(m.Fusions) != 1 {
		t.Errorf("%d fusions, want the product's one:\n%s", len(m.Fusions), m.FusedString())
	}
	for _, in := range m.Instrs {
		if in.Op == trace.OpBroadcastInDim && len(in.Args[0].Shape) != 0 {
			t.Errorf("%s broadcasts a non-scalar:\n%s", in, text)
		}
	}
}
