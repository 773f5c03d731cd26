package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// Reverse mode through control flow. Kiln's reverse mode linearizes (the
// JVP rules run with tangents in a linear program of their own) and then
// transposes the linear program equation by equation. For a loop that
// means, as in JAX's scan:
//
//   - Linearization of a while with a static trip count (ForiLoop with
//     literal bounds, and so Scan): the primal loop runs as a scan that
//     STORES every carry before each step (one stacked array per carry;
//     not the stacked outputs a scan builds, whose values no tangent
//     reads, so memory is linear in the length);
//     the tangent is a new fori loop in the linear program whose step j
//     recomputes the body's JVP at the stored carry j — the body's
//     residuals are recomputed, the carries stored (the issue's "stores or
//     recomputes": Kiln stores the carries, recomputes the rest).
//   - Transposition of such a loop (a while in a linear program, static
//     trip count, its counter the only carry that is not linear): a loop
//     running the steps backwards, each step the VJP of the body's step
//     with respect to its linear inputs; cotangents of the loop-invariant
//     linear operands (captured tangents: a weight's) are accumulated in
//     extra carries.
//   - A cond: the linear program gets a cond choosing among the branches'
//     JVPs at the primal operands (recomputed in the chosen branch), and
//     its transpose is a cond choosing among the branches' VJPs, each
//     returning zeros for the operands only other branches read.
//
// A while whose trip count is not static cannot be reversed (its steps are
// unknown before it runs): a *DerivError with JAX's message.

// linearizeControl is controlJVP in linearization (tangents in c.lin, a
// sub-trace of b).
func linearizeControl(b *builder, c *Call, tan func(int) Value) ([]Value, []Value) {
	e := c.Eqn
	switch {
	case e.Op == OpCond:
		return linearizeCond(b, c, tan)
	case !e.Params.Control.Static:
		b.derivErr(e, "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.")
		return nil, nil
	}
	return linearizeFori(b, c, tan)
}

func linearizeFori(b *builder, c *Call, tan func(int) Value) ([]Value, []Value) {
	e := c.Eqn
	cp := e.Params.Control
	body := cp.Subs[1]
	n := len(e.Args) - cp.NConsts[0] - cp.NConsts[1]
	consts := c.In[n+cp.NConsts[0]:]
	tb := c.lin
	tanOf := func(i int) Value { // a tangent in tb, zeros where none
		t := tan(i)
		if isZero(t) {
			return zerosOf(tb, e.Args[i].Type, e.Args[i].Shape)
		}
		return t
	}
	dyn := inexactOf(e.Args[:n])
	if cp.Trips == 0 {
		ts := make([]Value, n)
		for _, i := range dyn {
			ts[i] = tanOf(i)
		}
		return c.In[:n], ts
	}
	// The primal loop, storing the carries before each step — but not
	// the ones the body only updates with a dynamic_update_slice (scan's
	// stacked outputs): their primal value never reaches a tangent, and
	// storing a stack per step would take memory quadratic in the length.
	passive := passiveCarries(body, n)
	var kept []int
	for i := range n {
		if !passive[i] {
			kept = append(kept, i)
		}
	}
	step := func(carry, _ []Value) ([]Value, []Value) {
		outs, _ := jvpProgram(carry[0].b, body, append(append([]Value{}, carry...), consts...), make([]Value, len(body.Inputs)), nil)
		stored := make([]Value, len(kept))
		for k, i := range kept {
			stored[k] = carry[i]
		}
		return outs, stored
	}
	rs := b.scan(e.Pos, step, c.In[:n], nil, ScanOptions{Length: cp.Trips, HasLength: true})
	if b.err != nil || len(rs) != n+len(kept) {
		return nil, nil
	}
	prims, stacks := rs[:n], rs[n:]
	// The tangent loop in tb: step j is the body's JVP at the stored carry j.
	constT := make([]Value, len(consts))
	for k := range consts {
		constT[k] = tan(n + cp.NConsts[0] + k)
	}
	init := make([]Value, len(dyn))
	for k, i := range dyn {
		init[k] = tanOf(i)
	}
	if len(init) == 0 {
		return prims, make([]Value, n)
	}
	stepT := func(j Value, tc []Value) []Value {
		sb := j.b
		carry := make([]Value, n)
		for i, a := range e.Args[:n] {
			carry[i] = zerosOf(sb, a.Type, a.Shape) // a passive carry's primal value: unused by the tangents
		}
		for k, s := range stacks {
			sh := s.Shape()
			carry[kept[k]] = DynamicSlice(sb.attach(s, "fori_loop"), startsAt(j, len(sh)), append([]int{1}, sh[1:]...)).Reshape(sh[1:]...)
		}
		ts := make([]Value, len(body.Inputs))
		for k, i := range dyn {
			ts[i] = tc[k]
		}
		copy(ts[n:], constT)
		_, touts := jvpProgram(sb, body, append(carry, consts...), ts, dyn)
		return touts
	}
	touts := tb.foriLoop("fori_loop", e.Pos, stepT, Int(0), Int(int64(cp.Trips)), init)
	if tb.err != nil || len(touts) != len(dyn) {
		return nil, nil
	}
	ts := make([]Value, n)
	for k, i := range dyn {
		ts[i] = touts[k]
	}
	return prims, ts
}

