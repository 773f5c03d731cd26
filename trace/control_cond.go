package trace

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Cond is lax.cond: onTrue(operands) when pred holds, else
// onFalse(operands). Both branches are traced once and must return the
// same number of values with equal dtypes and shapes; only the chosen one
// runs. pred is a scalar bool, or an integer scalar (nonzero is true), as
// JAX's cond accepts; a float or non-scalar pred is a *ControlError.
func Cond(pred Value, onTrue, onFalse func(ops []Value) []Value, operands ...Value) []Value {
	pos := callerPos()
	return controlValues("cond", append([]Value{pred}, operands...), func(b *builder, xs []Value) []Value {
		const name = "cond"
		p := b.materialize(b.attach(xs[0], name), name)
		if p == nil {
			return inert(b, 1)
		}
		if p.Rank() != 0 {
			b.controlErr(name, pos, "Pred must be a scalar, got a value of shape %s", shapeString(p.Shape))
			return inert(b, 1)
		}
		switch d := p.Type.DType; {
		case d == tensor.Bool:
		case d.IsInteger():
			p = b.emit(OpNe, []*Var{p, b.to(Value{b: b, lit: &literal{kind: tensor.KindInt}}, p.Type, name, "")}, promote.Strong(tensor.Bool), nil, Params{}, "").v
		default:
			b.controlErr(name, pos, "Pred type must be either boolean or number, got %s", d)
			return inert(b, 1)
		}
		index := b.emit(OpConvert, []*Var{p}, promote.Strong(tensor.I32), nil, Params{DType: tensor.I32}, "cond's predicate as the branch index")
		return b.branches(name, pos, index.v, []func([]Value) []Value{onFalse, onTrue}, xs[1:])
	})
}

// Switch is lax.switch: branches[index](operands), index clamped into
// [0, len(branches)−1] as JAX clamps it. index is an integer scalar; the
// branches are traced once each and must agree on their outputs' dtypes
// and shapes. With one branch it is simply called, as in JAX.
func Switch(index Value, branches []func(ops []Value) []Value, operands ...Value) []Value {
	pos := callerPos()
	return controlValues("switch", append([]Value{index}, operands...), func(b *builder, xs []Value) []Value {
		const name = "switch"
		if len(branches) == 0 {
			b.controlErr(name, pos, "Empty branch sequence")
			return inert(b, 1)
		}
		x := b.materialize(b.attach(xs[0], name), name)
		if x == nil {
			return inert(b, 1)
		}
		if x.Rank() != 0 {
			b.controlErr(name, pos, "Branch index must be scalar, got a value of shape %s", shapeString(x.Shape))
			return inert(b, 1)
		}
		if !x.Type.DType.IsInteger() {
			b.controlErr(name, pos, "Index type must be an integer, got %s", x.Type)
			return inert(b, 1)
		}
		if len(branches) == 1 {
			if branches[0] == nil {
				b.controlErr(name, pos, "a nil function")
				return inert(b, 1)
			}
			return branches[0](xs[1:])
		}
		i := Value{b: b, v: b.to(Value{b: b, v: x}, promote.Strong(tensor.I32), name, "switch's index is an i32")}
		i = i.Clip(Scalar(i, 0), Scalar(i, complex(float64(len(branches)-1), 0)))
		if b.err != nil {
			return inert(b, 1)
		}
		return b.branches(name, pos, i.v, branches, xs[1:])
	})
}

// branches traces each branch over the operands and emits the cond
// equation choosing one by index (an i32 scalar in range).
func (b *builder) branches(name string, pos Pos, index *Var, fns []func([]Value) []Value, operands []Value) []Value {
	for _, f := range fns {
		if f == nil {
			b.controlErr(name, pos, "a nil function")
			return inert(b, 1)
		}
	}
	ops := b.controlOperands(name, operands)
	if ops == nil && len(operands) > 0 {
		return inert(b, 1)
	}
	in := abstracts(ops)
	progs, caps, e := b.traceBranches(name, pos, fns, in)
	if progs == nil {
		return inert(e, 1)
	}
	// The equation goes where the branches' traces ended up (b, or a
	// trace inside it whose values they use).
	vals := []Value{{b: b, v: index}}
	for _, v := range ops {
		vals = append(vals, Value{b: b, v: v})
	}
	nconsts := make([]int, len(progs))
	for i, c := range caps {
		vals = append(vals, c...)
		nconsts[i] = len(c)
	}
	args := e.inTrace(name, vals)
	if e.err != nil {
		return inert(e, 1)
	}
	outs := progs[0].Outputs
	saved := e.pos
	e.pos = &pos
	out := e.emit(OpCond, args, outs[0].Type, outs[0].Shape, Params{Control: ControlParams{Subs: progs, NConsts: nconsts}}, "")
	rs := e.results(out, len(outs), func(k int) (promote.Type, []int) { return outs[k].Type, outs[k].Shape })
	e.pos = saved
	return rs
}

// traceBranches traces every branch (converting outputs to join's types
// when given) and checks they agree; it returns the joined output types
// when some output is weak in one branch and strong in another.
func (b *builder) traceBranches(name string, pos Pos, fns []func([]Value) []Value, in []Abstract) ([]*Program, [][]Value, *builder) {
	progs := make([]*Program, len(fns))
	caps := make([][]Value, len(fns))
	e := b // each branch is traced where the ones before it ended up
	for i, f := range fns {
		if progs[i], caps[i], e = e.subTrace(in, f); progs[i] == nil {
			return nil, nil, e
		}
	}
	what := func(i int) string {
		if name == "cond" {
			return "true_fun and false_fun output"
		}
		return fmt.Sprintf("branch 0 and %d outputs", i)
	}
	first := progs[0].Outputs
	join := make([]promote.Type, len(first))
	for k, v := range first {
		join[k] = v.Type
	}
	for i, p := range progs[1:] {
		if len(p.Outputs) != len(first) {
			b.controlErr(name, pos, "%s must have the same number of values: %d and %d", what(i+1), len(first), len(p.Outputs))
			return nil, nil, b
		}
		var diffs []string
		for k, o := range p.Outputs {
			f := first[k]
			if o.Type.DType != f.Type.DType || !ShapeEqual(o.Shape, f.Shape) {
				diffs = append(diffs, fmt.Sprintf("output %d is %s in one and %s in the other", k, f.TypeString(), o.TypeString()))
			} else if o.Type.Weak != f.Type.Weak {
				join[k] = promote.Strong(o.Type.DType)
			}
		}
		if len(diffs) > 0 {
			b.controlErr(name, pos, "%s must have identical types, got: %s", what(i+1), strings.Join(diffs, "; "))
			return nil, nil, b
		}
	}
	for _, p := range progs {
		for k, t := range join {
			if p.Outputs[k].Type != t {
				p.convertOutput(k, t, "an output weak in one branch and strong in another is strong")
			}
		}
	}
	return progs, caps, e
}

// convertOutput makes output k of a traced program type t with a convert
// equation at its end.
func (p *Program) convertOutput(k int, t promote.Type, why string) {
	o := p.Outputs[k]
	v := &Var{ID: p.NumVars, Type: t, Shape: append([]int{}, o.Shape...)}
	p.NumVars++
	p.Eqns = append(p.Eqns, &Eqn{Op: OpConvert, Args: []*Var{o}, Out: v, Params: Params{DType: t.DType}, Why: why})
	p.Outputs[k] = v
}
