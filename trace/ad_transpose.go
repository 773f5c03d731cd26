package trace

import "slices"

// linearization is a program linearized at primal values: the primal
// outputs, computed in trace b, and the linear program (trace tb, a
// sub-trace of b) mapping the tangents of the differentiated inputs to the
// tangents of the outputs. The linear program's inputs are those tangents,
// then the residuals: the primal values of b its equations use.
type linearization struct {
	b, tb *builder
	ntan  int     // linear inputs: tb.prog.Inputs[:ntan]
	outs  []Value // primal outputs
	touts []Value // tangents of the outputs in tb, zero Values where zero
}

// linearize evaluates p at primals in b and records the tangent of every
// output as a linear function of the tangents of the inputs diff marks.
func linearize(b *builder, p *Program, primals []Value, diff []bool) *linearization {
	tb := newBuilder(b.cfg, b)
	tb.linear = true
	tangents := make([]Value, len(primals))
	l := &linearization{b: b, tb: tb}
	for i, v := range p.Inputs {
		if i < len(diff) && diff[i] {
			tv := tb.newVar(v.Type, v.Shape)
			tb.prog.Inputs = append(tb.prog.Inputs, tv)
			tangents[i] = Value{b: tb, v: tv}
			l.ntan++
		}
	}
	j := &jvp{b: b, tb: tb, lin: true}
	l.outs, l.touts = j.run(p, primals, tangents)
	return l
}

// transpose runs the linear program backwards from the outputs'
// cotangents cts (zero Values for zero) and returns the cotangents of the
// linear inputs (zero Values where zero), in trace b: the linearization's
// primal trace or a trace inside it (where the cotangents come from).
func (l *linearization) transpose(b *builder, cts []Value) []Value {
	lp := l.tb.prog
	res := make([]Value, l.ntan)
	if b.err != nil {
		return res
	}
	linear := make(map[*Var]bool, len(lp.Eqns)+l.ntan)
	env := make(map[*Var]Value, len(lp.Eqns))
	for _, v := range lp.Inputs[:l.ntan] {
		linear[v] = true
	}
	for i, v := range lp.Inputs[l.ntan:] {
		env[v] = b.attach(l.tb.captured[i], "transpose")
	}
	// Equations that do not depend on a tangent (constants made by rules,
	// ops on residuals) are evaluated forward, in b. A Checkpoint's
	// recomputations (Params.Remat) and what reads them wait until the
	// backward pass first needs them, so each is live only from there.
	deferred := map[*Var]*Eqn{}
	var primal func(v *Var) Value
	primal = func(v *Var) Value {
		if x, ok := env[v]; ok {
			return x
		}
		e, ok := deferred[v]
		if !ok {
			return Value{}
		}
		args := make([]Value, len(e.Args))
		for i, a := range e.Args {
			args[i] = primal(a)
		}
		x := b.emitEqn(e, args)
		env[v] = x
		return x
	}
	for _, e := range lp.Eqns {
		switch {
		case slices.ContainsFunc(e.Args, func(a *Var) bool { return linear[a] }):
			linear[e.Out] = true
		case e.Params.Remat || slices.ContainsFunc(e.Args, func(a *Var) bool { return deferred[a] != nil }):
			deferred[e.Out] = e
		case e.Params.Mark.lin != nil:
			// Only bwd knows a CustomVJP, as a transpose: its value at
			// operands that are not tangents cannot be computed.
			b.fail(&DerivError{Op: "custom_vjp", Pos: e.Params.Mark.Region.Pos,
				Msg: "its tangent input is no tangent (a value that does not depend on the differentiated arguments — a custom_jvp rule's constant tangent?): it cannot be evaluated"})
			return res
		default:
			env[e.Out] = b.emitEqn(e, lookup(env, e.Args))
		}
	}
	ct := map[*Var]Value{}
	add := func(v *Var, x Value) {
		if prev, ok := ct[v]; ok {
			restore := ruleMode(b.pos, b) // the sum keeps the cotangents' type
			x = prev.Add(x)
			restore()
		}
		ct[v] = x
	}
	for i, t := range l.touts {
		if !isZero(t) && !isZero(cts[i]) && linear[t.v] {
			add(t.v, b.attach(cts[i], "transpose"))
		}
	}
	// A control-flow equation's results k ≥ 1 are result equations after
	// it: their cotangents wait here, by its result 0, until it is reached.
	results := map[*Var][]Value{}
	for k := len(lp.Eqns) - 1; k >= 0 && b.err == nil; k-- {
		e := lp.Eqns[k]
		g, ok := ct[e.Out]
		if !linear[e.Out] {
			continue
		}
		if e.Params.Mark.lin != nil {
			// A CustomVJP's stand-ins are consecutive: at the last, the
			// cotangents of all its results are complete.
			group := standIns(lp.Eqns, k)
			cts := make([]Value, len(e.Params.Mark.Region.Out))
			for _, s := range group {
				cts[s.Params.Mark.Out-1] = ct[s.Out]
				delete(ct, s.Out)
			}
			transposeCustom(b, group, cts, primal, add)
			k -= len(group) - 1
			continue
		}
		switch e.Op {
		case OpResult:
			if ok {
				delete(ct, e.Out)
				rs := results[e.Args[0]]
				if rs == nil {
					rs = make([]Value, e.Params.Control.Index+1)
				}
				for len(rs) <= e.Params.Control.Index {
					rs = append(rs, Value{})
				}
				rs[e.Params.Control.Index] = g
				results[e.Args[0]] = rs
			}
			continue
		case OpWhile, OpCond:
			rs := results[e.Out]
			if !ok && rs == nil {
				continue
			}
			if rs == nil {
				rs = []Value{{}}
			}
			if ok {
				rs[0] = g
			}
			delete(ct, e.Out)
			transposeControlEqn(b, e, rs, primal, linear, add)
			continue
		}
		if !ok {
			continue
		}
		delete(ct, e.Out)
		transposeEqn(b, e, g, primal, linear, add)
	}
	for i, v := range lp.Inputs[:l.ntan] {
		if g, ok := ct[v]; ok {
			res[i] = g
		}
	}
	return res
}

