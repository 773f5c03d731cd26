package trace

import (
	"fmt"
	"slices"
)

// Checkpoint, CustomJVP and CustomVJP (jax.checkpoint, jax.custom_jvp,
// jax.custom_vjp) are regions of a program: their function is traced
// inline, into the trace of their arguments, and every equation emitted
// while it runs is marked with the application's *Region (Params.Mark).
// The mark travels with the equations: a transformation that copies an
// equation (JVP, linearization, transposition, a rebuild) copies its
// Params, so the region is still there for the next transformation, and
// everything that ignores marks (the lowering, the printers, the
// evaluators) sees the ordinary ops the function is made of.
//
// A custom region's arguments and results are marked too, by reshapes of
// each value to its own shape (no-ops: the lowering drops them) whose
// Mark.In or Mark.Out says which argument or result they are. The
// derivative passes read the region from those marks:
//
//   - forward mode (JVP) and linearization run the region's equations for
//     their values but not their derivative rules; at the first result
//     mark, a CustomJVP's rule gives the results and their tangents (in
//     reverse mode the rule linearized in its tangent arguments), a
//     CustomVJP's fwd gives the results and residuals, and a stand-in
//     equation per result takes the tangents into the linear program,
//     whose transpose is the bwd (transposeCustom). Forward mode through a
//     CustomVJP is a *DerivError, as in JAX — except in the tangent
//     program of a linearization (a loop body's, which reverse mode
//     builds in forward mode), where the stand-ins go too.
//   - A region is used only when all its marks are there with the types
//     they were traced with. A transformation that drops or reshapes them
//     (vmap batching the function's ops) leaves the function's own ops to
//     be differentiated: the derivative of the function as written, never
//     a rule applied to values it was not written for.
//   - A value of the function that leaves it other than as a result (a Go
//     closure writing it out), or a closed-over value with a tangent
//     reaching the function, would make the rule wrong: both are
//     *DerivErrors, as JAX's are.
//
// A Checkpoint needs no marks on its boundary: reverse mode recomputes, in
// the backward pass, each of its equations from the recomputed values of
// the same application and the stored values of everything else (its
// arguments, what it closes over), so only the boundary is stored.

// RegionKind says what a Region is.
type RegionKind uint8

// The region kinds.
const (
	RegionCheckpoint RegionKind = iota + 1 // jax.checkpoint: recompute in reverse mode
	RegionCustomJVP                        // jax.custom_jvp: a rule for the tangents
	RegionCustomVJP                        // jax.custom_vjp: fwd and bwd rules
)

var regionKindNames = [...]string{RegionCheckpoint: "checkpoint", RegionCustomJVP: "custom_jvp", RegionCustomVJP: "custom_vjp"}

func (k RegionKind) String() string {
	if int(k) < len(regionKindNames) && regionKindNames[k] != "" {
		return regionKindNames[k]
	}
	return fmt.Sprintf("region(%d)", uint8(k))
}

// Region is one application of Checkpoint, CustomJVP or CustomVJP.
type Region struct {
	Kind   RegionKind
	Parent *Region // the region the application was traced in, or nil
	Pos    Pos     // the caller's file:line
	// In and Out are a custom region's argument and result types as
	// traced; the derivative passes use the rules only on these.
	In, Out []Abstract

	jvp func(primals, tangents []Value) ([]Value, []Value)
	fwd func(primals []Value) ([]Value, []Value)
	bwd func(res, cts []Value) []Value
}

// Mark places an equation in a Region (Params.Mark).
type Mark struct {
	Region *Region
	// In (Out) is 1 + the index of the argument (result) of a custom
	// region the equation marks: a reshape of it to its own shape. 0 for
	// the equations of the function itself.
	In, Out int

	lin *customLin // reverse mode's stand-in for a CustomVJP in a linear program
}

// Checkpoint returns fn with its values recomputed in reverse mode instead
// of stored (jax.checkpoint, jax.remat, with no policy: everything inside
// is recomputed). Its values and first derivatives are fn's bit for bit,
// higher derivatives to rounding (recomputed values collect cotangents of
// their own, summed in another order); what changes is that a gradient
// keeps only fn's arguments
// (and the values it closes over) from the forward pass to the backward
// pass and recomputes the rest there, trading time for memory. Control
// flow inside fn (a loop, a cond) is stored, not recomputed.
func Checkpoint(fn func([]Value) []Value) func(args ...Value) []Value {
	return regionFunc(&Region{Kind: RegionCheckpoint}, fn)
}

