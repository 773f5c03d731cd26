package kiln

import (
	"fmt"
	"reflect"
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
// example. Of a *Func, its function is taken, not its options (Checked,
// NoFusion, Rules…): give them to the Jit that runs the batched function,
// as for Grad. A fn of trees is taken over its leaves, an axis per leaf, as
// Grad takes it; VmapTree batches it keeping its trees (and its type).
//
// Refusals are JAX's, as a *VmapError of the trace: axes out of range,
// batched arguments of different sizes, no batched argument without
// AxisSize, a result that depends on the batch with OutAxes NoAxis.
func Vmap(fn any, opts ...VmapOption) func(args ...Value) []Value {
	o := vmapOptions(opts)
	return transform(fn, "vmap", func(g func([]Value) []Value) func(...Value) []Value { return trace.Vmap(g, o) })
}

func vmapOptions(opts []VmapOption) VmapOptions {
	var o VmapOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// VmapTree is Vmap for a function of trees: fn's parameters and results
// are Values or trees of them (structs, slices, maps: see TreeFlatten),
// its last parameter possibly ...Value (GradTree's functions are), and
// VmapTree returns a function of fn's own type, every leaf of its
// arguments batched and every leaf of its results stacked.
//
//	type Params[T kiln.Leaf] struct{ W, B T }
//	loss := func(p Params[kiln.Value], xy ...kiln.Value) kiln.Value { … }
//	perExample := kiln.VmapTree(kiln.GradTree(loss), kiln.InAxes(kiln.NoAxis, 0, 0))
//	g := perExample(p, x, y) // g.W[i] is example i's dloss/dW
//
// InAxes and OutAxes give one axis per argument and per result (each
// ...Value argument is one), as jax.vmap's in_axes and out_axes tuples
// with an int or None for each pytree argument: the axis applies to every
// leaf of its tree (JAX's prefix rule). One axis alone applies to all.
// An in_axes tree of per-leaf axes is not taken: split such an argument
// into one argument per axis. Counts that fit neither the arguments nor
// the results give a *VmapError, failing the trace of the results.
//
// The batched function is an ordinary function of trees: Jit it (its
// trees' structure is part of the cache key), differentiate it, or vmap
// it again; Jit(VmapTree(GradTree(loss), InAxes(NoAxis, 0, 0))) is
// per-example gradients of a tree of parameters. A fn that is not such a
// function gives one whose results fail the trace with a *FuncError (a
// *Func gives a *Func whose Err is one: Vmap takes a *Func).
func VmapTree[F any](fn F, opts ...VmapOption) F {
	o := vmapOptions(opts)
	ft := reflect.TypeFor[F]()
	if dt := reflect.TypeOf(fn); ft.Kind() == reflect.Interface && dt != nil && dt.Kind() == reflect.Func {
		ft = dt // F is any: fn's own function type
	}
	if ft.Kind() != reflect.Func {
		err := &FuncError{Type: fmt.Sprintf("%T", fn), Msg: "VmapTree needs a function of kiln.Values or trees of them (a *Func's Vmap is Vmap)"}
		if _, ok := any(fn).(*Func); ok {
			f := Jit(nil)
			f.err = err
			return any(f).(F)
		}
		if f, ok := any(failing(err)).(F); ok {
			return f
		}
		return fn
	}
	failWith := func(x Value) []reflect.Value {
		out := make([]reflect.Value, ft.NumOut())
		for i := range out {
			v := reflect.New(ft.Out(i)).Elem()
			fillFailure(ft.Out(i), v, x, map[reflect.Type]bool{})
			out[i] = v
		}
		return out
	}
	fail := func(err error) []reflect.Value { return failWith(trace.Failure(err)) }
	if _, err := newTreeFlat(fn, "vmap"); err != nil {
		return reflect.MakeFunc(ft, func([]reflect.Value) []reflect.Value { return fail(err) }).Interface().(F)
	}
	if n := len(o.OutAxes); n > 1 && n != ft.NumOut() {
		err := &VmapError{Op: "vmap", Pos: trace.CallerPos(), Arg: -1, Result: true,
			Msg: fmt.Sprintf("vmap out_axes must be an int, None, or a tuple of entries corresponding to the results of the function, but got len(out_axes)=%d for %d results", n, ft.NumOut())}
		return reflect.MakeFunc(ft, func([]reflect.Value) []reflect.Value { return fail(err) }).Interface().(F)
	}
	return reflect.MakeFunc(ft, func(in []reflect.Value) []reflect.Value {
		args := make([]any, 0, len(in))
		for i, a := range in {
			if ft.IsVariadic() && i == len(in)-1 {
				for _, x := range a.Interface().([]Value) {
					args = append(args, x)
				}
				continue
			}
			args = append(args, a.Interface())
		}
		tf, err := newTreeFlat(fn, "vmap")
		if err != nil {
			return fail(err)
		}
		leaves, counts, err := tf.leaves(args)
		if err != nil {
			return fail(err)
		}
		vo := VmapOptions{AxisSize: o.AxisSize}
		switch n := len(o.InAxes); {
		case n <= 1:
			vo.InAxes = o.InAxes
		case n == len(args):
			vo.InAxes = spreadAxes(o.InAxes, counts)
		default:
			return fail(&VmapError{Op: "vmap", Pos: trace.CallerPos(), Arg: -1,
				Msg: fmt.Sprintf("vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=%d, len(args)=%d", n, len(args))})
		}
		if len(o.OutAxes) <= 1 {
			vo.OutAxes = o.OutAxes
		} else {
			vo.OutAxesFor = func(int) []int {
				if tf.err != nil || tf.out.infos == nil {
					return nil // fn failed, and the trace with its error
				}
				return spreadAxes(o.OutAxes, tf.out.counts)
			}
		}
		flat := trace.Vmap(tf.flat, vo)(leaves...)
		if tf.err == nil && tf.out.infos == nil && len(flat) > 0 {
			// vmap failed before calling fn (no batch size, say) and its
			// error is in flat, perhaps not yet in a trace (when no
			// argument has a leaf): every leaf of the results is it.
			return failWith(flat[0])
		}
		res, err := tf.results(flat)
		if err != nil {
			return fail(err)
		}
		return res
	}).Interface().(F)
}

// spreadAxes gives each leaf its argument's (or result's) axis: axes[i]
// counts[i] times.
func spreadAxes(axes, counts []int) []int {
	var out []int
	for i, n := range counts {
		for range n {
			out = append(out, axes[i])
		}
	}
	return out
}
