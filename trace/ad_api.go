package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// GradOptions configure Grad and ValueAndGrad, as jax.grad's keywords.
type GradOptions struct {
	// Argnums are the arguments to differentiate with respect to (negative
	// ones count from the end); none means argument 0.
	Argnums []int
	// AllowInt gives integer and bool arguments a zero gradient of JAX's
	// float0 kind (in Kiln: bool zeros, false) instead of the error.
	AllowInt bool
	// Holomorphic differentiates a complex function of complex arguments:
	// the output and the differentiated arguments must be complex, and the
	// gradient is f'(z).
	Holomorphic bool
	// HasAux: the function returns its value and then auxiliary results,
	// which are passed through, not differentiated.
	HasAux bool
}

// traceFn traces fn as a sub-trace of the innermost trace being built
// inside b (current) at args (values of b, or literals) and returns its
// program, the values its inputs are bound to — args, then the values it
// closes over — and the trace the transformation goes on in (placement:
// b, or a trace inside b whose values fn uses; after an error, a failed
// trace for the inert results).
func (b *builder) traceFn(op string, fn func([]Value) []Value, args []Value) (*Program, []Value, *builder) {
	abs := make([]Abstract, len(args))
	vals := make([]Value, len(args))
	for i, a := range args {
		v := b.materialize(b.attach(a, op), op)
		if v == nil {
			if b.err == nil {
				b.opErr(op, fmt.Errorf("argument %d is not a value (the zero Value, or one made outside any expression)", i))
			}
			return nil, nil, b
		}
		vals[i] = Value{b: b, v: v}
		abs[i] = Abstract{Type: v.Type, Shape: v.Shape}
	}
	if fn == nil {
		b.opErr(op, fmt.Errorf("a nil function"))
		return nil, nil, b
	}
	sub := newBuilder(b.cfg, b.current())
	if err := sub.run(abs, fn); err != nil {
		sub.fail(err)
		return nil, nil, sub.parent
	}
	return sub.prog, append(vals, sub.captured...), sub.placement(b)
}

// free runs a transformation (or control-flow op) of free values (no
// trace yet). It runs it once in a probe: when the functions it traces
// use values of a real trace (floating), it is run in the innermost trace
// being built there, where the Go code calling it runs; otherwise it
// returns n free values (n learned from the probe), the i-th replaying the
// transformation in the trace it meets and taking its i-th result.
func free(args []Value, f func(b *builder, args []Value) []Value) []Value {
	probe := newProbe()
	n := len(f(probe, attachAll(probe, "transform", args)))
	probe.done = true
	if r := probe.wants; r != nil {
		r = r.current()
		return f(r, attachAll(r, "transform", args))
	}
	outs := make([]Value, n)
	for i := range outs {
		outs[i] = freeOp(func(b *builder) Value {
			if rs := f(b, attachAll(b, "transform", args)); i < len(rs) {
				return rs[i]
			}
			return Value{b: b}
		})
	}
	return outs
}

// inert returns n values of a failed trace: a transformation that fails
// still returns as many results as it can tell it would have (one when it
// cannot), so code indexing them does not panic before the trace reports
// the error.
func inert(b *builder, n int) []Value {
	out := make([]Value, n)
	for i := range out {
		out[i] = Value{b: b}
	}
	return out
}

// JVP evaluates fn at primals and pushes tangents (one per primal, of its
// type and shape; literals take the primal's type) forward: it returns
// fn's results and their tangents (jax.jvp). A result that is not inexact
// has a float0 tangent: bool zeros.
func JVP(fn func([]Value) []Value, primals, tangents []Value) ([]Value, []Value) {
	b, ok := builderOf("jvp", append(append([]Value{}, primals...), tangents...)...)
	if b == nil {
		n := len(primals)
		outs := free(append(append([]Value{}, primals...), tangents...), func(b *builder, args []Value) []Value {
			o, t := jvpIn(b, true, fn, args[:n], args[n:])
			return append(o, t...)
		})
		return outs[:len(outs)/2], outs[len(outs)/2:]
	}
	return jvpIn(b, ok, fn, primals, tangents)
}