// CustomJVP returns fn with a custom forward-mode derivative
// (jax.custom_jvp): jvp(primals, tangents) returns fn's results at primals
// and their tangents (one per result, of its dtype and shape; the tangents
// of integer and bool results are ignored). Tangents of arguments that
// have none are zeros. The rule's tangent outputs must be linear in the
// tangents for reverse mode, which transposes them; the rule itself is
// differentiated by ordinary means for higher derivatives. Outside
// derivatives, fn runs.
func CustomJVP(fn func([]Value) []Value, jvp func(primals, tangents []Value) ([]Value, []Value)) func(args ...Value) []Value {
	return regionFunc(&Region{Kind: RegionCustomJVP, jvp: jvp}, fn)
}

// CustomVJP returns fn with a custom reverse-mode derivative
// (jax.custom_vjp): fwd(primals) returns fn's results and residuals (any
// values); bwd(residuals, cts) returns one cotangent per argument of fn
// (of its dtype and shape; the zero Value for a zero cotangent; ignored
// for integer and bool arguments) from one cotangent per result. Outside
// derivatives, fn runs; forward mode (JVP) through it is a *DerivError,
// as in JAX.
func CustomVJP(fn func([]Value) []Value, fwd func(primals []Value) ([]Value, []Value), bwd func(res, cts []Value) []Value) func(args ...Value) []Value {
	return regionFunc(&Region{Kind: RegionCustomVJP, fwd: fwd, bwd: bwd}, fn)
}

// regionFunc is the function applying fn in a fresh region like tmpl.
func regionFunc(tmpl *Region, fn func([]Value) []Value) func(args ...Value) []Value {
	return func(args ...Value) []Value {
		pos := callerPos()
		op := tmpl.Kind.String()
		b, ok := builderOf(op, args...)
		if b == nil {
			return free(args, func(b *builder, args []Value) []Value { return regionIn(b, true, tmpl, pos, fn, args) })
		}
		return regionIn(b, ok, tmpl, pos, fn, args)
	}
}

// regionIn traces fn at args into b inside a new region like tmpl.
func regionIn(b *builder, ok bool, tmpl *Region, pos Pos, fn func([]Value) []Value, args []Value) []Value {
	op := tmpl.Kind.String()
	if !ok || b.err != nil {
		return inert(b, 1)
	}
	r := *tmpl
	r.Parent, r.Pos = b.region, pos
	custom := r.Kind != RegionCheckpoint
	if fn == nil || custom && (r.Kind == RegionCustomJVP && r.jvp == nil || r.Kind == RegionCustomVJP && (r.fwd == nil || r.bwd == nil)) {
		b.opErr(op, fmt.Errorf("a nil function or rule"))
		return inert(b, 1)
	}
	vals := make([]Value, len(args))
	for i, a := range args {
		vals[i] = b.attach(a, op)
		if !custom {
			continue
		}
		v := b.materialize(vals[i], op)
		if v == nil {
			if b.err == nil {
				b.opErr(op, fmt.Errorf("argument %d is not a value (the zero Value, or one made outside any expression)", i))
			}
			return inert(b, 1)
		}
		r.In = append(r.In, Abstract{Type: v.Type, Shape: v.Shape})
		vals[i] = b.mark(v, Mark{Region: &r, In: i + 1})
	}
	saved := b.region
	b.region = &r
	outs := fn(vals)
	b.region = saved
	if b.err != nil || !custom {
		return outs
	}
	if len(outs) == 0 {
		b.opErr(op, fmt.Errorf("the function returned no values"))
		return inert(b, 1)
	}
	marked := make([]Value, len(outs))
	for i, o := range outs {
		v := b.materialize(b.attach(o, op), op)
		if v == nil {
			if b.err == nil {
				b.opErr(op, fmt.Errorf("result %d is not a value (the zero Value, or one made outside any expression)", i))
			}
			return inert(b, len(outs))
		}
		r.Out = append(r.Out, Abstract{Type: v.Type, Shape: v.Shape})
		marked[i] = b.mark(v, Mark{Region: &r, Out: i + 1})
	}
	return marked
}

// mark emits the reshape of v to its own shape that marks it as m says.
func (b *builder) mark(v *Var, m Mark) Value {
	return b.emit(OpReshape, []*Var{v}, v.Type, v.Shape, Params{Shape: append([]int{}, v.Shape...), Mark: m}, "")
}

