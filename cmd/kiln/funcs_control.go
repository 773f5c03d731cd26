package main

import (
	"maps"

	"github.com/kiln-go/kiln/trace"
)

// Control flow in the expression language: jax.lax's fori_loop,
// while_loop, cond, switch and scan with lambdas, traced once each as the
// library's ForiLoop, WhileLoop, Cond, Switch and Scan:
//
//	fori_loop(0, 10, lambda i, x: x * 2, 1.0)
//	while_loop(lambda x: x < 100, lambda x: x * 3, 1)
//	cond(x > 0, lambda x: x, lambda x: -x, x)
//	switch(i, (lambda: 1.0, lambda: 2.0))
//	scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]      // cumulative sum
//
// A carry is one array (JAX's tuples of carries are the library's); scan
// returns (carry, ys), which the expression indexes.
func init() {
	functions["fori_loop"] = &function{
		params:  []param{{"lower", kArray, ""}, {"upper", kArray, ""}, {"body_fun", kFunc, ""}, {"init_val", kArray, ""}},
		lambdas: map[string]lambdaSpec{"body_fun": {arity: 2}},
		summary: "lax.fori_loop: for i in [lower, upper): val = body_fun(i, val), traced once (not unrolled)",
		apply: func(a *bound) trace.Value {
			return trace.ForiLoop(a.x("lower"), a.x("upper"), func(i trace.Value, c []trace.Value) []trace.Value {
				return a.ev.callLambda(a.funcs["body_fun"], i, c[0])
			}, a.x("init_val"))[0]
		}}
	functions["while_loop"] = &function{
		params:  []param{{"cond_fun", kFunc, ""}, {"body_fun", kFunc, ""}, {"init_val", kArray, ""}},
		lambdas: map[string]lambdaSpec{"cond_fun": {arity: 1}, "body_fun": {arity: 1}},
		summary: "lax.while_loop: val = body_fun(val) while cond_fun(val) (a bool scalar)",
		apply: func(a *bound) trace.Value {
			return trace.WhileLoop(func(c []trace.Value) trace.Value { return a.ev.callLambda(a.funcs["cond_fun"], c[0])[0] },
				func(c []trace.Value) []trace.Value { return a.ev.callLambda(a.funcs["body_fun"], c[0]) }, a.x("init_val"))[0]
		}}
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
		params:  []param{{"f", kFunc, ""}, {"init", kArray, ""}, {"xs", kArray, ""}, {"reverse", kBool, "False"}},
		lambdas: map[string]lambdaSpec{"f": {arity: 2, pair: true}},
		summary: "lax.scan: (carry, y) = f(carry, x) over xs' leading axis; returns (carry, ys): index it, scan(…)[1]",
		tuple: func(a *bound) []trace.Value {
			c, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
				out := a.ev.callLambda(a.funcs["f"], c[0], x[0])
				if len(out) != 2 {
					return out, nil
				}
				return out[:1], out[1:]
			}, []trace.Value{a.x("init")}, []trace.Value{a.x("xs")}, trace.ScanOptions{Reverse: a.flags["reverse"]})
			return append(c, ys...)
		}}
}

// lambda is the kFunc parameter name as a function of the operands.
func (a *bound) lambda(name string) func([]trace.Value) []trace.Value {
	return a.lambdaOf(a.funcs[name])
}

func (a *bound) lambdaOf(n *node) func([]trace.Value) []trace.Value {
	return func(xs []trace.Value) []trace.Value { return a.ev.callLambda(n, xs...) }
}

// bindLambdas checks a kFunc or kFuncs argument: lambdas of the right
// arity whose bodies are array expressions (a pair for scan's function)
// over the names in scope and their parameters.
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
	for _, l := range lams {
		if l.kind != nLambda {
			return syntaxErr(l.col, "%s: %s must be a lambda, found %s", b.name, p.name, describe(l))
		}
		if len(l.names) != arity {
			return syntaxErr(l.col, "%s: %s takes %s, the lambda has %d", b.name, p.name, plural(arity, "argument"), len(l.names))
		}
		inner := &checker{names: maps.Clone(c.names)}
		for _, name := range l.names {
			inner.names[name] = true
		}
		body := l.kids[0]
		switch {
		case spec.pair && (body.kind != nTuple || len(body.kids) != 2):
			return syntaxErr(body.col, "%s: %s must return a pair (carry, y)", b.name, p.name)
		case spec.pair:
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
	saved := map[string]trace.Value{}
	had := map[string]bool{}
	for i, name := range l.names {
		saved[name], had[name] = ev.vals[name]
		if i < len(args) {
			ev.vals[name] = args[i]
		}
	}
	defer func() {
		for _, name := range l.names {
			if had[name] {
				ev.vals[name] = saved[name]
			} else {
				delete(ev.vals, name)
			}
		}
	}()
	body := l.kids[0]
	if body.kind == nTuple {
		out := make([]trace.Value, len(body.kids))
		for i, k := range body.kids {
			out[i] = ev.eval(k)
		}
		return out
	}
	return []trace.Value{ev.eval(body)}
}

// pairItem checks scan(…)[i]: the call, and one int index 0 or 1 (or −1,
// −2), as a tuple is indexed in Python.
func (c *checker) pairItem(n *node) error {
	call := n.kids[0]
	fn := functions[call.text]
	b, err := c.bind(fn, call)
	if err != nil {
		return err
	}
	call.call = b
	if len(n.items) != 1 || n.items[0].kind != nInt {
		return syntaxErr(n.col, "%s returns a pair (carry, ys): index it with 0 or 1", call.text)
	}
	i, err := intLiteral(n.items[0])
	if err != nil {
		return err
	}
	if i < -2 || i > 1 {
		return syntaxErr(n.items[0].col, "index %d out of range for the pair %s returns", i, call.text)
	}
	return nil
}

// pair evaluates a call of a pair-valued function (scan).
func (ev *evaluator) pair(n *node) []trace.Value {
	b := n.call
	b.vals = map[string]trace.Value{}
	for _, p := range b.fn.params {
		if a, ok := b.arrays[p.name]; ok {
			b.vals[p.name] = ev.eval(a)
		}
	}
	b.ev = ev
	return b.fn.tuple(b)
}
