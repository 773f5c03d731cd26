package trace

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// unary prepares a structural or reducing op on x: it finds the trace
// (replaying free values lazily) and materializes literals.
func unary(op string, x Value, then func(b *builder, v *Var) Value) Value {
	if v, bad := zeroOperand(op, x); bad {
		return v
	}
	b, _ := builderOf(op, x)
	if b == nil {
		return freeOp(func(b *builder) Value { return unary(op, b.attach(x, op), then) })
	}
	x = b.attach(x, op)
	if b.err != nil {
		return Value{b: b}
	}
	v := b.materialize(x, op)
	if v == nil {
		return Value{b: b}
	}
	return then(b, v)
}

// normAxis turns a possibly negative axis into 0..rank-1.
func normAxis(axis, rank int) (int, bool) {
	if axis < 0 {
		axis += rank
	}
	return axis, axis >= 0 && axis < rank
}

// Reshape returns x with a new shape of the same size; one dimension may
// be −1 and is inferred.
func (x Value) Reshape(shape ...int) Value {
	return unary("reshape", x, func(b *builder, v *Var) Value {
		out, err := tensor.InferShape(v.Size(), shape)
		var ze *tensor.SizeError
		var se *tensor.ShapeError
		switch {
		case errors.As(err, &ze):
			return b.fail(&ShapeError{Op: "reshape", Pos: b.errPos(), Shapes: [][]int{v.Shape, shape}, Err: err,
				Msg: fmt.Sprintf("cannot reshape %s (%d elements) to %s: %s", shapeString(v.Shape), v.Size(), shapeString(shape), ze.Msg)})
		case errors.As(err, &se) && slices.Contains(shape, -1):
			return b.shapeErr("reshape", fmt.Sprintf("cannot reshape %s (%d elements) to %s", shapeString(v.Shape), v.Size(), shapeString(shape)), v.Shape, shape)
		case err != nil && slices.ContainsFunc(shape, func(d int) bool { return d < 0 }):
			return b.shapeErr("reshape", fmt.Sprintf("bad target shape %s", shapeString(shape)), v.Shape, shape)
		case err != nil:
			return b.shapeErr("reshape", fmt.Sprintf("cannot reshape %s (%d elements) to %s (%d elements)", shapeString(v.Shape), v.Size(), shapeString(shape), ShapeSize(shape)), v.Shape, shape)
		}
		if ShapeEqual(out, v.Shape) {
			return Value{b: b, v: v}
		}
		return b.emit(OpReshape, []*Var{v}, v.Type, out, Params{Shape: out}, "")
	})
}

// Transpose permutes x's axes: result axis i is x's axis perm[i]. With no
// perm the axes are reversed, as numpy.transpose.
func (x Value) Transpose(perm ...int) Value {
	return unary("transpose", x, func(b *builder, v *Var) Value {
		p := append([]int{}, perm...)
		if len(p) == 0 {
			for i := v.Rank() - 1; i >= 0; i-- {
				p = append(p, i)
			}
		}
		if len(p) != v.Rank() {
			return b.shapeErr("transpose", fmt.Sprintf("permutation %v has %d axes, the operand %s has %d", perm, len(p), shapeString(v.Shape), v.Rank()), v.Shape)
		}
		seen := make([]bool, len(p))
		out := make([]int, len(p))
		for i, a := range p {
			ax, ok := normAxis(a, v.Rank())
			if !ok || seen[ax] {
				return b.shapeErr("transpose", fmt.Sprintf("%v is not a permutation of the axes of %s", perm, shapeString(v.Shape)), v.Shape)
			}
			seen[ax], p[i], out[i] = true, ax, v.Shape[ax]
		}
		identity := true
		for i, a := range p {
			identity = identity && a == i
		}
		if identity {
			return Value{b: b, v: v}
		}
		return b.emit(OpTranspose, []*Var{v}, v.Type, out, Params{Perm: p}, "")
	})
}

// ExpandDims inserts size-1 axes at the given positions of the result.
func (x Value) ExpandDims(axes ...int) Value {
	return unary("expand_dims", x, func(b *builder, v *Var) Value {
		rank := v.Rank() + len(axes)
		isNew := make([]bool, rank)
		for _, a := range axes {
			ax, ok := normAxis(a, rank)
			if !ok || isNew[ax] {
				return b.shapeErr("expand_dims", fmt.Sprintf("axes %v are out of range or repeated for a result of rank %d", axes, rank), v.Shape)
			}
			isNew[ax] = true
		}
		out, j := make([]int, rank), 0
		for i := range out {
			if isNew[i] {
				out[i] = 1
			} else {
				out[i], j = v.Shape[j], j+1
			}
		}
		return Value{b: b, v: v}.Reshape(out...)
	})
}

