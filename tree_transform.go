package kiln

import (
	"fmt"

	"github.com/kiln-go/kiln/trace"
)

// The tree forms of the transformations and of control flow: each
// flattens its trees, runs the flat form over their leaves and builds
// the results back into trees of the caller's types. An error — a carry
// whose structure changes, a tree that cannot be walked — fails the
// trace with a *TreeError naming the op and the caller's line.

// GradTree is Grad with respect to a tree of parameters: the gradient
// of fn at params, a tree of the same type and structure as params whose
// leaves are the gradients of its leaves (jax.grad of a function of a
// pytree). args are passed through, not differentiated.
//
//	type Params[T kiln.Leaf] struct{ W, B T }
//	loss := func(p Params[kiln.Value], xy ...kiln.Value) kiln.Value { … }
//	g := kiln.GradTree(loss)(p, x, y) // g.W is dloss/dW
func GradTree[P any](fn func(params P, args ...Value) Value) func(params P, args ...Value) P {
	vg := valueAndGradTree("grad", fn)
	return func(params P, args ...Value) P {
		_, g := vg(params, args...)
		return g
	}
}

// ValueAndGradTree is GradTree returning fn's value too
// (jax.value_and_grad of a function of a pytree).
func ValueAndGradTree[P any](fn func(params P, args ...Value) Value) func(params P, args ...Value) (Value, P) {
	return valueAndGradTree("value_and_grad", fn)
}

func valueAndGradTree[P any](op string, fn func(params P, args ...Value) Value) func(params P, args ...Value) (Value, P) {
	return func(params P, args ...Value) (Value, P) {
		leaves, def, err := flattenTree[Value](op, &params)
		if err == nil && len(leaves) == 0 {
			err = treeError(op, fmt.Sprintf("%T has no leaves to differentiate", params))
		}
		if err != nil {
			return trace.Failure(err), failingTree(params, err)
		}
		n := len(leaves)
		flat := func(a []Value) []Value {
			p, err := unflattenTree[P](op, def, a[:n])
			if err != nil {
				return []Value{trace.Failure(err)}
			}
			return []Value{fn(p, a[n:]...)}
		}
		argnums := make([]int, n)
		for i := range argnums {
			argnums[i] = i
		}
		out := trace.ValueAndGrad(flat, GradOptions{Argnums: argnums})(append(leaves, args...)...)
		g, err := unflattenTree[P](op, def, out[1:])
		if err != nil {
			return trace.Failure(err), failingTree(params, err)
		}
		return out[0], g
	}
}

// carry is a loop carry's flat form: its leaves and structure, with the
// check that a body's result has the same structure.
type carry[C any] struct {
	op       string
	branches bool // Cond's results: two branches' trees, not a carry and a body's
	def      TreeDef
	err      error // the first structure error, failing the loop's results
}

func (c *carry[C]) flatten(v C) []Value {
	leaves, def, err := flattenTree[Value](c.op, &v)
	switch {
	case err != nil:
		c.err = err
	case c.def.info != nil && !def.Equal(c.def) && c.branches:
		c.err = treeError(c.op, fmt.Sprintf("the branches return trees of structures %s and %s", c.def, def))
	case c.def.info != nil && !def.Equal(c.def):
		c.err = treeError(c.op, fmt.Sprintf("the body returns a carry of structure %s, the loop's is %s", def, c.def))
	default:
		c.def = def
		return leaves
	}
	return nil
}

func (c *carry[C]) unflatten(leaves []Value) C {
	v, err := unflattenTree[C](c.op, c.def, leaves)
	if err != nil && c.err == nil {
		c.err = err
	}
	return v
}

// flat wraps a body's flat result: on a structure error, the carry's
// leaves fail (the loop's typing then reports nothing, the trace the
// *TreeError).
func (c *carry[C]) result(v C) []Value {
	leaves := c.flatten(v)
	if c.err != nil {
		out := make([]Value, c.def.n)
		for i := range out {
			out[i] = trace.Failure(c.err)
		}
		return out
	}
	return leaves
}

