package trace

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Abstract describes one program input: its type and shape.
type Abstract struct {
	Type  promote.Type
	Shape []int
}

// AbstractOf is the Abstract of a strong value of dtype d and the given
// shape: what lowering keeps of a value's type.
func AbstractOf(d tensor.DType, shape []int) Abstract {
	return Abstract{Type: promote.Strong(d), Shape: shape}
}

// builder is the state of one trace: the program so far and the first error.
//
// A builder may be a sub-trace of another (parent): the trace of a function
// being transformed (differentiated) inside an enclosing trace, or the
// tangent program of a linearization. Values of an enclosing trace that a
// sub-trace uses are captured: each becomes an extra input of the
// sub-trace's program (after its declared inputs), bound to the enclosing
// value — the closure conversion that lets a differentiated function close
// over the values around it, as a Python closure over tracers does in JAX.
type builder struct {
	prog *Program
	cfg  promote.Config
	err  error

	parent   *builder
	captures map[*Var]*Var // parent's var → this trace's input
	captured []Value       // the parent's values, in capture order
	// pos, when set, is the position of every equation emitted (the
	// derivative of an equation is attributed to that equation's line).
	pos *Pos
	// exact is set while derivative rules run: operands of one type keep
	// it, whatever the promotion rules would make of two such values (in
	// 32-bit mode two weak c128 values join to c64*; anvil makes two weak
	// values strong), so a tangent always has its primal's type.
	exact bool
	// control marks the trace of a loop body or a branch (control.go):
	// when its function uses a value of a trace nested deeper in its
	// parent than itself (a loop inside a differentiated function, over
	// the operands of the function around it), it moves under that trace
	// (adopt), which is where its equation is then emitted.
	control bool
	// probe marks a scratch trace run to learn what free values would
	// give (how many results, which types): it must never fail or write
	// to a real trace. A loop or branch traced in it whose function uses a
	// real trace's values records that trace in wants (the op belongs
	// there) and fails the probe instead.
	probe bool
	wants *builder
	// budget is the memory budget of an outermost trace (TraceWithin),
	// bytes; 0: none.
	budget int
	// region is the Checkpoint, CustomJVP or CustomVJP application being
	// traced into b: the equations emitted get it as their Mark (custom.go).
	region *Region
	// remat marks the equations emitted as recomputations (Params.Remat):
	// set while reverse mode recomputes a Checkpoint's values.
	remat bool
	// linear marks the tangent trace of a linearization: the traces
	// inside it (a loop body's tangent program) hold linear programs too,
	// which reverse mode transposes (a CustomVJP's stand-ins may go there).
	linear bool
}

// inLinear reports whether b is the tangent trace of a linearization or a
// trace inside one.
func (b *builder) inLinear() bool {
	for p := b; p != nil; p = p.parent {
		if p.linear {
			return true
		}
	}
	return false
}

// inProbe reports whether b is a probe or a trace inside one.
func (b *builder) inProbe() bool {
	for p := b; p != nil; p = p.parent {
		if p.probe {
			return true
		}
	}
	return false
}

// resultType is the promoted type of an op's operands.
func (b *builder) resultType(types ...promote.Type) (promote.Type, error) {
	if b.exact && len(types) > 0 {
		same := true
		for _, t := range types[1:] {
			same = same && t == types[0]
		}
		if same {
			return types[0], nil
		}
	}
	return b.cfg.ResultType(types...)
}

// literal is a Python-like scalar not yet given its final dtype.
type literal struct {
	kind tensor.Kind // KindBool, KindInt, KindFloat or KindComplex
	b    bool
	i    int64
	f    float64
	c    complex128
}

