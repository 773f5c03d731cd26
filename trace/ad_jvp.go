package trace

import (
	"fmt"
	"slices"
)

// jvp runs a program's equations in trace b (the primal values) and their
// JVP rules in trace tb (the tangents): tb is b itself for forward mode, or
// a sub-trace of b for linearization, whose program is then the linear
// program. Tangents are zero Values where they are zero.
type jvp struct {
	b, tb *builder
	env   map[*Var]Value // the program's vars → primal values in b
	tenv  map[*Var]Value // → tangents in tb (absent: zero)
	// ctrl holds every result of a differentiated control-flow equation,
	// by its result 0, for its result equations.
	ctrl map[*Var][2][]Value
	// lin is set for linearization (reverse mode): Checkpoints are
	// recomputed in tb, and CustomVJPs' rules apply.
	lin bool
	// customs are the program's custom regions whose rules apply;
	// opaque, the values of those whose derivatives a rule replaced
	// (custom.go).
	customs map[*Region]*customState
	opaque  map[*Var]*Region
	// remat holds the recomputations in tb of values of Checkpoints, and
	// rematIn the Checkpoint each belongs to.
	remat   map[*Var]Value
	rematIn map[*Var]*Region
}

// bindVar gives x, a value of trace b or a literal, as a var of exactly
// type of v (literals are materialized at it).
func (b *builder) bindVar(x Value, v *Var, op string) *Var {
	x = b.attach(x, op)
	if b.err != nil {
		return nil
	}
	if x.lit != nil {
		return b.to(x, v.Type, op, "")
	}
	if x.v == nil || x.v.Type != v.Type || !ShapeEqual(x.v.Shape, v.Shape) {
		got := "nothing"
		if x.v != nil {
			got = x.v.TypeString()
		}
		b.opErr(op, fmt.Errorf("an argument of type %s was given where %s was traced", got, v.TypeString()))
		return nil
	}
	return x.v
}

// ruleMode puts traces in the state derivative rules run in — equations
// at pos, operands of one type keeping it — and returns the function that
// restores them.
func ruleMode(pos *Pos, bs ...*builder) func() {
	type state struct {
		pos   *Pos
		exact bool
	}
	saved := make([]state, len(bs))
	for i, b := range bs {
		saved[i] = state{b.pos, b.exact}
	}
	for _, b := range bs {
		b.pos, b.exact = pos, true
	}
	return func() {
		for i := len(bs) - 1; i >= 0; i-- {
			bs[i].pos, bs[i].exact = saved[i].pos, saved[i].exact
		}
	}
}

// emitEqn emits a copy of e in b over args, at e's position.
func (b *builder) emitEqn(e *Eqn, args []Value) Value {
	vars := make([]*Var, len(args))
	for i, a := range args {
		if vars[i] = b.bindVar(a, e.Args[i], e.Op.String()); vars[i] == nil {
			return Value{b: b}
		}
	}
	saved := b.pos
	b.pos = &e.Pos
	out := b.emit(e.Op, vars, e.Out.Type, e.Out.Shape, e.Params, e.Why)
	b.pos = saved
	return out
}

func lookup(env map[*Var]Value, vs []*Var) []Value {
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = env[v]
	}
	return out
}

// run evaluates p over primals (one per input) with tangents (one per
// input, zero Values for zero) and returns the primal and tangent outputs.
func (j *jvp) run(p *Program, primals, tangents []Value) ([]Value, []Value) {
	j.env = make(map[*Var]Value, len(p.Inputs)+len(p.Eqns))
	j.tenv = map[*Var]Value{}
	for i, v := range p.Inputs {
		j.env[v] = primals[i]
		if !isZero(tangents[i]) {
			j.tenv[v] = tangents[i]
		}
	}
	j.customs = customRegions(p)
	for _, e := range p.Eqns {
		if j.b.err != nil {
			break
		}
		in := lookup(j.env, e.Args)
		if j.custom(e, in) || j.escaped(e, e.Args) || j.control(e, in) {
			continue
		}
		if e.Params.Mark.lin != nil {
			// A CustomVJP's stand-in, in a linear program being traced
			// (forward: kept, for the linearization to come) or
			// linearized (at zero, as vjpOf does: its value, linear in
			// its tangent operands, is zero — and an invalid op must not
			// reach a program that is run).
			if j.lin {
				j.env[e.Out] = zerosOf(j.b, e.Out.Type, e.Out.Shape)
			} else {
				j.env[e.Out] = j.b.emitEqn(e, in)
			}
			if t := j.standInJVP(e, in); !isZero(t) {
				j.tenv[e.Out] = t
			}
			continue
		}
		out := j.b.emitEqn(e, in)
		j.env[e.Out] = out
		if c := checkpointOf(e); c != nil && j.lin && e.Op.Info().Class != ClassControl {
			in, out = j.recompute(c, e, in)
		}
		if t := j.tangent(e, in, out); !isZero(t) {
			j.tenv[e.Out] = t
		}
	}
	j.escaped(nil, p.Outputs)
	return lookup(j.env, p.Outputs), lookup(j.tenv, p.Outputs)
}

