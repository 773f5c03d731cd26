package trace

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// AxisNone, as the axis of Take or TakeAlongAxis, means axis=None: the
// array is flattened first.
const AxisNone = math.MinInt

// Take is jax.numpy.take(a, indices, axis): the elements of a at indices
// along axis (AxisNone: of the flattened a); the result has a's dims
// before axis, then indices' dims, then a's dims after axis. As in JAX,
// the default mode is "fill": negative indices count from the end, and an
// index still out of bounds gives the fill value (NaN for inexact dtypes,
// the minimum of signed and the maximum of unsigned integers, true for
// bool; WithFill sets it). WithMode(ModeClip) clamps indices into range
// (negative ones to 0, as JAX: clip does not count from the end);
// WithWrap takes them modulo the axis size.
func Take(a, indices Value, axis int, opts ...IndexOption) Value {
	const op = "take"
	o := parseOpts(opts)
	return operands(op, []Value{a, indices}, func(b *builder, xs []Value) Value {
		x := b.materialize(xs[0], op)
		idx := b.indexVar(op, xs[1], "take indices")
		if x == nil || idx == nil {
			return Value{b: b}
		}
		if axis == AxisNone {
			x, axis = Value{b: b, v: x}.Reshape(-1).v, 0
		}
		ax, ok := normAxis(axis, x.Rank())
		if !ok {
			return b.shapeErr(op, fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(x.Shape)), x.Shape)
		}
		n := x.Shape[ax]
		out := slices.Concat(x.Shape[:ax], idx.Shape, x.Shape[ax+1:])
		switch {
		case n == 0 && idx.Size() != 0:
			return b.shapeErr(op, fmt.Sprintf("cannot take %d elements from the empty axis %d of %s", idx.Size(), ax, shapeString(x.Shape)), x.Shape, idx.Shape)
		case o.modeSet && o.mode == ModePromiseInBounds:
			return b.opErr(op, fmt.Errorf("mode %s: jax.numpy.take takes fill, clip or wrap", o.mode))
		}
		mode := ModeFill
		switch {
		case o.wrap:
			mode = ModeClip // in bounds after the modulo
			idx = Value{b: b, v: idx}.Rem(Int(int64(max(n, 1)))).v
		case o.modeSet && o.mode == ModeClip:
			mode = ModeClip
		default:
			idx = b.normIndex(idx, n)
		}
		if idx == nil {
			return Value{b: b}
		}
		r := idx.Rank()
		dims := GatherDims{CollapsedSliceDims: []int{ax}, StartIndexMap: []int{ax}}
		for i := range x.Rank() - 1 {
			if i < ax {
				dims.OffsetDims = append(dims.OffsetDims, i)
			} else {
				dims.OffsetDims = append(dims.OffsetDims, i+r)
			}
		}
		sizes := slices.Clone(x.Shape)
		sizes[ax] = 1
		iv := Value{b: b, v: idx}.ExpandDims(-1)
		g := Gather(Value{b: b, v: x}, iv, dims, sizes, WithMode(mode), WithFill(o.fill))
		return g.Reshape(out...)
	})
}

// TakeAlongAxis is jax.numpy.take_along_axis(arr, indices, axis): indices
// has arr's rank and broadcasts with it outside axis; the result takes,
// for every position, the element of arr's axis that indices names
// (AxisNone: of the flattened arr, with 1-D indices). Modes as Take's
// (default fill); WithMode(ModePromiseInBounds) also stops negative
// indices counting from the end, as JAX's legacy default does.
func TakeAlongAxis(arr, indices Value, axis int, opts ...IndexOption) Value {
	const op = "take_along_axis"
	o := parseOpts(opts)
	return operands(op, []Value{arr, indices}, func(b *builder, xs []Value) Value {
		x := b.materialize(xs[0], op)
		idx := b.indexVar(op, xs[1], "take_along_axis indices")
		if x == nil || idx == nil {
			return Value{b: b}
		}
		if axis == AxisNone {
			if idx.Rank() != 1 {
				return b.shapeErr(op, fmt.Sprintf("indices must be 1-D with axis=None, not %s", shapeString(idx.Shape)), idx.Shape)
			}
			x, axis = Value{b: b, v: x}.Reshape(-1).v, 0
		}
		if idx.Rank() != x.Rank() {
			return b.shapeErr(op, fmt.Sprintf("indices %s and arr %s must have the same number of dimensions", shapeString(idx.Shape), shapeString(x.Shape)), x.Shape, idx.Shape)
		}
		ax, ok := normAxis(axis, x.Rank())
		if !ok {
			return b.shapeErr(op, fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(x.Shape)), x.Shape)
		}
		arrShape := slices.Clone(x.Shape)
		arrShape[ax] = 1
		out, ok := BroadcastShapes(idx.Shape, arrShape)
		if !ok {
			return b.shapeErr(op, fmt.Sprintf("indices %s do not broadcast with arr %s outside axis %d", shapeString(idx.Shape), shapeString(x.Shape), ax), x.Shape, idx.Shape)
		}
		if x.Shape[ax] == 0 {
			z, _ := tensor.Zeros(x.Type.DType, out...)
			return b.emit(OpConst, nil, x.Type, out, Params{Value: z}, "")
		}
		mode := ModeFill
		if o.modeSet {
			mode = o.mode
		}
		if mode != ModePromiseInBounds {
			idx = b.normIndex(idx, x.Shape[ax])
		}
		return b.takeAlong(x, idx, ax, out, mode, o.fill)
	})
}