// customState is what a derivative pass has gathered of one custom region.
type customState struct {
	r          *Region
	prim, tan  []Value // per argument: primal value, tangent (zero Value: none)
	vars       map[*Var]bool
	done       bool
	outs, tout []Value // per result: the rule's primal (nil: the function's) and tangent
}

// customRegions finds the custom regions of p whose marks are all there
// with the types they were traced with: the ones whose rules apply.
func customRegions(p *Program) map[*Region]*customState {
	var found map[*Region][2][]bool
	for _, e := range p.Eqns {
		m := e.Params.Mark
		r := m.Region
		if r == nil || r.Kind == RegionCheckpoint || m.In == 0 && m.Out == 0 {
			continue
		}
		if found == nil {
			found = map[*Region][2][]bool{}
		}
		seen, ok := found[r]
		if !ok {
			seen = [2][]bool{make([]bool, len(r.In)), make([]bool, len(r.Out))}
			found[r] = seen
		}
		side, k, want := 0, m.In-1, r.In
		if m.Out > 0 {
			side, k, want = 1, m.Out-1, r.Out
		}
		if e.Op == OpReshape && k < len(want) && len(e.Args) == 1 && e.Args[0].Type == want[k].Type && ShapeEqual(e.Args[0].Shape, want[k].Shape) &&
			e.Out.Type == want[k].Type && ShapeEqual(e.Out.Shape, want[k].Shape) {
			seen[side][k] = true
		}
	}
	var out map[*Region]*customState
	for r, seen := range found {
		complete := true
		for _, s := range seen {
			for _, x := range s {
				complete = complete && x
			}
		}
		if !complete {
			continue
		}
		if out == nil {
			out = map[*Region]*customState{}
		}
		out[r] = &customState{r: r, prim: make([]Value, len(r.In)), tan: make([]Value, len(r.In)), vars: map[*Var]bool{}}
	}
	return out
}

// customOf is the outermost custom region whose rules apply that e is in.
func (j *jvp) customOf(e *Eqn) *customState {
	if e.Params.Mark.lin != nil {
		return nil // a stand-in (run) is no equation of the function
	}
	var st *customState
	for r := e.Params.Mark.Region; r != nil; r = r.Parent {
		if s := j.customs[r]; s != nil {
			st = s
		}
	}
	return st
}

// checkpointOf is the outermost Checkpoint region e is in.
func checkpointOf(e *Eqn) *Region {
	if e.Params.Mark.lin != nil {
		return nil
	}
	var c *Region
	for r := e.Params.Mark.Region; r != nil; r = r.Parent {
		if r.Kind == RegionCheckpoint {
			c = r
		}
	}
	return c
}

// custom runs e, an equation of a custom region whose rules apply, and
// reports whether it did: the function's equations for their values only,
// and at the first result mark the region's rule.
func (j *jvp) custom(e *Eqn, in []Value) bool {
	st := j.customOf(e)
	if st == nil {
		return false
	}
	m := e.Params.Mark
	out := j.b.emitEqn(e, in)
	j.env[e.Out] = out
	st.vars[e.Out] = true
	if m.Region == st.r && m.In > 0 {
		st.prim[m.In-1], st.tan[m.In-1] = in[0], j.tenv[e.Args[0]]
		return true
	}
	// The function's equations and its results read its arguments, its
	// own values, and values from outside it, which must carry no
	// tangent: the rule knows nothing of them.
	for _, a := range e.Args {
		if t, ok := j.tenv[a]; ok && !isZero(t) && !st.vars[a] {
			j.b.fail(&DerivError{Op: st.r.Kind.String(), Pos: st.r.Pos, Msg: fmt.Sprintf(
				"the function closes over a value being differentiated (%s at %s reads %s from outside it); the rule only gives derivatives with respect to its arguments: pass the value as an argument (JAX: jax.closure_convert)", e.Op, e.Pos, a.TypeString())})
			return true
		}
	}
	if m.Region == st.r && m.Out > 0 {
		if !st.done {
			st.done = true
			j.applyRule(st)
		}
		k := m.Out - 1
		if st.outs != nil && !isZero(st.outs[k]) {
			j.env[e.Out] = st.outs[k]
		}
		if st.tout != nil && !isZero(st.tout[k]) {
			j.tenv[e.Out] = st.tout[k]
		}
		return true
	}
	if slices.ContainsFunc(st.tan, func(t Value) bool { return !isZero(t) }) {
		// The rule replaces this value's derivative, which is never
		// computed: it must not be read outside the function.
		if j.opaque == nil {
			j.opaque = map[*Var]*Region{}
		}
		j.opaque[e.Out] = st.r
	}
	return true
}