// jvpIn is JVP in trace b (ok false: the operands' traces were unrelated).
func jvpIn(b *builder, ok bool, fn func([]Value) []Value, primals, tangents []Value) ([]Value, []Value) {
	failed := func(n int) ([]Value, []Value) { return inert(b, n), inert(b, n) }
	if !ok || b.err != nil {
		return failed(1)
	}
	if len(tangents) != len(primals) {
		b.opErr("jvp", fmt.Errorf("%d tangents for %d primals: give one tangent per primal", len(tangents), len(primals)))
		return failed(1)
	}
	p, args, e := b.traceFn("jvp", fn, primals)
	if p == nil {
		b = e
		return failed(1)
	}
	b = e // tangents, values of b or of traces enclosing it, are captured
	ts := make([]Value, len(args))
	for i, t := range tangents {
		ts[i] = b.checkTangent("jvp", t, p.Inputs[i], i)
	}
	if b.err != nil {
		return failed(len(p.Outputs))
	}
	outs, touts := (&jvp{b: b, tb: b}).run(p, args, ts)
	for i, t := range touts {
		if isZero(t) {
			touts[i] = zeroCotangent(b, p.Outputs[i])
		}
	}
	return outs, touts
}

// checkTangent binds a tangent (or cotangent) given for v: a value of v's
// dtype and shape (weak or not), or a literal, which takes v's type. For
// a v that is not inexact, any tangent is taken as zero (JAX wants float0
// there).
func (b *builder) checkTangent(op string, t Value, v *Var, i int) Value {
	if !v.Type.DType.IsInexact() {
		return Value{}
	}
	t = b.attach(t, op)
	if b.err != nil {
		return Value{}
	}
	if t.lit != nil {
		return Value{b: b, v: b.to(t, v.Type, op, "")}
	}
	what := map[string]string{"jvp": "tangent", "vjp": "cotangent"}[op]
	if t.v == nil {
		b.opErr(op, fmt.Errorf("%s %d is not a value (the zero Value, or one made outside any expression)", what, i))
		return Value{}
	}
	if t.v.Type.DType != v.Type.DType {
		b.dtypeErr(op, fmt.Sprintf("%s %d has dtype %s, but the %s of a %s value must be %s too (JAX: primal and %s arguments must have equal dtypes)",
			what, i, t.v.Type.DType, what, v.Type.DType, v.Type.DType, what), t.v.Type, v.Type)
		return Value{}
	}
	if !ShapeEqual(t.v.Shape, v.Shape) {
		b.shapeErr(op, fmt.Sprintf("%s %d has shape %s, its primal %s", what, i, shapeString(t.v.Shape), shapeString(v.Shape)), t.v.Shape, v.Shape)
		return Value{}
	}
	return Value{b: b, v: b.to(t, v.Type, op, what+" takes its primal's weak flag")}
}

// zeroCotangent is the zero (co)tangent of a value like v: zeros of its
// type, or JAX's float0 — bool zeros — when v is not inexact.
func zeroCotangent(b *builder, v *Var) Value {
	if !v.Type.DType.IsInexact() {
		return zerosOf(b, promote.Strong(tensor.Bool), v.Shape)
	}
	return zerosOf(b, v.Type, v.Shape)
}

// VJP evaluates fn at primals and returns its results and a pullback
// (jax.vjp): pullback(cts...) takes one cotangent per result (of the
// result's dtype and shape; a literal takes the result's type) and returns
// one cotangent per primal, of the primal's type (bool zeros, JAX's
// float0, for primals that are not inexact). The pullback may be called
// several times, and inside traces nested in the primals' one.
func VJP(fn func([]Value) []Value, primals ...Value) ([]Value, func(cts ...Value) []Value) {
	b, ok := builderOf("vjp", primals...)
	if b == nil {
		outs := free(primals, func(b *builder, args []Value) []Value {
			o, _ := vjpIn(b, true, fn, args)
			return o
		})
		return outs, func(cts ...Value) []Value {
			n := len(primals)
			return free(append(append([]Value{}, primals...), cts...), func(b *builder, args []Value) []Value {
				_, pb := vjpIn(b, true, fn, args[:n])
				return pb(args[n:]...)
			})
		}
	}
	return vjpIn(b, ok, fn, primals)
}

