package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/trace"
)

// Function transformations in the expression language, JAX's: vmap, grad,
// value_and_grad and jit take a function — a lambda, or another
// transformation's function — and return one, which the expression
// applies to arrays:
//
//	vmap(lambda r: r @ w, in_axes=0)(xs)                   // a matrix-vector product per row
//	vmap(lambda x, y: x * y, in_axes=(0, None))(xs, y)     // y shared by every example
//	vmap(lambda c: sum(c), in_axes=1, out_axes=0)(m)       // column sums
//	vmap(lambda: 1.0, axis_size=3)()                       // no batched argument: axis_size
//	vmap(vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(x, y)  // an outer product
//	vmap(grad(lambda w, x: sum((w * x) ** 2)), in_axes=(None, 0))(w, xs)       // per-example gradients
//	value_and_grad(lambda x: sum(x ** 2))(x)[1]
//
// Each is the library's transformation of the same name (trace.Vmap,
// trace.Grad, trace.ValueAndGrad) applied to the lambda traced as a Go
// function, so they nest in any order, take closures (a lambda inside
// fori_loop's body may use its i) and compose with --grad and the loops.
// jit(f) is f: inside an expression that kiln eval already jits, JAX
// inlines a nested jit too, with the same results.
//
// A function returns an array or, as in JAX, a tuple (its lambda's body
// is a tuple; value_and_grad returns (value, gradient); grad with a tuple
// of argnums a tuple of gradients), which the expression indexes:
// value_and_grad(f)(x)[0]. Tuples nest: value_and_grad(f, argnums=(0,
// 1))(x, y)[1][0].
//
// vmap's in_axes is an int, None (the argument is shared by every
// example) or a tuple with one int or None per argument; out_axes an int,
// None or a tuple with one entry per element of the function's result
// tuple (an entry covers every array of its element); axis_size the batch
// size, required when no argument is batched. Axes may be negative.
// JAX's checks of these that need only the expression (a tuple of the
// wrong length) fail with kind "vmap" before anything is traced; the
// library's (*trace.VmapError: an axis out of range, batched arguments of
// different sizes, out_axes=None for a result that depends on the batch)
// have that kind too. Both point at the vmap; an op vmap cannot batch, at
// the call that made it. axis_size=0 is an empty batch, as in JAX.

// transform is one function transformation: its parameters, as in
// function, the first of which is the function transformed.
type transform struct {
	params  []param
	summary string
}

// transforms are the transformations, by name.
var transforms = map[string]*transform{
	"vmap": {params: []param{{"fun", kFunc, ""}, {"in_axes", kAxes, "0"}, {"out_axes", kAxes, "0"}, {"axis_size", kAxis, "None"}},
		summary: "jax.vmap: fun mapped over an axis of its arguments, vmap(lambda r: …, in_axes=0)(x); in_axes/out_axes an int, None or a tuple (one per argument/result)"},
	"grad": {params: []param{{"fun", kFunc, ""}, {"argnums", kInts, "0"}},
		summary: "jax.grad: the gradient of fun (a real scalar) with respect to argument argnums (a tuple of them: a tuple of gradients), grad(f)(x)"},
	"value_and_grad": {params: []param{{"fun", kFunc, ""}, {"argnums", kInts, "0"}},
		summary: "jax.value_and_grad: the pair (fun's value, its gradient), value_and_grad(f)(x)[1]"},
	"jit": {params: []param{{"fun", kFunc, ""}},
		summary: "jax.jit: fun itself (kiln eval jits the whole expression; a nested jit is inlined, as JAX does)"},
}