// escaped fails the trace when e reads a value of a custom region whose
// rule replaced its derivative (its tangent was never computed) from
// outside the region.
func (j *jvp) escaped(e *Eqn, args []*Var) bool {
	if len(j.opaque) == 0 {
		return false
	}
	for _, a := range args {
		r := j.opaque[a]
		if r == nil {
			continue
		}
		inside := false
		if e != nil {
			for q := e.Params.Mark.Region; q != nil; q = q.Parent {
				inside = inside || q == r
			}
		}
		if !inside {
			j.b.fail(&DerivError{Op: r.Kind.String(), Pos: r.Pos, Msg: fmt.Sprintf(
				"a value the function computed (%s) is used outside it other than as its result (a Go variable it wrote?); its derivative is the rule's business: return it as a result", a.TypeString())})
			return true
		}
	}
	return false
}

// applyRule runs a custom region's rule once its arguments are known.
func (j *jvp) applyRule(st *customState) {
	r := st.r
	zero := true
	for _, t := range st.tan {
		zero = zero && isZero(t)
	}
	if zero {
		return // no tangent reaches the function: its own values stand
	}
	fail := func(format string, a ...any) {
		j.b.fail(&DerivError{Op: r.Kind.String(), Pos: r.Pos, Msg: fmt.Sprintf(format, a...)})
	}
	switch r.Kind {
	case RegionCustomJVP:
		outs, touts := j.customJVP(st)
		if j.b.err != nil {
			return
		}
		st.outs = make([]Value, len(outs))
		st.tout = make([]Value, len(outs))
		for k := range outs {
			if st.outs[k] = ruleValueIn(j.b, r, "jvp rule's result", k, outs[k], r.Out[k]); j.b.err != nil {
				return
			}
			if !r.Out[k].Type.DType.IsInexact() {
				continue
			}
			if st.tout[k] = ruleValueIn(j.tb, r, "jvp rule's tangent", k, touts[k], r.Out[k]); j.b.err != nil {
				return
			}
		}
	case RegionCustomVJP:
		if !j.lin && !j.tb.inLinear() {
			fail("can't apply forward-mode autodiff (jvp) to a custom_vjp function")
			return
		}
		outs, res := r.fwd(append([]Value{}, st.prim...))
		if j.b.err != nil {
			return
		}
		if len(outs) != len(r.Out) {
			fail("fwd returned %d results; the function has %d (JAX: custom_vjp fwd rule must produce the primal function's output structure)", len(outs), len(r.Out))
			return
		}
		st.outs = make([]Value, len(outs))
		for k := range outs {
			if st.outs[k] = ruleValueIn(j.b, r, "fwd's result", k, outs[k], r.Out[k]); j.b.err != nil {
				return
			}
		}
		// The stand-ins read the arguments' tangents, then the residuals
		// (primal values: the transposition gives them to bwd).
		lc := &customLin{r: r}
		var args []*Var
		for i, t := range st.tan {
			if isZero(t) {
				continue
			}
			v := j.tb.bindVar(t, &Var{Type: r.In[i].Type, Shape: r.In[i].Shape}, "custom_vjp")
			if v == nil {
				return
			}
			lc.lins = append(lc.lins, i)
			args = append(args, v)
		}
		for _, x := range res {
			x = j.tb.attach(x, "custom_vjp")
			v := j.tb.materialize(x, "custom_vjp")
			if v == nil {
				if j.b.err == nil {
					fail("a residual is not a value (the zero Value, or one made outside any expression)")
				}
				return
			}
			args = append(args, v)
		}
		st.tout = make([]Value, len(r.Out))
		for k, o := range r.Out {
			if o.Type.DType.IsInexact() {
				st.tout[k] = j.tb.emit(OpInvalid, args, o.Type, o.Shape, Params{Mark: Mark{Region: r, Out: k + 1, lin: lc}}, "custom_vjp")
			}
		}
	}
}

