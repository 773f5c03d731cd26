package trace

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/promote"
)

// Vectorizing map, JAX's way (jax.vmap): fn is traced once on the
// per-example shapes — each batched argument without its batch axis —
// into a sub-program, whose equations are then replayed in the caller's
// trace. Each value of the replay is either unbatched (the value fn sees)
// or batched, with the batch axis first. An equation whose operands are
// all unbatched is emitted unchanged; otherwise its op's batching rule
// (batchRules, keyed by Op beside the op table) emits the equations that
// compute every example at once. The replay emits ordinary equations
// through the builder, so Grad, JVP, VJP and Jit compose with Vmap in any
// order, and Vmap with itself, with nothing more.
//
// How to write a batching rule
//
// A rule is a batchRule, set in an init function of the file that holds it
// with one assignment per op (batchRules[OpGather] = batchGather), never a
// table literal: the rules of one op family live beside its other code.
// TestEveryOpHasBatchRule fails for an op without one.
//
//	func batchX(c *batchCall) ([]Value, []bool)
//
// c.Eqn is the equation of fn's program (op, Params, per-example operand
// and result types); c.In are its operands in the trace being built; a
// batched operand (c.Batched[i]) has its batch axis first, of size c.Size;
// an unbatched one has its per-example shape. At least one operand is
// batched when a rule runs (except OpResult's, see below). The rule
// returns every result of the equation — one for every op but while and
// cond, whose NumResults all come back, in order — and whether each is
// batched (its batch axis first, of size c.Size). A result must have the
// equation's result type exactly (dtype and weak flag) and its shape,
// with c.Size prepended when batched: the replay checks it, and a wrong
// result is a *VmapError naming the rule. Rules run at the equation's
// position (its equations are attributed to the user's line), with
// operands of one type keeping it (no promotion happens in a rule).
//
// Helpers: c.Batch(i) is operand i with the batch axis first (broadcast
// along a new leading axis when it is unbatched), c.BroadcastBatch(x) the
// same for any unbatched value; c.BatchShape(s) is s with the batch size
// prepended; c.Emit(op, type, shape, params, args…) emits one equation
// (operands of enclosing traces are captured); moveAxis(x, from, to) moves
// an axis (a transpose, none when from == to); c.Unbatched() emits the
// equation unchanged over c.In; single(x, batched) is the answer of a
// one-result rule.
//
// Sub-programs (a while's cond and body, a cond's branches): c.Replay(p,
// in, bat) replays p batched, in the trace of its inputs in — call it
// inside the function given to WhileLoop or Cond — and reports which
// outputs came out batched; batchedOutputs(p, bat) tells beforehand,
// without emitting, which outputs may come out batched (a superset), so a
// loop's batched carries are a fixpoint of it over the body. A carry that
// must be batched but comes out of the body unbatched is broadcast with
// c.BroadcastBatch. loopRuleForTest (vmap_rules_test.go) is a minimal
// while rule written so (unbatched predicate only); it calls WhileLoop,
// which drops a fori_loop's static trip count (Params.Control.Trips,
// Static) — a real rule keeps it (b.whileLoop with trips), or reverse
// mode through a vmapped fori_loop or scan becomes JAX's dynamic-trip
// DerivError. The real rules are batchWhile and batchCond
// (vmap_control.go): they keep the trip count and use batchedResults,
// which is exact for nested loops and conds where batchedOutputs is a
// superset.
//
// Multi-result equations: the results a while or cond rule returns are
// kept by the replay, and the program's result equations (OpResult) take
// theirs from them (batchResult, in this file): a while or cond rule
// does not register anything for OpResult.

// NoAxis marks an argument or result that is not batched in
// VmapOptions.InAxes and OutAxes: JAX's None.
const NoAxis = math.MinInt

