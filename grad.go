package kiln

import (
	"fmt"

	"github.com/kiln-go/kiln/trace"
)

// GradOptions configure GradWith and ValueAndGradWith as jax.grad's
// keywords: Argnums (none: argument 0), AllowInt, Holomorphic, HasAux.
type GradOptions = trace.GradOptions

// Grad returns the gradient of fn with respect to the arguments argnums
// (none: the first), as jax.grad: fn is a function over Values of any
// shape Jit takes, or a *Func, with one real scalar result. The gradient
// function returns one gradient per argnum, each of its argument's dtype,
// weak flag and shape. It is an ordinary function over Values: jit it
// (Jit(Grad(f))), differentiate it again (Grad(Grad(f))), or call it on
// constants and Eval the results.
//
// Refusals are JAX's, as errors of the trace: a *trace.DTypeError for an
// integer or bool argument (unless AllowInt) or a complex or integer
// result (unless Holomorphic), a *trace.ShapeError for a result that is not
// a scalar, a *trace.DerivError for an op that has no derivative.
func Grad(fn any, argnums ...int) func(args ...Value) []Value {
	return GradWith(fn, GradOptions{Argnums: argnums})
}

// GradWith is Grad with every option.
func GradWith(fn any, o GradOptions) func(args ...Value) []Value {
	return transform(fn, "grad", func(g func([]Value) []Value) func(...Value) []Value { return trace.Grad(g, o) })
}

// ValueAndGrad is Grad returning fn's value first, then the gradients
// (jax.value_and_grad).
func ValueAndGrad(fn any, argnums ...int) func(args ...Value) []Value {
	return ValueAndGradWith(fn, GradOptions{Argnums: argnums})
}

// ValueAndGradWith is ValueAndGrad with every option: the value, fn's
// auxiliary results when HasAux, then the gradients.
func ValueAndGradWith(fn any, o GradOptions) func(args ...Value) []Value {
	return transform(fn, "value_and_grad", func(g func([]Value) []Value) func(...Value) []Value { return trace.ValueAndGrad(g, o) })
}

// transform applies a transformation to fn adapted, or returns a function
// that fails the trace it is used in when fn cannot be adapted.
func transform(fn any, name string, t func(func([]Value) []Value) func(...Value) []Value) func(...Value) []Value {
	g, err := adaptTransformed(fn, name)
	if err != nil {
		return failing(err)
	}
	return t(g)
}

// VJP evaluates fn at primals and returns its results and a pullback, as
// jax.vjp: pullback(cts...) takes one cotangent per result (its dtype and
// shape; a literal takes the result's type) and returns one cotangent per
// primal, of the primal's type (bool zeros — JAX's float0 — for integer
// and bool primals).
func VJP(fn any, primals ...Value) ([]Value, func(cts ...Value) []Value) {
	g, err := adaptTransformed(fn, "vjp")
	if err != nil {
		f := failing(err)
		return f(), func(...Value) []Value { return f() }
	}
	return trace.VJP(g, primals...)
}

// JVP evaluates fn at primals and pushes tangents forward, as jax.jvp:
// it returns fn's results and their tangents. Each tangent has its
// primal's dtype and shape (a literal takes the primal's type).
func JVP(fn any, primals, tangents []Value) ([]Value, []Value) {
	g, err := adaptTransformed(fn, "jvp")
	if err != nil {
		f := failing(err)
		return f(), f()
	}
	return trace.JVP(g, primals, tangents)
}

// adaptTransformed turns fn — a function Jit takes, or a *Func, whose
// function is used — into a function over []Value that checks its
// argument count.
func adaptTransformed(fn any, name string) (func([]Value) []Value, error) {
	var g func([]Value) []Value
	nin := -1
	var err error
	if f, ok := fn.(*Func); ok && f != nil {
		g, nin, err = f.fn, f.nin, f.err
		if f.tree != nil {
			nin = -1 // its trees' leaves, however many
		}
	} else {
		g, nin, err = adapt(fn)
		if err != nil {
			if t, terr := adaptTree(fn); terr == nil { // fixed-shape trees, over their leaves
				g, nin, err = t.flat, -1, nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return func(args []Value) []Value {
		if nin >= 0 && len(args) != nin {
			return []Value{trace.Failure(&ArgError{Index: -1, Msg: fmt.Sprintf("%s: the function takes %d arguments, got %d", name, nin, len(args))})}
		}
		return g(args)
	}, nil
}

// failing is a transformed function that fails the trace it is used in.
func failing(err error) func(args ...Value) []Value {
	return func(...Value) []Value { return []Value{trace.Failure(err)} }
}