// Value is an abstract array inside a traced function. Values are small and
// passed by value. A Value made by Int, Float, Complex, Bool or Const
// outside a trace is free: ops between free values record a small
// expression that is replayed into the program when it meets a traced value
// or is returned from the traced function.
//
// Builder methods never return errors: the first error sticks to the trace,
// with the op and the caller's file:line, and Trace returns it. Ops on a
// failed trace return inert Values.
type Value struct {
	b      *builder
	v      *Var                   // a traced value
	lit    *literal               // a literal awaiting its dtype
	replay func(b *builder) Value // a free expression
	konst  *tensor.Array          // a free constant array
}

// Int is a weak integer literal (i64*, or i32* with 32-bit defaults), like a
// Python int in JAX: it takes the dtype of the array it meets.
func Int(v int64) Value { return Value{lit: &literal{kind: tensor.KindInt, i: v}} }

// Float is a weak float literal (f64*, or f32* with 32-bit defaults).
func Float(v float64) Value { return Value{lit: &literal{kind: tensor.KindFloat, f: v}} }

// Complex is a weak complex literal (c128*, or c64* with 32-bit defaults).
func Complex(v complex128) Value { return Value{lit: &literal{kind: tensor.KindComplex, c: v}} }

// Bool is a bool literal; bool is never weak.
func Bool(v bool) Value { return Value{lit: &literal{kind: tensor.KindBool, b: v}} }

// Const is a strong constant array, copied when the program is traced. A
// nil or zero *tensor.Array fails the trace it meets with an
// *OperandError.
func Const(a *tensor.Array) Value {
	if a == nil || a.Data() == nil {
		what := "is a Const of a nil *tensor.Array"
		if a != nil {
			what = "is a Const of the zero tensor.Array (not made by a tensor constructor)"
		}
		return Failure(&OperandError{Op: "const", Pos: callerPos(), Index: 0, Msg: what})
	}
	return Value{konst: a.Clone()}
}

// ownedConst is Const of an array no one else holds (one a trace-time
// helper just built): it is not copied.
func ownedConst(a *tensor.Array) Value { return Value{konst: a} }

// zeroOperand fails op when one of xs is the zero Value, which would
// otherwise pass through the op as an inert value and be reported, if at
// all, at the output. It reports whether it did.
func zeroOperand(op string, xs ...Value) (Value, bool) {
	for i, x := range xs {
		if isZero(x) {
			err := &OperandError{Op: op, Pos: callerPos(), Index: i,
				Msg: "is the zero Value (a Value comes from an argument, a literal such as Int, Const or an op)"}
			if b, _ := builderOf(op, xs...); b != nil {
				return b.fail(err), true
			}
			return Failure(err), true
		}
	}
	return Value{}, false
}

// Trace traces fn over abstract inputs into a program. The first error of
// the trace (a *ShapeError, *DTypeError or *OpError) is returned.
func Trace(cfg promote.Config, inputs []Abstract, fn func(args []Value) []Value) (*Program, error) {
	b := &builder{cfg: cfg, prog: &Program{Config: cfg}}
	return b.trace(inputs, fn)
}

// trace runs fn over inputs into b, a new outermost trace.
func (b *builder) trace(inputs []Abstract, fn func(args []Value) []Value) (*Program, error) {
	if err := b.run(inputs, fn); err != nil {
		return nil, err
	}
	b.prog.NumVars = b.nextID()
	if VerifyAll {
		if err := b.prog.CheckAfter("trace"); err != nil {
			return nil, err
		}
	}
	return b.prog, nil
}