// transposeControlEqn is transposeEqn for a while or cond, with the
// cotangents of all its results (zero Values where none).
func transposeControlEqn(b *builder, e *Eqn, cts []Value, primal func(*Var) Value, linear map[*Var]bool, add func(*Var, Value)) {
	c := &Call{Eqn: e, In: make([]Value, len(e.Args)), Linear: make([]bool, len(e.Args)), lin: b}
	for i, a := range e.Args {
		if c.Linear[i] = linear[a]; !c.Linear[i] {
			c.In[i] = primal(a)
		}
	}
	restore := ruleMode(&e.Pos, b)
	out := transposeControl(c, cts)
	restore()
	for i, a := range e.Args {
		if !c.Linear[i] || i >= len(out) || isZero(out[i]) {
			continue
		}
		g, ok := b.checkLike(e, "transpose", out[i], a)
		if !ok {
			return
		}
		add(a, g)
	}
}

// transposeEqn applies e's transpose rule to its result's cotangent g and
// adds the operands' cotangents with add.
func transposeEqn(b *builder, e *Eqn, g Value, primal func(*Var) Value, linear map[*Var]bool, add func(*Var, Value)) {
	r := RuleOf(e.Op)
	if r.Transpose == nil {
		b.derivErr(e, "cannot transpose: the op is not linear in a tangent (a bug in a JVP rule)")
		return
	}
	c := &Call{Eqn: e, In: make([]Value, len(e.Args)), Linear: make([]bool, len(e.Args)), lin: b}
	for i, a := range e.Args {
		if c.Linear[i] = linear[a]; !c.Linear[i] {
			c.In[i] = primal(a)
		}
	}
	restore := ruleMode(&e.Pos, b)
	cts := r.Transpose(c, g)
	restore()
	for i, a := range e.Args {
		if !c.Linear[i] || i >= len(cts) || isZero(cts[i]) {
			continue
		}
		g, ok := b.checkLike(e, "transpose", cts[i], a)
		if !ok {
			return
		}
		add(a, g)
	}
}