// takeAlong is JAX's gather for take_along_axis: dims where the indices
// have size 1 are windows over the whole of arr's dim, dims where arr has
// size 1 are squeezed away, the others are batching dims.
func (b *builder) takeAlong(x, idx *Var, ax int, out []int, mode IndexMode, fill Value) Value {
	var idxShape, sizes, squeeze []int
	var dims GatherDims
	j := 0 // dim of the gather indices
	for i := range x.Rank() {
		switch {
		case i == ax:
			idxShape = append(idxShape, out[i])
			dims.StartIndexMap = append(dims.StartIndexMap, i-len(squeeze))
			dims.CollapsedSliceDims = append(dims.CollapsedSliceDims, i-len(squeeze))
			sizes = append(sizes, 1)
			j++
		case idx.Shape[i] == 1:
			dims.OffsetDims = append(dims.OffsetDims, i)
			sizes = append(sizes, x.Shape[i])
		case x.Shape[i] == 1:
			idxShape = append(idxShape, out[i])
			squeeze = append(squeeze, i)
			j++
		default:
			idxShape = append(idxShape, out[i])
			dims.OperandBatchingDims = append(dims.OperandBatchingDims, i-len(squeeze))
			dims.StartIndicesBatchingDims = append(dims.StartIndicesBatchingDims, j)
			sizes = append(sizes, min(x.Shape[i], 1))
			j++
		}
	}
	xv := Value{b: b, v: x}
	if len(squeeze) > 0 {
		xv = xv.Squeeze(squeeze...)
	}
	iv := Value{b: b, v: idx}.Reshape(append(idxShape, 1)...)
	m := ModeClip
	if mode == ModeFill {
		m = ModeFill
	}
	return Gather(xv, iv, dims, sizes, WithMode(m), WithFill(fill))
}

// OneHot is jax.nn.one_hot(x, numClasses): a new axis (WithAxis, default
// −1: last) of numClasses elements that are 1 where the index equals x and
// 0 elsewhere, so indices outside [0, numClasses) — negative ones too —
// give a row of zeros. The result has the default float dtype (f64, f32
// with X32), or WithDType's; x must be an integer array (JAX deprecates
// float x; Kiln refuses it). It is x[..., None] == iota, converted.
func OneHot(x Value, numClasses int, opts ...IndexOption) Value {
	const op = "one_hot"
	o := parseOpts(opts)
	return unary(op, x, func(b *builder, v *Var) Value {
		if !v.Type.DType.IsInteger() {
			return b.dtypeErr(op, fmt.Sprintf("one_hot needs integer indices, not %s", v.Type.DType), v.Type)
		}
		if numClasses < 0 {
			return b.shapeErr(op, fmt.Sprintf("num_classes %d is negative", numClasses), v.Shape)
		}
		axis := -1
		if o.axisSet {
			axis = o.axis
		}
		ax, ok := normAxis(axis, v.Rank()+1)
		if !ok {
			return b.shapeErr(op, fmt.Sprintf("axis %d is out of range for a result of rank %d", axis, v.Rank()+1), v.Shape)
		}
		dt := b.cfg.DefaultFloat()
		if o.dtSet {
			dt = o.dtype
		}
		if msg, err := checkShape(dt, slices.Insert(slices.Clone(v.Shape), ax, numClasses)); msg != "" && dt.Valid() {
			return b.fail(&ShapeError{Op: op, Pos: b.errPos(), Shapes: [][]int{v.Shape}, Msg: "the result " + msg, Err: err})
		}
		d := v.Type.DType
		if !fitsIndex(d, numClasses-1) {
			d = b.cfg.DefaultInt()
			v = b.to(Value{b: b, v: v}, promote.Strong(d), op, fmt.Sprintf("one_hot compares in %s: %s cannot hold %d", d, v.Type.DType, numClasses-1))
		}
		shape := make([]int, v.Rank()+1)
		for i := range shape {
			shape[i] = 1
		}
		shape[ax] = numClasses
		// An iota op, not a constant: it fuses into the comparison, so
		// one_hot allocates nothing at trace time and only its result
		// at run time, whose size the allocation limit checks.
		eq := Value{b: b, v: v}.ExpandDims(ax).Eq(Iota(d, shape, ax))
		return eq.Astype(dt)
	})
}

// fitsIndex reports whether integer dtype d holds n.
func fitsIndex(d tensor.DType, n int) bool {
	if d.IsUnsigned() {
		return d.Bits() == 64 || n < 1<<d.Bits()
	}
	return d.Bits() == 64 || n < 1<<(d.Bits()-1)
}
