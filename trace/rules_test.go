package trace

import "testing"

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