// VmapOptions configure Vmap, as jax.vmap's keywords.
type VmapOptions struct {
	// InAxes is the batch axis of each argument (negative axes count from
	// the end of the argument's shape), NoAxis for an argument every
	// example shares. None means 0 for every argument, one entry applies
	// to every argument (JAX's in_axes=0), else one entry per argument.
	InAxes []int
	// OutAxes is where the batch axis goes in each result (negative axes
	// count from the end of the batched result), NoAxis for a result that
	// must not depend on the batch (JAX's out_axes=None). None means 0,
	// one entry applies to every result. An unbatched result asked for
	// with an axis is broadcast along it, as JAX does.
	OutAxes []int
	// OutAxesFor, when set, gives the out axes once fn is traced, from
	// its number of results, and OutAxes is not used: a caller whose fn
	// is a function of trees learns how many leaves each result has only
	// then, and spreads each result's axis over its leaves (kiln's
	// VmapTree). It must return none, one, or one axis per result.
	OutAxesFor func(nout int) []int
	// AxisSize is the batch size (jax.vmap's axis_size): required when no
	// argument is batched, and equal to the batched arguments' size
	// otherwise. An AxisSize of 0 counts as not given unless HasAxisSize
	// is set.
	AxisSize int
	// HasAxisSize says AxisSize is given even when it is 0, as jax.vmap's
	// axis_size=0: an empty batch, whose results have a batch axis of size
	// 0 (an argument batched along an axis of size 0 gives the same). A
	// nonzero AxisSize is given whether or not HasAxisSize is set, as
	// ScanOptions' Length and HasLength.
	HasAxisSize bool
}

// VmapError reports a Vmap that cannot be done: axes that do not fit the
// arguments or results, batched arguments of different sizes, a batched
// result asked for with NoAxis, or an op that has no batching rule (Rule).
type VmapError struct {
	Op     string // "vmap"
	Pos    Pos
	Arg    int  // the argument (or, with Result, the result) concerned; -1 for none
	Result bool // Arg is a result index
	Shapes [][]int
	// Rule is the op without a batching rule (or whose rule broke its
	// contract) when that is the error; OpInvalid otherwise.
	Rule Op
	Msg  string
}

func (e *VmapError) Error() string { return errorText(e.Op, e.Pos, e.Msg) }

// Vmap returns fn vectorized over a batch axis of its arguments
// (jax.vmap): the result for a batch is, bit for bit, every example's
// result of fn stacked along the OutAxes. fn is traced once, on the
// per-example shapes; the values it closes over are shared by every
// example.
func Vmap(fn func([]Value) []Value, o VmapOptions) func(args ...Value) []Value {
	o.InAxes, o.OutAxes = slices.Clone(o.InAxes), slices.Clone(o.OutAxes)
	return func(args ...Value) []Value {
		pos := callerPos()
		return controlValues("vmap", args, func(b *builder, xs []Value) []Value {
			return b.vmap(pos, fn, o, xs)
		})
	}
}

// batched is a value of the replay: a value of the trace being built,
// with its batch axis first when batched.
type batched struct {
	x       Value
	batched bool
}

// vmapper replays a program batched.
type vmapper struct {
	b    *builder
	size int
	env  map[*Var]batched
	// multi holds every result of a batched multi-result equation (while,
	// cond), by its result 0, for its result equations.
	multi map[*Var][]batched
}

