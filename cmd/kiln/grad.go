package main

import (
	"encoding/json"
	"slices"
	"strings"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// named is an array printed under a name: a --grad gradient.
type named struct {
	name  string
	array *tensor.Array
	weak  bool
}

// gradFunc is kiln eval --grad's function: the expression's value and its
// gradient with respect to the --grad arguments (kiln.ValueAndGrad), with
// its traced program. The refusals are JAX's: an integer or bool argument
// is a *trace.DTypeError (kind "dtype"), an expression that is not a
// scalar a *trace.ShapeError (kind "shape"), and a complex or integer one
// a *trace.DTypeError; each points at the whole expression.
func (r *evalRun) gradFunc(ev *evaluator) (*kilnpkg.Func, *trace.Program, error) {
	argnums := make([]int, len(r.flags.grads.vals))
	for i, name := range r.flags.grads.vals {
		argnums[i] = slices.Index(r.session.names, name)
	}
	f := kilnpkg.Jit(kilnpkg.ValueAndGrad(ev.fn, argnums...), r.session.opts...)
	p, err := f.Trace(r.session.inputs...)
	if err != nil {
		relocate(err, exprPos(ev.root.col)) // a refusal concerns the whole expression
	}
	return f, p, err
}

// gradJSON is the "grad" object of --json: one {dtype, weak, shape,
// values} per --grad name, in the order asked for; nil without --grad.
func gradJSON(grads []named) json.RawMessage {
	if len(grads) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, g := range grads {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(g.name)
		val, _ := json.Marshal(struct {
			DType  string          `json:"dtype"`
			Weak   bool            `json:"weak"`
			Shape  []int           `json:"shape"`
			Values json.RawMessage `json:"values"`
		}{g.array.DType().String(), g.weak, g.array.Shape(), jsonValues(g.array)})
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}
