package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A multi-result epilogue or multi-output loop whose results read each
// other elementwise is one body, computing a shared value once: the ReLU's
// pre-activation x·w + b feeds both its mask and its select, and in the
// combined body it is computed by one step (one add), not once per result.
// Results read through a transpose keep a body each. The bits are the
// per-result bodies' (TestMultiResultEpilogueShapes, the conformance
// suite's siblings cases); here, the structure.
func TestCombinedResultBodies(t *testing.T) {
	abs := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	compile := func(fn func(a []trace.Value) []trace.Value, in ...trace.Abstract) *cpuExec {
		t.Helper()
		p, err := trace.Trace(promote.Config{}, in, fn)
		if err != nil {
			t.Fatal(err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: Fold, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		e, err := DefaultCPU().Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		return e.(*cpuExec)
	}
	relu := compile(func(a []trace.Value) []trace.Value {
		pre := a[0].MatMul(a[1]).Add(a[2])
		mask := pre.Gt(trace.Int(0))
		return []trace.Value{mask, trace.Where(mask, pre, trace.Int(0))}
	}, abs(40, 16), abs(16, 64), abs(64))
	var epi *epilogue
	for _, k := range relu.kernels {
		if d, ok := k.(*dotKernel); ok {
			epi = d.epi
		}
	}
	if epi == nil || len(epi.results) != 2 {
		t.Fatalf("want a two-result epilogue, got %+v", epi)
	}
	if !epi.combined {
		t.Fatal("the ReLU's mask and select are separate bodies")
	}
	adds := 0
	for _, s := range epi.results[0].body.steps {
		if s.op == trace.OpAdd {
			adds++
		}
	}
	if adds != 1 {
		t.Errorf("the combined body adds the bias %d times, want once:\n%s", adds, epi.results[0].body)
	}

	adam := compile(func(a []trace.Value) []trace.Value {
		m := a[0].Mul(trace.Float(0.9)).Add(a[2].Mul(trace.Float(0.1)))
		v := a[1].Mul(trace.Float(0.999)).Add(a[2].Mul(a[2]).Mul(trace.Float(0.001)))
		return []trace.Value{m, v, a[3].Sub(m.Div(v.Sqrt().Add(trace.Float(1e-8))))}
	}, abs(300), abs(300), abs(300), abs(300))
	var ml *multiLoopKernel
	for _, k := range adam.kernels {
		if l, ok := k.(*multiLoopKernel); ok {
			ml = l
		}
	}
	if ml == nil || !ml.combined || len(ml.at) != 3 {
		t.Fatalf("Adam's three results are not one combined loop: %+v", ml)
	}

	transposed := compile(func(a []trace.Value) []trace.Value {
		r := a[0].MatMul(a[1]).Add(a[2])
		return []trace.Value{r, r.Transpose(1, 0).Mul(a[0].MatMul(a[1]))}
	}, abs(24, 8), abs(8, 24), abs(24))
	for _, k := range transposed.kernels {
		if d, ok := k.(*dotKernel); ok && d.epi != nil && d.epi.combined {
			t.Error("a result read through a transpose is in a combined body")
		}
		if l, ok := k.(*multiLoopKernel); ok && l.combined {
			t.Error("a result read through a transpose is in a combined loop")
		}
	}
}