// vmap is Vmap in trace b. Its errors are at pos, the caller's line, or
// at the position WithPos (or a rule, or a free value's replay) has set
// for b's equations: kiln eval's expression column.
func (b *builder) vmap(pos Pos, fn func([]Value) []Value, o VmapOptions, xs []Value) []Value {
	if b.pos != nil {
		pos = *b.pos
	}
	fail := func(arg int, result bool, shapes [][]int, format string, a ...any) []Value {
		b.fail(&VmapError{Op: "vmap", Pos: pos, Arg: arg, Result: result, Shapes: shapes, Msg: fmt.Sprintf(format, a...)})
		return inert(b, 1)
	}
	if fn == nil {
		return fail(-1, false, nil, "a nil function")
	}
	vars := b.controlOperands("vmap", xs)
	if vars == nil {
		return inert(b, 1)
	}
	n := len(vars)
	axes := make([]int, n)
	switch len(o.InAxes) {
	case 0:
	case 1:
		for i := range axes {
			axes[i] = o.InAxes[0]
		}
	case n:
		copy(axes, o.InAxes)
	default:
		return fail(-1, false, shapesOf(vars), "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=%d, len(args)=%d", len(o.InAxes), n)
	}
	if o.AxisSize < 0 {
		return fail(-1, false, nil, "axis_size %d is negative", o.AxisSize)
	}
	size, first := -1, -1
	for i, v := range vars {
		if axes[i] == NoAxis {
			continue
		}
		ax, ok := normAxis(axes[i], v.Rank())
		if !ok {
			return fail(i, false, [][]int{v.Shape}, "vmap was requested to map argument %d along axis %d, which implies that its rank should be at least %d, but is only %d (its shape is %s)",
				i, axes[i], max(axes[i]+1, -axes[i]), v.Rank(), shapeString(v.Shape))
		}
		axes[i] = ax
		switch {
		case size < 0:
			size, first = v.Shape[ax], i
		case v.Shape[ax] != size:
			return fail(i, false, [][]int{vars[first].Shape, v.Shape}, "vmap got inconsistent sizes for array axes to be mapped: axis %d of argument %d of type %s has size %d, axis %d of argument %d of type %s has size %d",
				axes[first], first, vars[first].TypeString(), size, ax, i, v.TypeString(), v.Shape[ax])
		}
	}
	given := o.HasAxisSize || o.AxisSize != 0
	switch {
	case size < 0 && !given:
		return fail(-1, false, shapesOf(vars), "vmap must have at least one non-None value in in_axes, or an axis_size")
	case size < 0:
		size = o.AxisSize
	case given && o.AxisSize != size:
		return fail(first, false, [][]int{vars[first].Shape}, "vmap got inconsistent sizes for array axes to be mapped: axis_size is %d, but axis %d of argument %d of type %s has size %d",
			o.AxisSize, axes[first], first, vars[first].TypeString(), size)
	}
	inputs := make([]Abstract, n)
	for i, v := range vars {
		shape := v.Shape
		if axes[i] != NoAxis {
			shape = slices.Delete(slices.Clone(shape), axes[i], axes[i]+1)
		}
		inputs[i] = Abstract{Type: v.Type, Shape: shape}
	}
	prog, captured, e := b.subTrace(inputs, fn)
	if prog == nil {
		return inert(e, 1)
	}
	// The replay goes where fn's trace ended up: b, or a trace inside it
	// whose values fn uses (a loop body's induction variable).
	vm := &vmapper{b: e, size: size, env: make(map[*Var]batched, len(prog.Inputs)+len(prog.Eqns))}
	for i, v := range vars {
		x := e.attach(Value{b: b, v: v}, "vmap")
		if axes[i] != NoAxis {
			x = moveAxis(x, axes[i], 0)
		}
		vm.env[prog.Inputs[i]] = batched{x, axes[i] != NoAxis}
	}
	for j, x := range captured {
		vm.env[prog.Inputs[n+j]] = batched{e.attach(x, "vmap"), false}
	}
	if e.err != nil {
		return inert(e, 1)
	}
	vm.run(prog)
	if e.err != nil {
		return inert(e, max(len(prog.Outputs), 1))
	}
	nout := len(prog.Outputs)
	if o.OutAxesFor != nil {
		o.OutAxes = o.OutAxesFor(nout)
	}
	outAxes := make([]int, nout)
	switch len(o.OutAxes) {
	case 0:
	case 1:
		for i := range outAxes {
			outAxes[i] = o.OutAxes[0]
		}
	case nout:
		copy(outAxes, o.OutAxes)
	default:
		return fail(-1, true, shapesOf(prog.Outputs), "vmap out_axes must be an int, None, or a tuple of entries corresponding to the results of the function, but got len(out_axes)=%d for %d results", len(o.OutAxes), nout)
	}
	outs := make([]Value, nout)
	for k, v := range prog.Outputs {
		r := vm.env[v]
		a := outAxes[k]
		if a == NoAxis {
			if r.batched {
				return fail(k, true, [][]int{v.Shape}, "vmap has mapped output but out_axes is None (result %d of type %s depends on the batch)", k, v.TypeString())
			}
			outs[k] = r.x
			continue
		}
		ax, ok := normAxis(a, v.Rank()+1)
		if !ok {
			return fail(k, true, [][]int{v.Shape}, "vmap out_axes %d is out of range for result %d: its batched rank is %d (per example %s)", a, k, v.Rank()+1, v.TypeString())
		}
		x := r.x
		if !r.batched {
			x = vm.broadcastBatch(x)
		}
		outs[k] = moveAxis(x, 0, ax)
	}
	if e.err != nil {
		return inert(e, max(nout, 1))
	}
	return outs
}

// moveAxis moves axis from of x to position to, the others keeping their
// order.
func moveAxis(x Value, from, to int) Value {
	if from == to {
		return x
	}
	rank := len(x.Shape())
	perm := make([]int, 0, rank)
	for i := range rank {
		if i != from {
			perm = append(perm, i)
		}
	}
	perm = slices.Insert(perm, to, from)
	return x.Transpose(perm...)
}

