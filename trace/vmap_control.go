package trace

import (
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// The batching rules of while and cond (vmap.go explains the contract;
// OpResult is the framework's). They are JAX's (jax/_src/lax/control_flow
// loops.py _while_loop_batching_rule, conditionals.py _cond_batching_rule):
//
//   - while: a carry is batched when its initial value is, or when the
//     body makes it batched from the batched carries and captured values
//     (a fixed point: scan's stacked outputs, zeros at first, are batched
//     once a batched x is written into them). With an unbatched predicate
//     the loop stays one loop over the batched carries, its static trip
//     count (ForiLoop with literal bounds, Scan) kept, so Grad of the
//     vmapped loop is reverse mode through it. With a batched predicate
//     every carry is batched and the loop runs while any example's
//     predicate holds; a step computes every example's body and keeps the
//     new carry only where that example's predicate holds, so an example
//     that is done keeps its carry bit for bit while the others go on.
//     Its trip count is then the largest example's: not static, so
//     reverse mode through it is the while loop's *DerivError (as JAX's).
//   - cond and switch: with an unbatched index the cond stays a cond,
//     whose branches compute the batched outputs (an output batched in
//     one branch is batched, broadcast, in all). With a batched index
//     (a predicate that depends on the example) every branch runs on the
//     whole batch and each example's outputs are selected from the
//     branch its index chooses — JAX's select_n: both sides of a batched
//     cond are evaluated, so a branch's cost is paid by every example.

func init() {
	batchRules[OpWhile] = batchWhile
	batchRules[OpCond] = batchCond
}

// whileBatched says which carries of a while equation come out batched,
// and whether its predicate is batched, given which operands are.
func whileBatched(e *Eqn, in []bool) (carry []bool, pred bool) {
	cp := e.Params.Control
	cond, body := cp.Subs[0], cp.Subs[1]
	n := len(e.Args) - cp.NConsts[0] - cp.NConsts[1]
	carry = slices.Clone(in[:n])
	for {
		out := batchedResults(body, append(slices.Clone(carry), in[n+cp.NConsts[0]:]...))
		changed := false
		for i := range n {
			if out[i] && !carry[i] {
				carry[i], changed = true, true
			}
		}
		if !changed {
			break
		}
	}
	pred = batchedResults(cond, append(slices.Clone(carry), in[n:n+cp.NConsts[0]]...))[0]
	if pred {
		for i := range carry {
			carry[i] = true
		}
	}
	return carry, pred
}

// condBatched says which results of a cond equation come out batched,
// given which operands are.
func condBatched(e *Eqn, in []bool) []bool {
	cp := e.Params.Control
	nout := len(cp.Subs[0].Outputs)
	out := make([]bool, nout)
	if in[0] {
		for k := range out {
			out[k] = true
		}
		return out
	}
	n := len(e.Args) - 1 - sum(cp.NConsts)
	at := 1 + n
	for bi, br := range cp.Subs {
		bat := append(slices.Clone(in[1:1+n]), in[at:at+cp.NConsts[bi]]...)
		at += cp.NConsts[bi]
		for k, o := range batchedResults(br, bat) {
			out[k] = out[k] || o
		}
	}
	return out
}

// batchedResults says which outputs of p a replay with the inputs in
// batched gives batched, without replaying it: an equation's result is
// batched when an operand is (every rule but while's and cond's batches
// its result), a while's and a cond's results as their rules decide.
// Unlike batchedOutputs (a superset), it is exact for nested loops and
// conds, so an inner loop's unbatched counter does not make an outer
// loop's predicate batched (which would drop its static trip count).
func batchedResults(p *Program, in []bool) []bool {
	env := make(map[*Var]bool, len(p.Inputs)+len(p.Eqns))
	multi := map[*Var][]bool{}
	for i, v := range p.Inputs {
		env[v] = in[i]
	}
	for _, e := range p.Eqns {
		if e.Op == OpResult {
			// A result of a batched loop may be batched when its result 0
			// is not.
			if rs, ok := multi[e.Args[0]]; ok {
				env[e.Out] = rs[e.Params.Control.Index]
			}
			continue
		}
		args := make([]bool, len(e.Args))
		for i, a := range e.Args {
			args[i] = env[a]
		}
		if !slices.Contains(args, true) {
			continue
		}
		switch e.Op {
		case OpWhile:
			rs, _ := whileBatched(e, args)
			multi[e.Out], env[e.Out] = rs, rs[0]
		case OpCond:
			rs := condBatched(e, args)
			multi[e.Out], env[e.Out] = rs, rs[0]
		default:
			env[e.Out] = true
		}
	}
	out := make([]bool, len(p.Outputs))
	for k, v := range p.Outputs {
		out[k] = env[v]
	}
	return out
}

// subCall is a batchCall for a sub-trace sb of c's (a loop body, a
// branch): its helpers emit there.
func (c *batchCall) subCall(sb *builder) *batchCall {
	return &batchCall{Eqn: c.Eqn, Size: c.Size, vm: &vmapper{b: sb, size: c.Size}}
}

// replayAs batches sub-program p in c's trace over inputs in (batched as
// bat) and returns its outputs, those want marks batched (broadcast if
// the replay left them unbatched). An output the replay batched that want
// does not mark is a bug in batchedResults: a *VmapError.
func (c *batchCall) replayAs(p *Program, in []Value, bat, want []bool) []Value {
	restore := ruleMode(&c.Eqn.Pos, c.vm.b)
	outs, ob := c.vm.replay(c.vm.b, p, in, bat)
	restore()
	if c.vm.b.err != nil {
		return inert(c.vm.b, len(p.Outputs))
	}
	for k := range outs {
		switch {
		case want[k] && !ob[k]:
			outs[k] = c.vm.broadcastBatch(outs[k])
		case ob[k] && !want[k]:
			c.vm.ruleErr(c.Eqn, "internal error: output %d of a sub-program came out batched where an unbatched one was due", k)
			return inert(c.vm.b, len(p.Outputs))
		}
	}
	return outs
}

// selectBatched is select(pred, x, y) of batched x and y with pred [size]
// chosen per example (broadcast along x's other dims).
func (c *batchCall) selectBatched(pred, x, y Value) Value {
	shape := x.Shape()
	t := promote.Strong(tensor.Bool)
	mask := c.Emit(OpBroadcastInDim, t, shape, Params{Shape: shape, Dims: []int{0}}, pred)
	return c.Emit(OpSelect, x.Type(), shape, Params{}, mask, x, y)
}

func batchWhile(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	cp := e.Params.Control
	cond, body := cp.Subs[0], cp.Subs[1]
	n := len(e.Args) - cp.NConsts[0] - cp.NConsts[1]
	carryB, predB := whileBatched(e, c.Batched)
	condB := append(slices.Clone(carryB), c.Batched[n:n+cp.NConsts[0]]...)
	bodyB := append(slices.Clone(carryB), c.Batched[n+cp.NConsts[0]:]...)
	condConsts, bodyConsts := c.In[n:n+cp.NConsts[0]], c.In[n+cp.NConsts[0]:]
	init := make([]Value, n)
	for i := range n {
		if init[i] = c.In[i]; carryB[i] {
			init[i] = c.Batch(i)
		}
	}
	// pred is the batched cond in the sub-trace of cs: [size] when
	// predB, a scalar otherwise.
	pred := func(sc *batchCall, cs []Value) Value {
		in := append(slices.Clone(cs), condConsts...)
		return sc.replayAs(cond, in, condB, []bool{predB})[0]
	}
	step := func(sc *batchCall, cs []Value) []Value {
		in := append(slices.Clone(cs), bodyConsts...)
		return sc.replayAs(body, in, bodyB, carryB)
	}
	condFn := func(cs []Value) Value {
		p := pred(c.subCall(cs[0].b), cs)
		if predB {
			p = p.Any()
		}
		return p
	}
	bodyFn := func(cs []Value) []Value {
		sc := c.subCall(cs[0].b)
		if !predB {
			return step(sc, cs)
		}
		// Every example steps; those whose predicate fails keep their
		// carry (JAX's select of new and old carries).
		p := pred(sc, cs)
		outs := step(sc, cs)
		if sc.vm.b.err != nil {
			return outs
		}
		for i := range outs {
			outs[i] = sc.selectBatched(p, outs[i], cs[i])
		}
		return outs
	}
	trips := -1
	if cp.Static && !predB {
		trips = cp.Trips
	}
	rs := c.vm.b.whileLoop("while_loop", e.Pos, condFn, bodyFn, init, trips, 0)
	if c.vm.b.err != nil {
		return nil, nil
	}
	return rs, carryB
}

func batchCond(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	cp := e.Params.Control
	n := len(e.Args) - 1 - sum(cp.NConsts)
	ops, opsB := c.In[1:1+n], c.Batched[1:1+n]
	consts := make([][]Value, len(cp.Subs))
	constsB := make([][]bool, len(cp.Subs))
	at := 1 + n
	for bi := range cp.Subs {
		consts[bi], constsB[bi] = c.In[at:at+cp.NConsts[bi]], c.Batched[at:at+cp.NConsts[bi]]
		at += cp.NConsts[bi]
	}
	outB := condBatched(e, c.Batched)
	if c.Batched[0] {
		return c.selectBranches(ops, opsB, consts, constsB, outB)
	}
	fns := make([]func([]Value) []Value, len(cp.Subs))
	for bi, br := range cp.Subs {
		fns[bi] = func(xs []Value) []Value {
			// xs[0] is the index: it gives a branch without operands a
			// value of its trace to work in.
			sc := c.subCall(xs[0].b)
			in := append(slices.Clone(xs[1:]), consts[bi]...)
			return sc.replayAs(br, in, append(slices.Clone(opsB), constsB[bi]...), outB)
		}
	}
	operands := append([]Value{c.In[0]}, ops...)
	rs := c.vm.b.branches("cond", e.Pos, c.In[0].v, fns, operands)
	if c.vm.b.err != nil {
		return nil, nil
	}
	return rs, outB
}

// selectBranches is a cond with a batched index: every branch on the
// whole batch, each example's outputs selected by its index. The index
// is in range (Cond makes it 0 or 1, Switch clamps it); selecting branch
// k where index ≥ k, in increasing k, would clamp it anyway.
func (c *batchCall) selectBranches(ops []Value, opsB []bool, consts [][]Value, constsB [][]bool, outB []bool) ([]Value, []bool) {
	e := c.Eqn
	subs := e.Params.Control.Subs
	outs := make([][]Value, len(subs))
	for bi, br := range subs {
		in := append(slices.Clone(ops), consts[bi]...)
		if outs[bi] = c.replayAs(br, in, append(slices.Clone(opsB), constsB[bi]...), outB); c.vm.b.err != nil {
			return nil, nil
		}
	}
	idx := c.In[0]
	res := slices.Clone(outs[0])
	for bi := 1; bi < len(subs); bi++ {
		chosen := idx.Ge(Int(int64(bi)))
		for k := range res {
			res[k] = c.selectBatched(chosen, outs[bi][k], res[k])
		}
	}
	return res, outB
}
