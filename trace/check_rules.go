package trace

import (
	"slices"
	"strconv"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// CheckRule is an op's typing rule, for the verifiers (Program.Check, and
// lower's Module.Verify through Op.CheckTypes): it returns nil when op,
// applied to operands of types and shapes args with params p, may produce
// out, or a *CheckError (made with the helpers of this file) saying what
// does not hold. Arity, valid dtypes and non-negative dimensions are
// checked before it runs. A rule must accept what lowering keeps of a
// program too: weak flags erased (all false) and, for elementwise ops,
// operands already broadcast to the result's shape.
//
// A new op plugs in through the op table: ops of the elementwise and
// reduce classes get their class's rule (classRules) from their table
// flags (Domain, NoBool, Compare, Inexact, RealResult); every other op
// sets OpInfo.Check to its own rule. A rule in the table must not call
// Op.Info (the table would refer to itself); it gets op as a parameter.
type CheckRule func(op Op, args []Abstract, out Abstract, p *Params) error

// classRules are the typing rules of the ops whose table entry leaves
// Check nil.
var classRules = [...]CheckRule{
	ClassUnary:   checkElementwise,
	ClassBinary:  checkElementwise,
	ClassTernary: checkSelect,
	ClassReduce:  checkReduce,
}

// sameType fails unless t is want, dtype and weak flag.
func sameType(what string, t, want promote.Type) error {
	if t != want {
		return fault(CheckType, "%s is %s, want %s", what, t, want)
	}
	return nil
}

// sameShape fails unless shape is want.
func sameShape(what string, shape, want []int) error {
	if !ShapeEqual(shape, want) {
		return fault(CheckShape, "%s has shape %s, want %s", what, shapeString(shape), shapeString(want))
	}
	return nil
}

// checkElementwise is the rule of unary and binary ops: operands of one
// type (converts are explicit) in the op's domain, shapes broadcasting to
// the result's, and a result of the operands' type — bool for
// comparisons, the real-part dtype for RealResult ops.
func checkElementwise(op Op, args []Abstract, out Abstract, p *Params) error {
	info := op.Info()
	t := args[0].Type
	shapes := make([][]int, len(args))
	for i, a := range args {
		if a.Type != t {
			return fault(CheckType, "operands 0 and %d are %s and %s: elementwise operands share one type (converts are explicit)", i, t, a.Type)
		}
		shapes[i] = a.Shape
	}
	if msg := domainError(op, t.DType); msg != "" {
		return fault(CheckType, "%s", msg)
	}
	switch {
	case info.Domain == DomainNonComplexNumeric && (t.DType == tensor.Bool || t.DType.IsComplex()):
		return fault(CheckType, "%s computes on non-complex numbers (bool is converted first), not %s", op, t)
	case info.Inexact && !t.DType.IsInexact():
		return fault(CheckType, "%s computes in an inexact dtype (its operands are converted first), not %s", op, t)
	}
	if err := sameType("the result", out.Type, info.resultType(t)); err != nil {
		return err
	}
	shape, ok := BroadcastShapes(shapes...)
	if !ok {
		return fault(CheckShape, "operand shapes %s do not broadcast", joinShapes(shapes))
	}
	return sameShape("the result", out.Shape, shape)
}

// checkSelect: a bool predicate, two operands of one type, shapes
// broadcasting to the result's.
func checkSelect(op Op, args []Abstract, out Abstract, p *Params) error {
	if args[0].Type.DType != tensor.Bool {
		return fault(CheckType, "the predicate is %s, want bool", args[0].Type)
	}
	if err := sameType("operand 2", args[2].Type, args[1].Type); err != nil {
		return err
	}
	if err := sameType("the result", out.Type, args[1].Type); err != nil {
		return err
	}
	shape, ok := BroadcastShapes(args[0].Shape, args[1].Shape, args[2].Shape)
	if !ok {
		return fault(CheckShape, "operand shapes %s do not broadcast", joinShapes([][]int{args[0].Shape, args[1].Shape, args[2].Shape}))
	}
	return sameShape("the result", out.Shape, shape)
}

// checkReduce is the rule of reduce_sum, _prod, _max and _min: sorted,
// unique, in-range Axes, the result of the operand's type with those
// axes dropped (or kept as 1).
func checkReduce(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := checkAxes(p.Axes, len(x.Shape)); err != nil {
		return err
	}
	if (op == OpReduceMax || op == OpReduceMin) && x.Type.DType.IsComplex() {
		return fault(CheckType, "%s of complex %s: complex numbers have no order", op, x.Type)
	}
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, reducedShape(x.Shape, p.Axes, p.KeepDims))
}

