package reference

import (
	"fmt"
	"reflect"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Options tune the evaluator; the zero value uses Go's math package.
type Options struct {
	// Transcendental, when set, computes a transcendental op (trace.Op with
	// Info().Transcendental, i.e. exp log log1p expm1 rsqrt sin cos tan tanh
	// logistic pow) for real float dtypes: it receives the op, the compute
	// dtype (tensor.F32 or tensor.F64) and the operand(s) as float64 (exact
	// widenings of the f32/f64 values) and returns the result as float64
	// that the caller rounds to the compute dtype. Nil: the result is
	// math's float64 function rounded to the dtype.
	Transcendental func(op trace.Op, d tensor.DType, x, y float64) float64
}

// InputError reports an input array that does not match the program.
type InputError struct {
	Index int // the input's position, or -1 for the count
	Msg   string
}

func (e *InputError) Error() string {
	if e.Index < 0 {
		return "reference: " + e.Msg
	}
	return fmt.Sprintf("reference: input %d: %s", e.Index, e.Msg)
}

// EqnError reports an equation the evaluator cannot evaluate: a malformed
// program, or an op applied to a dtype it is not defined for.
type EqnError struct {
	Index int    // position of the equation in Program.Eqns
	Eqn   string // the equation as printed
	Msg   string
}

func (e *EqnError) Error() string {
	return fmt.Sprintf("reference: eqn %d (%s): %s", e.Index, e.Eqn, e.Msg)
}

// Eval runs p on inputs and returns newly allocated outputs, one per
// p.Outputs. Inputs are checked against p.Inputs (count, dtype, shape,
// backing length) and never written.
func Eval(p *trace.Program, inputs []*tensor.Array, opts Options) ([]*tensor.Array, error) {
	if p == nil {
		return nil, &InputError{Index: -1, Msg: "nil program"}
	}
	if err := checkInputs(p, inputs); err != nil {
		return nil, err
	}
	ev := &evaluator{opts: opts, env: map[*trace.Var]*tensor.Array{}, results: map[*trace.Var][]*tensor.Array{}}
	for i, v := range p.Inputs {
		ev.env[v] = inputs[i].Unpack() // a packed sub-byte array, one element a byte as every op reads it
	}
	for i, e := range p.Eqns {
		if err := ev.step(e); err != nil {
			return nil, &EqnError{Index: i, Eqn: eqnString(e), Msg: err.Error()}
		}
	}
	outs := make([]*tensor.Array, len(p.Outputs))
	for i, v := range p.Outputs {
		a, ok := ev.env[v]
		if !ok {
			return nil, &InputError{Index: -1, Msg: fmt.Sprintf("output %d is never computed", i)}
		}
		// Outputs may be inputs, constants or the same value twice: copy so
		// the caller owns every output and writing one changes nothing else.
		outs[i] = a.Clone()
	}
	return outs, nil
}

// eqnString prints e for an error message. The trace printer assumes a
// well-formed equation (a const has a value, argmax an axis), and the
// equation being reported may be malformed, so a panic while printing
// falls back to the op's name.
func eqnString(e *trace.Eqn) (s string) {
	if e == nil || e.Out == nil {
		return "nil"
	}
	defer func() {
		if recover() != nil {
			s = e.Op.String() + " (unprintable)"
		}
	}()
	return e.String()
}

func checkInputs(p *trace.Program, inputs []*tensor.Array) error {
	if len(inputs) != len(p.Inputs) {
		return &InputError{Index: -1, Msg: fmt.Sprintf("the program takes %d inputs, got %d", len(p.Inputs), len(inputs))}
	}
	for i, v := range p.Inputs {
		a := inputs[i]
		if a == nil {
			return &InputError{Index: i, Msg: "nil array"}
		}
		if msg := checkArray(a, v); msg != "" {
			return &InputError{Index: i, Msg: msg}
		}
	}
	return nil
}

// checkArray says how a fails to be a value of v, or returns "".
func checkArray(a *tensor.Array, v *trace.Var) string {
	switch {
	case a.DType() != v.Type.DType:
		return fmt.Sprintf("dtype %s, the program wants %s", a.DType(), v.Type.DType)
	case !trace.ShapeEqual(a.Shape(), v.Shape):
		return fmt.Sprintf("shape %v, the program wants %v", a.Shape(), v.Shape)
	}
	if a.IsPacked() {
		return "" // its storage is checked by FromPacked; Eval unpacks it
	}
	// An Array keeps its data consistent by construction; check anyway, as
	// the evaluator indexes the backing slice directly.
	if d, ok := tensor.SliceDType(a.Data()); !ok || d != a.DType() {
		return fmt.Sprintf("backing data is %T, not %s storage", a.Data(), a.DType())
	}
	if n := reflect.ValueOf(a.Data()).Len(); n != v.Size() {
		return fmt.Sprintf("backing slice has %d elements, shape %v needs %d", n, v.Shape, v.Size())
	}
	return ""
}

// evaluator holds the values computed so far.
type evaluator struct {
	opts Options
	env  map[*trace.Var]*tensor.Array
	// results are every result of a while or cond, by its result 0.
	results map[*trace.Var][]*tensor.Array
}

// step evaluates one equation and checks its result against the type and
// shape the tracer recorded, so a disagreement between the tracer's rules
// and these semantics is reported instead of propagating.
func (ev *evaluator) step(e *trace.Eqn) error {
	if e == nil || e.Out == nil {
		return fmt.Errorf("malformed equation")
	}
	info := e.Op.Info()
	if info.Arity >= 0 && len(e.Args) != info.Arity {
		return fmt.Errorf("%s takes %d operands, got %d", e.Op, info.Arity, len(e.Args))
	}
	if e.Op.Info().Class != trace.ClassLeaf && info.Arity != 0 && len(e.Args) == 0 {
		return fmt.Errorf("%s has no operands", e.Op)
	}
	args := make([]*tensor.Array, len(e.Args))
	for i, v := range e.Args {
		a, ok := ev.env[v]
		if !ok {
			return fmt.Errorf("operand %d is used before it is defined", i)
		}
		args[i] = a
	}
	var out *tensor.Array
	var err error
	switch e.Op {
	case trace.OpWhile, trace.OpCond:
		var rs []*tensor.Array
		if rs, err = ev.control(e, args); err == nil {
			if len(rs) == 0 {
				return fmt.Errorf("%s gave no results", e.Op)
			}
			ev.results[e.Out], out = rs, rs[0]
		}
	case trace.OpResult:
		rs, k := ev.results[e.Args[0]], e.Params.Control.Index
		if k < 1 || k >= len(rs) {
			return fmt.Errorf("result %d of an equation with %d results", k, len(rs))
		}
		out = rs[k]
	default:
		out, err = ev.apply(e, args)
	}
	if err != nil {
		return err
	}
	if msg := checkArray(out, e.Out); msg != "" {
		return fmt.Errorf("result does not match the traced type: %s", msg)
	}
	ev.env[e.Out] = out
	return nil
}

// apply dispatches on the op's class.
func (ev *evaluator) apply(e *trace.Eqn, args []*tensor.Array) (*tensor.Array, error) {
	switch e.Op {
	case trace.OpParam:
		return nil, fmt.Errorf("param appears as an equation")
	case trace.OpConst:
		if e.Params.Value == nil {
			return nil, fmt.Errorf("const without a value")
		}
		return e.Params.Value, nil // never written: every op allocates its result
	case trace.OpConvert:
		if !e.Params.DType.Valid() {
			return nil, fmt.Errorf("convert to invalid dtype %v", e.Params.DType)
		}
		return args[0].Astype(e.Params.DType), nil
	case trace.OpSelect:
		return selectOp(args)
	case trace.OpIota:
		return iotaArray(e.Params)
	case trace.OpBitcastConvert:
		return bitcast(args[0], e.Params.DType)
	case trace.OpThreefry2x32:
		return threefryOp(args)
	case trace.OpSort:
		return sortOp(e.Params, args)
	case trace.OpConv:
		if e.Params.HasPreferred {
			return preferredConv(e.Params, args[0], args[1])
		}
		return conv(e.Params.Conv, args[0], args[1])
	}
	switch e.Op.Info().Class {
	case trace.ClassUnary, trace.ClassBinary:
		return ev.elementwise(e.Op, args)
	case trace.ClassStructural:
		return structural(e, args)
	case trace.ClassReduce:
		return reduce(e, args[0])
	case trace.ClassDot:
		if e.Params.HasPreferred {
			return preferredDot(e.Params, args[0], args[1])
		}
		return dot(e.Params.Dot, args[0], args[1])
	case trace.ClassIndex:
		return ev.index(e, args)
	}
	return nil, fmt.Errorf("unknown op %s", e.Op)
}
