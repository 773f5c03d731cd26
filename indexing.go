package kiln

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Indexing, as jax.numpy and jax.lax (see trace's Value.Index, Value.At
// and the functions below; out-of-bounds behaviour is JAX's: x[i] and
// x.at[i].get() clamp array indices, take and take_along_axis fill,
// updates drop, the dynamic slices clamp their starts; static int indices
// out of bounds are errors).

// Span is a slice index item start:stop:step (see All, Range, RangeStep,
// From, To, Step).
type Span = trace.Span

// Ref is x.at[idx], from Value.At: Get, Set, Add, Mul, Min, Max.
type Ref = trace.Ref

// IndexMode says what gather and scatter do with out-of-bounds indices
// (lax.GatherScatterMode).
type IndexMode = trace.IndexMode

// IndexOption sets a keyword argument of the indexing functions.
type IndexOption = trace.IndexOption

// GatherDims and ScatterDims are lax's dimension numbers.
type (
	GatherDims  = trace.GatherDims
	ScatterDims = trace.ScatterDims
)

// The index modes.
const (
	ModePromiseInBounds = trace.ModePromiseInBounds // gather clamps, scatter drops (XLA)
	ModeClip            = trace.ModeClip            // clamp every window into bounds
	ModeFill            = trace.ModeFill            // gather fills, scatter drops ("fill", "drop")
)

// AxisNone, as the axis of Take or TakeAlongAxis, flattens the array first.
const AxisNone = trace.AxisNone

// Index items besides ints, Spans and arrays.
var (
	All      = trace.All      // ":"
	NewAxis  = trace.NewAxis  // None
	Ellipsis = trace.Ellipsis // ...
)

// Range is the slice start:stop.
func Range(start, stop int) Span { return trace.Range(start, stop) }

// RangeStep is the slice start:stop:step.
func RangeStep(start, stop, step int) Span { return trace.RangeStep(start, stop, step) }

// From is the slice start:.
func From(start int) Span { return trace.From(start) }

// To is the slice :stop.
func To(stop int) Span { return trace.To(stop) }

// Step is the slice ::step; Step(-1) reverses.
func Step(step int) Span { return trace.Step(step) }

// WithMode sets the out-of-bounds mode (mode=).
func WithMode(m IndexMode) IndexOption { return trace.WithMode(m) }

// WithFill sets a fill gather's value (fill_value=), a literal.
func WithFill(v Value) IndexOption { return trace.WithFill(v) }

// WithWrap makes Take take indices modulo the axis size (mode="wrap").
func WithWrap() IndexOption { return trace.WithWrap() }

// WithAxis sets OneHot's axis.
func WithAxis(axis int) IndexOption { return trace.WithAxis(axis) }

// WithDType sets OneHot's dtype.
func WithDType(d tensor.DType) IndexOption { return trace.WithDType(d) }

// Take is jax.numpy.take: a's elements at indices along axis.
func Take(a, indices Value, axis int, opts ...IndexOption) Value {
	return trace.Take(a, indices, axis, opts...)
}

// TakeAlongAxis is jax.numpy.take_along_axis.
func TakeAlongAxis(arr, indices Value, axis int, opts ...IndexOption) Value {
	return trace.TakeAlongAxis(arr, indices, axis, opts...)
}

// OneHot is jax.nn.one_hot.
func OneHot(x Value, numClasses int, opts ...IndexOption) Value {
	return trace.OneHot(x, numClasses, opts...)
}

// Gather is lax.gather.
func Gather(operand, indices Value, dims GatherDims, sliceSizes []int, opts ...IndexOption) Value {
	return trace.Gather(operand, indices, dims, sliceSizes, opts...)
}

// Scatter is lax.scatter (op OpScatter), scatter_add (OpScatterAdd),
// scatter_mul, scatter_min or scatter_max.
func Scatter(op Op, operand, indices, updates Value, dims ScatterDims, opts ...IndexOption) Value {
	return trace.Scatter(op, operand, indices, updates, dims, opts...)
}

// DynamicSlice is lax.dynamic_slice.
func DynamicSlice(x Value, starts []Value, sliceSizes []int) Value {
	return trace.DynamicSlice(x, starts, sliceSizes)
}

// DynamicUpdateSlice is lax.dynamic_update_slice.
func DynamicUpdateSlice(x, update Value, starts []Value) Value {
	return trace.DynamicUpdateSlice(x, update, starts)
}

// Rev is lax.rev: x with dims reversed (see Value.Flip for numpy.flip).
func Rev(x Value, dims ...int) Value { return trace.Rev(x, dims...) }