// recompute emits e again in tb, over the recomputations of the values of
// Checkpoint c it reads and the stored values of the others, and returns
// the operands and result the derivative rule then uses: the rule's own
// operations on them are recomputations too (marked Params.Remat), which
// the transposition emits where the backward pass first needs them.
func (j *jvp) recompute(c *Region, e *Eqn, in []Value) ([]Value, Value) {
	if j.remat == nil {
		j.remat, j.rematIn = map[*Var]Value{}, map[*Var]*Region{}
	}
	rin := make([]Value, len(in))
	for i, a := range e.Args {
		if j.rematIn[a] == c {
			rin[i] = j.remat[a]
		} else {
			rin[i] = in[i]
		}
	}
	saved := j.tb.remat
	j.tb.remat = true
	defer func() { j.tb.remat = saved }()
	out := j.tb.emitEqn(e, rin)
	j.remat[e.Out], j.rematIn[e.Out] = out, c
	return rin, out
}

// tangent applies e's JVP rule, or returns a zero Value when the tangent
// is zero.
func (j *jvp) tangent(e *Eqn, in []Value, out Value) Value {
	if !e.Out.Type.DType.IsInexact() {
		return Value{} // float0: integer and bool results carry no tangent
	}
	ts := lookup(j.tenv, e.Args)
	if !slices.ContainsFunc(ts, func(t Value) bool { return !isZero(t) }) {
		return Value{}
	}
	r := RuleOf(e.Op)
	if r.Zero {
		return Value{}
	}
	c := &Call{Eqn: e, In: in, Out: out, Tangents: ts, lin: j.tb}
	defer ruleMode(&e.Pos, j.b, j.tb)()
	var t Value
	switch {
	case r.Linear:
		args := make([]Value, len(ts))
		for i := range ts {
			args[i] = c.Tangent(i)
		}
		t = j.tb.emitEqn(e, args)
	case r.JVP != nil:
		t = r.JVP(c)
	default:
		msg := r.NotDifferentiable
		if msg == "" {
			msg = "the op has no derivative rule"
		}
		j.b.derivErr(e, "cannot differentiate: %s", msg)
		return Value{}
	}
	if isZero(t) {
		return t
	}
	if t.b != j.tb {
		j.b.derivErr(e, "the JVP rule gave a tangent outside the tangent trace (a bug in the rule)")
		return Value{}
	}
	t, ok := j.tb.checkLike(e, "JVP", t, e.Out)
	if !ok {
		return Value{}
	}
	return t
}

// control differentiates a control-flow equation with a non-zero tangent
// in, or a result of one, taking all its results from one new equation
// (rules_control.go); it reports whether it did.
func (j *jvp) control(e *Eqn, in []Value) bool {
	switch e.Op {
	case OpResult:
		r, ok := j.ctrl[e.Args[0]]
		if !ok {
			return false
		}
		k := e.Params.Control.Index
		j.env[e.Out] = r[0][k]
		if !isZero(r[1][k]) {
			j.tenv[e.Out] = r[1][k]
		}
		return true
	case OpWhile, OpCond:
	default:
		return false
	}
	ts := lookup(j.tenv, e.Args)
	if !slices.ContainsFunc(ts, func(t Value) bool { return !isZero(t) }) {
		return false
	}
	c := &Call{Eqn: e, In: in, Tangents: ts, lin: j.tb}
	restore := ruleMode(&e.Pos, j.b, j.tb)
	prims, tans := controlJVP(c)
	restore()
	if prims == nil {
		if j.b.err == nil {
			j.b.derivErr(e, "internal error: no derivative of the control-flow equation")
		}
		return true
	}
	if j.ctrl == nil {
		j.ctrl = map[*Var][2][]Value{}
	}
	j.ctrl[e.Out] = [2][]Value{prims, tans}
	j.env[e.Out] = prims[0]
	if !isZero(tans[0]) {
		j.tenv[e.Out] = tans[0]
	}
	return true
}
