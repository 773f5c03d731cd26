package trace

import (
	"fmt"
	"math"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Control flow, as jax.lax's: WhileLoop, ForiLoop, Cond, Switch and Scan
// trace their functions once, as sub-programs (JAX's closed jaxprs) held
// in the equation's Params.Control, instead of unrolling a Go loop into
// the trace. A function may close over values of the traces enclosing
// it (doc.go: how transformations nest): each one it uses becomes an extra
// input of its sub-program (after the declared ones) and an extra operand
// of the equation — the same closure conversion Grad uses
// (builder.capture).
//
// Equations. A control-flow op has several results, and an Eqn one Out:
// the equation's Out is result 0, and each further result k is a
// `result` equation (OpResult, Params.Control.Index = k) whose operand is
// the control-flow equation's Out, emitted right after it — XLA's
// get-tuple-element. Operands:
//
//	while: init carries…, cond's captured values…, body's captured values…
//	       Subs = [cond, body], NConsts = [#cond captures, #body captures]
//	cond:  index (i32 scalar), operands…, branch 0's captures…, branch 1's…
//	       Subs = the branches, NConsts = #captures of each
//
// Typing, JAX's (lax.while_loop, lax.cond): a loop's carry must have the
// same dtype, shape and weak flag out of the body as into it. A weak
// carry whose body output differs is first promoted to the join of the
// two (strong, as lax.convert_element_type makes it) and the body traced
// again, as JAX's _promote_weak_typed_inputs; a strong carry whose body
// output differs only by being weak keeps its strong type (JAX's typematch
// ignores the weak flag). Any other difference is a *ControlError with
// JAX's wording, naming the carry component and both types. Cond's and
// Switch's branches must agree on their outputs' dtypes and shapes; an
// output weak in one branch and strong in another is strong. A predicate
// is a scalar bool or integer (nonzero is true), as JAX's cond accepts; a
// Switch index is an integer scalar, clamped into range, as JAX's.
//
// Scan is built on the while loop, as XLA lowers it: a counter, the
// carries and the stacked outputs (written in place with
// dynamic_update_slice) are the loop's carry.
//
// Derivatives, as JAX's: forward mode (JVP) through every while loop and
// cond (the loop runs primal and tangent carries together); reverse mode
// through conds and through while loops with a static trip count —
// ForiLoop with literal bounds, and Scan — storing the carries of every
// step and recomputing the body's residuals from them (rules_control_rev.go).
// Reverse mode through a while loop whose trip count is only known at run
// time (WhileLoop, ForiLoop with a traced bound) is a *DerivError with
// JAX's message.

// ControlParams are the static parameters of a control-flow equation.
type ControlParams struct {
	Index   int        // result: which result of the control-flow equation
	Subs    []*Program // while: cond, body; cond: the branches
	NConsts []int      // per sub-program: how many of its inputs are captured values (its last inputs)
	// Trips is the trip count of a while loop made by ForiLoop with
	// static bounds (Static), as JAX specializes fori_loop on it.
	Trips  int
	Static bool
}

// ControlError reports a control-flow function whose types break the op's
// typing rule (a carry changed type in the body, branches that disagree, a
// predicate that is not a scalar), at the caller's line.
type ControlError struct {
	Op  string
	Pos Pos
	Msg string
}

func (e *ControlError) Error() string { return errorText(e.Op, e.Pos, e.Msg) }

func (b *builder) controlErr(op string, pos Pos, format string, a ...any) {
	b.fail(&ControlError{Op: op, Pos: pos, Msg: fmt.Sprintf(format, a...)})
}

// NumResults is the number of results of a control-flow equation (1 for
// every other op).
func (e *Eqn) NumResults() int {
	switch e.Op {
	case OpWhile:
		return len(e.Args) - sum(e.Params.Control.NConsts)
	case OpCond:
		if len(e.Params.Control.Subs) > 0 {
			return len(e.Params.Control.Subs[0].Outputs)
		}
	}
	return 1
}

// ResultType is the type and shape of result k of a control-flow equation.
func (e *Eqn) ResultType(k int) (promote.Type, []int) {
	var v *Var
	switch e.Op {
	case OpWhile:
		v = e.Args[k]
	case OpCond:
		v = e.Params.Control.Subs[0].Outputs[k]
	default:
		v = e.Out
	}
	return v.Type, v.Shape
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// abstracts are the types of vars.
func abstracts(vs []*Var) []Abstract {
	out := make([]Abstract, len(vs))
	for i, v := range vs {
		out[i] = Abstract{Type: v.Type, Shape: v.Shape}
	}
	return out
}

// subTrace traces fn over inputs as a sub-trace of the innermost trace
// being built inside b (current), closing over its values and those of
// the traces enclosing it; it returns the program (nil after an error),
// the values its captured inputs are bound to, and the trace the equation
// holding it belongs to (placement: b, or a trace inside b whose values
// fn uses — a loop body's index, when the op's operands come from outside
// the loop). After an error that trace is a failed one, for the op's
// inert results.
func (b *builder) subTrace(inputs []Abstract, fn func([]Value) []Value) (*Program, []Value, *builder) {
	// A loop or branch a derivative rule builds (the reverse loop of a
	// transpose) is traced in the rule's mode: its operands of one type
	// keep it, so a cotangent accumulated in a carry is not promoted (two
	// weak f32 join to f64 under strict promotion) and its equations are
	// at the rule's position.
	sub := newBuilder(b.cfg, b.current())
	sub.exact, sub.pos = b.exact, b.pos
	if err := sub.run(inputs, fn); err != nil {
		sub.fail(err)
		return nil, nil, sub.parent
	}
	sub.prog.NumVars = sub.nextID()
	return sub.prog, sub.captured, sub.placement(b)
}

// inTrace brings values of traces enclosing e into e, as vars.
func (e *builder) inTrace(op string, xs []Value) []*Var {
	vs := make([]*Var, len(xs))
	for i, x := range xs {
		vs[i] = e.materialize(e.attach(x, op), op)
	}
	return vs
}

// controlOperands materializes the operands of a control-flow op in b.
func (b *builder) controlOperands(op string, xs []Value) []*Var {
	vs := make([]*Var, len(xs))
	for i, x := range xs {
		v := b.materialize(b.attach(x, op), op)
		if v == nil {
			if b.err == nil {
				b.fail(&OperandError{Op: op, Pos: callerPos(), Index: i, Msg: "is not a value (the zero Value, or one made outside any expression)"})
			}
			return nil
		}
		vs[i] = v
	}
	return vs
}

// results emits the result equations of control-flow equation out (its
// result 0) and returns all n results.
func (b *builder) results(out Value, n int, types func(k int) (promote.Type, []int)) []Value {
	if b.err != nil || out.v == nil {
		return inert(b, max(n, 1))
	}
	rs := []Value{out}
	for k := 1; k < n; k++ {
		t, s := types(k)
		rs = append(rs, b.emit(OpResult, []*Var{out.v}, t, s, Params{Control: ControlParams{Index: k}}, ""))
	}
	return rs
}

// typeName prints a type and shape as JAX's str_short does: float32[3],
// with Kiln's star for a weak type.
func typeName(t promote.Type, shape []int) string {
	return t.String() + shapeString(shape)
}

// mismatch describes how two types differ, JAX's way.
func mismatch(t1 promote.Type, s1 []int, t2 promote.Type, s2 []int) string {
	var parts []string
	if t1.DType != t2.DType {
		parts = append(parts, "the dtypes do not match")
	}
	if !ShapeEqual(s1, s2) {
		parts = append(parts, "the shapes do not match")
	}
	if len(parts) == 0 && t1.Weak != t2.Weak {
		parts = append(parts, "the weak types do not match")
	}
	return strings.Join(parts, " and also ")
}

// controlValues runs op in the trace of xs, or — when every operand is
// free — returns free values replaying it in the trace they meet (free).
func controlValues(op string, xs []Value, run func(b *builder, xs []Value) []Value) []Value {
	b, ok := builderOf(op, xs...)
	if b == nil {
		return free(xs, run)
	}
	if !ok || b.err != nil {
		return inert(b, 1)
	}
	return run(b, xs)
}

// WhileLoop is lax.while_loop: starting from init, it applies body to the
// carry while cond (a scalar bool function of the carry) holds, and
// returns the final carry. Both functions are traced once.
func WhileLoop(cond func(carry []Value) Value, body func(carry []Value) []Value, init ...Value) []Value {
	pos := callerPos()
	return controlValues("while", init, func(b *builder, xs []Value) []Value {
		return b.whileLoop("while_loop", pos, cond, body, xs, -1, 0)
	})
}

// whileLoop emits a while equation; trips ≥ 0 records a static trip
// count; the first hidden carries are the op's own (fori_loop's counter),
// not counted in error messages.
func (b *builder) whileLoop(name string, pos Pos, cond func([]Value) Value, body func([]Value) []Value, init []Value, trips, hidden int) []Value {
	const op = "while"
	if cond == nil || body == nil {
		b.controlErr(name, pos, "a nil function")
		return inert(b, max(len(init), 1))
	}
	if len(init) == 0 {
		b.controlErr(name, pos, "no carry: give at least one initial value")
		return inert(b, 1)
	}
	vs := b.controlOperands(op, init)
	if vs == nil {
		return inert(b, len(init))
	}
	carry := abstracts(vs)
	bodyProg, bodyCaps, e := b.traceBody(name, pos, body, carry, hidden)
	if bodyProg == nil {
		return inert(e, len(init))
	}
	// The body may have promoted weak carries: bring the initial values
	// to the carry's types.
	for i, in := range bodyProg.Inputs[:len(vs)] {
		if vs[i].Type != in.Type {
			vs[i] = b.to(Value{b: b, v: vs[i]}, in.Type, op, "a weak carry promoted to the body's result type (JAX's while_loop)")
		}
	}
	carry = abstracts(bodyProg.Inputs[:len(vs)])
	condProg, condCaps, e := e.subTrace(carry, func(c []Value) []Value { return []Value{cond(c)} })
	if condProg == nil {
		return inert(e, len(init))
	}
	if o := condProg.Outputs[0]; o.Type.DType != tensor.Bool || o.Rank() != 0 {
		b.controlErr(name, pos, "cond_fun must return a boolean scalar, but got output type %s", o.TypeString())
		return inert(b, len(init))
	}
	// The equation goes where the functions' traces ended up (b, or a
	// trace inside it whose values they use).
	inits := make([]Value, len(vs))
	for i, v := range vs {
		inits[i] = Value{b: b, v: v}
	}
	args := e.inTrace(op, append(append(inits, condCaps...), bodyCaps...))
	if e.err != nil {
		return inert(e, len(init))
	}
	p := Params{Control: ControlParams{Subs: []*Program{condProg, bodyProg}, NConsts: []int{len(condCaps), len(bodyCaps)}, Trips: max(trips, 0), Static: trips >= 0}}
	saved := e.pos
	e.pos = &pos
	out := e.emit(OpWhile, args, vs[0].Type, vs[0].Shape, p, "")
	rs := e.results(out, len(vs), func(k int) (promote.Type, []int) { return vs[k].Type, vs[k].Shape })
	e.pos = saved
	return rs
}

// traceBody traces a loop body over the carry types, promoting weak
// carries the body changes and tracing again (JAX's
// _promote_weak_typed_inputs), and checks the carry types match.
func (b *builder) traceBody(name string, pos Pos, body func([]Value) []Value, carry []Abstract, hidden int) (*Program, []Value, *builder) {
	for attempt := 0; ; attempt++ {
		p, caps, e := b.subTrace(carry, keepStrong(body, carry))
		if p == nil {
			return nil, nil, e
		}
		if len(p.Outputs) != len(carry) {
			b.controlErr(name, pos, "%s body function carry input and carry output must have the same structure: the carry has %d components, the body returned %d", name, len(carry)-hidden, len(p.Outputs)-hidden)
			return nil, nil, b
		}
		promoted := false
		for i, o := range p.Outputs {
			in := carry[i]
			if in.Type.Weak && attempt == 0 && o.Type != in.Type && ShapeEqual(o.Shape, in.Shape) {
				t, err := b.cfg.ResultType(in.Type, o.Type)
				if err == nil {
					carry[i].Type = promote.Strong(t.DType)
					promoted = true
				}
			}
		}
		if promoted {
			continue
		}
		var diffs []string
		for i, o := range p.Outputs {
			in := carry[i]
			if o.Type != in.Type || !ShapeEqual(o.Shape, in.Shape) {
				diffs = append(diffs, fmt.Sprintf("the input carry component carry[%d] has type %s but the corresponding output carry component has type %s, so %s",
					i-hidden, typeName(in.Type, in.Shape), o.TypeString(), mismatch(in.Type, in.Shape, o.Type, o.Shape)))
			}
		}
		if len(diffs) > 0 {
			b.controlErr(name, pos, "%s body function carry input and carry output must have equal types (e.g. shapes and dtypes of arrays), but they differ: %s. Revise the function so that all output types (e.g. shapes and dtypes) match the corresponding input types",
				name, strings.Join(diffs, "; "))
			return nil, nil, b
		}
		return p, caps, e
	}
}

// keepStrong wraps a body so that an output that differs from its strong
// carry only by being weak is made strong (JAX's typematch ignores the
// weak flag; the loop keeps the carry's type).
func keepStrong(body func([]Value) []Value, carry []Abstract) func([]Value) []Value {
	return func(c []Value) []Value {
		outs := body(c)
		for i, o := range outs {
			if i >= len(carry) || len(c) == 0 || c[0].b == nil {
				break
			}
			b := c[0].b
			o = b.attach(o, "while")
			if b.err != nil {
				break
			}
			t := carry[i].Type
			if o.lit != nil && !t.Weak && promote.WeakOf(t.DType) == b.litType(o.lit) {
				outs[i] = Value{b: b, v: b.to(o, t, "while", "")}
				continue
			}
			if o.v != nil && o.v.Type.Weak && !t.Weak && o.v.Type.DType == t.DType {
				outs[i] = Value{b: b, v: b.to(o, t, "while", "a strong carry stays strong")}
			}
		}
		return outs
	}
}

// ForiLoop is lax.fori_loop: for i from lo up to hi (exclusive) it sets
// the carry to body(i, carry), starting from init, and returns the final
// carry. lo and hi are integer scalars, literals or traced; i has their
// promoted type (a weak i64* for two literals, as a Python int). With two
// literal bounds the trip count is static and recorded (JAX's fori_loop
// then uses scan).
func ForiLoop(lo, hi Value, body func(i Value, carry []Value) []Value, init ...Value) []Value {
	pos := callerPos()
	return controlValues("fori_loop", append([]Value{lo, hi}, init...), func(b *builder, xs []Value) []Value {
		return b.foriLoop("fori_loop", pos, body, xs[0], xs[1], xs[2:])
	})
}

// foriLoop is ForiLoop in trace b, reported as name.
func (b *builder) foriLoop(name string, pos Pos, body func(i Value, carry []Value) []Value, lo, hi Value, init []Value) []Value {
	n := len(init)
	if n == 0 {
		b.controlErr(name, pos, "no carry: give at least one initial value")
		return inert(b, 1)
	}
	xs := attachAll(b, name, append([]Value{lo, hi}, init...))
	if b.err != nil {
		return inert(b, n)
	}
	t, err := b.resultType(b.typeOf(xs[0]), b.typeOf(xs[1]))
	if err == nil && (!t.DType.IsInteger() || len(shapeOf(xs[0])) != 0 || len(shapeOf(xs[1])) != 0) {
		err = fmt.Errorf("lower and upper must be integer scalars, got %s%s and %s%s", b.typeOf(xs[0]), shapeString(shapeOf(xs[0])), b.typeOf(xs[1]), shapeString(shapeOf(xs[1])))
	}
	if err != nil {
		b.fail(&DTypeError{Op: name, Pos: pos, Types: []promote.Type{b.typeOf(xs[0]), b.typeOf(xs[1])}, Msg: err.Error()})
		return inert(b, n)
	}
	trips := -1
	if l, h := xs[0].lit, xs[1].lit; l != nil && h != nil {
		switch d := h.i - l.i; {
		case h.i <= l.i:
			trips = 0
		case d > 0 && d <= math.MaxInt: // no overflow: the count is static
			trips = int(d)
		}
	}
	lov := b.to(xs[0], t, name, "fori_loop's bounds have one type")
	hiv := Value{b: b, v: b.to(xs[1], t, name, "fori_loop's bounds have one type")}
	if b.err != nil {
		return inert(b, n)
	}
	var cond func(c []Value) Value
	var step func(c []Value) []Value
	if body != nil {
		cond = func(c []Value) Value { return c[0].Lt(hiv) }
		step = func(c []Value) []Value {
			return append([]Value{c[0].Add(Scalar(c[0], 1))}, body(c[0], c[1:])...)
		}
	}
	rs := b.whileLoop(name, pos, cond, step, append([]Value{{b: b, v: lov}}, xs[2:]...), trips, 1)
	if len(rs) < 1+n {
		return inert(b, n)
	}
	return rs[1:]
}
