package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// The typing rules of the control-flow ops. Each checks its sub-programs
// (Program.Check) and that they fit the operands and the result. Dtypes
// and shapes must agree; weak flags are not compared, because lowering
// erases them from the operands while the sub-programs keep theirs.

// The rules of while and cond check their sub-programs with
// Program.Check, which reads the op table: set in init to break the cycle.
func init() {
	ops[OpWhile].Check = checkWhile
	ops[OpCond].Check = checkCond
}

// fits fails unless v's dtype and shape are a's.
func fits(what string, a Abstract, v *Var) *CheckError {
	if a.Type.DType != v.Type.DType || !ShapeEqual(a.Shape, v.Shape) {
		return fault(CheckType, "%s is %s%s, the sub-program's %s is %s", what, a.Type.DType, shapeString(a.Shape), v.Name(), v.TypeString())
	}
	return nil
}

// checkSub checks sub-program p and that its inputs are the given
// operands (in order).
func checkSub(name string, p *Program, in []Abstract) *CheckError {
	if p == nil {
		return fault(CheckParams, "%s: no sub-program", name)
	}
	if err := p.Check(); err != nil {
		ce, _ := err.(*CheckError)
		if ce == nil {
			return fault(CheckParams, "%s: %v", name, err)
		}
		return fault(ce.Kind, "%s: %s", name, ce.Error())
	}
	if len(p.Inputs) != len(in) {
		return fault(CheckParams, "%s takes %d inputs, the equation gives it %d", name, len(p.Inputs), len(in))
	}
	for i, v := range p.Inputs {
		if err := fits(fmt.Sprintf("%s's input %d", name, i), in[i], v); err != nil {
			return err
		}
	}
	return nil
}

func checkWhile(op Op, args []Abstract, out Abstract, p *Params) error {
	c := p.Control
	if len(c.Subs) != 2 || len(c.NConsts) != 2 || c.NConsts[0] < 0 || c.NConsts[1] < 0 {
		return fault(CheckParams, "a while has two sub-programs (cond, body) and two capture counts, got %d and %v", len(c.Subs), c.NConsts)
	}
	n := len(args) - c.NConsts[0] - c.NConsts[1]
	if n < 1 {
		return fault(CheckParams, "%d operands for %v captures leave no carry", len(args), c.NConsts)
	}
	carry := args[:n]
	condIn := append(append([]Abstract{}, carry...), args[n:n+c.NConsts[0]]...)
	bodyIn := append(append([]Abstract{}, carry...), args[n+c.NConsts[0]:]...)
	if err := checkSub("cond", c.Subs[0], condIn); err != nil {
		return err
	}
	if o := c.Subs[0].Outputs; len(o) != 1 || o[0].Type.DType != tensor.Bool || o[0].Rank() != 0 {
		return fault(CheckType, "cond must return one bool scalar")
	}
	if err := checkSub("body", c.Subs[1], bodyIn); err != nil {
		return err
	}
	if len(c.Subs[1].Outputs) != n {
		return fault(CheckParams, "the body returns %d values for %d carries", len(c.Subs[1].Outputs), n)
	}
	for i, o := range c.Subs[1].Outputs {
		if err := fits(fmt.Sprintf("carry %d", i), carry[i], o); err != nil {
			return err
		}
	}
	if out.Type.DType != carry[0].Type.DType || !ShapeEqual(out.Shape, carry[0].Shape) {
		return fault(CheckType, "the result is %s%s, carry 0 is %s%s", out.Type.DType, shapeString(out.Shape), carry[0].Type.DType, shapeString(carry[0].Shape))
	}
	return nil
}

func checkCond(op Op, args []Abstract, out Abstract, p *Params) error {
	c := p.Control
	if len(c.Subs) < 1 || len(c.NConsts) != len(c.Subs) {
		return fault(CheckParams, "a cond has one or more branches and a capture count for each, got %d and %d", len(c.Subs), len(c.NConsts))
	}
	if a := args[0]; a.Type.DType != tensor.I32 || len(a.Shape) != 0 {
		return fault(CheckType, "the branch index is %s%s, want an i32 scalar", a.Type.DType, shapeString(a.Shape))
	}
	n := len(args) - 1 - sum(c.NConsts)
	if n < 0 {
		return fault(CheckParams, "%d operands for %v captures", len(args), c.NConsts)
	}
	at := 1 + n
	for i, br := range c.Subs {
		in := append(append([]Abstract{}, args[1:1+n]...), args[at:at+c.NConsts[i]]...)
		at += c.NConsts[i]
		name := fmt.Sprintf("branch %d", i)
		if err := checkSub(name, br, in); err != nil {
			return err
		}
		first := c.Subs[0].Outputs
		if len(br.Outputs) != len(first) {
			return fault(CheckParams, "branch %d returns %d values, branch 0 %d", i, len(br.Outputs), len(first))
		}
		for k, o := range br.Outputs {
			if err := fits(fmt.Sprintf("%s's output %d", name, k), Abstract{Type: first[k].Type, Shape: first[k].Shape}, o); err != nil {
				return err
			}
		}
	}
	o := c.Subs[0].Outputs[0]
	if out.Type.DType != o.Type.DType || !ShapeEqual(out.Shape, o.Shape) {
		return fault(CheckType, "the result is %s%s, the branches' output 0 is %s", out.Type.DType, shapeString(out.Shape), o.TypeString())
	}
	return nil
}

// checkResult checks what the rule can see of a result equation; the
// program's Check checks it against the equation it projects.
func checkResult(op Op, args []Abstract, out Abstract, p *Params) error {
	if p.Control.Index < 1 {
		return fault(CheckParams, "result %d: result 0 is the control-flow equation's own", p.Control.Index)
	}
	return nil
}

// checkProjection checks a result equation against the control-flow
// equation that made its operand (nil when none did).
func checkProjection(e *Eqn, src *Eqn) *CheckError {
	if src == nil || (src.Op != OpWhile && src.Op != OpCond) {
		return fault(CheckSSA, "the operand of result is not a while's or a cond's result 0")
	}
	k := e.Params.Control.Index
	if k >= src.NumResults() {
		return fault(CheckParams, "result %d of a %s with %d results", k, src.Op, src.NumResults())
	}
	t, s := src.ResultType(k)
	if t != e.Out.Type || !ShapeEqual(s, e.Out.Shape) {
		return fault(CheckType, "result %d is %s, the %s's result %d is %s%s", k, e.Out.TypeString(), src.Op, k, t, shapeString(s))
	}
	return nil
}
