package kiln

import "github.com/kiln-go/kiln/trace"

// The types and constants that this package's functions and Value's
// methods take or return, and the errors their ops report, so a program
// needs no import of package trace: kiln.Reduce(kiln.OpReduceMax, …),
// kiln.Pad(x, w, kiln.PadReflect, …), errors.As(err, new(*kiln.ShapeError)).
// Each is package trace's (an alias), documented there in full.

// Op is a primitive operation of a traced program (trace.Op): the op
// table's entry that Reduce, Scatter and Elementwise take. Code walking
// the whole table uses trace.AllOps.
type Op = trace.Op

// The reduction ops Reduce takes: the methods Sum, Prod, Max and Min
// (lax.reduce_sum, reduce_prod, reduce_max, reduce_min).
const (
	OpReduceSum  = trace.OpReduceSum
	OpReduceProd = trace.OpReduceProd
	OpReduceMax  = trace.OpReduceMax
	OpReduceMin  = trace.OpReduceMin
)

// The scatter ops Scatter takes: lax.scatter, scatter_add, scatter_mul,
// scatter_min and scatter_max (x.at[i].set, add, multiply, min, max).
const (
	OpScatter    = trace.OpScatter
	OpScatterAdd = trace.OpScatterAdd
	OpScatterMul = trace.OpScatterMul
	OpScatterMin = trace.OpScatterMin
	OpScatterMax = trace.OpScatterMax
)

// PadMode is how Pad fills: jnp.pad's modes.
type PadMode = trace.PadMode

// The pad modes (jnp.pad's mode=).
const (
	PadConstant  = trace.PadConstant  // "constant": the constant value
	PadEdge      = trace.PadEdge      // "edge": the edge element repeated
	PadReflect   = trace.PadReflect   // "reflect": mirrored without the edge: 3 2 | 1 2 3 | 2 1
	PadSymmetric = trace.PadSymmetric // "symmetric": mirrored with the edge: 2 1 | 1 2 3 | 3 2
	PadWrap      = trace.PadWrap      // "wrap": the other end: 2 3 | 1 2 3 | 1 2
)

// DotDims are lax.dot_general's dimension numbers: the batch dims of each
// operand (paired in order) and the contracting dims (paired in order).
// The result's dims are the batch dims, then lhs free dims, then rhs free
// dims.
type DotDims = trace.DotDims

// KeptDims is what Value.KeepDims returns: a value whose reductions keep
// each reduced axis as size 1 (keepdims=True), x.KeepDims().Max(-1).
type KeptDims = trace.KeptDims

// Pos is the user's file:line an op was traced at, which every op error
// carries.
type Pos = trace.Pos

// The errors an op reports at the user's line (the first one sticks to the
// trace, and Run, Eval and the transformations return it). errors.As
// finds them through every error of this package.
type (
	// ShapeError reports operand shapes an op cannot take: shapes that do
	// not broadcast, a bad axis, a reshape of the wrong size, an
	// out-of-range slice, a result too large to exist.
	ShapeError = trace.ShapeError

	// DTypeError reports an operand dtype an op does not accept: bitwise
	// ops on floats, subtracting bools, ordering complex values.
	DTypeError = trace.DTypeError

	// OpError wraps a promotion error (*promote.PromotionError,
	// *promote.OverflowError) or a misuse of the tracer, with the op and
	// the user's line.
	OpError = trace.OpError

	// OperandError reports an operand that is not a value: the zero Value
	// or a Const of a nil or zero *tensor.Array.
	OperandError = trace.OperandError

	// DerivError reports a program that cannot be differentiated: an op
	// with no derivative rule (jax.grad's refusals).
	DerivError = trace.DerivError
)
