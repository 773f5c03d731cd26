package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// Control flow in the expression language: jax.lax's fori_loop,
// while_loop, cond, switch and scan with lambdas, traced once each as the
// library's ForiLoop, WhileLoop, Cond, Switch and Scan:
//
//	fori_loop(0, 10, lambda i, x: x * 2, 1.0)
//	fori_loop(0, 10, lambda i, c: (c[0] + i, c[1] * 2), (0, 1.0))[1]
//	while_loop(lambda x: x < 100, lambda x: x * 3, 1)
//	cond(x > 0, lambda x: x, lambda x: -x, x)
//	switch(i, (lambda: 1.0, lambda: 2.0))
//	scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]      // cumulative sum
//	scan(lambda c, _: (c * 2, c), 1.0, length=3)[1]    // no xs: length steps
//
// A loop's carry is an array or, as in JAX, a tuple of arrays: the lambda
// then indexes it (c[0]) and returns a tuple, and the loop's result is
// the tuple of final carries, which the expression indexes. scan returns
// (carry, ys) and is indexed the same way; its carry is one array.
func init() {
	functions["fori_loop"] = &function{
		params:  []param{{"lower", kArray, ""}, {"upper", kArray, ""}, {"body_fun", kFunc, ""}, {"init_val", kCarry, ""}},
		lambdas: map[string]lambdaSpec{"body_fun": {arity: 2, carry: 2}},
		summary: "lax.fori_loop: for i in [lower, upper): val = body_fun(i, val), traced once (not unrolled); val may be a tuple",
		apply:   func(a *bound) trace.Value { return foriLoop(a)[0] },
		tuple:   foriLoop,
	}
	functions["while_loop"] = &function{
		params:  []param{{"cond_fun", kFunc, ""}, {"body_fun", kFunc, ""}, {"init_val", kCarry, ""}},
		lambdas: map[string]lambdaSpec{"cond_fun": {arity: 1, carry: 1}, "body_fun": {arity: 1, carry: 1}},
		summary: "lax.while_loop: val = body_fun(val) while cond_fun(val) (a bool scalar); val may be a tuple",
		apply:   func(a *bound) trace.Value { return whileLoop(a)[0] },
		tuple:   whileLoop,
	}
	functions["cond"] = &function{
		params:  []param{{"pred", kArray, ""}, {"true_fun", kFunc, ""}, {"false_fun", kFunc, ""}, {"operands", kRest, "()"}},
		lambdas: map[string]lambdaSpec{"true_fun": {arity: -1}, "false_fun": {arity: -1}},
		summary: "lax.cond: true_fun(*operands) if pred else false_fun(*operands); only the chosen branch runs",
		apply: func(a *bound) trace.Value {
			return trace.Cond(a.x("pred"), a.lambda("true_fun"), a.lambda("false_fun"), a.listVals...)[0]
		}}
	functions["switch"] = &function{
		params:  []param{{"index", kArray, ""}, {"branches", kFuncs, ""}, {"operands", kRest, "()"}},
		lambdas: map[string]lambdaSpec{"branches": {arity: -1}},
		summary: "lax.switch: branches[clamp(index)](*operands)",
		apply: func(a *bound) trace.Value {
			fns := make([]func([]trace.Value) []trace.Value, len(a.fns))
			for i, f := range a.fns {
				fns[i] = a.lambdaOf(f)
			}
			return trace.Switch(a.x("index"), fns, a.listVals...)[0]
		}}
	functions["scan"] = &function{
		params:  []param{{"f", kFunc, ""}, {"init", kArray, ""}, {"xs", kOptArray, "None"}, {"reverse", kBool, "False"}, {"length", kAxis, "None"}},
		lambdas: map[string]lambdaSpec{"f": {arity: 2, pair: true}},
		summary: "lax.scan: (carry, y) = f(carry, x) over xs' leading axis (or length steps, x None); returns (carry, ys): index it, scan(…)[1]",
		tuple: func(a *bound) []trace.Value {
			var xs []trace.Value
			if _, ok := a.arrays["xs"]; ok {
				xs = []trace.Value{a.x("xs")}
			} else if l := a.funcs["f"]; usesName(l.kids[0], l.names[1]) {
				return []trace.Value{trace.Failure(&exprError{Kind: "syntax", Col: l.col,
					Msg: fmt.Sprintf("scan: without xs, f's x (%s) is None: give xs, or do not use %s", l.names[1], l.names[1])})}
			}
			o := trace.ScanOptions{Reverse: a.flags["reverse"]}
			if n, ok := a.ints["length"]; ok {
				o.Length, o.HasLength = n[0], true // length=0 is zero steps, not "not given"
			}
			c, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
				var xv trace.Value // x is None without xs: using it is an error
				if len(x) > 0 {
					xv = x[0]
				}
				out := a.ev.callLambda(a.funcs["f"], c[0], xv)
				if len(out) != 2 {
					return out, nil
				}
				return out[:1], out[1:]
			}, []trace.Value{a.x("init")}, xs, o)
			return append(c, ys...)
		}}
}

