package trace

import (
	"errors"
	"fmt"
	"sync/atomic"

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
	captures map[*Var]*Var // an enclosing trace's var → this trace's input
	captured []Value       // the enclosing traces' values, in capture order
	// active is the sub-trace whose function is running inside this
	// trace's (run), nil when none: following it from any trace being
	// built leads to the innermost one, where the Go code runs now
	// (current) — JAX's dynamic trace.
	active *builder
	// seq orders traces by creation (a newer trace has a larger seq): it
	// tells which part of two unrelated chains was built inside the other
	// (floating).
	seq uint64
	// pos, when set, is the position of every equation emitted (the
	// derivative of an equation is attributed to that equation's line).
	pos *Pos
	// replayPos marks a pos set by a free value's replay (freeOp): the
	// line that built the value, which its equations and its errors name.
	// A free value replayed inside another's replay sets its own; a pos
	// set by WithPos or a derivative rule is kept.
	replayPos bool
	// exact is set while derivative rules run: operands of one type keep
	// it, whatever the promotion rules would make of two such values (in
	// 32-bit mode two weak c128 values join to c64*; anvil makes two weak
	// values strong), so a tangent always has its primal's type.
	exact bool
	// probe marks a scratch trace run to learn what free values would
	// give (how many results, which types), always an outermost trace: it
	// must never fail or write to a real trace. Go code running inside it
	// may meet values of a real trace (a loop from a literal whose body
	// uses a traced x): the probe records in wants the trace it was run
	// inside (where the op belongs), and fails instead (floating). done
	// marks a probe whose run has ended.
	probe bool
	wants *builder
	done  bool
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

// newBuilder is a trace of cfg, a sub-trace of parent when it is not nil.
func newBuilder(cfg promote.Config, parent *builder) *builder {
	return &builder{cfg: cfg, prog: &Program{Config: cfg}, parent: parent, seq: traceSeq.Add(1)}
}

// newProbe is a probe trace (see builder.probe).
func newProbe() *builder {
	return &builder{prog: &Program{}, probe: true, seq: traceSeq.Add(1)}
}

// traceSeq numbers traces in creation order (builder.seq).
var traceSeq atomic.Uint64

// current is the innermost trace being built inside b: b, or the
// sub-trace whose function is running in it, or that one's, and so on.
// A transformation or control-flow op traces its functions there, as
// JAX traces them in the innermost trace in use: they may close over any
// value of it or of a trace enclosing it (a loop body's index, when the
// op's operands come from outside the loop).
func (b *builder) current() *builder {
	for b.active != nil {
		b = b.active
	}
	return b
}

// placement is where the equation holding a finished sub-trace's program
// goes: the innermost of b (the trace of the op's operands) and the traces
// of the values the sub-trace's function closed over. The sub-trace was
// made in the innermost trace being built (current), which all of them
// enclose; an op using no value of that trace goes out to the trace of
// the values it uses, as it did before the op was called inside it (a
// loop-invariant op stays out of the loop).
func (sub *builder) placement(b *builder) *builder {
	for p := sub.parent; p != nil; p = p.parent {
		if p == b {
			return p
		}
		for _, x := range sub.captured {
			if x.b == p {
				return p
			}
		}
	}
	return sub.parent
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

// rankedType is resultType for operands of known shapes: profiles where
// rank takes part in promotion (torch: a rank-0 strong array is a 0-dim
// tensor, a category below arrays of rank ≥ 1) see each operand's rank.
func (b *builder) rankedType(types []promote.Type, shapes [][]int) (promote.Type, error) {
	if b.exact || !b.cfg.UsesRank() {
		return b.resultType(types...)
	}
	ops := make([]promote.Operand, len(types))
	for i, t := range types {
		ops[i] = promote.Operand{Type: t, Rank: len(shapes[i])}
	}
	return b.cfg.ResultTypeRanked(ops...)
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

// Const is a strong constant array, copied when the program is traced
// (a packed sub-byte integer array is copied unpacked, one element a
// byte, as a program holds its constants). A nil or zero *tensor.Array fails the trace it meets with an
// *OperandError.
func Const(a *tensor.Array) Value {
	if a == nil || !a.IsPacked() && a.Data() == nil {
		what := "is a Const of a nil *tensor.Array"
		if a != nil {
			what = "is a Const of the zero tensor.Array (not made by a tensor constructor)"
		}
		return Failure(&OperandError{Op: "const", Pos: callerPos(), Index: 0, Msg: what})
	}
	if a.IsPacked() {
		return Value{konst: a.Unpack()} // a copy, held one element a byte as the kernels read constants
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
	return newBuilder(cfg, nil).trace(inputs, fn)
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
//
// While fn runs, b is its parent's active sub-trace (current).
func (b *builder) run(inputs []Abstract, fn func(args []Value) []Value) error {
	if p := b.parent; p != nil {
		prev := p.active
		p.active = b
		defer func() { p.active = prev }()
	}
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
	return b.fail(&ShapeError{Op: op, Pos: b.errPos(), Shapes: shapes, Msg: msg})
}

func (b *builder) dtypeErr(op string, msg string, types ...promote.Type) Value {
	return b.fail(&DTypeError{Op: op, Pos: b.errPos(), Types: types, Msg: msg})
}

func (b *builder) opErr(op string, err error) Value {
	return b.fail(&OpError{Op: op, Pos: b.errPos(), Err: err})
}

// errPos is the position an error of the op being built names: the line
// that built the free value being replayed (freeOp), whose op it is, or
// else the user's line on the stack. (A tool's WithPos positions the
// equations it emits; its errors keep naming the Go line, as they did.)
func (b *builder) errPos() Pos {
	if b.replayPos && b.pos != nil {
		return *b.pos
	}
	return callerPos()
}

// replayAt runs replay, a free value's replay into b, with pos (the line
// that built the value) as the position of the equations it emits and the
// errors it reports — unless WithPos or a derivative rule has set one,
// which wins. Without it, a free value's ops would be attributed to the
// line where the value first met a trace (Eval's call, or the op using
// it), not the line that wrote them.
func (b *builder) replayAt(pos Pos, replay func(b *builder) Value) Value {
	if b == nil || pos == (Pos{}) || b.pos != nil && !b.replayPos {
		return replay(b)
	}
	saved, savedReplay := b.pos, b.replayPos
	b.pos, b.replayPos = &pos, true
	defer func() { b.pos, b.replayPos = saved, savedReplay }()
	return replay(b)
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

// capture makes x, a traced value of a trace enclosing b, an input of b
// (once per value). x is kept as it is (captured): whoever emits the
// equation holding b's program attaches it in the trace that equation
// goes to, capturing it there in turn when it must — not in every trace
// in between, which may not need it (placement).
func (b *builder) capture(x Value) *Var {
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
// values of two unrelated traces are an error (unless a probe is
// involved: floating).
func builderOf(op string, xs ...Value) (*builder, bool) {
	var b *builder
	for _, x := range xs {
		switch {
		case x.b == nil || x.b == b:
		case b == nil || b.encloses(x.b):
			b = x.b
		case x.b.encloses(b):
		default:
			const msg = "operands come from two different traces"
			if f := floating(op, msg, b, x.b); f != nil {
				return f, false
			}
			if f := floating(op, msg, x.b, b); f != nil {
				return f, false
			}
			b.opErr(op, errors.New(msg))
			return b, false
		}
	}
	return b, true
}

// floating settles a meeting of x, a trace, with a value of y, a trace
// neither enclosing nor enclosed by x, when it is a probe's doing: it
// fails x's side — the probe, never a real trace — and returns x, or
// returns nil when the meeting is an error of x's.
//
// A probe (builder.probe) is an outermost trace, though the Go code
// tracing it runs inside some trace being built: that is the trace its op
// belongs to, and the trace any value it may meet belongs to or encloses.
// So a meeting of a probe's trace with an unrelated one tells:
//
//   - when the part of x's chain made after y's probe started (c, from
//     seq) hangs from an older trace, that part was built inside the
//     probe (a Vmap called in a probed loop body, on a value of the
//     trace around the loop, whose function uses the body's index): the
//     probe's op uses the trace c hangs from, which it records in wants
//     (the op is then traced there). c moves under y — it was built
//     inside it — so that failing it fails the probe, not the real trace
//     it hung from;
//   - when that part is a probe itself, started inside y's, that probe's
//     op belongs in y (wants) and the probe fails;
//   - when x is in a probe and y's chain is older, the probe's op uses
//     y's trace, or one enclosing it (wants): the probe fails.
//
// A probe that has ended (done) settles nothing: its values were leaked;
// nor does a meeting of two traces of one tree (a branch's value used in
// another branch).
func floating(op, msg string, x, y *builder) *builder {
	if x.root() == y.root() {
		return nil
	}
	if py := y.probeRoot(); py != nil && !py.done {
		if c := x.newerPart(py.seq); c != nil {
			switch {
			case c.parent != nil:
				if py.wants == nil {
					py.wants = c.parent
				}
				c.parent = y
				x.opErr(op, errors.New(msg))
				return x
			case c.probe:
				if c.wants == nil {
					c.wants = y
				}
				x.opErr(op, errors.New(msg))
				return x
			}
		}
	}
	if px := x.probeRoot(); px != nil && !px.done {
		if px.wants == nil {
			px.wants = y.olderPart(px.seq)
		}
		x.opErr(op, errors.New(msg))
		return x
	}
	return nil
}

// root is the outermost trace of b's chain.
func (b *builder) root() *builder {
	for ; b.parent != nil; b = b.parent {
	}
	return b
}

// probeRoot is the probe b's chain ends in, or nil.
func (b *builder) probeRoot() *builder {
	if r := b.root(); r.probe {
		return r
	}
	return nil
}

// newerPart is the outermost trace of b's chain made after seq, or nil.
func (b *builder) newerPart(seq uint64) *builder {
	var c *builder
	for p := b; p != nil && p.seq > seq; p = p.parent {
		c = p
	}
	return c
}

// olderPart is the innermost trace of b's chain made before seq, or nil.
func (b *builder) olderPart(seq uint64) *builder {
	for p := b; p != nil; p = p.parent {
		if p.seq < seq {
			return p
		}
	}
	return nil
}

// attach brings x into trace b: free expressions are replayed and free
// constants become const equations; literals stay literals. Values of a
// trace enclosing b are captured; a value of any other trace is an
// error (or, when a probe is involved, fails it: floating).
func (b *builder) attach(x Value, op string) Value {
	switch {
	case x.b == b && (x.v != nil || x.lit != nil):
		return x
	case x.b != nil && x.b != b && x.b.encloses(b):
		switch {
		case x.v != nil:
			return Value{b: b, v: b.capture(x)}
		case x.lit != nil:
			return Value{b: b, lit: x.lit}
		}
		return Value{b: b}
	case x.b != nil && x.b != b:
		const msg = "a value from another trace was used"
		if floating(op, msg, b, x.b) == nil {
			b.opErr(op, errors.New(msg))
		}
		return Value{b: b}
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

// literalArray makes the rank-0 array of a literal at dtype d; an integer
// literal that does not fit an integer dtype is an error or wraps, as the
// profile says (promote.Config.IntLiteral).
func literalArray(cfg promote.Config, l *literal, d tensor.DType) (*tensor.Array, error) {
	var src *tensor.Array
	switch l.kind {
	case tensor.KindInt:
		i := l.i
		if d.IsInteger() || d == tensor.Bool {
			var err error
			if i, err = cfg.IntLiteral(l.i, d); err != nil {
				return nil, err
			}
		}
		src = tensor.Scalar(i)
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
		a, err := literalArray(b.cfg, x.lit, t.DType)
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
	b := newProbe()
	defer func() { b.done = true }()
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
