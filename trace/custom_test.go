package trace

import (
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// customSin is sin with a custom JVP that is deliberately not its
// derivative (t·100), so a test can tell which one was used.
func customSin(x Value) Value {
	return CustomJVP(func(a []Value) []Value { return []Value{a[0].Sin()} },
		func(p, t []Value) ([]Value, []Value) {
			return []Value{p[0].Sin()}, []Value{t[0].Mul(Float(100))}
		})(x)[0]
}

// jvpOps traces the JVP of program p at one f64[3] argument and lists the
// ops of the result.
func jvpOps(t *testing.T, p *Program) []Op {
	t.Helper()
	q, err := Trace(promote.Config{}, []Abstract{AbstractOf(tensor.F64, []int{3})}, func(a []Value) []Value {
		_, ts := (&jvp{b: a[0].b, tb: a[0].b}).run(p, a, a)
		return ts
	})
	if err != nil {
		t.Fatal(err)
	}
	var ops []Op
	for _, e := range q.Eqns {
		ops = append(ops, e.Op)
	}
	return ops
}

// TestCustomRegionMarks: the marks of a custom function are in the
// program (printed), and its rule applies only while they are all there
// with the types they were traced with. A program whose argument mark was
// dropped, or rewritten to another shape — what a transformation that
// rewrites the function's ops (vmap) leaves — is differentiated through
// the function's own ops (sin → cos), never by the rule.
func TestCustomRegionMarks(t *testing.T) {
	p, err := Trace(promote.Config{}, []Abstract{AbstractOf(tensor.F64, []int{3})}, func(a []Value) []Value {
		return []Value{customSin(a[0])}
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.String(); !strings.Contains(s, "# custom_jvp argument 0") || !strings.Contains(s, "# custom_jvp result 0") {
		t.Errorf("the marks are not printed:\n%s", s)
	}
	if len(customRegions(p)) != 1 {
		t.Fatalf("%d custom regions whose rules apply, want 1:\n%s", len(customRegions(p)), p)
	}
	if ops := jvpOps(t, p); slices.Contains(ops, OpCos) || !slices.Contains(ops, OpMul) {
		t.Errorf("the rule (t·100) was not used: %v", ops)
	}
	// The argument mark dropped.
	dropped := *p
	dropped.Eqns = slices.Clone(p.Eqns)
	e := *dropped.Eqns[0]
	e.Params.Mark = Mark{}
	dropped.Eqns[0] = &e
	// The argument mark batched: its operand of another shape.
	batched := *p
	batched.Eqns = slices.Clone(p.Eqns)
	e2 := *batched.Eqns[0]
	e2.Args = []*Var{{ID: 99, Type: e2.Args[0].Type, Shape: []int{2, 3}}}
	batched.Eqns[0] = &e2
	for name, q := range map[string]*Program{"dropped": &dropped, "batched": &batched} {
		if len(customRegions(q)) != 0 {
			t.Errorf("%s: the rule still applies", name)
		}
	}
	if ops := jvpOps(t, &dropped); !slices.Contains(ops, OpCos) {
		t.Errorf("dropped: the function's own derivative was not used: %v", ops)
	}
}
