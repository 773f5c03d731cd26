package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Automatic differentiation, JAX's way: every op has one JVP rule (its
// forward-mode derivative), and the ops that can be linear in a tangent
// have a transpose rule. Forward mode (JVP) runs the JVP rules beside the
// primal program. Reverse mode (VJP, Grad) linearizes — runs the same JVP
// rules with the tangents recorded in a program of their own, the linear
// program, whose other operands are primal values (the residuals) — and
// then transposes the linear program equation by equation, backwards.
//
// Why not one VJP rule per op, as PyTorch and Gorgonia do? A VJP rule per
// op would need a second, separate JVP rule per op for forward mode, and
// the two could disagree. With JVP + transpose, each op's derivative is
// written once (its JVP), and only the small set of linear ops (add, neg,
// mul by a primal value, convert, the structural ops, reduce_sum,
// dot_general, select, …) need a transpose: forward and reverse mode are
// the same derivative by construction, and derivatives of derivatives come
// free, because both rules emit ordinary ops that have rules themselves.
//
// The rules live in one table keyed by Op (rules.go), beside the op table;
// a test checks that every op has exactly one kind of rule. An op with no
// JVP rule (NotDifferentiable) is a *DerivError naming it when a program
// is differentiated through it, never a silent zero.

// Rule is the derivative of an op: exactly one of Zero, Linear, JVP or
// NotDifferentiable says how a tangent flows through it, and Transpose is
// set for every op that can be linear in one of its operands.
//
// Whatever the rule, a result that is not inexact (bool, integer) has a
// zero tangent, JAX's float0: integer and bool values carry no derivative.
type Rule struct {
	// Zero: the derivative is zero wherever the op is defined (floor,
	// sign, comparisons, bitwise ops, argmax).
	Zero bool
	// Linear: the op is linear in its operands jointly, so its JVP is the
	// op itself applied to the tangents (zeros made for the operands
	// without one). Such an op needs a Transpose.
	Linear bool
	// JVP gives the tangent of the result (of the result's dtype and
	// shape) from the operands' tangents c.Tangents, a zero Value for an
	// operand whose tangent is zero. It must be linear in the tangents:
	// every op applied to a tangent is one with a Transpose, with the
	// tangent in a linear position (mul's other operand, dot_general's
	// other operand, div's divisor must be primal values).
	JVP func(c *Call) Value
	// Transpose gives, for the result's cotangent ct, the cotangent of
	// every operand c.Linear marks (of that operand's dtype and shape), a
	// zero Value for none; the other entries are ignored. c.In holds the
	// operands that are not linear (primal values).
	Transpose func(c *Call, ct Value) []Value
	// NotDifferentiable says why the op has no derivative; differentiating
	// through it is a *DerivError with this text.
	NotDifferentiable string
}

// RuleOf returns op's derivative rule.
func RuleOf(op Op) *Rule {
	if op >= numOps {
		return &rules[OpInvalid]
	}
	return &rules[op]
}

// Call is one application of a rule: the equation being differentiated,
// with its operands as Values of the trace being built.
type Call struct {
	Eqn *Eqn // the equation: op, parameters, operand and result types
	// In are the operands. In a JVP, all of them (primal values); in a
	// Transpose, the operands that are not linear, zero Values for the
	// linear ones (their types are Eqn.Args[i]).
	In []Value
	// Out is the primal result (JVP only).
	Out Value
	// Tangents are the operands' tangents, a zero Value for a zero
	// tangent (JVP only).
	Tangents []Value
	// Linear marks the operands the cotangent flows to (Transpose only).
	Linear []bool

	lin *builder // where tangents (JVP) or cotangents (Transpose) live
}

// isZero reports whether x is the zero Value, which rules use for a zero
// tangent or cotangent.
func isZero(x Value) bool {
	return x.b == nil && x.v == nil && x.lit == nil && x.replay == nil && x.konst == nil
}