// broadcastBatch gives x, unbatched, a leading batch axis, in x's trace.
func (vm *vmapper) broadcastBatch(x Value) Value {
	b := x.b
	if b == nil {
		b = vm.b
	}
	if b.err != nil || x.v == nil {
		return Value{b: b}
	}
	dims := make([]int, x.v.Rank())
	for i := range dims {
		dims[i] = i + 1
	}
	shape := append([]int{vm.size}, x.v.Shape...)
	return b.emit(OpBroadcastInDim, []*Var{x.v}, x.v.Type, shape, Params{Shape: shape, Dims: dims}, "")
}

// run replays p's equations into vm.b, with vm.env bound for p's inputs.
func (vm *vmapper) run(p *Program) {
	b := vm.b
	for _, e := range p.Eqns {
		if b.err != nil {
			return
		}
		in := make([]Value, len(e.Args))
		bat := make([]bool, len(e.Args))
		anyBatched := false
		for i, a := range e.Args {
			r := vm.env[a]
			in[i], bat[i] = r.x, r.batched
			anyBatched = anyBatched || r.batched
		}
		_, multi := vm.multi[firstArg(e)]
		if !anyBatched && !(e.Op == OpResult && multi) {
			vm.env[e.Out] = batched{b.emitEqn(e, in), false}
			continue
		}
		rule := batchRules[e.Op]
		if rule == nil {
			b.fail(&VmapError{Op: "vmap", Pos: e.Pos, Arg: -1, Rule: e.Op, Shapes: shapesOf(e.Args),
				Msg: fmt.Sprintf("no batching rule for %s (operands %s)", e.Op, typesOf(e.Args))})
			return
		}
		c := &batchCall{Eqn: e, In: in, Batched: bat, Size: vm.size, vm: vm}
		restore := ruleMode(&e.Pos, b)
		outs, obat := rule(c)
		restore()
		if b.err != nil {
			return
		}
		nres := e.NumResults()
		if e.Op == OpResult {
			nres = 1
		}
		if len(outs) != nres || len(obat) != nres {
			vm.ruleErr(e, "the batching rule gave %d results (%d flags) where %d were due (a bug in the rule)", len(outs), len(obat), nres)
			return
		}
		rs := make([]batched, nres)
		for k, x := range outs {
			t, s := e.ResultType(k)
			if e.Op == OpResult {
				t, s = e.Out.Type, e.Out.Shape
			}
			if obat[k] {
				s = c.BatchShape(s)
			}
			if x.b != b || x.v == nil || x.v.Type != t || !ShapeEqual(x.v.Shape, s) {
				got := "nothing"
				if x.v != nil {
					got = x.v.TypeString()
				}
				vm.ruleErr(e, "the batching rule gave %s for result %d where %s was due (a bug in the rule)", got, k, typeName(t, s))
				return
			}
			rs[k] = batched{x, obat[k]}
		}
		if nres > 1 {
			if vm.multi == nil {
				vm.multi = map[*Var][]batched{}
			}
			vm.multi[e.Out] = rs
		}
		vm.env[e.Out] = rs[0]
	}
}

func firstArg(e *Eqn) *Var {
	if len(e.Args) == 0 {
		return nil
	}
	return e.Args[0]
}

func (vm *vmapper) ruleErr(e *Eqn, format string, a ...any) {
	vm.b.fail(&VmapError{Op: "vmap", Pos: e.Pos, Arg: -1, Rule: e.Op, Shapes: shapesOf(e.Args), Msg: e.Op.String() + ": " + fmt.Sprintf(format, a...)})
}

func typesOf(vs []*Var) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.TypeString()
	}
	return strings.Join(s, ", ")
}

// replay replays p (a sub-program of a control-flow equation, say)
// batched in trace b: in are its inputs (values of b or of traces
// enclosing it, which are captured), batched ones (bat) with the batch
// axis first. It returns its outputs and which are batched.
func (vm *vmapper) replay(b *builder, p *Program, in []Value, bat []bool) ([]Value, []bool) {
	sub := &vmapper{b: b, size: vm.size, env: make(map[*Var]batched, len(p.Inputs)+len(p.Eqns))}
	for i, v := range p.Inputs {
		sub.env[v] = batched{b.attach(in[i], "vmap"), bat[i]}
	}
	sub.run(p)
	outs := make([]Value, len(p.Outputs))
	obat := make([]bool, len(p.Outputs))
	for k, v := range p.Outputs {
		r := sub.env[v]
		outs[k], obat[k] = r.x, r.batched
	}
	if b.err != nil {
		return inert(b, len(p.Outputs)), obat
	}
	return outs, obat
}