// run traces fn over inputs into b's program.
func (b *builder) run(inputs []Abstract, fn func(args []Value) []Value) error {
	args := make([]Value, len(inputs))
	for i, in := range inputs {
		if in.Type.DType == tensor.Bool {
			in.Type.Weak = false
		}
		if msg, err := checkShape(in.Type.DType, in.Shape); msg != "" {
			return &ShapeError{Op: "param", Shapes: [][]int{in.Shape}, Msg: fmt.Sprintf("input %d: %s", i, msg), Err: err}
		}
		v := b.newVar(in.Type, in.Shape)
		b.prog.Inputs = append(b.prog.Inputs, v)
		args[i] = Value{b: b, v: v}
	}
	outs := fn(args)
	for i, o := range outs {
		v := b.attach(o, "output")
		if b.err != nil {
			break
		}
		out := b.materialize(v, "output")
		if out == nil && b.err == nil {
			b.opErr("output", fmt.Errorf("result %d is not a value (the zero Value, or one made outside any expression)", i))
		}
		if b.err != nil {
			break
		}
		b.prog.Outputs = append(b.prog.Outputs, out)
	}
	if b.err != nil {
		return b.err
	}
	if len(outs) == 0 {
		return &OpError{Op: "output", Pos: callerPos(), Err: errors.New("the traced function returned no values")}
	}
	return nil
}

func (b *builder) nextID() int {
	n := len(b.prog.Inputs)
	for _, e := range b.prog.Eqns {
		n = max(n, e.Out.ID+1)
	}
	return n
}

func (b *builder) newVar(t promote.Type, shape []int) *Var {
	v := &Var{ID: b.prog.NumVars, Type: t, Shape: append([]int{}, shape...)}
	b.prog.NumVars++
	return v
}

// fail records the first error of the trace, and of every trace enclosing
// it: an error inside a transformed function is the enclosing trace's too.
func (b *builder) fail(err error) Value {
	for p := b; p != nil; p = p.parent {
		if p.err == nil {
			p.err = err
		}
	}
	return Value{b: b}
}

func (b *builder) shapeErr(op string, msg string, shapes ...[]int) Value {
	return b.fail(&ShapeError{Op: op, Pos: callerPos(), Shapes: shapes, Msg: msg})
}

func (b *builder) dtypeErr(op string, msg string, types ...promote.Type) Value {
	return b.fail(&DTypeError{Op: op, Pos: callerPos(), Types: types, Msg: msg})
}

func (b *builder) opErr(op string, err error) Value {
	return b.fail(&OpError{Op: op, Pos: callerPos(), Err: err})
}

// emit appends an equation and returns its result. Every op's result
// passes through here, so this is where a result shape is checked: its
// size and byte size must fit an int (tensor.ByteSize), which makes every
// Var's size, strides and offsets safe to compute downstream.
func (b *builder) emit(op Op, args []*Var, t promote.Type, shape []int, p Params, why string) Value {
	if t.DType == tensor.Bool {
		t.Weak = false
	}
	var pos Pos
	if b.pos != nil {
		pos = *b.pos
	} else {
		pos = callerPos()
	}
	if msg, err := checkShape(t.DType, shape); msg != "" {
		return b.fail(&ShapeError{Op: op.String(), Pos: pos, Shapes: [][]int{shape}, Msg: "the result " + msg, Err: err})
	}
	if p.Mark.Region == nil && b.region != nil {
		p.Mark.Region = b.region
	}
	if b.remat {
		p.Remat = true
	}
	out := b.newVar(t, shape)
	b.prog.Eqns = append(b.prog.Eqns, &Eqn{Op: op, Args: args, Out: out, Params: p, Pos: pos, Why: why})
	return Value{b: b, v: out}
}

// checkShape says why an array of dtype d and shape cannot exist (a
// negative dimension, a size or byte size beyond the int range), with the
// typed cause, or returns "".
func checkShape(d tensor.DType, shape []int) (string, error) {
	_, err := tensor.ByteSize(d, shape)
	var se *tensor.SizeError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &se):
		return fmt.Sprintf("%s%s is too large: %s", d, shapeString(shape), se.Msg), err
	}
	return fmt.Sprintf("%s%s has a negative dimension", d, shapeString(shape)), err
}

// encloses reports whether b is a trace enclosing c (its parent, or the
// parent's parent, …).
func (b *builder) encloses(c *builder) bool {
	for p := c.parent; p != nil; p = p.parent {
		if p == b {
			return true
		}
	}
	return false
}