// passiveCarries marks the carries i of a loop body that are used only as
// the operand of a dynamic_update_slice giving result i: a tangent never
// depends on their primal value (the update's tangent is the update of
// the tangents).
func passiveCarries(body *Program, n int) []bool {
	uses := map[*Var]int{}
	for _, e := range body.Eqns {
		for _, a := range e.Args {
			uses[a]++
		}
	}
	for _, o := range body.Outputs {
		uses[o]++
	}
	marks := make([]bool, n)
	for _, e := range body.Eqns {
		if e.Op != OpDynamicUpdateSlice {
			continue
		}
		for i := range min(n, len(body.Outputs)) {
			in := body.Inputs[i]
			if e.Args[0] == in && body.Outputs[i] == e.Out && uses[in] == 1 && uses[e.Out] == 1 && in.Type.DType.IsInexact() {
				marks[i] = true
			}
		}
	}
	return marks
}

func linearizeCond(b *builder, c *Call, tan func(int) Value) ([]Value, []Value) {
	e := c.Eqn
	cp := e.Params.Control
	tb := c.lin
	// The primal cond, as it was.
	out := b.emitEqn(e, c.In)
	prims := b.results(out, e.NumResults(), e.ResultType)
	n := len(e.Args) - 1 - sum(cp.NConsts)
	dyn := inexactOf(e.Args[1 : 1+n])
	want := inexactOf(cp.Subs[0].Outputs)
	if len(want) == 0 {
		return prims, make([]Value, len(prims))
	}
	// Operands of the linear cond: the index (for a branch without
	// operands to have a value of its trace), then the tangents.
	index := tb.attach(c.In[0], "cond")
	operands := []Value{index}
	for _, i := range dyn {
		t := tan(1 + i)
		if isZero(t) {
			t = zerosOf(tb, e.Args[1+i].Type, e.Args[1+i].Shape)
		}
		operands = append(operands, t)
	}
	fns := branchJVPs(c, tan, n, dyn, want, false)
	idx := tb.materialize(index, "cond")
	rs := tb.branches("cond", e.Pos, idx, fns, operands)
	if tb.err != nil || len(rs) != len(want) {
		return nil, nil
	}
	ts := make([]Value, len(prims))
	for k, i := range want {
		ts[i] = rs[k]
	}
	return prims, ts
}

// transposeControl transposes a while or cond of a linear program: cts
// are the cotangents of its results (zero Values where none), c.In its
// non-linear operands, c.Linear its linear ones.
func transposeControl(c *Call, cts []Value) []Value {
	if c.Eqn.Op == OpCond {
		return transposeCond(c, cts)
	}
	return transposeWhile(c, cts)
}

// vjpOf is the cotangent of every linear input of sub-program p (those
// lin marks) for the cotangents of its outputs (zeros where absent), with
// the other inputs fixed at fixed (an entry per input; ignored where lin).
// p is linear in the inputs lin marks, so it is linearized at zero.
func vjpOf(sb *builder, p *Program, lin []bool, fixed []Value, cts []Value) []Value {
	var at []Value
	for i, v := range p.Inputs {
		if lin[i] {
			at = append(at, zerosOf(sb, v.Type, v.Shape))
		}
	}
	fn := func(xs []Value) []Value {
		in := make([]Value, len(p.Inputs))
		k := 0
		for i := range p.Inputs {
			if lin[i] {
				in[i] = xs[k]
				k++
			} else {
				in[i] = fixed[i]
			}
		}
		outs, _ := jvpProgram(xs[0].b, p, in, make([]Value, len(p.Inputs)), nil)
		return outs
	}
	if len(at) == 0 {
		return nil
	}
	_, pullback := vjpIn(sb, true, fn, at)
	seeds := make([]Value, len(p.Outputs))
	for i, o := range p.Outputs {
		switch {
		case i < len(cts) && !isZero(cts[i]):
			seeds[i] = cts[i]
		case o.Type.DType.IsInexact():
			seeds[i] = zerosOf(sb, o.Type, o.Shape)
		default:
			seeds[i] = Int(0) // no cotangent flows to an integer output
		}
	}
	return pullback(seeds...)
}

