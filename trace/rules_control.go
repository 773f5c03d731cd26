package trace

// Derivatives of the control-flow ops. Forward mode runs the primal and
// tangent carries (or operands) through one new while (or cond) whose
// sub-programs are the JVPs of the original ones, as JAX's _while_loop_jvp
// and _cond_jvp: every inexact carry gets a tangent carry (zeros where the
// caller gave none), integer and bool carries none. The jvp interpreter
// (ad_jvp.go) takes all the results, primal and tangent, from that one
// equation, so the loop is not run twice.
//
// Reverse mode: rules_control_rev.go.

// jvpControlFirst is the JVP rule of while and cond as the rule table sees
// it: the tangent of result 0. The jvp interpreter calls controlJVP
// directly to get every result.
func jvpControlFirst(c *Call) Value {
	_, ts := controlJVP(c)
	if len(ts) == 0 {
		return Value{}
	}
	return ts[0]
}

// transposeControlFirst is the transpose rule of while and cond as the
// rule table sees it: result 0's cotangent only. The transposition
// (ad_transpose.go) calls transposeControl with every result's.
func transposeControlFirst(c *Call, ct Value) []Value { return transposeControl(c, []Value{ct}) }

// jvpResult: a result's tangent comes with its control-flow equation's
// (ad_jvp.go); reaching this rule means that equation was not
// differentiated.
func jvpResult(c *Call) Value {
	c.lin.derivErr(c.Eqn, "internal error: the tangent of a control-flow result without its equation's")
	return Value{}
}

// controlJVP gives every primal result and tangent (zero Values for
// results that are not inexact) of a while or cond equation.
func controlJVP(c *Call) ([]Value, []Value) {
	e := c.Eqn
	var b *builder
	for _, x := range c.In {
		if x.b != nil {
			b = x.b
			break
		}
	}
	if b == nil || b.err != nil {
		return nil, nil
	}
	tan := func(i int) Value {
		if !e.Args[i].Type.DType.IsInexact() {
			return Value{}
		}
		return c.Tangent(i)
	}
	if c.lin != b {
		return linearizeControl(b, c, tan)
	}
	if e.Op == OpWhile {
		return whileJVP(b, c, tan)
	}
	return condJVP(b, c, tan)
}

// inexactOf lists the positions of vs whose dtype is inexact.
func inexactOf(vs []*Var) []int {
	var out []int
	for i, v := range vs {
		if v.Type.DType.IsInexact() {
			out = append(out, i)
		}
	}
	return out
}

// jvpProgram runs program p's JVP in trace b: primals and tangents (zero
// Values for zero) per input; the tangents of the outputs listed in want
// are returned zeros-filled.
func jvpProgram(b *builder, p *Program, primals, tangents []Value, want []int) ([]Value, []Value) {
	// Values of enclosing traces (captured consts, their tangents) are
	// brought in first: rules must see their operands in b.
	primals = attachAll(b, "jvp", primals)
	tangents = append([]Value{}, tangents...)
	for i, t := range tangents {
		if !isZero(t) {
			tangents[i] = b.attach(t, "jvp")
		}
	}
	outs, ts := (&jvp{b: b, tb: b}).run(p, primals, tangents)
	wt := make([]Value, len(want))
	for k, i := range want {
		if isZero(ts[i]) {
			wt[k] = zerosOf(b, p.Outputs[i].Type, p.Outputs[i].Shape)
		} else {
			wt[k] = ts[i]
		}
	}
	return outs, wt
}