// adopt moves the nearest loop-body or branch trace of b's chain whose
// parent encloses o (o is not in its own chain) under o, and reports
// whether it did: a function traced for a control-flow op may use values
// of a trace deeper than the op's operands (a loop's body closing over
// the parameters of a differentiated function while its operands are the
// enclosing program's), and its equation then belongs in that trace. The
// values it captured so far belong to traces enclosing o, so they stay
// valid.
func (b *builder) adopt(o *builder) bool {
	for c := b; c != nil; c = c.parent {
		if c.control && c.parent != nil && c.parent.encloses(o) && c != o && !c.encloses(o) {
			c.parent = o
			return true
		}
		if c.control && c.parent != nil && c.parent.probe && !o.inProbe() && c.parent.wants == nil {
			c.parent.wants = o // a probe's loop uses a real trace: the op belongs there
		}
	}
	return false
}

// capture makes x, a traced value of a trace enclosing b, an input of b
// (once per value), capturing it in the traces in between first.
func (b *builder) capture(x Value) *Var {
	if x.b != b.parent {
		x = Value{b: b.parent, v: b.parent.capture(x)}
	}
	if v, ok := b.captures[x.v]; ok {
		return v
	}
	if b.captures == nil {
		b.captures = map[*Var]*Var{}
	}
	v := b.newVar(x.v.Type, x.v.Shape)
	b.prog.Inputs = append(b.prog.Inputs, v)
	b.captures[x.v] = v
	b.captured = append(b.captured, x)
	return v
}

// builderOf finds the trace the operands belong to; nil when all are free.
// Operands of a trace and of traces enclosing it belong to the innermost;
// values of two unrelated traces are an error.
func builderOf(op string, xs ...Value) (*builder, bool) {
	var b *builder
	for _, x := range xs {
		switch {
		case x.b == nil || x.b == b:
		case b == nil || b.encloses(x.b):
			b = x.b
		case x.b.encloses(b) || b.adopt(x.b):
		case x.b.adopt(b):
			b = x.b
		default:
			if x.b.inProbe() && !b.inProbe() {
				b = x.b // the probe fails, never the real trace
			}
			b.opErr(op, errors.New("operands come from two different traces"))
			return b, false
		}
	}
	return b, true
}

// attach brings x into trace b: free expressions are replayed and free
// constants become const equations; literals stay literals.
func (b *builder) attach(x Value, op string) Value {
	switch {
	case x.b == b && (x.v != nil || x.lit != nil):
		return x
	case x.b != nil && x.b != b && (x.b.encloses(b) || b.adopt(x.b)):
		switch {
		case x.v != nil:
			return Value{b: b, v: b.capture(x)}
		case x.lit != nil:
			return Value{b: b, lit: x.lit}
		}
		return Value{b: b}
	case x.b != nil && x.b != b:
		return b.opErr(op, errors.New("a value from another trace was used"))
	case x.replay != nil:
		return x.replay(b)
	case x.lit != nil:
		return Value{b: b, lit: x.lit}
	case x.konst != nil:
		return b.emit(OpConst, nil, promote.Strong(x.konst.DType()), x.konst.Shape(), Params{Value: x.konst}, "")
	}
	return Value{b: b} // an inert value of a failed trace, or the zero Value
}

// litType is the type of a literal before it meets anything.
func (b *builder) litType(l *literal) promote.Type {
	switch l.kind {
	case tensor.KindInt:
		return promote.WeakOf(b.cfg.DefaultInt())
	case tensor.KindFloat:
		return promote.WeakOf(b.cfg.DefaultFloat())
	case tensor.KindComplex:
		return promote.WeakOf(b.cfg.DefaultComplex())
	}
	return promote.Strong(tensor.Bool)
}

