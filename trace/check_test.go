package trace_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// sample traces a program using every class of op: converts from
// promotion, unary and binary elementwise ops, select, a reduction with
// its accumulation convert, structural ops, argmax and a dot.
func sample(t *testing.T) *trace.Program {
	t.Helper()
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.Strong(tensor.F32), Shape: []int{2, 3}},
		{Type: promote.Strong(tensor.I8), Shape: []int{3}},
	}, func(a []trace.Value) []trace.Value {
		x, y := a[0], a[1]
		z := x.Mul(y).Add(trace.Float(1)).Exp()                              // convert, mul, const, add, exp
		w := trace.Where(z.Gt(trace.Int(0)), z, x.Neg()).Sum(0)              // gt, neg, select, reduce_sum
		u := x.Transpose().Reshape(6).Slice(0, 1, 5, 2)                      // transpose, reshape, slice
		v := trace.Concatenate(0, u, w.Astype(tensor.F32)).BroadcastTo(2, 5) // concatenate, broadcast
		return []trace.Value{v.MatMul(v.Transpose()), x.ArgMax(1), w}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("the sample program does not check: %v\n%s", err, p)
	}
	return p
}

// clone copies a program deeply enough to break the copy: new Vars, new
// Eqns, params copied.
func clone(p *trace.Program) *trace.Program {
	vars := map[*trace.Var]*trace.Var{}
	cp := func(v *trace.Var) *trace.Var {
		if v == nil {
			return nil
		}
		if n, ok := vars[v]; ok {
			return n
		}
		n := &trace.Var{ID: v.ID, Type: v.Type, Shape: slices.Clone(v.Shape)}
		vars[v] = n
		return n
	}
	q := &trace.Program{Config: p.Config, NumVars: p.NumVars}
	for _, v := range p.Inputs {
		q.Inputs = append(q.Inputs, cp(v))
	}
	for _, e := range p.Eqns {
		ne := *e
		ne.Args = nil
		for _, a := range e.Args {
			ne.Args = append(ne.Args, cp(a))
		}
		ne.Out = cp(e.Out)
		ne.Params.Axes = slices.Clone(e.Params.Axes)
		ne.Params.Perm = slices.Clone(e.Params.Perm)
		ne.Params.Shape = slices.Clone(e.Params.Shape)
		q.Eqns = append(q.Eqns, &ne)
	}
	for _, o := range p.Outputs {
		q.Outputs = append(q.Outputs, cp(o))
	}
	return q
}

// find returns the index of the first equation of op.
func find(t *testing.T, p *trace.Program, op trace.Op) int {
	t.Helper()
	for i, e := range p.Eqns {
		if e.Op == op {
			return i
		}
	}
	t.Fatalf("no %s in the sample:\n%s", op, p)
	return -1
}