// Squeeze removes the given size-1 axes, or every size-1 axis when none are
// given.
func (x Value) Squeeze(axes ...int) Value {
	return unary("squeeze", x, func(b *builder, v *Var) Value {
		drop := make([]bool, v.Rank())
		for _, a := range axes {
			ax, ok := normAxis(a, v.Rank())
			if !ok {
				return b.shapeErr("squeeze", fmt.Sprintf("axis %d is out of range for %s", a, shapeString(v.Shape)), v.Shape)
			}
			if v.Shape[ax] != 1 {
				return b.shapeErr("squeeze", fmt.Sprintf("cannot squeeze axis %d of %s: its size is %d, not 1", a, shapeString(v.Shape), v.Shape[ax]), v.Shape)
			}
			drop[ax] = true
		}
		var out []int
		for i, d := range v.Shape {
			if !(drop[i] || (len(axes) == 0 && d == 1)) {
				out = append(out, d)
			}
		}
		return Value{b: b, v: v}.Reshape(out...)
	})
}

// BroadcastTo broadcasts x to shape with NumPy's rules.
func (x Value) BroadcastTo(shape ...int) Value {
	return unary("broadcast_to", x, func(b *builder, v *Var) Value {
		return b.broadcastTo(v, shape, "broadcast_to")
	})
}

func (b *builder) broadcastTo(v *Var, shape []int, op string) Value {
	off := len(shape) - v.Rank()
	ok := off >= 0
	for i := 0; ok && i < v.Rank(); i++ {
		ok = v.Shape[i] == shape[off+i] || v.Shape[i] == 1
	}
	for _, d := range shape {
		ok = ok && d >= 0
	}
	if !ok {
		return b.shapeErr(op, fmt.Sprintf("cannot broadcast %s to %s", shapeString(v.Shape), shapeString(shape)), v.Shape, shape)
	}
	if ShapeEqual(v.Shape, shape) {
		return Value{b: b, v: v}
	}
	dims := make([]int, v.Rank())
	for i := range dims {
		dims[i] = off + i
	}
	out := append([]int{}, shape...)
	return b.emit(OpBroadcastInDim, []*Var{v}, v.Type, out, Params{Shape: out, Dims: dims}, "")
}

// sliceLen is the number of elements start:limit:stride takes (0 ≤ start,
// stride > 0): ⌈(limit − start)/stride⌉, computed without overflow for a
// huge stride.
func sliceLen(start, limit, stride int) int {
	if limit <= start {
		return 0
	}
	return (limit-start-1)/stride + 1 // not (limit-start+stride-1)/stride, which overflows
}

// Slice takes x[start:stop:step] along one axis with Python's rules:
// negative start and stop count from the end and both are clamped; a
// negative step walks backwards (x[::-1] is Slice(axis, math.MaxInt,
// math.MinInt, -1): the bounds Python leaves out are MaxInt and MinInt
// then). A negative step is a positive-step slice followed by rev, as in
// JAX. A zero step is an error.
func (x Value) Slice(axis, start, stop, step int) Value {
	return unary("slice", x, func(b *builder, v *Var) Value {
		ax, ok := normAxis(axis, v.Rank())
		if !ok {
			return b.shapeErr("slice", fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(v.Shape)), v.Shape)
		}
		if step == 0 {
			return b.shapeErr("slice", "slice step cannot be zero", v.Shape)
		}
		lo, hi, n := sliceBounds(v.Shape[ax], start, stop, step)
		if step < 0 {
			// Elements lo, lo+step, …, n of them: the positive-step slice
			// from the last one up to lo, reversed.
			last := lo + (n-1)*step
			stride := 1 // a slice of at most one element, whatever the step
			if n > 1 {
				stride = -step
			}
			r := b.slice(v, ax, last, last+(n-1)*stride+1, stride, n)
			return b.rev(r.v, []int{ax}, "slice")
		}
		return b.slice(v, ax, lo, hi, step, n)
	})
}