func transformNames() []string {
	names := make([]string, 0, len(transforms))
	for n := range transforms {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// tree is the structure of a function's results: one array (no elems),
// or a tuple of trees. The arrays travel flat, in order.
type tree struct{ elems []*tree }

func (t *tree) isTuple() bool { return t != nil && t.elems != nil }

// leaves counts the arrays of t.
func (t *tree) leaves() int {
	if !t.isTuple() {
		return 1
	}
	n := 0
	for _, e := range t.elems {
		n += e.leaves()
	}
	return n
}

// String prints t as JAX prints a tree's structure: *, (*, (*, *)).
func (t *tree) String() string {
	if !t.isTuple() {
		return "*"
	}
	parts := make([]string, len(t.elems))
	for i, e := range t.elems {
		parts[i] = e.String()
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// leaf is the tree of one array.
var leaf = &tree{}

// xform is a transformation's call bound by check: its function and its
// static arguments.
type xform struct {
	name     string
	args     map[string]*node // the arguments given, by parameter
	fun      *node
	inAxes   []int // vmap: nil for 0, else one axis (every argument) or one per argument; trace.NoAxis for None
	outAxes  []int // vmap: one axis per array of the results (or one for all); nil for 0
	axisSize int   // vmap: axis_size, when hasSize
	hasSize  bool  // vmap: axis_size was given (0 is an empty batch)
	argnums  []int // grad, value_and_grad
	argTuple bool  // argnums was a tuple: the gradients are one
}

// vmapErr is an error in a vmap's static arguments, found before tracing:
// kind "vmap", as the library's *trace.VmapError.
func vmapErr(col int, format string, args ...any) *exprError {
	return &exprError{Kind: "vmap", Col: col, Msg: fmt.Sprintf(format, args...)}
}

// apply checks a function's application f(args…): the arguments are
// arrays and f is a function of as many; it returns (and keeps on n) the
// structure of the results.
func (c *checker) apply(n *node) (*tree, error) {
	if n.out != nil {
		return n.out, nil
	}
	if len(n.kws) > 0 {
		return nil, syntaxErr(n.kws[0].col, "%s: a function's arguments are positional arrays, found the keyword %s", describeFn(n.kids[0]), n.kws[0].name)
	}
	for _, a := range n.kids[1:] {
		if err := c.array(a); err != nil {
			return nil, err
		}
	}
	t, err := c.function(n.kids[0], len(n.kids)-1)
	if err != nil {
		return nil, err
	}
	n.out = t
	return t, nil
}

// describeFn names a function value for an error message.
func describeFn(f *node) string {
	if f.kind == nLambda {
		return "the lambda"
	}
	return f.text + "(…)"
}

// function checks that f is a function of nargs arrays (a lambda, or a
// transformation's call) and returns the structure of its results.
func (c *checker) function(f *node, nargs int) (*tree, error) {
	switch {
	case f.kind == nLambda:
		if len(f.names) != nargs {
			return nil, syntaxErr(f.col, "the lambda takes %s and is applied to %d", plural(len(f.names), "argument"), nargs)
		}
		inner := &checker{names: maps.Clone(c.names), tuples: maps.Clone(c.tuples)}
		for _, name := range f.names {
			inner.names[name] = true
			delete(inner.tuples, name) // a no-op on a nil map
		}
		return inner.result(f.kids[0])
	case f.kind == nCall && transforms[f.text] != nil:
		x, err := c.bindTransform(f)
		if err != nil {
			return nil, err
		}
		t, err := c.function(x.fun, nargs)
		if err != nil {
			return nil, err
		}
		switch x.name {
		case "vmap":
			return t, c.vmapAxes(x, t, nargs)
		case "grad", "value_and_grad":
			if t.isTuple() {
				return nil, syntaxErr(x.fun.col, "%s: fun must return one array, a real scalar (Gradient only defined for scalar-output functions), not a tuple %s", x.name, t)
			}
			g := leaf
			if x.argTuple {
				g = &tree{elems: make([]*tree, len(x.argnums))}
				for i := range g.elems {
					g.elems[i] = leaf
				}
			}
			if x.name == "grad" {
				return g, nil
			}
			return &tree{elems: []*tree{leaf, g}}, nil
		}
		return t, nil // jit
	}
	return nil, syntaxErr(f.col, "expected a function (a lambda, or vmap(…), grad(…), value_and_grad(…) or jit(…)), found %s", describe(f))
}

// result checks a lambda's body: an array, or a tuple (of tuples) of
// them, and returns its structure.
func (c *checker) result(n *node) (*tree, error) {
	switch {
	case n.kind == nTuple:
		if len(n.kids) == 0 {
			return nil, syntaxErr(n.col, "a function must return an array or a tuple of arrays, not an empty tuple")
		}
		t := &tree{elems: make([]*tree, len(n.kids))}
		for i, k := range n.kids {
			e, err := c.result(k)
			if err != nil {
				return nil, err
			}
			t.elems[i] = e
		}
		return t, nil
	case n.kind == nApply || n.kind == nSubscript && isApplied(n.kids[0]):
		return c.applied(n)
	}
	return leaf, c.array(n)
}

// isApplied reports whether n is an application or an element of one's
// tuple: a node whose structure treeOf finds.
func isApplied(n *node) bool {
	for n.kind == nSubscript {
		n = n.kids[0]
	}
	return n.kind == nApply
}

// applied checks an application, or an element of its tuple (f(x)[1],
// f(x)[1][0]), and returns its structure.
func (c *checker) applied(n *node) (*tree, error) {
	if n.kind == nApply {
		return c.apply(n)
	}
	t, err := c.applied(n.kids[0])
	if err != nil {
		return nil, err
	}
	if !t.isTuple() {
		return leaf, c.subscript(n) // f(x)[i] of an array result indexes the array
	}
	i, err := tupleIndex(n, len(t.elems), fnResult(n.kids[0]))
	if err != nil {
		return nil, err
	}
	return t.elems[i], nil
}

// fnResult names what an application (or an element of one) returns,
// for an error message: "vmap(…)(…)".
func fnResult(n *node) string {
	if n.kind == nSubscript {
		return fnResult(n.kids[0]) + "[…]"
	}
	if n.kids[0].kind == nLambda {
		return "(lambda …)(…)"
	}
	return n.text + "(…)(…)"
}

// appliedArray checks an application (or an element of its tuple) where
// an array is wanted.
func (c *checker) appliedArray(n *node) error {
	t, err := c.applied(n)
	if err != nil {
		return err
	}
	if t.isTuple() {
		return syntaxErr(n.col, "%s returns a tuple %s: index it, %s[0]", fnResult(n), t, fnResult(n))
	}
	return nil
}

// treeOf is the structure of an application, or of an element of its
// tuple, after check; nil for any other node, and for the element of an
// array result (which is an array subscript).
func treeOf(n *node) *tree {
	switch n.kind {
	case nApply:
		return n.out
	case nSubscript:
		t := treeOf(n.kids[0])
		if !t.isTuple() {
			return nil
		}
		i, _ := intLiteral(n.items[0])
		if i < 0 {
			i += int64(len(t.elems))
		}
		return t.elems[i]
	}
	return nil
}

// bindTransform binds a transformation's arguments (positional, then by
// keyword, as bind does for functions) and reads its static ones.
func (c *checker) bindTransform(n *node) (*xform, error) {
	if n.xf != nil {
		return n.xf, nil
	}
	tr := transforms[n.text]
	sig := (&function{params: tr.params}).signature(n.text)
	given := map[string]*node{}
	for i, arg := range n.kids {
		if i >= len(tr.params) {
			return nil, syntaxErr(arg.col, "%s takes at most %s, got %d: %s", n.text, plural(len(tr.params), "positional argument"), len(n.kids), sig)
		}
		given[tr.params[i].name] = arg
	}
	for _, kw := range n.kws {
		if !slices.ContainsFunc(tr.params, func(p param) bool { return p.name == kw.name }) {
			return nil, syntaxErr(kw.col, "%s has no argument %q: %s", n.text, kw.name, sig)
		}
		if given[kw.name] != nil {
			return nil, syntaxErr(kw.col, "%s got two values for argument %q", n.text, kw.name)
		}
		given[kw.name] = kw.val
	}
	x := &xform{name: n.text, args: given, fun: given["fun"]}
	if x.fun == nil {
		return nil, syntaxErr(n.col, "%s is missing argument \"fun\": %s", n.text, sig)
	}
	var err error
	if a := given["in_axes"]; a != nil {
		if x.inAxes, err = axesOf(n.text, "in_axes", a); err != nil {
			return nil, err
		}
	}
	if a := given["axis_size"]; a != nil && a.kind != nNone {
		if x.axisSize, err = staticInt(a); err != nil {
			return nil, err
		}
		x.hasSize = true
	}
	if a := given["argnums"]; a != nil {
		x.argTuple = a.kind == nTuple
		if x.argTuple {
			if len(a.kids) == 0 {
				return nil, syntaxErr(a.col, "%s: argnums=() differentiates with respect to nothing; give an int or a tuple of ints", n.text)
			}
			x.argnums, err = staticInts(a.kids)
		} else {
			x.argnums, err = staticInts([]*node{a})
		}
		if err != nil {
			return nil, err
		}
	}
	n.xf = x
	return x, nil
}

// axesOf reads in_axes or out_axes: an int or None for every argument
// (result), or a tuple of them, one each; None is trace.NoAxis.
func axesOf(name, what string, a *node) ([]int, error) {
	one := func(k *node) (int, error) {
		switch k.kind {
		case nNone:
			return trace.NoAxis, nil
		case nTuple:
			return 0, syntaxErr(k.col, "%s: the entries of %s are ints or None, found a tuple (kiln eval's arguments and results are arrays, not nested tuples)", name, what)
		}
		return staticInt(k)
	}
	if a.kind != nTuple {
		v, err := one(a)
		return []int{v}, err
	}
	out := make([]int, len(a.kids))
	for i, k := range a.kids {
		v, err := one(k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// vmapAxes checks a vmap's in_axes against its nargs arguments and its
// out_axes against the structure t of its results, as JAX does when the
// function is called, and lays out_axes out per array.
func (c *checker) vmapAxes(x *xform, t *tree, nargs int) error {
	if a := x.args["in_axes"]; a != nil && a.kind == nTuple && len(a.kids) != nargs {
		return vmapErr(a.col, "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=%d, len(args)=%d", len(a.kids), nargs)
	}
	a := x.args["out_axes"]
	if a == nil {
		return nil
	}
	axes, err := axesOf("vmap", "out_axes", a)
	if err != nil {
		return err
	}
	if a.kind != nTuple {
		x.outAxes = axes // one axis for every array of the results
		return nil
	}
	if !t.isTuple() || len(t.elems) != len(axes) {
		return vmapErr(a.col, "vmap out_axes specification must be a tree prefix of the corresponding value, got specification %s for value tree %s", axesText(axes), t)
	}
	x.outAxes = nil
	for i, e := range t.elems {
		for range e.leaves() {
			x.outAxes = append(x.outAxes, axes[i])
		}
	}
	return nil
}

// axesText prints axes as a Python tuple, NoAxis as None.
func axesText(axes []int) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = fmt.Sprint(a)
		if a == trace.NoAxis {
			parts[i] = "None"
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// values evaluates an application, or an element of its tuple, into its
// arrays, flat.
func (ev *evaluator) values(n *node) []trace.Value {
	if n.kind == nApply {
		return ev.applyFn(n)
	}
	vs := ev.values(n.kids[0])
	t := treeOf(n.kids[0])
	i, _ := intLiteral(n.items[0])
	if i < 0 {
		i += int64(len(t.elems))
	}
	off := 0
	for _, e := range t.elems[:i] {
		off += e.leaves()
	}
	return vs[off : off+t.elems[i].leaves()]
}

// results evaluates a lambda's body into its arrays, flat.
func (ev *evaluator) results(n *node) []trace.Value {
	switch {
	case n.kind == nTuple:
		var out []trace.Value
		for _, k := range n.kids {
			out = append(out, ev.results(k)...)
		}
		return out
	case treeOf(n).isTuple():
		return ev.values(n)
	}
	return []trace.Value{ev.eval(n)}
}

// applyFn evaluates an application: its arguments, then the function on
// them. The transformation's own equations (vmap's batched ones, grad's
// backward pass) are at its column.
func (ev *evaluator) applyFn(n *node) []trace.Value {
	args := make([]trace.Value, len(n.kids)-1)
	for i, k := range n.kids[1:] {
		args[i] = ev.eval(k)
	}
	want := n.out.leaves()
	if ev.own != nil {
		return make([]trace.Value, want)
	}
	f := ev.function(n.kids[0])
	var outs []trace.Value
	trace.WithPos(ev.scope, exprPos(n.col), func() trace.Value {
		outs = f(args)
		return trace.Value{}
	})
	if len(outs) > 0 {
		ev.noteErr(n, outs[0])
	}
	for len(outs) < want { // a failed transformation returns what it can
		var v trace.Value
		if len(outs) > 0 {
			v = outs[0]
		}
		outs = append(outs, v)
	}
	return outs[:want]
}

// function makes a function value — a lambda, or a transformation of
// one — into the Go function the library transforms.
func (ev *evaluator) function(f *node) func([]trace.Value) []trace.Value {
	if f.kind == nLambda {
		return func(xs []trace.Value) []trace.Value { return ev.callLambda(f, xs...) }
	}
	x := f.xf
	inner := ev.function(x.fun)
	switch x.name {
	case "vmap":
		v := trace.Vmap(inner, trace.VmapOptions{InAxes: x.inAxes, OutAxes: x.outAxes, AxisSize: x.axisSize, HasAxisSize: x.hasSize})
		return func(xs []trace.Value) []trace.Value { return v(xs...) }
	case "grad":
		g := trace.Grad(inner, trace.GradOptions{Argnums: x.argnums})
		return func(xs []trace.Value) []trace.Value { return g(xs...) }
	case "value_and_grad":
		g := trace.ValueAndGrad(inner, trace.GradOptions{Argnums: x.argnums})
		return func(xs []trace.Value) []trace.Value { return g(xs...) }
	}
	return inner // jit: inlined
}