// Zeros returns zeros of operand i's type and shape where tangents (or
// cotangents) live.
func (c *Call) Zeros(i int) Value {
	a := c.Eqn.Args[i]
	return zerosOf(c.lin, a.Type, a.Shape)
}

// Tangent returns operand i's tangent, zeros made when it is zero.
func (c *Call) Tangent(i int) Value {
	if isZero(c.Tangents[i]) {
		return c.Zeros(i)
	}
	return c.Tangents[i]
}

// Scalar returns v as a rank-0 constant of exactly x's type (dtype and
// weak flag), in x's trace: rules use it instead of literals, so their
// constants never depend on the promotion rules in force.
func Scalar(x Value, v complex128) Value {
	b := x.b
	if b == nil || b.err != nil {
		return Value{b: b}
	}
	t := b.typeOf(x)
	a := tensor.Scalar(v)
	if !t.DType.IsComplex() {
		a = tensor.Scalar(real(v))
	}
	return b.emit(OpConst, nil, t, nil, Params{Value: a.Astype(t.DType)}, "")
}

// zerosOf makes zeros of type t and shape in trace b.
func zerosOf(b *builder, t promote.Type, shape []int) Value {
	if b == nil || b.err != nil {
		return Value{b: b}
	}
	z := b.emit(OpConst, nil, t, nil, Params{Value: tensor.Scalar(0.0).Astype(t.DType)}, "")
	return b.broadcastTo(z.v, shape, "zeros")
}

// ConvertTo converts x to type t (dtype and weak flag) with an explicit
// convert whose note is why; x itself when it already has type t.
func ConvertTo(x Value, t promote.Type, why string) Value {
	b := x.b
	if b == nil || b.err != nil {
		return Value{b: b}
	}
	return Value{b: b, v: b.to(x, t, "convert", why)}
}

// SumTo sums x over the axes NumPy broadcasting added to or stretched in
// shape, giving an array of shape: the transpose of an implicit broadcast.
func SumTo(x Value, shape []int) Value {
	xs := x.Shape()
	if ShapeEqual(xs, shape) {
		return x
	}
	off := len(xs) - len(shape)
	var axes []int
	for i := range xs {
		if i < off || shape[i-off] == 1 && xs[i] != 1 {
			axes = append(axes, i)
		}
	}
	if len(axes) > 0 {
		x = Reduce(OpReduceSum, x, axes, false)
	}
	return x.Reshape(shape...)
}

// DerivError reports a program that cannot be differentiated: an op with
// no derivative rule, or a rule that broke its contract.
type DerivError struct {
	Op  string
	Pos Pos
	Msg string
}

func (e *DerivError) Error() string { return errorText(e.Op, e.Pos, e.Msg) }

// derivErr records a *DerivError for the equation being differentiated.
func (b *builder) derivErr(e *Eqn, format string, a ...any) {
	b.fail(&DerivError{Op: e.Op.String(), Pos: e.Pos, Msg: fmt.Sprintf(format, a...)})
}

// checkLike verifies that a rule's result x has v's type and shape, and
// returns it. A result that differs only in the weak flag gets v's (rules
// compute with the operands' types, and the tracer's own mean divides a
// weak sum by a strong count).
func (b *builder) checkLike(e *Eqn, what string, x Value, v *Var) (Value, bool) {
	if b.err != nil {
		return x, false
	}
	if x.v != nil && x.v.Type.DType == v.Type.DType && x.v.Type.Weak != v.Type.Weak {
		x = ConvertTo(x, v.Type, "a tangent has its primal's weak flag")
	}
	if x.v == nil || x.v.Type != v.Type || !ShapeEqual(x.v.Shape, v.Shape) {
		got := "nothing"
		if x.v != nil {
			got = x.v.TypeString()
		}
		b.derivErr(e, "the %s rule gave %s where %s was due (a bug in the rule)", what, got, v.TypeString())
		return x, false
	}
	return x, true
}