// vjpIn is VJP in trace b (ok false: the operands' traces were unrelated).
func vjpIn(b *builder, ok bool, fn func([]Value) []Value, primals []Value) ([]Value, func(cts ...Value) []Value) {
	failed := func(cts ...Value) []Value { return inert(b, len(primals)) }
	if !ok || b.err != nil {
		return inert(b, 1), failed
	}
	p, args, e := b.traceFn("vjp", fn, primals)
	b = e
	if p == nil {
		return inert(b, 1), failed
	}
	diff := make([]bool, len(primals))
	for i, v := range p.Inputs[:len(primals)] {
		diff[i] = v.Type.DType.IsInexact()
	}
	l := linearize(b, p, args, diff)
	pullback := func(cts ...Value) []Value {
		// The innermost of the linearization's trace and the
		// cotangents': the pullback may be called inside a trace nested
		// in the former, on cotangents of it, or on cotangents of a trace
		// enclosing it.
		c, ok := builderOf("vjp", append([]Value{{b: l.b}}, cts...)...)
		if !ok || c.err != nil {
			return inert(c, len(primals))
		}
		if len(cts) != len(l.outs) {
			c.opErr("vjp", fmt.Errorf("%d cotangents for %d results: give one cotangent per result", len(cts), len(l.outs)))
			return inert(c, len(primals))
		}
		bound := make([]Value, len(cts))
		for i, ct := range cts {
			bound[i] = c.checkTangent("vjp", ct, p.Outputs[i], i)
		}
		return cotangentsOf(c, p, diff, l.transpose(c, bound))
	}
	return l.outs, pullback
}

// cotangentsOf lays out the transposition's results (one per input diff
// marks) as one cotangent per primal, zeros where none reached it.
func cotangentsOf(b *builder, p *Program, diff []bool, cts []Value) []Value {
	out := make([]Value, len(diff))
	k := 0
	for i := range diff {
		if diff[i] {
			out[i] = cts[k]
			k++
		}
		if isZero(out[i]) {
			out[i] = zeroCotangent(b, p.Inputs[i])
		}
	}
	return out
}

// Grad returns the gradient of fn, a function with one real scalar result,
// with respect to the arguments o.Argnums (jax.grad): one gradient per
// argnum, each of its argument's type and shape, followed by fn's
// auxiliary results when o.HasAux.
func Grad(fn func([]Value) []Value, o GradOptions) func(args ...Value) []Value {
	return func(args ...Value) []Value { return gradCall(fn, o, args, false) }
}

// ValueAndGrad is Grad returning fn's value first: value, auxiliary
// results (o.HasAux), then the gradients (jax.value_and_grad).
func ValueAndGrad(fn func([]Value) []Value, o GradOptions) func(args ...Value) []Value {
	return func(args ...Value) []Value { return gradCall(fn, o, args, true) }
}

func gradCall(fn func([]Value) []Value, o GradOptions, args []Value, withValue bool) []Value {
	name := "grad"
	if withValue {
		name = "value_and_grad"
	}
	b, ok := builderOf(name, args...)
	if b == nil {
		return free(args, func(b *builder, args []Value) []Value { return gradIn(b, true, fn, o, args, withValue) })
	}
	return gradIn(b, ok, fn, o, args, withValue)
}

