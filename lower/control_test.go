package lower_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func controlModule(t *testing.T) *lower.Module {
	t.Helper()
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{3}}}, func(a []trace.Value) []trace.Value {
		r := trace.ForiLoop(trace.Int(0), trace.Int(4), func(i trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{c[0].Mul(a[0]).Add(trace.Float(1))}
		}, a[0])
		return trace.Cond(r[0].Sum().Gt(trace.Float(0)), func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg()} },
			func(o []trace.Value) []trace.Value { return o }, r[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The printers show a while's and a cond's sub-modules nested under
// them: the module, the fused plan and the Graphviz graph.
func TestControlPrinters(t *testing.T) {
	m := controlModule(t)
	for name, c := range map[string]struct {
		text string
		want []string
	}{
		"module": {m.String(), []string{"while(", "cond = module {", "body = module {", "branch1 = module {", "trips=4"}},
		"fused":  {m.FusedString(), []string{"control", "cond: ", "body: ", "branch0: "}},
		"dot":    {m.DOT(), []string{"cluster_n", "body of %", "branch1 of %"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s printer lacks %q:\n%s", name, w, c.text)
			}
		}
	}
}

// Verify checks the sub-modules too, and says which one broke.
func TestVerifySubModules(t *testing.T) {
	m := controlModule(t)
	var loop *lower.Instr
	for _, in := range m.Instrs {
		if in.Op == trace.OpWhile {
			loop = in
		}
	}
	body := loop.Subs[1]
	body.Instrs[len(body.Instrs)-1].ID += 7 // misnumbered
	err := m.Verify()
	var ve *lower.VerifyError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "sub-module 1") {
		t.Fatalf("got %v, want a *VerifyError in sub-module 1", err)
	}
}