// carries is a loop's initial carry: one array, or the tuple's.
func (a *bound) carries() []trace.Value {
	if a.carryTuple {
		return a.listVals
	}
	return []trace.Value{a.x("init_val")}
}

// carryArgs passes a loop's carry to a lambda: the array, or the tuple.
func (a *bound) carryArgs(l *node, before []trace.Value, c []trace.Value) []trace.Value {
	if a.carryTuple {
		return a.ev.callLambdaTuple(l, before, c)
	}
	return a.ev.callLambda(l, append(before, c[0])...)
}

func foriLoop(a *bound) []trace.Value {
	return trace.ForiLoop(a.x("lower"), a.x("upper"), func(i trace.Value, c []trace.Value) []trace.Value {
		return a.carryArgs(a.funcs["body_fun"], []trace.Value{i}, c)
	}, a.carries()...)
}

func whileLoop(a *bound) []trace.Value {
	return trace.WhileLoop(func(c []trace.Value) trace.Value { return a.carryArgs(a.funcs["cond_fun"], nil, c)[0] },
		func(c []trace.Value) []trace.Value { return a.carryArgs(a.funcs["body_fun"], nil, c) }, a.carries()...)
}

// tupleValued reports whether the call's value is a tuple the expression
// must index: scan's pair, a loop's tuple of carries.
func (a *bound) tupleValued() bool {
	return a.fn.tuple != nil && (a.fn.apply == nil || a.carryTuple)
}

// lambda is the kFunc parameter name as a function of the operands.
func (a *bound) lambda(name string) func([]trace.Value) []trace.Value {
	return a.lambdaOf(a.funcs[name])
}

func (a *bound) lambdaOf(n *node) func([]trace.Value) []trace.Value {
	return func(xs []trace.Value) []trace.Value { return a.ev.callLambda(n, xs...) }
}

// bindLambdas checks a kFunc or kFuncs argument: lambdas of the right
// arity whose bodies are array expressions (a pair for scan's function, a
// tuple as long as the carry for a loop over a tuple) over the names in
// scope and their parameters.
func (c *checker) bindLambdas(b *bound, p param, arg *node) error {
	if b.funcs == nil {
		b.funcs = map[string]*node{}
	}
	spec := b.fn.lambdas[p.name]
	arity := spec.arity
	if arity < 0 {
		arity = len(b.list)
	}
	lams := []*node{arg}
	if p.kind == kFuncs {
		if arg.kind != nTuple || len(arg.kids) == 0 {
			return syntaxErr(arg.col, "%s: %s must be a tuple of lambdas, as in %s(i, (lambda x: x, lambda x: -x), x)", b.name, p.name, b.name)
		}
		lams = arg.kids
		b.fns = lams
	}
	tuple := 0 // the carry's length when it is a tuple
	if spec.carry > 0 && b.carryTuple {
		tuple = len(b.list)
	}
	for _, l := range lams {
		if l.kind != nLambda {
			return syntaxErr(l.col, "%s: %s must be a lambda, found %s", b.name, p.name, describe(l))
		}
		if len(l.names) != arity {
			return syntaxErr(l.col, "%s: %s takes %s, the lambda has %d", b.name, p.name, plural(arity, "argument"), len(l.names))
		}
		inner := &checker{names: maps.Clone(c.names), tuples: maps.Clone(c.tuples)}
		if inner.tuples == nil {
			inner.tuples = map[string]int{}
		}
		for i, name := range l.names {
			inner.names[name] = true
			delete(inner.tuples, name)
			if tuple > 0 && i == spec.carry-1 {
				inner.tuples[name] = tuple
			}
		}
		body := l.kids[0]
		n := 0 // the elements the body must return, 0 for one array
		switch {
		case spec.pair:
			n = 2
		case tuple > 0 && p.name == "body_fun":
			n = tuple
		}
		switch {
		case n > 0 && (body.kind != nTuple || len(body.kids) != n):
			what := "a pair (carry, y)"
			if !spec.pair {
				what = fmt.Sprintf("a tuple of %d carries", n)
			}
			return syntaxErr(body.col, "%s: %s must return %s", b.name, p.name, what)
		case n > 0:
			for _, k := range body.kids {
				if err := inner.array(k); err != nil {
					return err
				}
			}
		default:
			if err := inner.array(body); err != nil {
				return err
			}
		}
	}
	b.funcs[p.name] = arg
	return nil
}