func transposeWhile(c *Call, cts []Value) []Value {
	e := c.Eqn
	cp := e.Params.Control
	b := c.lin
	n := len(e.Args) - cp.NConsts[0] - cp.NConsts[1]
	fail := func(why string) []Value {
		b.derivErr(e, "cannot transpose this while loop: %s (a bug in a JVP rule)", why)
		return nil
	}
	switch {
	case !cp.Static:
		return fail("its trip count is not static")
	case c.Linear[0]:
		return fail("its counter is linear")
	}
	// Every carry but the counter is a tangent: one whose initial value
	// is not linear (zeros a rule made) only gets no cotangent.
	for i := 1; i < n; i++ {
		if !e.Args[i].Type.DType.IsInexact() {
			return fail(fmt.Sprintf("carry %d is %s, not a tangent", i, e.Args[i].TypeString()))
		}
	}
	for i := n; i < n+cp.NConsts[0]; i++ {
		if c.Linear[i] {
			return fail("its condition reads a tangent")
		}
	}
	body := cp.Subs[1]
	bconst := n + cp.NConsts[0] // first body const operand
	var linConsts []int         // body const operands that are linear
	for i := bconst; i < len(e.Args); i++ {
		if c.Linear[i] {
			linConsts = append(linConsts, i)
		}
	}
	out := make([]Value, len(e.Args))
	if cp.Trips == 0 {
		for i := 1; i < n && i < len(cts); i++ {
			out[i] = cts[i]
		}
		return out
	}
	// The reverse loop's carry: the carries' cotangents, then the linear
	// consts' accumulated cotangents.
	init := make([]Value, 0, n-1+len(linConsts))
	for i := 1; i < n; i++ {
		if i < len(cts) && !isZero(cts[i]) {
			init = append(init, cts[i])
		} else {
			init = append(init, zerosOf(b, e.Args[i].Type, e.Args[i].Shape))
		}
	}
	for _, i := range linConsts {
		init = append(init, zerosOf(b, e.Args[i].Type, e.Args[i].Shape))
	}
	lo, t0 := c.In[0], e.Args[0].Type
	last := cp.Trips - 1
	step := func(s Value, carry []Value) []Value {
		sb := s.b
		j := ConvertTo(Scalar(s, complex(float64(last), 0)).Sub(s), t0, "the reverse loop's step").Add(sb.attach(lo, "transpose"))
		lin := make([]bool, len(body.Inputs))
		fixed := make([]Value, len(body.Inputs))
		fixed[0] = j
		for i := 1; i < n; i++ {
			lin[i] = true
		}
		for k := bconst; k < len(e.Args); k++ {
			bi := n + k - bconst
			if c.Linear[k] {
				lin[bi] = true
			} else {
				fixed[bi] = sb.attach(c.In[k], "transpose")
			}
		}
		seeds := append([]Value{{}}, carry[:n-1]...)
		g := vjpOf(sb, body, lin, fixed, seeds)
		if len(g) != n-1+len(linConsts) {
			return append([]Value{}, carry...)
		}
		next := append([]Value{}, g[:n-1]...)
		for k := range linConsts {
			next = append(next, accumulate(sb, carry[n-1+k], g[n-1+k]))
		}
		return next
	}
	rs := b.foriLoop("fori_loop", e.Pos, step, Int(0), Int(int64(cp.Trips)), init)
	if b.err != nil || len(rs) != len(init) {
		return out
	}
	for i := 1; i < n; i++ {
		out[i] = rs[i-1]
	}
	for k, i := range linConsts {
		out[i] = rs[n-1+k]
	}
	return out
}