func whileJVP(b *builder, c *Call, tan func(int) Value) ([]Value, []Value) {
	e := c.Eqn
	cp := e.Params.Control
	cond, body := cp.Subs[0], cp.Subs[1]
	n := len(e.Args) - cp.NConsts[0] - cp.NConsts[1]
	condConsts := c.In[n : n+cp.NConsts[0]]
	bodyConsts := c.In[n+cp.NConsts[0]:]
	bodyConstT := make([]Value, len(bodyConsts))
	for i := range bodyConsts {
		bodyConstT[i] = tan(n + cp.NConsts[0] + i)
	}
	dyn := inexactOf(e.Args[:n]) // carries with a tangent carry
	init := append([]Value{}, c.In[:n]...)
	for _, i := range dyn {
		init = append(init, tan(i))
	}
	condFn := func(cs []Value) Value {
		outs, _ := jvpProgram(cs[0].b, cond, append(append([]Value{}, cs[:n]...), condConsts...), make([]Value, len(cond.Inputs)), nil)
		return outs[0]
	}
	bodyFn := func(cs []Value) []Value {
		ts := make([]Value, len(body.Inputs))
		for k, i := range dyn {
			ts[i] = cs[n+k]
		}
		copy(ts[n:], bodyConstT)
		outs, touts := jvpProgram(cs[0].b, body, append(append([]Value{}, cs[:n]...), bodyConsts...), ts, dyn)
		return append(outs, touts...)
	}
	pos := e.Pos
	rs := b.whileLoop("while_loop", pos, condFn, bodyFn, init, map[bool]int{true: cp.Trips, false: -1}[cp.Static], 0)
	if b.err != nil || len(rs) != n+len(dyn) {
		return nil, nil
	}
	ts := make([]Value, n)
	for k, i := range dyn {
		ts[i] = rs[n+k]
	}
	return rs[:n], ts
}

func condJVP(b *builder, c *Call, tan func(int) Value) ([]Value, []Value) {
	e := c.Eqn
	cp := e.Params.Control
	n := len(e.Args) - 1 - sum(cp.NConsts)
	ops := c.In[1 : 1+n]
	dyn := inexactOf(e.Args[1 : 1+n])
	// The index is operand 0 of the new branches too: it gives a branch
	// without operands a value of its trace to work in.
	operands := append([]Value{c.In[0]}, ops...)
	for _, i := range dyn {
		operands = append(operands, tan(1+i))
	}
	want := inexactOf(cp.Subs[0].Outputs)
	fns := branchJVPs(c, tan, n, dyn, want, true)
	nout := len(cp.Subs[0].Outputs)
	index := b.materialize(c.In[0], "cond")
	rs := b.branches("cond", e.Pos, index, fns, operands)
	if b.err != nil || len(rs) != nout+len(want) {
		return nil, nil
	}
	ts := make([]Value, nout)
	for k, i := range want {
		ts[i] = rs[nout+k]
	}
	return rs[:nout], ts
}

// branchJVPs are the functions of a cond's branches' JVPs: each takes the
// index (it gives a branch without operands a value of its trace to work
// in), then — withPrimals — the n primal operands, then the tangents of
// the operands dyn lists, and returns — withPrimals — the primal outputs,
// then the tangents of the outputs want lists. Without withPrimals the
// primal operands are the cond's own (c.In), recomputed in the branch.
func branchJVPs(c *Call, tan func(int) Value, n int, dyn, want []int, withPrimals bool) []func([]Value) []Value {
	cp := c.Eqn.Params.Control
	fns := make([]func([]Value) []Value, len(cp.Subs))
	at := 1 + n
	for bi, br := range cp.Subs {
		consts := c.In[at : at+cp.NConsts[bi]]
		constT := make([]Value, len(consts))
		for k := range consts {
			constT[k] = tan(at + k)
		}
		at += cp.NConsts[bi]
		fns[bi] = func(xs []Value) []Value {
			sb := xs[0].b
			xs = xs[1:]
			primals := c.In[1 : 1+n]
			if withPrimals {
				primals, xs = xs[:n], xs[n:]
			}
			ts := make([]Value, len(br.Inputs))
			for k, i := range dyn {
				ts[i] = xs[k]
			}
			copy(ts[n:], constT)
			outs, touts := jvpProgram(sb, br, append(append([]Value{}, primals...), consts...), ts, want)
			if withPrimals {
				return append(outs, touts...)
			}
			return touts
		}
	}
	return fns
}