// typeOf is the type of an attached value.
func (b *builder) typeOf(x Value) promote.Type {
	if x.lit != nil {
		return b.litType(x.lit)
	}
	return x.v.Type
}

func shapeOf(x Value) []int {
	if x.v != nil {
		return x.v.Shape
	}
	return nil
}

// literalArray makes the rank-0 array of a literal at dtype d, checking
// that an integer literal fits an integer dtype.
func literalArray(l *literal, d tensor.DType) (*tensor.Array, error) {
	var src *tensor.Array
	switch l.kind {
	case tensor.KindInt:
		if d.IsInteger() || d == tensor.Bool {
			if err := promote.CheckIntLiteral(l.i, d); err != nil {
				return nil, err
			}
		}
		src = tensor.Scalar(l.i)
	case tensor.KindFloat:
		src = tensor.Scalar(l.f)
	case tensor.KindComplex:
		src = tensor.Scalar(l.c)
	default:
		src = tensor.Scalar(l.b)
	}
	return src.Astype(d), nil
}

// to converts an attached value to type t for op: literals are materialized
// at t's dtype (an overflow is an error), arrays get an explicit convert
// whose note says why. The result is a traced Var, or nil after an error.
func (b *builder) to(x Value, t promote.Type, op, why string) *Var {
	if b.err != nil {
		return nil
	}
	if x.lit != nil {
		a, err := literalArray(x.lit, t.DType)
		if err != nil {
			b.opErr(op, err)
			return nil
		}
		return b.emit(OpConst, nil, t, nil, Params{Value: a}, "").v
	}
	if x.v == nil {
		return nil
	}
	if x.v.Type == t {
		return x.v
	}
	return b.emit(OpConvert, []*Var{x.v}, t, x.v.Shape, Params{DType: t.DType}, why).v
}

// materialize turns an attached value into a Var at its own type.
func (b *builder) materialize(x Value, op string) *Var {
	if x.lit != nil {
		return b.to(x, b.litType(x.lit), op, "")
	}
	return x.v
}

// Type returns the value's dtype and weak flag (literals at their default
// width). A value of a failed trace has the zero type.
func (x Value) Type() promote.Type {
	switch {
	case x.v != nil:
		return x.v.Type
	case x.lit != nil:
		b := x.b
		if b == nil {
			b = &builder{}
		}
		return b.litType(x.lit)
	case x.konst != nil:
		return promote.Strong(x.konst.DType())
	case x.replay != nil:
		if v := x.probe(); v.v != nil || v.lit != nil {
			return v.Type()
		}
	}
	return promote.Type{}
}

// DType returns the value's dtype.
func (x Value) DType() tensor.DType { return x.Type().DType }

// Shape returns the value's shape (a copy).
func (x Value) Shape() []int {
	switch {
	case x.v != nil:
		return append([]int{}, x.v.Shape...)
	case x.konst != nil:
		return x.konst.Shape()
	case x.replay != nil:
		return x.probe().Shape()
	}
	return []int{}
}

// probe replays a free expression into a scratch trace to learn its type.
func (x Value) probe() Value {
	b := &builder{prog: &Program{}, probe: true}
	return x.replay(b)
}

// Err returns the error of the trace x belongs to, if any.
func (x Value) Err() error {
	if x.b != nil {
		return x.b.err
	}
	return nil
}

// WithPos runs build with pos as the position of every equation it emits
// into x's trace (traces of loop bodies and branches nested in it keep
// their own), and returns build's result. It is for programs built from a
// source other than Go code — kiln eval's expressions — whose positions
// are not on the Go stack: an equation's position is what a run-time error
// (kiln.Checked's) and a derivative error name. A free x (a literal, or a
// value of no trace yet) sets nothing.
func WithPos(x Value, pos Pos, build func() Value) Value {
	b := x.b
	if b == nil {
		return build()
	}
	saved := b.pos
	b.pos = &pos
	defer func() { b.pos = saved }()
	return build()
}
