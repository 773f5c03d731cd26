package lower_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// dotFusion returns the one fusion computing a dot_general.
func dotFusion(t *testing.T, m *lower.Module) *lower.Fusion {
	t.Helper()
	var found *lower.Fusion
	for _, f := range m.Fusions {
		if d := f.Dot(); d != nil && d.Op == trace.OpDot {
			if found != nil {
				t.Fatalf("two dot fusions:\n%s", m.FusedString())
			}
			found = f
		}
	}
	if found == nil {
		t.Fatalf("no dot fusion:\n%s", m.FusedString())
	}
	return found
}

// A dense layer's bias add and activation join the product's kernel: one
// kernel, whose printed form shows the epilogue, and no buffer for the
// product.
func TestFuseEpilogues(t *testing.T) {
	in := []trace.Abstract{abs(tensor.F32, 8, 5), abs(tensor.F32, 5, 3), abs(tensor.F32, 3)}
	layer := func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].MatMul(a[1]).Add(a[2]).Tanh()}
	}
	m := compile(t, in, lower.Options{Verify: true}, layer)
	if len(m.Fusions) != 1 {
		t.Fatalf("want one kernel, got %d:\n%s", len(m.Fusions), m.FusedString())
	}
	f := m.Fusions[0]
	if !f.Epilogue() || f.Dot() == nil || f.Outputs[0].Op != trace.OpTanh {
		t.Fatalf("not a dot fusion with a tanh epilogue:\n%s", m.FusedString())
	}
	if _, ok := m.Plan.Of[f.Dot()]; ok {
		t.Errorf("the fused product has a buffer:\n%s", m.FusedString())
	}
	s := m.FusedString()
	for _, want := range []string{"fusion.0 dot", "dot_general", "broadcast_in_dim", "add", "tanh"} {
		if !strings.Contains(s, want) {
			t.Errorf("fused printer lacks %q:\n%s", want, s)
		}
	}
	// Off: the product keeps its own kernel, the epilogue is a loop.
	off := compile(t, in, lower.Options{NoEpilogues: true}, layer)
	if len(off.Fusions) != 2 || off.Fusions[0].Epilogue() || off.Fusions[1].Kind != lower.FusionLoop {
		t.Errorf("NoEpilogues:\n%s", off.FusedString())
	}
}

// A product read elsewhere too — a module output, a reduction — joins the
// first loop fusion reading it as its second output (multi-output
// fusion), with a buffer for the other readers. Two loops reading it
// merge as siblings first (one pass reads the product once), and the
// product keeps its own kernel.
func TestEpilogueShared(t *testing.T) {
	in := []trace.Abstract{abs(tensor.F32, 4, 6), abs(tensor.F32, 6, 4)}
	cases := map[string]func(a []trace.Value) []trace.Value{
		"output": func(a []trace.Value) []trace.Value {
			y := a[0].MatMul(a[1])
			return []trace.Value{y.Tanh(), y}
		},
		"reduce": func(a []trace.Value) []trace.Value {
			y := a[0].MatMul(a[1])
			return []trace.Value{y.Tanh(), y.Sum(1)}
		},
	}
	for name, fn := range cases {
		m := compile(t, in, lower.Options{Verify: true}, fn)
		f := dotFusion(t, m)
		if !f.Epilogue() || len(f.Outputs) != 2 || f.Outputs[1] != f.Dot() {
			t.Errorf("%s: want the product as the epilogue fusion's second output:\n%s", name, m.FusedString())
		}
		if _, ok := m.Plan.Of[f.Dot()]; !ok {
			t.Errorf("%s: the shared product has no buffer:\n%s", name, m.FusedString())
		}
	}
	m := compile(t, in, lower.Options{Verify: true}, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		return []trace.Value{y.Tanh(), y.Exp()}
	})
	// The two loops are siblings (one multi-output loop), which the
	// product joins whole: one kernel, both results, the product stored
	// nowhere.
	f := dotFusion(t, m)
	if !f.Epilogue() || len(m.Fusions) != 1 || len(f.EpilogueResults()) != 2 || f.SharesProduct() {
		t.Errorf("two loops reading a product: want one dot fusion computing both results:\n%s", m.FusedString())
	}
	// Read by a reduction too, the product is stored, as the last output.
	m = compile(t, in, lower.Options{Verify: true}, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		return []trace.Value{y.Tanh(), y.Exp(), y.Sum()}
	})
	f = dotFusion(t, m)
	if !f.Epilogue() || len(f.EpilogueResults()) != 2 || !f.SharesProduct() || f.Outputs[2] != f.Dot() {
		t.Errorf("two loops and a reduction reading a product: want a dot fusion computing both results and storing the product last:\n%s", m.FusedString())
	}
}

// A product a loop fusion reads other than elementwise (through a
// reshape and broadcast) keeps its kernel.
func TestEpilogueNotFused(t *testing.T) {
	in := []trace.Abstract{abs(tensor.F32, 4, 6), abs(tensor.F32, 6, 4)}
	m := compile(t, in, lower.Options{Verify: true}, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1]).Reshape(4, 1, 4)
		return []trace.Value{y.Add(trace.Zeros([]int{4, 3, 4}, tensor.F32))}
	})
	if f := dotFusion(t, m); f.Epilogue() {
		t.Errorf("the product took an epilogue:\n%s", m.FusedString())
	}
}

// A product an earlier kernel reads through a reshape (a reduction of its
// flattened form, before the loop fusion reading it directly) keeps its
// kernel, or that earlier kernel would read it before it is computed
// (found by TestDifferential, seed 31007382: 'fusion.0 reads %3 before a
// fusion computes it'); one read through a reshape after the epilogue's
// fusion makes the product a shared output.
func TestEpilogueReadThroughReshape(t *testing.T) {
	in := []trace.Abstract{abs(tensor.F32, 4, 6), abs(tensor.F32, 6, 4)}
	before := compile(t, in, lower.Options{Verify: true}, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		s := y.Reshape(16).Sum(0)
		return []trace.Value{y.Tanh().Add(s)}
	})
	if f := dotFusion(t, before); f.Epilogue() {
		t.Errorf("a product read through a reshape by an earlier kernel took an epilogue:\n%s", before.FusedString())
	}
	after := compile(t, in, lower.Options{Verify: true}, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		return []trace.Value{y.Tanh(), y.Reshape(16).Sum(0)}
	})
	if f := dotFusion(t, after); f.Epilogue() && (len(f.Outputs) != 2 || f.Outputs[1] != f.Dot()) {
		t.Errorf("a product read through a reshape by a later kernel is not stored for it:\n%s", after.FusedString())
	}
}

// A loop fusion reading a product both directly and through a reshape
// (hypot(y, y.reshape(...)) broadcast back) keeps the product in a kernel
// of its own: fused, the loop would read the reshape from the buffer it
// is still writing (TestDifferential, seed 31016751).
func TestEpilogueReadAlsoThroughReshape(t *testing.T) {
	in := []trace.Abstract{abs(tensor.F32, 1, 6), abs(tensor.F32, 6, 4)}
	m := compile(t, in, lower.Options{Verify: true}, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		return []trace.Value{y.Add(y.Reshape(4)).Tanh()}
	})
	if f := dotFusion(t, m); f.Epilogue() {
		t.Errorf("a product its loop also reads through a reshape took an epilogue:\n%s", m.FusedString())
	}
}