// checkAxes: axes sorted, unique and below rank.
func checkAxes(axes []int, rank int) error {
	for i, a := range axes {
		if a < 0 || a >= rank || (i > 0 && a <= axes[i-1]) {
			return fault(CheckParams, "axes %v are not sorted, unique axes of a rank-%d operand", axes, rank)
		}
	}
	return nil
}

// checkArgReduce: argmax and argmin over one in-range axis of a
// non-complex operand, giving Params.DType (an integer dtype), strong.
func checkArgReduce(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if len(p.Axes) != 1 || p.KeepDims {
		return fault(CheckParams, "%s reduces one axis without keepdims, not axes %v (keepdims %v)", op, p.Axes, p.KeepDims)
	}
	if err := checkAxes(p.Axes, len(x.Shape)); err != nil {
		return err
	}
	if x.Type.DType.IsComplex() {
		return fault(CheckType, "%s of complex %s: complex numbers have no order", op, x.Type)
	}
	if !p.DType.IsInteger() {
		return fault(CheckParams, "%s index dtype %v is not an integer dtype", op, p.DType)
	}
	if err := sameType("the result", out.Type, promote.Strong(p.DType)); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, reducedShape(x.Shape, p.Axes, false))
}

// checkLeaf: a program input (in a lowered module; a traced program keeps
// its inputs in Program.Inputs) takes nothing and has any type.
func checkLeaf(op Op, args []Abstract, out Abstract, p *Params) error { return nil }

// checkConst: the value is there, of the result's dtype and shape (the
// weak flag is the literal's).
func checkConst(op Op, args []Abstract, out Abstract, p *Params) error {
	v := p.Value
	switch {
	case v == nil:
		return fault(CheckParams, "a constant without a value")
	case v.DType() != out.Type.DType:
		return fault(CheckType, "the value is %s, the result %s", v.DType(), out.Type)
	}
	return sameShape("the value", v.Shape(), out.Shape)
}

// checkConvert: the result has Params.DType and the operand's shape.
func checkConvert(op Op, args []Abstract, out Abstract, p *Params) error {
	if !p.DType.Valid() || out.Type.DType != p.DType {
		return fault(CheckType, "convert to %v gives %s", p.DType, out.Type)
	}
	return sameShape("the result", out.Shape, args[0].Shape)
}

// checkBroadcast: operand dim i goes to result dim Dims[i] (increasing),
// where it has the same size or the operand has 1; Params.Shape is the
// result's shape.
func checkBroadcast(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	if err := sameShape("Params.Shape", p.Shape, out.Shape); err != nil {
		return err
	}
	if len(p.Dims) != len(x.Shape) {
		return fault(CheckParams, "dims %v for a rank-%d operand", p.Dims, len(x.Shape))
	}
	for i, d := range p.Dims {
		if d < 0 || d >= len(out.Shape) || (i > 0 && d <= p.Dims[i-1]) {
			return fault(CheckParams, "dims %v are not increasing result axes of %s", p.Dims, shapeString(out.Shape))
		}
		if x.Shape[i] != 1 && x.Shape[i] != out.Shape[d] {
			return fault(CheckShape, "operand %s does not broadcast to %s along dims %v", shapeString(x.Shape), shapeString(out.Shape), p.Dims)
		}
	}
	return nil
}

