package trace

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// normAxes normalizes reduction axes: none means all, negatives count from
// the end, duplicates and out-of-range axes are errors.
func normAxes(axes []int, rank int) ([]int, string) {
	if len(axes) == 0 {
		out := make([]int, rank)
		for i := range out {
			out[i] = i
		}
		return out, ""
	}
	out := make([]int, 0, len(axes))
	for _, a := range axes {
		ax, ok := normAxis(a, rank)
		if !ok {
			return nil, fmt.Sprintf("axis %d is out of range for rank %d", a, rank)
		}
		if slices.Contains(out, ax) {
			return nil, fmt.Sprintf("axis %d is repeated in %v", a, axes)
		}
		out = append(out, ax)
	}
	slices.Sort(out)
	return out, ""
}

func reducedShape(shape, axes []int, keep bool) []int {
	var out []int
	for i, d := range shape {
		switch {
		case !slices.Contains(axes, i):
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out
}

// Reduce applies a reduction (OpReduceSum, OpReduceProd, OpReduceMax,
// OpReduceMin) over axes (none: all), keeping reduced axes as size 1 when
// keepDims is set. Sums and products of bool and narrow integers
// accumulate in the default int; of f16 and bf16 in f32, rounded once.
func Reduce(op Op, x Value, axes []int, keepDims bool) Value {
	name := op.String()
	return unary(name, x, func(b *builder, v *Var) Value {
		ax, msg := normAxes(axes, v.Rank())
		if msg != "" {
			return b.shapeErr(name, msg, v.Shape)
		}
		t := v.Type
		out := t
		switch op {
		case OpReduceSum:
			out = b.cfg.SumType(t)
		case OpReduceProd:
			out = b.cfg.ProdType(t)
		case OpReduceMax, OpReduceMin:
			if t.DType.IsComplex() {
				return b.dtypeErr(name, fmt.Sprintf("complex numbers (%s) have no order", t.DType), t)
			}
			for _, a := range ax {
				if v.Shape[a] == 0 {
					return b.shapeErr(name, fmt.Sprintf("zero-size axis %d of %s: the reduction has no identity", a, shapeString(v.Shape)), v.Shape)
				}
			}
		default:
			return b.opErr(name, fmt.Errorf("%s is not a reduction", name))
		}
		return b.reduce(op, v, out, ax, keepDims)
	})
}

// reduce emits op over ax producing type out, accumulating f16/bf16 sums
// and products in f32.
func (b *builder) reduce(op Op, v *Var, out promote.Type, ax []int, keep bool) Value {
	acc := out
	narrow := (out.DType == tensor.F16 || out.DType == tensor.BF16) && (op == OpReduceSum || op == OpReduceProd)
	if narrow {
		acc.DType = tensor.F32
	}
	in := b.to(Value{b: b, v: v}, acc, op.String(), fmt.Sprintf("%s accumulates in %s", op, acc))
	if in == nil {
		return Value{b: b}
	}
	r := b.emit(op, []*Var{in}, acc, reducedShape(v.Shape, ax, keep), Params{Axes: ax, KeepDims: keep}, "")
	if narrow {
		return Value{b: b, v: b.to(r, out, op.String(), fmt.Sprintf("%s rounds once to %s", op, out.DType))}
	}
	return r
}

// Sum adds x's elements over axes (none: all).
func (x Value) Sum(axes ...int) Value { return Reduce(OpReduceSum, x, axes, false) }

// Prod multiplies x's elements over axes (none: all).
func (x Value) Prod(axes ...int) Value { return Reduce(OpReduceProd, x, axes, false) }

// Max is the maximum over axes (none: all); NaN propagates.
func (x Value) Max(axes ...int) Value { return Reduce(OpReduceMax, x, axes, false) }

// Min is the minimum over axes (none: all); NaN propagates.
func (x Value) Min(axes ...int) Value { return Reduce(OpReduceMin, x, axes, false) }

// Mean averages over axes (none: all), in the inexact dtype of x (f32 for
// f16 and bf16, converted back at the end). The mean of nothing is NaN.
func (x Value) Mean(axes ...int) Value { return ReduceMean(x, axes, false) }

// ReduceMean is Mean with keepDims.
func ReduceMean(x Value, axes []int, keepDims bool) Value {
	return unary("mean", x, func(b *builder, v *Var) Value {
		ax, msg := normAxes(axes, v.Rank())
		if msg != "" {
			return b.shapeErr("mean", msg, v.Shape)
		}
		out, err := b.cfg.MeanType(v.Type)
		if err != nil {
			return b.opErr("mean", err)
		}
		acc := out
		if acc.DType == tensor.F16 || acc.DType == tensor.BF16 {
			acc.DType = tensor.F32
		}
		n := 1
		for _, a := range ax {
			n *= v.Shape[a]
		}
		sum := b.reduce(OpReduceSum, v, acc, ax, keepDims)
		if b.err != nil {
			return Value{b: b}
		}
		count := Value{b: b, lit: &literal{kind: tensor.KindFloat, f: float64(n)}}
		q := b.to(count, acc, "mean", "") // the divisor has the sum's type, weak flag included
		mean := b.emit(OpDiv, []*Var{sum.v, q}, acc, sum.v.Shape, Params{}, "")
		return Value{b: b, v: b.to(mean, out, "mean", fmt.Sprintf("mean rounds once to %s", out.DType))}
	})
}

// ArgMax returns the index of the first maximum along axis (a NaN counts
// as the maximum), in the default int dtype.
func (x Value) ArgMax(axis int) Value { return argReduce(OpArgMax, x, axis) }

// ArgMin returns the index of the first minimum along axis (a NaN counts
// as the minimum), in the default int dtype.
func (x Value) ArgMin(axis int) Value { return argReduce(OpArgMin, x, axis) }

func argReduce(op Op, x Value, axis int) Value {
	name := op.String()
	return unary(name, x, func(b *builder, v *Var) Value {
		ax, ok := normAxis(axis, v.Rank())
		if !ok {
			return b.shapeErr(name, fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(v.Shape)), v.Shape)
		}
		if v.Type.DType.IsComplex() {
			return b.dtypeErr(name, fmt.Sprintf("complex numbers (%s) have no order", v.Type.DType), v.Type)
		}
		if v.Shape[ax] == 0 {
			return b.shapeErr(name, fmt.Sprintf("%s of an empty axis %d of %s", name, axis, shapeString(v.Shape)), v.Shape)
		}
		d := b.cfg.IndexType()
		return b.emit(op, []*Var{v}, promote.Strong(d), reducedShape(v.Shape, []int{ax}, false), Params{Axes: []int{ax}, DType: d}, "")
	})
}

// MatMul is numpy.matmul: 1-D operands are treated as a row (left) or a
// column (right) vector and that axis removed from the result; leading
// batch dimensions broadcast. dtypes are promoted as for add.
func (x Value) MatMul(y Value) Value { return MatMul(x, y) }

// MatMul is jnp.matmul(x, y, preferred_element_type=…): x.MatMul(y) with
// the options (PreferredElementType).
func MatMul(x, y Value, opts ...DotOption) Value {
	const op = "matmul"
	if v, bad := zeroOperand(op, x, y); bad {
		return v
	}
	b, ok := builderOf(op, x, y)
	if b == nil {
		return freeOp(func(b *builder) Value { return MatMul(b.attach(x, op), b.attach(y, op), opts...) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xv, yv := b.materialize(b.attach(x, op), op), b.materialize(b.attach(y, op), op)
	if xv == nil || yv == nil {
		return Value{b: b}
	}
	if xv.Rank() == 0 || yv.Rank() == 0 {
		return b.shapeErr(op, "matmul needs operands of rank ≥ 1, not scalars", xv.Shape, yv.Shape)
	}
	common, err := b.resultType(xv.Type, yv.Type)
	if err != nil {
		return b.opErr(op, err)
	}
	why := "promote " + joinTypes([]promote.Type{xv.Type, yv.Type}) + " -> " + common.String() + " (" + b.cfg.RuleSet().Name() + ")"
	xs, ys := xv.Shape, yv.Shape
	if len(xs) == 1 {
		xs = []int{1, xs[0]}
	}
	if len(ys) == 1 {
		ys = []int{ys[0], 1}
	}
	m, k, k2, n := xs[len(xs)-2], xs[len(xs)-1], ys[len(ys)-2], ys[len(ys)-1]
	if k != k2 {
		return b.shapeErr(op, fmt.Sprintf("contracting dimensions differ: %s @ %s (%d vs %d)", shapeString(xv.Shape), shapeString(yv.Shape), k, k2), xv.Shape, yv.Shape)
	}
	batch, ok := BroadcastShapes(xs[:len(xs)-2], ys[:len(ys)-2])
	if !ok {
		return b.shapeErr(op, fmt.Sprintf("batch dimensions of %s and %s do not broadcast", shapeString(xv.Shape), shapeString(yv.Shape)), xv.Shape, yv.Shape)
	}
	nb := len(batch)
	dims := DotDims{LhsContract: []int{nb + 1}, RhsContract: []int{nb}}
	for i := range nb {
		dims.LhsBatch = append(dims.LhsBatch, i)
		dims.RhsBatch = append(dims.RhsBatch, i)
	}
	rt, params, refused := dotResult(common, dims, dotOptions(opts))
	if refused != "" {
		return b.preferredErr(op, refused, xv.Type, yv.Type, common)
	}
	lhs := b.to(Value{b: b, v: xv}, common, op, why)
	rhs := b.to(Value{b: b, v: yv}, common, op, why)
	if lhs == nil || rhs == nil {
		return Value{b: b}
	}
	lhs = Value{b: b, v: lhs}.Reshape(xs...).v
	rhs = Value{b: b, v: rhs}.Reshape(ys...).v
	lhs = b.broadcastTo(lhs, append(slices.Clone(batch), m, k), op).v
	rhs = b.broadcastTo(rhs, append(slices.Clone(batch), k, n), op).v
	if b.err != nil {
		return Value{b: b}
	}
	r := b.emit(OpDot, []*Var{lhs, rhs}, rt, append(slices.Clone(batch), m, n), params, "")
	out := slices.Clone(batch)
	if len(xv.Shape) > 1 {
		out = append(out, m)
	}
	if len(yv.Shape) > 1 {
		out = append(out, n)
	}
	return jnpResult(r.Reshape(out...), dotOptions(opts))
}

// DotGeneral contracts x and y over dims (XLA's dot_general): the result
// has the batch dims, then x's free dims, then y's free dims. The options
// are lax.dot_general's (PreferredElementType).
func DotGeneral(x, y Value, dims DotDims, opts ...DotOption) Value {
	return dotGeneral("dot_general", x, y, dims, opts)
}

// dotGeneral is DotGeneral with errors naming op (jnp.dot, tensordot).
func dotGeneral(op string, x, y Value, dims DotDims, opts []DotOption) Value {
	if v, bad := zeroOperand(op, x, y); bad {
		return v
	}
	b, ok := builderOf(op, x, y)
	if b == nil {
		return freeOp(func(b *builder) Value { return dotGeneral(op, b.attach(x, op), b.attach(y, op), dims, opts) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xv, yv := b.materialize(b.attach(x, op), op), b.materialize(b.attach(y, op), op)
	if xv == nil || yv == nil {
		return Value{b: b}
	}
	out, msg := dotShape(xv.Shape, yv.Shape, dims)
	if msg != "" {
		return b.shapeErr(op, msg, xv.Shape, yv.Shape)
	}
	common, err := b.resultType(xv.Type, yv.Type)
	if err != nil {
		return b.opErr(op, err)
	}
	rt, params, refused := dotResult(common, dims, dotOptions(opts))
	if refused != "" {
		return b.preferredErr(op, refused, xv.Type, yv.Type, common)
	}
	why := "promote " + joinTypes([]promote.Type{xv.Type, yv.Type}) + " -> " + common.String()
	lhs, rhs := b.to(Value{b: b, v: xv}, common, op, why), b.to(Value{b: b, v: yv}, common, op, why)
	if lhs == nil || rhs == nil {
		return Value{b: b}
	}
	return b.emit(OpDot, []*Var{lhs, rhs}, rt, out, params, "")
}

// dotShape validates dot_general dimension numbers and returns the result
// shape, or a message saying what is wrong.
func dotShape(xs, ys []int, d DotDims) ([]int, string) {
	if len(d.LhsBatch) != len(d.RhsBatch) || len(d.LhsContract) != len(d.RhsContract) {
		return nil, "batch and contracting dimension lists must pair up"
	}
	used := func(dims ...[]int) (map[int]bool, bool) {
		m := map[int]bool{}
		for _, ds := range dims {
			for _, a := range ds {
				if m[a] {
					return nil, false
				}
				m[a] = true
			}
		}
		return m, true
	}
	lu, ok1 := used(d.LhsBatch, d.LhsContract)
	ru, ok2 := used(d.RhsBatch, d.RhsContract)
	if !ok1 || !ok2 {
		return nil, "a dimension appears twice in the dimension numbers"
	}
	var out []int
	for i := range d.LhsBatch {
		l, r := d.LhsBatch[i], d.RhsBatch[i]
		if l < 0 || l >= len(xs) || r < 0 || r >= len(ys) || xs[l] != ys[r] {
			return nil, fmt.Sprintf("batch dimensions %d of %s and %d of %s do not match", l, shapeString(xs), r, shapeString(ys))
		}
		out = append(out, xs[l])
	}
	for i := range d.LhsContract {
		l, r := d.LhsContract[i], d.RhsContract[i]
		if l < 0 || l >= len(xs) || r < 0 || r >= len(ys) || xs[l] != ys[r] {
			return nil, fmt.Sprintf("contracting dimensions %d of %s and %d of %s do not match", l, shapeString(xs), r, shapeString(ys))
		}
	}
	for i, n := range xs {
		if !lu[i] {
			out = append(out, n)
		}
	}
	for i, n := range ys {
		if !ru[i] {
			out = append(out, n)
		}
	}
	return out, ""
}
