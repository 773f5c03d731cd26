package trace

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// TestEveryOpHasARule checks the rules table: every op of the op table
// says how it is differentiated (exactly one of Zero, Linear, JVP and
// NotDifferentiable), and every op that can be linear in a tangent can be
// transposed.
func TestEveryOpHasARule(t *testing.T) {
	for op := OpInvalid; op < numOps; op++ {
		r := RuleOf(op)
		kinds := 0
		for _, set := range []bool{r.Zero, r.Linear, r.JVP != nil, r.NotDifferentiable != ""} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			t.Errorf("%s: %d kinds of derivative rule (Zero, Linear, JVP, NotDifferentiable); want exactly 1 — add its row to rules.go", op, kinds)
		}
		if r.Linear && r.Transpose == nil {
			t.Errorf("%s: a linear op needs a Transpose rule", op)
		}
		if (r.Zero || r.NotDifferentiable != "") && r.Transpose != nil {
			t.Errorf("%s: a Transpose rule on an op no tangent flows through", op)
		}
	}
}

// TestNoRuleIsAnError checks that differentiating through an op without a
// derivative is a *DerivError naming the op and the user's line, in
// forward and reverse mode, never a silent zero.
func TestNoRuleIsAnError(t *testing.T) {
	saved := rules[OpSin]
	defer func() { rules[OpSin] = saved }()
	f := func(x []Value) []Value { return []Value{x[0].Sin().Sum()} }
	in := []Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{3}}}
	for _, r := range []Rule{{}, {NotDifferentiable: "sin is not differentiable today"}} {
		rules[OpSin] = r
		for mode, g := range map[string]func([]Value) []Value{
			"grad": func(a []Value) []Value { return Grad(f, GradOptions{})(a...) },
			"jvp":  func(a []Value) []Value { _, ts := JVP(f, a, a); return ts },
		} {
			_, err := Trace(promote.Config{}, in, g)
			var de *DerivError
			if !errors.As(err, &de) || de.Op != "sin" || !strings.Contains(err.Error(), "rules_test.go:") {
				t.Errorf("%s with rule %+v: error %v, want a *DerivError for sin at this file", mode, r, err)
			}
			if r.NotDifferentiable != "" && !strings.Contains(err.Error(), r.NotDifferentiable) {
				t.Errorf("%s: %v does not say why", mode, err)
			}
		}
	}
}