// accumulate adds a step's cotangent g to the accumulator acc. When g is
// a dynamic_update_slice of zeros — the transpose of a dynamic_slice, a
// scan reading its xs — only that window is added (an update the CPU
// backend does in place), so the step costs the window, not the array.
func accumulate(b *builder, acc, g Value) Value {
	if e := definingEqn(b.prog, g.v); e != nil && e.Op == OpDynamicUpdateSlice && isZerosVar(b.prog, e.Args[0]) &&
		e.Args[1].Type == acc.Type() {
		starts := make([]Value, len(e.Args)-2)
		for i, s := range e.Args[2:] {
			starts[i] = Value{b: b, v: s}
		}
		upd := Value{b: b, v: e.Args[1]}
		return DynamicUpdateSlice(acc, DynamicSlice(acc, starts, e.Args[1].Shape).Add(upd), starts)
	}
	return acc.Add(g)
}

// definingEqn is the equation of p whose result is v, or nil.
func definingEqn(p *Program, v *Var) *Eqn {
	if v == nil {
		return nil
	}
	for i := len(p.Eqns) - 1; i >= 0; i-- {
		if p.Eqns[i].Out == v {
			return p.Eqns[i]
		}
	}
	return nil
}

// isZerosVar reports whether v is zeros as zerosOf makes them: a zero
// scalar constant, broadcast or not.
func isZerosVar(p *Program, v *Var) bool {
	e := definingEqn(p, v)
	if e != nil && e.Op == OpBroadcastInDim {
		e = definingEqn(p, e.Args[0])
	}
	if e == nil || e.Op != OpConst || e.Params.Value == nil || e.Params.Value.Size() != 1 {
		return false
	}
	z, ok := e.Params.Value.Astype(tensor.C128).Data().([]complex128)
	return ok && z[0] == 0
}

func transposeCond(c *Call, cts []Value) []Value {
	e := c.Eqn
	cp := e.Params.Control
	b := c.lin
	if c.Linear[0] {
		b.derivErr(e, "cannot transpose this cond: its index is linear (a bug in a JVP rule)")
		return nil
	}
	n := len(e.Args) - 1 - sum(cp.NConsts)
	var lins []int // linear operands (positions in e.Args)
	for i := 1; i < len(e.Args); i++ {
		if c.Linear[i] {
			lins = append(lins, i)
		}
	}
	out := make([]Value, len(e.Args))
	if len(lins) == 0 {
		return out
	}
	// The transposed cond's operands: the index, then the cotangents.
	index := b.materialize(c.In[0], "cond")
	operands := []Value{c.In[0]}
	for k, o := range cp.Subs[0].Outputs {
		if k < len(cts) && !isZero(cts[k]) {
			operands = append(operands, cts[k])
		} else if o.Type.DType.IsInexact() {
			operands = append(operands, zerosOf(b, o.Type, o.Shape))
		} else {
			operands = append(operands, zerosOf(b, o.Type, o.Shape))
		}
	}
	fns := make([]func([]Value) []Value, len(cp.Subs))
	at := 1 + n
	for bi, br := range cp.Subs {
		lo, hi := at, at+cp.NConsts[bi]
		at = hi
		fns[bi] = func(xs []Value) []Value {
			sb := xs[0].b
			lin := make([]bool, len(br.Inputs))
			fixed := make([]Value, len(br.Inputs))
			for i := range br.Inputs {
				k := 1 + i // the operand this input reads
				if i >= n {
					k = lo + i - n
				}
				if c.Linear[k] {
					lin[i] = true
				} else {
					fixed[i] = sb.attach(c.In[k], "transpose")
				}
			}
			g := vjpOf(sb, br, lin, fixed, xs[1:])
			res := make([]Value, len(lins))
			gi := 0
			for i := range br.Inputs {
				if lin[i] {
					k := 1 + i
					if i >= n {
						k = lo + i - n
					}
					for r, l := range lins {
						if l == k && gi < len(g) {
							res[r] = g[gi]
						}
					}
					gi++
				}
			}
			for r, l := range lins {
				if isZero(res[r]) || (l >= 1+n && (l < lo || l >= hi)) {
					res[r] = zerosOf(sb, e.Args[l].Type, e.Args[l].Shape)
				}
			}
			return res
		}
	}
	rs := b.branches("cond", e.Pos, index, fns, operands)
	if b.err != nil || len(rs) != len(lins) {
		return out
	}
	for r, l := range lins {
		out[l] = rs[r]
	}
	return out
}