// ForiLoopTree is ForiLoop over a tree carry: for i in [lo, hi), carry =
// body(i, carry), the carry keeping its type and structure.
func ForiLoopTree[C any](lo, hi Value, body func(i Value, carry C) C, init C) C {
	c := &carry[C]{op: "fori_loop"}
	leaves := c.flatten(init)
	if c.err != nil {
		return failingTree(init, c.err)
	}
	out := ForiLoop(lo, hi, func(i Value, l []Value) []Value { return c.result(body(i, c.unflatten(l))) }, leaves...)
	return c.finish(init, out)
}

// WhileLoopTree is WhileLoop over a tree carry.
func WhileLoopTree[C any](cond func(carry C) Value, body func(carry C) C, init C) C {
	c := &carry[C]{op: "while_loop"}
	leaves := c.flatten(init)
	if c.err != nil {
		return failingTree(init, c.err)
	}
	out := WhileLoop(func(l []Value) Value { return cond(c.unflatten(l)) },
		func(l []Value) []Value { return c.result(body(c.unflatten(l))) }, leaves...)
	return c.finish(init, out)
}

// finish builds the loop's results into a C, or fails them: every leaf
// of the structure found first, or of like when there is none.
func (c *carry[C]) finish(like C, out []Value) C {
	if c.err != nil {
		if c.def.info != nil {
			if v, err := unflattenTree[C](c.op, c.def, failures(c.err, c.def.n)); err == nil {
				return v
			}
		}
		return failingTree(like, c.err)
	}
	return c.unflatten(out)
}

// CondTree is Cond over trees: onTrue(operands) if pred, else
// onFalse(operands); both branches return trees of one structure.
func CondTree[T, O any](pred Value, onTrue, onFalse func(operands O) T, operands O) T {
	ops := &carry[O]{op: "cond"}
	leaves := ops.flatten(operands)
	var zero T
	if ops.err != nil {
		return failingTree(zero, ops.err)
	}
	res := &carry[T]{op: "cond", branches: true}
	branch := func(f func(O) T) func([]Value) []Value {
		return func(l []Value) []Value { return res.result(f(ops.unflatten(l))) }
	}
	out := Cond(pred, branch(onTrue), branch(onFalse), leaves...)
	if ops.err != nil {
		res.err = ops.err
	}
	return res.finish(zero, out)
}

// ScanTree is Scan over trees: (carry, y) = f(carry, x) over the leading
// axis of every leaf of xs; it returns the final carry and the ys, each
// leaf stacked along a new leading axis (lax.scan of pytrees).
func ScanTree[C, X, Y any](f func(carry C, x X) (C, Y), init C, xs X, opts ...ScanOptions) (C, Y) {
	c := &carry[C]{op: "scan"}
	x := &carry[X]{op: "scan"}
	y := &carry[Y]{op: "scan"}
	var zero Y
	cl := c.flatten(init)
	xl := x.flatten(xs)
	if err := firstErr(c.err, x.err); err != nil {
		return failingTree(init, err), failingTree(zero, err)
	}
	nc := len(cl)
	outC, outY := Scan(func(cv, xv []Value) ([]Value, []Value) {
		nextC, yv := f(c.unflatten(cv), x.unflatten(xv))
		r := c.result(nextC)
		ys := y.flatten(yv)
		if err := firstErr(c.err, x.err, y.err); err != nil {
			return failures(err, nc), []Value{trace.Failure(err)}
		}
		return r, ys
	}, cl, xl, opts...)
	if err := firstErr(c.err, x.err, y.err); err != nil {
		c.err, y.err = err, err
	}
	return c.finish(init, outC), y.finish(zero, outY)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func failures(err error, n int) []Value {
	out := make([]Value, n)
	for i := range out {
		out[i] = trace.Failure(err)
	}
	return out
}