// checkReshape: the same number of elements, Params.Shape the result's.
func checkReshape(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	if err := sameShape("Params.Shape", p.Shape, out.Shape); err != nil {
		return err
	}
	if ShapeSize(x.Shape) != ShapeSize(out.Shape) {
		return fault(CheckShape, "reshape of %s to %s changes the number of elements", shapeString(x.Shape), shapeString(out.Shape))
	}
	return nil
}

// checkTranspose: Perm is a permutation; result dim i is operand dim
// Perm[i].
func checkTranspose(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	if len(p.Perm) != len(x.Shape) {
		return fault(CheckParams, "perm %v for a rank-%d operand", p.Perm, len(x.Shape))
	}
	want := make([]int, len(p.Perm))
	seen := make([]bool, len(p.Perm))
	for i, a := range p.Perm {
		if a < 0 || a >= len(seen) || seen[a] {
			return fault(CheckParams, "perm %v is not a permutation", p.Perm)
		}
		seen[a], want[i] = true, x.Shape[a]
	}
	return sameShape("the result", out.Shape, want)
}

// checkSlice: per axis 0 ≤ start ≤ limit ≤ size and stride > 0; the
// result has ⌈(limit − start)/stride⌉ elements along it.
func checkSlice(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	r := len(x.Shape)
	if len(p.Start) != r || len(p.Limit) != r || len(p.Stride) != r {
		return fault(CheckParams, "start %v, limit %v, stride %v for a rank-%d operand", p.Start, p.Limit, p.Stride, r)
	}
	want := make([]int, r)
	for i, n := range x.Shape {
		lo, hi, st := p.Start[i], p.Limit[i], p.Stride[i]
		if lo < 0 || lo > hi || hi > n || st <= 0 {
			return fault(CheckParams, "axis %d: start %d, limit %d, stride %d out of range for size %d", i, lo, hi, st, n)
		}
		want[i] = sliceLen(lo, hi, st)
	}
	return sameShape("the result", out.Shape, want)
}

// checkConcat: operands of one type and rank ≥ 1, equal outside Axis; the
// result's Axis is their sum.
func checkConcat(op Op, args []Abstract, out Abstract, p *Params) error {
	first := args[0]
	r := len(first.Shape)
	if p.Axis < 0 || p.Axis >= r {
		return fault(CheckParams, "axis %d for rank-%d operands", p.Axis, r)
	}
	want := slices.Clone(first.Shape)
	want[p.Axis] = 0
	for i, a := range args {
		if err := sameType("operand "+strconv.Itoa(i), a.Type, first.Type); err != nil {
			return err
		}
		same := len(a.Shape) == r
		for j := 0; same && j < r; j++ {
			same = j == p.Axis || a.Shape[j] == first.Shape[j]
		}
		if !same {
			return fault(CheckShape, "operand shapes %s and %s differ outside axis %d", shapeString(first.Shape), shapeString(a.Shape), p.Axis)
		}
		want[p.Axis] += a.Shape[p.Axis]
	}
	if err := sameType("the result", out.Type, first.Type); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, want)
}

// checkDot: operands of one type, the result of that type or, with a
// preferred_element_type, of that dtype with the operands' weak flag
// (JAX's rule must allow it for the operands' dtype); the result's shape the dimension
// numbers' (dotShape).
func checkDot(op Op, args []Abstract, out Abstract, p *Params) error {
	if err := sameType("operand 1", args[1].Type, args[0].Type); err != nil {
		return err
	}
	if err := checkPreferred(args[0].Type, out.Type, p); err != nil {
		return err
	}
	shape, msg := dotShape(args[0].Shape, args[1].Shape, p.Dot)
	if msg != "" {
		return fault(CheckParams, "%s", msg)
	}
	return sameShape("the result", out.Shape, shape)
}