// customJVP runs a CustomJVP's rule: its results in b and their tangents
// in tb (checked for number, not yet for type). In forward mode the rule
// runs on the tangents. In reverse mode its tangents must land in the
// linear program as something the transposition knows, so the rule is
// traced as a function of primals and tangents and linearized with
// respect to its tangent arguments at zero: as the rule is linear in
// them, that derivative in the direction of the actual tangents is the
// rule's tangent output — and the rule's own ops (a loop, a cond, a JVP
// inside it) are linearized by their rules, its primal part computed in
// b.
func (j *jvp) customJVP(st *customState) ([]Value, []Value) {
	r := st.r
	nin, nout := len(r.In), len(r.Out)
	zerosFor := func(b *builder, i int) Value {
		return zeroCotangent(b, &Var{Type: r.In[i].Type, Shape: r.In[i].Shape})
	}
	counted := func(outs, touts []Value) bool {
		if len(outs) == nout && len(touts) == nout {
			return true
		}
		j.b.fail(&DerivError{Op: r.Kind.String(), Pos: r.Pos, Msg: fmt.Sprintf(
			"the jvp rule returned %d results and %d tangents; the function has %d results (JAX: custom JVP rule must produce primal and tangent outputs with equal container structures)", len(outs), len(touts), nout)})
		return false
	}
	if !j.lin {
		ts := make([]Value, nin)
		for i, t := range st.tan {
			if ts[i] = t; isZero(t) {
				ts[i] = zerosFor(j.tb, i)
			}
		}
		outs, touts := r.jvp(append([]Value{}, st.prim...), ts)
		if j.b.err != nil || !counted(outs, touts) {
			return nil, nil
		}
		return outs, touts
	}
	rule := func(a []Value) []Value {
		outs, touts := r.jvp(a[:nin], a[nin:])
		if !counted(outs, touts) {
			return []Value{{b: j.b}}
		}
		touts = append([]Value{}, touts...)
		for k, t := range touts {
			if isZero(t) || !r.Out[k].Type.DType.IsInexact() {
				touts[k] = zeroCotangent(a[0].b, &Var{Type: r.Out[k].Type, Shape: r.Out[k].Shape})
			}
		}
		return append(append([]Value{}, outs...), touts...)
	}
	at := append([]Value{}, st.prim...)
	for i := range nin {
		at = append(at, zerosFor(j.b, i))
	}
	p, args, _ := j.b.traceFn(r.Kind.String(), rule, at) // a rule computes from its arguments: its trace is j.b's
	if p == nil || j.b.err != nil {
		return nil, nil
	}
	if len(p.Outputs) != 2*nout {
		j.b.fail(&DerivError{Op: r.Kind.String(), Pos: r.Pos, Msg: "internal error: the jvp rule's trace has the wrong number of results"})
		return nil, nil
	}
	dirs := make([]Value, len(args))
	copy(dirs[nin:], st.tan)
	sub := &jvp{b: j.b, tb: j.tb, lin: true}
	vals, tans := sub.run(p, args, dirs)
	if j.b.err != nil {
		return nil, nil
	}
	touts := tans[nout:]
	for k, t := range touts {
		if isZero(t) {
			touts[k] = zeroCotangent(j.tb, p.Outputs[nout+k])
		}
	}
	return vals[:nout], touts
}

// ruleValueIn checks a value a rule returned for something of type want,
// and gives it in trace in (a literal takes want's type when want is a
// scalar, a value differing only in the weak flag takes want's).
func ruleValueIn(in *builder, r *Region, what string, k int, x Value, want Abstract) Value {
	fail := func(format string, a ...any) Value {
		return in.fail(&DerivError{Op: r.Kind.String(), Pos: r.Pos, Msg: fmt.Sprintf(format, a...)})
	}
	x = in.attach(x, r.Kind.String())
	if in.err != nil {
		return Value{b: in}
	}
	if x.lit != nil {
		if len(want.Shape) != 0 { // a literal is a scalar: it takes want's dtype, not its shape
			return fail("%s %d is a scalar literal, but %s[%s] is due (JAX: the rule must produce outputs with the same shapes and dtypes)",
				what, k, want.Type, joinInts(want.Shape, ","))
		}
		return Value{b: in, v: in.to(x, want.Type, r.Kind.String(), "")}
	}
	if x.v == nil {
		return fail("%s %d is not a value (the zero Value, or one made outside any expression)", what, k)
	}
	if x.v.Type.DType != want.Type.DType || !ShapeEqual(x.v.Shape, want.Shape) {
		return fail("%s %d is %s, but %s[%s] is due (JAX: the rule must produce outputs with the same shapes and dtypes)",
			what, k, x.v.TypeString(), want.Type, joinInts(want.Shape, ","))
	}
	return Value{b: in, v: in.to(x, want.Type, r.Kind.String(), "a rule's value takes the weak flag traced")}
}