// sliceBounds is Python's slice.indices for a dim of size dim, with the
// number of elements taken.
func sliceBounds(dim, start, stop, step int) (lo, hi, n int) {
	clamp := func(i, low, high int) int {
		if i < 0 {
			i += dim
		}
		return min(max(i, low), high)
	}
	// The counts are (distance-1)/|step| + 1, which cannot overflow for a
	// huge step as (distance+|step|-1)/|step| would; a step of MinInt has
	// no |step| and takes one element.
	if step > 0 {
		lo, hi = clamp(start, 0, dim), clamp(stop, 0, dim)
		return lo, max(hi, lo), sliceLen(lo, hi, step)
	}
	lo, hi = clamp(start, -1, dim-1), clamp(stop, -1, dim-1)
	switch {
	case lo <= hi:
	case step == math.MinInt:
		n = 1
	default:
		n = (lo-hi-1)/-step + 1
	}
	return lo, hi, n
}

// slice emits a positive-step slice of axis ax taking n elements.
func (b *builder) slice(v *Var, ax, lo, hi, step, n int) Value {
	if n == 0 {
		lo, hi = 0, 0
	}
	if n == v.Shape[ax] {
		return Value{b: b, v: v}
	}
	p := Params{Start: make([]int, v.Rank()), Limit: append([]int{}, v.Shape...), Stride: make([]int, v.Rank())}
	for i := range p.Stride {
		p.Stride[i] = 1
	}
	p.Start[ax], p.Limit[ax], p.Stride[ax] = lo, hi, step
	out := append([]int{}, v.Shape...)
	out[ax] = n
	return b.emit(OpSlice, []*Var{v}, v.Type, out, p, "")
}

// Concatenate joins xs along axis; their dtypes are promoted together and
// their other dimensions must match.
func Concatenate(axis int, xs ...Value) Value {
	const op = "concatenate"
	if v, bad := zeroOperand(op, xs...); bad {
		return v
	}
	b, ok := builderOf(op, xs...)
	if len(xs) == 0 {
		return freeOp(func(b *builder) Value { return b.shapeErr(op, "needs at least one array") })
	}
	if b == nil {
		return freeOp(func(b *builder) Value { return Concatenate(axis, attachAll(b, op, xs)...) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xs = attachAll(b, op, xs)
	types := make([]promote.Type, len(xs))
	vars := make([]*Var, len(xs))
	for i, x := range xs {
		if vars[i] = b.materialize(x, op); vars[i] == nil {
			return Value{b: b}
		}
		types[i] = vars[i].Type
	}
	first := vars[0]
	if first.Rank() == 0 {
		return b.shapeErr(op, "zero-dimensional arrays cannot be concatenated", first.Shape)
	}
	ax, ok := normAxis(axis, first.Rank())
	if !ok {
		return b.shapeErr(op, fmt.Sprintf("axis %d is out of range for rank %d", axis, first.Rank()), first.Shape)
	}
	out := append([]int{}, first.Shape...)
	out[ax] = 0
	for _, v := range vars {
		same := v.Rank() == first.Rank()
		for i := 0; same && i < v.Rank(); i++ {
			same = i == ax || v.Shape[i] == first.Shape[i]
		}
		if !same {
			return b.shapeErr(op, fmt.Sprintf("shapes %s and %s differ outside axis %d", shapeString(first.Shape), shapeString(v.Shape), axis), first.Shape, v.Shape)
		}
		if out[ax] > math.MaxInt-v.Shape[ax] {
			shapes := shapesOf(vars)
			msg := fmt.Sprintf("the sizes along axis %d of %s add up past %d", ax, joinShapes(shapes), math.MaxInt)
			return b.fail(&ShapeError{Op: op, Pos: b.errPos(), Shapes: shapes, Msg: msg,
				Err: &tensor.SizeError{Op: op, DType: first.Type.DType, Msg: msg}})
		}
		out[ax] += v.Shape[ax]
	}
	common, err := b.resultType(types...)
	if err != nil {
		return b.opErr(op, err)
	}
	why := "promote " + joinTypes(types) + " -> " + common.String() + " (" + b.cfg.RuleSet().Name() + ")"
	for i, v := range vars {
		if vars[i] = b.to(Value{b: b, v: v}, common, op, why); vars[i] == nil {
			return Value{b: b}
		}
	}
	if len(vars) == 1 {
		return Value{b: b, v: vars[0]}
	}
	return b.emit(OpConcat, slices.Clone(vars), common, out, Params{Axis: ax}, "")
}

func shapesOf(vars []*Var) [][]int {
	out := make([][]int, len(vars))
	for i, v := range vars {
		out[i] = v.Shape
	}
	return out
}