// batchedOutputs reports which outputs of p depend on its inputs marked
// bat: a superset of the outputs a replay with those inputs batched gives
// batched (a replay batches no result whose operands are all unbatched),
// computed without emitting anything — for a loop rule's fixpoint of
// which carries are batched.
func batchedOutputs(p *Program, bat []bool) []bool {
	dep := make(map[*Var]bool, len(p.Inputs)+len(p.Eqns))
	for i, v := range p.Inputs {
		dep[v] = bat[i]
	}
	for _, e := range p.Eqns {
		for _, a := range e.Args {
			if dep[a] {
				dep[e.Out] = true
				break
			}
		}
	}
	out := make([]bool, len(p.Outputs))
	for k, v := range p.Outputs {
		out[k] = dep[v]
	}
	return out
}

// batchRule is the batching rule of an op (see the comment at the top of
// this file).
type batchRule func(c *batchCall) ([]Value, []bool)

// batchRules is the batching rule of every op, keyed by Op beside the op
// table; TestEveryOpHasBatchRule fails for an op without one.
var batchRules [numOps]batchRule

// batchCall is one application of a batching rule.
type batchCall struct {
	Eqn     *Eqn    // the equation, with its per-example types
	In      []Value // the operands in the trace being built
	Batched []bool  // which operands are batched (batch axis first)
	Size    int     // the batch size
	vm      *vmapper
}

// BatchShape is shape with the batch size prepended.
func (c *batchCall) BatchShape(shape []int) []int {
	return append([]int{c.Size}, shape...)
}

// Batch returns operand i with its batch axis first: itself when batched,
// else broadcast along a new leading axis.
func (c *batchCall) Batch(i int) Value {
	if c.Batched[i] {
		return c.In[i]
	}
	return c.vm.broadcastBatch(c.In[i])
}

// Emit emits op over args (values of the trace being built, or of traces
// enclosing it) with result type t, shape and params.
func (c *batchCall) Emit(op Op, t promote.Type, shape []int, p Params, args ...Value) Value {
	b := c.vm.b
	vars := make([]*Var, len(args))
	for i, a := range args {
		if vars[i] = b.attach(a, "vmap").v; vars[i] == nil {
			if b.err == nil {
				c.vm.ruleErr(c.Eqn, "operand %d of the batched %s is not a value of the trace (a bug in the rule)", i, op)
			}
			return Value{b: b}
		}
	}
	return b.emit(op, vars, t, shape, p, "")
}

// Replay replays p — a sub-program of the equation: a while's cond or
// body, a cond's branch — batched, with inputs in (batched ones, per bat,
// with the batch axis first), and returns its outputs and which are
// batched. It emits into the innermost trace of in: call it inside the
// function given to WhileLoop or Cond to batch a body or branch there.
// Values of traces enclosing that one are captured as usual.
func (c *batchCall) Replay(p *Program, in []Value, bat []bool) ([]Value, []bool) {
	b, ok := builderOf("vmap", in...)
	if b == nil {
		b = c.vm.b
	}
	if !ok || b.err != nil {
		return inert(b, len(p.Outputs)), make([]bool, len(p.Outputs))
	}
	restore := ruleMode(&c.Eqn.Pos, b)
	defer restore()
	return c.vm.replay(b, p, in, bat)
}

// BroadcastBatch gives x, an unbatched value, a leading batch axis of
// size c.Size, in x's trace.
func (c *batchCall) BroadcastBatch(x Value) Value { return c.vm.broadcastBatch(x) }

// Unbatched emits the equation unchanged over c.In: for a rule whose op
// does not care which operands are batched.
func (c *batchCall) Unbatched() Value { return c.vm.b.emitEqn(c.Eqn, c.In) }

// single is a rule's answer for a single result.
func single(x Value, batched bool) ([]Value, []bool) { return []Value{x}, []bool{batched} }

func init() {
	batchRules[OpResult] = batchResult
}

// batchResult answers a result equation of a multi-result equation that
// was batched: its result k as the equation's rule gave it.
func batchResult(c *batchCall) ([]Value, []bool) {
	rs, ok := c.vm.multi[c.Eqn.Args[0]]
	k := c.Eqn.Params.Control.Index
	if !ok || k < 0 || k >= len(rs) {
		c.vm.ruleErr(c.Eqn, "result %d of an equation whose batching rule gave no such result", k)
		return nil, nil
	}
	return single(rs[k].x, rs[k].batched)
}