// customLin is a CustomVJP in a linear program: stand-in equations (op
// invalid, one per inexact result, consecutive) reading the tangents of
// the arguments lins lists, then the residuals; their transpose is bwd at
// the residuals (transposeCustom). A stand-in is linear in its tangent
// operands: its JVP is a stand-in over their tangents (standInJVP), so a
// linear program holding one (a loop body's tangent program, which
// reverse mode through the loop linearizes again) is itself
// differentiable.
type customLin struct {
	r    *Region
	lins []int // the arguments whose tangents the stand-ins read, in order
}

// standIns is the group of stand-ins of one CustomVJP application ending
// at eqns[k]: the consecutive stand-ins of lc before it, one per result.
func standIns(eqns []*Eqn, k int) []*Eqn {
	lc := eqns[k].Params.Mark.lin
	seen := map[int]bool{}
	i := k
	for i >= 0 && eqns[i].Params.Mark.lin == lc && !seen[eqns[i].Params.Mark.Out] {
		seen[eqns[i].Params.Mark.Out] = true
		i--
	}
	return eqns[i+1 : k+1]
}

// transposeCustom runs a CustomVJP's bwd for the cotangents of the
// results of a group of stand-ins (cts[k] for result k, zero Values where
// none) and adds the arguments' cotangents to the stand-ins' tangent
// operands.
func transposeCustom(b *builder, group []*Eqn, cts []Value, primal func(*Var) Value, add func(*Var, Value)) {
	e0 := group[0]
	lc, r := e0.Params.Mark.lin, e0.Params.Mark.Region
	fail := func(format string, a ...any) {
		b.fail(&DerivError{Op: r.Kind.String(), Pos: r.Pos, Msg: fmt.Sprintf(format, a...)})
	}
	seeds := make([]Value, len(r.Out))
	for k := range seeds {
		seeds[k] = cts[k]
		if isZero(seeds[k]) {
			seeds[k] = zeroCotangent(b, &Var{Type: r.Out[k].Type, Shape: r.Out[k].Shape})
		}
	}
	res := make([]Value, 0, len(e0.Args)-len(lc.lins))
	for _, a := range e0.Args[len(lc.lins):] {
		res = append(res, b.attach(primal(a), "custom_vjp"))
	}
	gs := r.bwd(res, seeds)
	if b.err != nil {
		return
	}
	if len(gs) != len(r.In) {
		fail("bwd returned %d cotangents for a function of %d arguments (JAX: custom VJP bwd rule must produce a tuple of length equal to the number of arguments to the primal function)", len(gs), len(r.In))
		return
	}
	tangentOf := map[int]*Var{}
	for k, i := range lc.lins {
		tangentOf[i] = e0.Args[k]
	}
	for i, g := range gs {
		if isZero(g) || !r.In[i].Type.DType.IsInexact() {
			continue // None, or JAX's float0 for an integer argument
		}
		g = ruleValueIn(b, r, "bwd's cotangent", i, g, r.In[i])
		if b.err != nil {
			return
		}
		if v := tangentOf[i]; v != nil {
			add(v, g)
		}
	}
}

// standInJVP is the tangent of a stand-in: a stand-in over its tangent
// operands' tangents (zeros where none) and the same residuals, in tb; a
// zero Value when no tangent reaches it.
func (j *jvp) standInJVP(e *Eqn, in []Value) Value {
	nl := len(e.Params.Mark.lin.lins)
	args := make([]*Var, len(e.Args))
	any := false
	for i, a := range e.Args {
		x := in[i]
		if i < nl {
			if x = j.tenv[a]; isZero(x) {
				x = zerosOf(j.tb, a.Type, a.Shape)
			} else {
				any = true
			}
		}
		if args[i] = j.tb.bindVar(x, a, "custom_vjp"); args[i] == nil {
			return Value{}
		}
	}
	if !any {
		return Value{}
	}
	return j.tb.emit(OpInvalid, args, e.Out.Type, e.Out.Shape, e.Params, e.Why)
}
