package kiln

import (
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// NoAxis marks an argument or result that is not batched, in InAxes and
// OutAxes: JAX's None. An argument with NoAxis is shared by every example
// (a model's weights, say).
const NoAxis = trace.NoAxis

// VmapError reports a Vmap that cannot be done: axes that do not fit the
// arguments or results, batched arguments of different sizes, a batched
// result asked for with NoAxis, or an op without a batching rule.
type VmapError = trace.VmapError

// VmapOptions are Vmap's settings as one struct (trace.Vmap's): the
// options InAxes, OutAxes and AxisSize fill it.
type VmapOptions = trace.VmapOptions

// VmapOption configures Vmap: InAxes, OutAxes, AxisSize.
type VmapOption func(*VmapOptions)

// InAxes gives the batch axis of each argument (negative axes count from
// the end, NoAxis for an argument every example shares), as jax.vmap's
// in_axes: one axis for every argument, or one per argument. The default
// is 0 for every argument.
func InAxes(axes ...int) VmapOption {
	axes = slices.Clone(axes)
	return func(o *VmapOptions) { o.InAxes = axes }
}

// OutAxes gives where the batch axis goes in each result (negative axes
// count from the end of the batched result, NoAxis for a result that does
// not depend on the batch), as jax.vmap's out_axes: one axis for every
// result, or one per result. The default is 0. A result that does not
// depend on the batch is broadcast along the axis asked for, as in JAX.
func OutAxes(axes ...int) VmapOption {
	axes = slices.Clone(axes)
	return func(o *VmapOptions) { o.OutAxes = axes }
}

// AxisSize gives the batch size, as jax.vmap's axis_size: required when
// no argument is batched (every InAxes is NoAxis), and then each result is
// n copies; otherwise it must equal the batched arguments' size.
// AxisSize(0) is an empty batch (JAX's axis_size=0): results with a batch
// axis of size 0.
func AxisSize(n int) VmapOption {
	return func(o *VmapOptions) { o.AxisSize, o.HasAxisSize = n, true }
}

// Vmap returns fn vectorized over a batch axis of its arguments, as
// jax.vmap: fn is a function over Values of any shape Jit takes, or a
// *Func, written for one example; the returned function takes batched
// arguments (the batch axis where InAxes says, 0 by default) and returns
// every example's results stacked along OutAxes (0 by default).
//
// The result is, bit for bit, fn applied to each example and the results
// stacked: fn is traced once, on one example's shapes, and every op of it
// is rewritten by its batching rule to compute all examples at once — a
// matrix product becomes a batched dot_general, not a loop. The batched
// function is an ordinary function over Values: jit it (Jit(Vmap(f))),
// differentiate it (Grad(Vmap(f))), vmap it again, or vmap a gradient —
// Jit(Vmap(Grad(loss), InAxes(NoAxis, 0, 0))) is per-example gradients.
// fn may close over the Values around it; they are shared by every
// example.
//
// Refusals are JAX's, as a *VmapError of the trace: axes out of range,
// batched arguments of different sizes, no batched argument without
// AxisSize, a result that depends on the batch with OutAxes NoAxis.
func Vmap(fn any, opts ...VmapOption) func(args ...Value) []Value {
	var o VmapOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return transform(fn, "vmap", func(g func([]Value) []Value) func(...Value) []Value { return trace.Vmap(g, o) })
}