// TestCheckCatchesBrokenPrograms breaks a well-formed program in one way
// at a time; Check must report each with the right kind.
func TestCheckCatchesBrokenPrograms(t *testing.T) {
	cases := []struct {
		name   string
		kind   trace.CheckKind
		msg    string
		break_ func(t *testing.T, p *trace.Program)
	}{
		{"use before definition", trace.CheckSSA, "used before it is defined", func(t *testing.T, p *trace.Program) {
			i := find(t, p, trace.OpExp)
			p.Eqns[i], p.Eqns[i-1] = p.Eqns[i-1], p.Eqns[i]
		}},
		{"defined twice", trace.CheckSSA, "defined twice", func(t *testing.T, p *trace.Program) {
			p.Eqns[3].Out = p.Eqns[1].Out
		}},
		{"id beyond NumVars", trace.CheckSSA, "NumVars", func(t *testing.T, p *trace.Program) {
			p.Eqns[2].Out.ID = p.NumVars
		}},
		{"two values with one id", trace.CheckSSA, "ID of another value", func(t *testing.T, p *trace.Program) {
			p.Eqns[2].Out.ID = p.Inputs[0].ID
		}},
		{"output not in the program", trace.CheckSSA, "output 1", func(t *testing.T, p *trace.Program) {
			p.Outputs[1] = &trace.Var{ID: 0, Type: promote.Strong(tensor.I64)}
		}},
		{"no outputs", trace.CheckSSA, "no outputs", func(t *testing.T, p *trace.Program) { p.Outputs = nil }},
		{"operand dtypes differ", trace.CheckType, "share one type", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpMul)]
			e.Args[1] = p.Inputs[1] // the i8 input, not its convert to f32
		}},
		{"weak flag dropped", trace.CheckType, "want f32", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpExp)]
			e.Out.Type.Weak = !e.Out.Type.Weak
		}},
		{"comparison not bool", trace.CheckType, "want bool", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpGt)].Out.Type = promote.Strong(tensor.F32)
		}},
		{"weak bool", trace.CheckType, "never weak", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpGt)].Out.Type.Weak = true
		}},
		{"convert to another dtype", trace.CheckType, "convert to", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpConvert)].Params.DType = tensor.F64
		}},
		{"integer exp", trace.CheckType, "inexact", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpMul)]
			e.Op = trace.OpExp
			e.Args = []*trace.Var{p.Inputs[1]}
			e.Out.Type, e.Out.Shape = promote.Strong(tensor.I8), []int{3}
		}},
		{"bool subtract", trace.CheckType, "boolean subtract", func(t *testing.T, p *trace.Program) {
			gt := p.Eqns[find(t, p, trace.OpGt)]
			e := p.Eqns[find(t, p, trace.OpNeg)]
			e.Op, e.Args, e.Out.Type, e.Out.Shape = trace.OpSub, []*trace.Var{gt.Out, gt.Out}, gt.Out.Type, gt.Out.Shape
		}},
		{"select predicate not bool", trace.CheckType, "predicate", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpSelect)]
			e.Args[0] = e.Args[1]
		}},
		{"result shape", trace.CheckShape, "result has shape", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpExp)].Out.Shape = []int{3, 2}
		}},
		{"shapes do not broadcast", trace.CheckShape, "do not broadcast", func(t *testing.T, p *trace.Program) {
			v := &trace.Var{ID: p.NumVars, Type: promote.Strong(tensor.F32), Shape: []int{4}}
			p.Inputs, p.NumVars = append(p.Inputs, v), p.NumVars+1
			p.Eqns[find(t, p, trace.OpMul)].Args[1] = v
		}},
		{"negative dimension", trace.CheckShape, "negative", func(t *testing.T, p *trace.Program) {
			p.Inputs[0].Shape = []int{-2, 3}
		}},
		{"reshape changes size", trace.CheckShape, "number of elements", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpReshape)]
			e.Out.Shape, e.Params.Shape = []int{7}, []int{7}
		}},
		{"unsorted axes", trace.CheckParams, "sorted", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpArgMax)]
			e.Params.Axes = []int{2}
		}},
		{"not a permutation", trace.CheckParams, "permutation", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpTranspose)].Params.Perm = []int{0, 0}
		}},
		{"slice out of range", trace.CheckParams, "out of range", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpSlice)].Params.Limit = []int{9}
		}},
		{"dot dimension numbers", trace.CheckParams, "contracting", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpDot)].Params.Dot.RhsContract = []int{1}
		}},
		{"refused preferred_element_type", trace.CheckParams, "narrower", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpDot)]
			e.Params.Preferred, e.Params.HasPreferred = tensor.F16, true
			e.Out.Type = promote.Strong(tensor.F16)
		}},
		{"result not of the preferred type", trace.CheckType, "the result", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpDot)]
			e.Params.Preferred, e.Params.HasPreferred = tensor.F64, true
		}},
		{"constant without a value", trace.CheckParams, "without a value", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpConst)].Params.Value = nil
		}},
		{"argmax index dtype", trace.CheckParams, "integer", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpArgMax)].Params.DType = tensor.F32
		}},
		{"arity", trace.CheckOp, "operands", func(t *testing.T, p *trace.Program) {
			e := p.Eqns[find(t, p, trace.OpAdd)]
			e.Args = e.Args[:1]
		}},
		{"param equation", trace.CheckOp, "not an equation", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpNeg)].Op = trace.OpParam
		}},
		{"unknown op", trace.CheckOp, "unknown op", func(t *testing.T, p *trace.Program) {
			p.Eqns[find(t, p, trace.OpNeg)].Op = trace.Op(trace.NumOps + 3)
		}},
	}
	good := sample(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := clone(good)
			c.break_(t, p)
			err := p.CheckAfter("breaker")
			var ce *trace.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("Check = %v, want a *trace.CheckError\n%s", err, good)
			}
			if ce.Kind != c.kind || ce.Pass != "breaker" || !strings.Contains(ce.Error(), c.msg) {
				t.Errorf("Check = %v (kind %v), want kind %v and %q", err, ce.Kind, c.kind, c.msg)
			}
		})
	}
	if err := good.Check(); err != nil {
		t.Errorf("breaking copies changed the original: %v", err)
	}
}

// TestEveryOpHasATypingRule: the verifiers can check every op of the
// table, either by its own rule or by its class's.
func TestEveryOpHasATypingRule(t *testing.T) {
	for _, op := range trace.AllOps() {
		// An op without a rule is reported as such, whatever its operands.
		err := op.CheckTypes(nil, trace.Abstract{}, nil)
		if err != nil && strings.Contains(err.Error(), "no typing rule") {
			t.Errorf("%s: %v", op, err)
		}
	}
}

// TestHoistWeakScalars: a weak scalar input converted to one type
// becomes an input of that type, weak flag included (a weak result of
// promotion stays weak), and the program still checks.
func TestHoistWeakScalars(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.WeakOf(tensor.I64)},
		{Type: promote.WeakOf(tensor.C128), Shape: []int{3}},
		{Type: promote.Strong(tensor.F32), Shape: []int{3}},
	}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Add(a[1]), a[2].Mul(trace.Int(2))}
	})
	if err != nil {
		t.Fatal(err)
	}
	q, hoisted, err := trace.HoistWeakScalars(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(hoisted) != 1 || hoisted[0].Input != 0 || hoisted[0].DType != tensor.C128 {
		t.Fatalf("hoisted %v, want input 0 to c128\n%s", hoisted, q)
	}
	if got := q.Inputs[0].Type; got != promote.WeakOf(tensor.C128) {
		t.Errorf("the hoisted input is %s, want c128* (the convert's type)", got)
	}
	if n := strings.Count(q.String(), "convert"); n != 0 {
		t.Errorf("%d converts left:\n%s", n, q)
	}
	if err := q.CheckAfter(trace.HoistPass); err != nil {
		t.Errorf("%v\n%s", err, q)
	}
	if err := p.Check(); err != nil || strings.Count(p.String(), "convert") != 1 {
		t.Errorf("the pass changed its input (%v):\n%s", err, p)
	}
}
