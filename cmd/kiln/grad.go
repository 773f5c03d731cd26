package main

import (
	"encoding/json"
	"errors"
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
		relocate(err, exprPos(derivCol(ev.root, err))) // a refusal concerns the whole expression
	}
	return f, p, err
}

// derivCol is the column a gradient's error points at: a derivative
// error's op (a loop reverse mode cannot run, an op without a derivative)
// is at the call that made it — the first in the expression, when there
// are several — and any other refusal concerns the whole expression. The
// error's own position is the line of this program's Go source that
// called the library, which means nothing to the user.
func derivCol(root *node, err error) int {
	var dv *trace.DerivError
	if !errors.As(err, &dv) {
		return root.col
	}
	if dv.Pos.File == "<expr>" { // the rule's equation came from this node (trace.WithPos)
		return dv.Pos.Col
	}
	if found := opNode(root, dv.Op); found != nil {
		return found.col
	}
	return root.col
}

// opNode is the first call in the expression rooted at root that makes
// the op named op (a trace.Op's name): a call of the function of that
// name, or of one made of it (a while is fori_loop, while_loop or scan; a
// cond, cond or switch); nil when there is none.
func opNode(root *node, op string) *node {
	names := map[string][]string{"while": {"fori_loop", "while_loop", "scan"}, "cond": {"cond", "switch"}}[op]
	if names == nil {
		names = []string{op}
	}
	var found *node
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || found != nil {
			return
		}
		if (n.kind == nCall || n.kind == nAt) && slices.Contains(names, n.text) {
			found = n
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
		for _, k := range n.items {
			walk(k)
		}
		for _, kw := range n.kws {
			walk(kw.val)
		}
	}
	walk(root)
	return found
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