// gradIn is Grad (ValueAndGrad with withValue) in trace b (ok false: the
// arguments' traces were unrelated).
func gradIn(b *builder, ok bool, fn func([]Value) []Value, o GradOptions, args []Value, withValue bool) []Value {
	name := "grad"
	if withValue {
		name = "value_and_grad"
	}
	argnums := append([]int{}, o.Argnums...)
	if len(argnums) == 0 {
		argnums = []int{0}
	}
	nout := len(argnums)
	if withValue {
		nout++
	}
	if !ok || b.err != nil {
		return inert(b, nout)
	}
	diff := make([]bool, len(args))
	for k, a := range argnums {
		i, ok := normAxis(a, len(args))
		if !ok {
			b.opErr(name, fmt.Errorf("differentiating with respect to argnums=%v requires at least %d positional arguments, but got only %d", argnums, max(a+1, -a), len(args)))
			return inert(b, nout)
		}
		argnums[k] = i
		if !b.checkGradInput(name, o, args[i], i) {
			return inert(b, nout)
		}
		diff[i] = b.typeOf(b.attach(args[i], name)).DType.IsInexact()
	}
	p, all, e := b.traceFn(name, fn, args)
	b = e
	if p == nil || !b.checkGradOutput(name, o, p) {
		return inert(b, nout)
	}
	l := linearize(b, p, all, diff)
	seed := make([]Value, len(p.Outputs))
	seed[0] = Scalar(l.outs[0], 1)
	grads := cotangentsOf(b, p, append(diff, make([]bool, len(all)-len(diff))...), l.transpose(b, seed))
	var out []Value
	if withValue {
		out = append(out, l.outs...) // the value, then any aux results
	}
	for _, i := range argnums {
		out = append(out, grads[i])
	}
	if o.HasAux && !withValue {
		out = append(out, l.outs[1:]...)
	}
	return out
}

// checkGradInput refuses an argument grad cannot differentiate with
// respect to, with JAX's message (which says "grad" for value_and_grad
// too).
func (b *builder) checkGradInput(name string, o GradOptions, x Value, i int) bool {
	x = b.attach(x, name)
	if b.err != nil {
		return false
	}
	if x.v == nil && x.lit == nil {
		b.opErr(name, fmt.Errorf("argument %d is not a value (the zero Value, or one made outside any expression)", i))
		return false
	}
	t := b.typeOf(x)
	d := t.DType
	switch {
	case o.Holomorphic && !d.IsComplex():
		b.dtypeErr(name, fmt.Sprintf("grad with holomorphic=True requires inputs with complex dtype, but got %s (argument %d)", d.LongName(), i), t)
	case !d.IsInexact() && !o.AllowInt:
		b.dtypeErr(name, fmt.Sprintf("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got %s (argument %d). If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True (AllowInt).", d.LongName(), i), t)
	default:
		return true
	}
	return false
}

// checkGradOutput refuses a function grad cannot differentiate: not one
// scalar result (plus aux results with HasAux), or a result of the wrong
// kind, with JAX's messages.
func (b *builder) checkGradOutput(name string, o GradOptions, p *Program) bool {
	if len(p.Outputs) != 1 && !o.HasAux {
		shapes := make([][]int, len(p.Outputs))
		for i, v := range p.Outputs {
			shapes[i] = v.Shape
		}
		b.shapeErr(name, fmt.Sprintf("Gradient only defined for scalar-output functions. Output was a tuple of %d values (for auxiliary results, set has_aux (HasAux))", len(p.Outputs)), shapes...)
		return false
	}
	out := p.Outputs[0]
	if out.Rank() != 0 {
		b.shapeErr(name, fmt.Sprintf("Gradient only defined for scalar-output functions. Output had shape: %s.", pyShape(out.Shape)), out.Shape)
		return false
	}
	d := out.Type.DType
	switch {
	case o.Holomorphic && !d.IsComplex():
		b.dtypeErr(name, fmt.Sprintf("grad with holomorphic=True requires outputs with complex dtype, but got %s.", d.LongName()), out.Type)
	case !o.Holomorphic && d.IsComplex():
		b.dtypeErr(name, fmt.Sprintf("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got %s. For holomorphic differentiation, pass holomorphic=True (Holomorphic). For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly (VJP).", d.LongName()), out.Type)
	case !d.IsInexact():
		b.dtypeErr(name, fmt.Sprintf("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got %s. For differentiation of functions with integer outputs, use jax.vjp directly (VJP).", d.LongName()), out.Type)
	default:
		return true
	}
	return false
}

// pyShape prints a shape as a Python tuple: (3,), (2, 3).
func pyShape(s []int) string {
	switch len(s) {
	case 0:
		return "()"
	case 1:
		return fmt.Sprintf("(%d,)", s[0])
	}
	return "(" + joinInts(s, ", ") + ")"
}

// Failure is a value whose use fails the trace it meets with err: how a
// transformation reports an error found before any trace exists (say, a
// function of the wrong shape).
func Failure(err error) Value { return freeOp(func(b *builder) Value { return b.fail(err) }) }