// callLambda evaluates a lambda's body with its parameters bound to args
// (names of the enclosing expression they shadow are restored after).
func (ev *evaluator) callLambda(l *node, args ...trace.Value) []trace.Value {
	return ev.callLambdaTuple(l, args, nil)
}

// callLambdaTuple is callLambda with the parameter after args bound to
// the tuple tup (a loop's carries), when tup is not nil.
func (ev *evaluator) callLambdaTuple(l *node, args []trace.Value, tup []trace.Value) []trace.Value {
	type saved struct {
		v      trace.Value
		t      []trace.Value
		hv, ht bool
	}
	scope := ev.scope
	defer func() { ev.scope = scope }()
	if len(args) > 0 {
		ev.scope = args[0]
	} else if len(tup) > 0 {
		ev.scope = tup[0]
	}
	old := make([]saved, len(l.names))
	for i, name := range l.names {
		old[i].v, old[i].hv = ev.vals[name]
		old[i].t, old[i].ht = ev.tuples[name]
		delete(ev.tuples, name)
		switch {
		case i < len(args):
			ev.vals[name] = args[i]
		case tup != nil && i == len(args):
			ev.tuples[name] = tup
		}
	}
	defer func() {
		for i, name := range l.names {
			delete(ev.vals, name)
			delete(ev.tuples, name)
			if old[i].hv {
				ev.vals[name] = old[i].v
			}
			if old[i].ht {
				ev.tuples[name] = old[i].t
			}
		}
	}()
	return ev.results(l.kids[0])
}

// pairItem checks f(…)[i] for a tuple-valued call f (scan, a loop over a
// tuple): the call, and one int index in range (negative from the end),
// as a tuple is indexed in Python. ok is false when the call is not
// tuple-valued after all (a loop over one array): then it is an array.
func (c *checker) pairItem(n *node) (bool, error) {
	call := n.kids[0]
	fn := functions[call.text]
	b, err := c.bind(fn, call)
	if err != nil {
		return true, err
	}
	call.call = b
	if !b.tupleValued() {
		return false, nil
	}
	size := 2
	switch {
	case fn.size != nil:
		size = fn.size(b)
	case fn.apply != nil:
		size = len(b.list)
	}
	_, err = tupleIndex(n, size, call.text+"(…)")
	return true, err
}

// tupleIndex checks that subscript n is one int literal within a tuple of
// size elements, and returns it.
func tupleIndex(n *node, size int, what string) (int, error) {
	if len(n.items) != 1 || n.items[0].kind != nInt {
		return 0, syntaxErr(n.col, "%s is a tuple of %d: index it with one int", what, size)
	}
	i, err := intLiteral(n.items[0])
	if err != nil {
		return 0, err
	}
	if i < -int64(size) || i >= int64(size) {
		return 0, syntaxErr(n.items[0].col, "index %d out of range for the tuple of %d %s gives", i, size, what)
	}
	return int(i), nil
}

// pair evaluates a call of a tuple-valued function.
func (ev *evaluator) pair(n *node) []trace.Value {
	b := ev.args(n)
	b.ev = ev
	return b.fn.tuple(b)
}

// args evaluates a call's array arguments into its bound values.
func (ev *evaluator) args(n *node) *bound {
	b := n.call
	b.vals = map[string]trace.Value{}
	for _, p := range b.fn.params {
		if a, ok := b.arrays[p.name]; ok {
			b.vals[p.name] = ev.eval(a)
		}
	}
	b.listVals = b.listVals[:0]
	for _, a := range b.list {
		b.listVals = append(b.listVals, ev.eval(a))
	}
	return b
}

// usesName reports whether expression n reads name (a lambda inside it
// that rebinds the name hides it).
func usesName(n *node, name string) bool {
	if n == nil {
		return false
	}
	switch {
	case n.kind == nName:
		return n.text == name
	case n.kind == nLambda && slices.Contains(n.names, name):
		return false
	}
	for _, k := range n.kids {
		if usesName(k, name) {
			return true
		}
	}
	for _, k := range n.items {
		if usesName(k, name) {
			return true
		}
	}
	for _, kw := range n.kws {
		if usesName(kw.val, name) {
			return true
		}
	}
	return false
}
