package kiln

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The jax.numpy and jax.lax functions that are not Value methods, each
// the trace function of the same name (package trace has the details).

// Split cuts x along axis into sections equal parts (jnp.split with an
// integer); the length must divide evenly.
func Split(x Value, sections, axis int) []Value { return trace.Split(x, sections, axis) }

// SplitAt cuts x along axis before each of the indices (jnp.split with a
// list): len(indices)+1 parts, indices clamped to the axis as NumPy does.
func SplitAt(x Value, indices []int, axis int) []Value { return trace.SplitAt(x, indices, axis) }

// Tile repeats x reps[i] times along each axis (jnp.tile).
func Tile(x Value, reps ...int) Value { return trace.Tile(x, reps...) }

// Repeat repeats each element of x along axis (jnp.repeat): repeats has
// one count for all elements or one per element; AxisNone flattens x
// first.
func Repeat(x Value, repeats []int, axis int) Value { return trace.Repeat(x, repeats, axis) }

// Roll shifts x's elements along axis by shift, those leaving one end
// entering at the other (jnp.roll); AxisNone rolls the flattened array.
func Roll(x Value, shift, axis int) Value { return trace.Roll(x, shift, axis) }

// Iota is lax.broadcasted_iota: an array of dtype d and shape whose
// element [i0, i1, …] is i_axis (lax.iota for rank 1). It is strong.
func Iota(d tensor.DType, shape []int, axis int) Value { return trace.Iota(d, shape, axis) }

// Reduce applies a reduction op (OpReduceSum, OpReduceProd, OpReduceMax,
// OpReduceMin) over axes (none: all), keeping reduced axes as size 1 when
// keepDims is set: lax.reduce_sum and friends, or the methods Sum, Prod,
// Max and Min with keepdims=True.
func Reduce(op Op, x Value, axes []int, keepDims bool) Value {
	return trace.Reduce(op, x, axes, keepDims)
}

// ReduceMean is Mean with keepDims.
func ReduceMean(x Value, axes []int, keepDims bool) Value { return trace.ReduceMean(x, axes, keepDims) }

// SumTo sums x over the axes NumPy broadcasting added to or stretched in
// shape, giving an array of shape: the transpose of an implicit broadcast
// (what a gradient of a broadcast operand needs).
func SumTo(x Value, shape []int) Value { return trace.SumTo(x, shape) }

// WindowOptions are lax.reduce_window's optional arguments, one entry per
// operand dim.
type WindowOptions = trace.WindowOptions

// ReduceWindowMax is lax.reduce_window(x, -inf, lax.max, window, …).
func ReduceWindowMax(x Value, window []int, o WindowOptions) Value {
	return trace.ReduceWindowMax(x, window, o)
}

// ReduceWindowMin is lax.reduce_window(x, inf, lax.min, window, …).
func ReduceWindowMin(x Value, window []int, o WindowOptions) Value {
	return trace.ReduceWindowMin(x, window, o)
}

// ReduceWindowSum is lax.reduce_window(x, 0, lax.add, window, …), summed
// in x's dtype.
func ReduceWindowSum(x Value, window []int, o WindowOptions) Value {
	return trace.ReduceWindowSum(x, window, o)
}

// Inexact converts x to its inexact dtype as jax.numpy's
// promote_args_inexact does: bool and integers of up to 32 bits to f32,
// 64-bit integers to f64 (f32 with X32), keeping the weak flag.
func Inexact(x Value) Value { return trace.Inexact(x) }

// Elementwise applies the elementwise op of the op table to xs, as the
// op's method does (x.Exp() is Elementwise(trace.OpExp, x)): for code that
// walks the op table rather than naming ops.
func Elementwise(op Op, xs ...Value) Value { return trace.Elementwise(op, xs...) }

// Threefry2x32 is the Threefry-2x32 block cipher (20 rounds) of count with
// key, both u64 holding two u32 words high word first, as jax.random's;
// package random builds its samplers on it.
func Threefry2x32(key, count Value) Value { return trace.Threefry2x32(key, count) }

// BroadcastShapes is jnp.broadcast_shapes: the NumPy broadcast of shapes,
// or ok=false when they do not broadcast.
func BroadcastShapes(shapes ...[]int) (shape []int, ok bool) { return trace.BroadcastShapes(shapes...) }

// ScatterDimsOf returns the scatter dimension numbers that write back what
// a gather with dims d reads (a gather's transpose).
func ScatterDimsOf(d GatherDims) ScatterDims { return trace.ScatterDimsOf(d) }

// GatherDimsOf returns the gather dimension numbers that read what a
// scatter with dims d writes.
func GatherDimsOf(d ScatterDims) GatherDims { return trace.GatherDimsOf(d) }
