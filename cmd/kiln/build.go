package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/trace"
)

// constants are the names an expression may use besides its --arg names
// (which shadow them). They are weak float literals, as jnp.inf is a
// Python float.
var constants = map[string]float64{"inf": math.Inf(1), "nan": math.NaN(), "pi": math.Pi}

// checker validates an expression before it is traced: every name is an
// argument or a constant, every call names a function with arguments it
// takes, and every static argument (axes, shapes, dtypes, indices) is a
// literal. It binds each call's arguments on its node.
type checker struct {
	names  map[string]bool
	tuples map[string]int // a lambda's tuple parameters (a loop's carries) and their lengths
}

// array checks that n is an array expression.
func (c *checker) array(n *node) error {
	switch n.kind {
	case nName:
		if k := c.tuples[n.text]; k > 0 {
			return syntaxErr(n.col, "%s is a tuple of %d carries: index it, %s[0]", n.text, k, n.text)
		}
		if c.names[n.text] {
			return nil
		}
		if _, ok := constants[n.text]; ok {
			return nil
		}
		if _, ok := functions[n.text]; ok {
			return syntaxErr(n.col, "%s is a function; call it: %s", n.text, functions[n.text].signature(n.text))
		}
		if tr, ok := transforms[n.text]; ok {
			return syntaxErr(n.col, "%s is a transformation; call it on a function and apply the result: %s(…)", n.text, (&function{params: tr.params}).signature(n.text))
		}
		args := make([]string, 0, len(c.names))
		for a := range c.names {
			args = append(args, a)
		}
		sort.Strings(args)
		have := "no --arg was given"
		if len(args) > 0 {
			have = "arguments: " + strings.Join(args, ", ")
		}
		return &exprError{Kind: "argument", Col: n.col, Msg: fmt.Sprintf("unknown name %q (%s; constants: inf, nan, pi); define it with --arg %s=DTYPE[SHAPE]:VALUES", n.text, have, n.text)}
	case nInt:
		_, err := intLiteral(n)
		return err
	case nFloat, nImag:
		_, err := floatLiteral(n)
		return err
	case nBool:
		return nil
	case nUnary:
		return c.array(n.kids[0])
	case nBinary:
		if err := c.array(n.kids[0]); err != nil {
			return err
		}
		return c.array(n.kids[1])
	case nCall:
		if transforms[n.text] != nil {
			return syntaxErr(n.col, "%s(…) returns a function: apply it to arrays, %s(f)(x)", n.text, n.text)
		}
		fn, ok := functions[n.text]
		if !ok {
			return syntaxErr(n.col, "unknown function %q; functions: %s; transformations: %s", n.text, strings.Join(functionNames(), " "), strings.Join(transformNames(), " "))
		}
		b, err := c.bind(fn, n)
		if err != nil {
			return err
		}
		n.call = b
		if b.tupleValued() {
			return syntaxErr(n.col, "%s returns a tuple: index it, %s(…)[0]", n.text, n.text)
		}
		return nil
	case nApply:
		return c.appliedArray(n)
	case nSubscript:
		if isApplied(n.kids[0]) {
			return c.appliedArray(n)
		}
		if k := n.kids[0]; k.kind == nCall && functions[k.text] != nil && functions[k.text].tuple != nil {
			if ok, err := c.pairItem(n); ok || err != nil {
				return err
			}
		}
		if k := n.kids[0]; k.kind == nName && c.tuples[k.text] > 0 {
			_, err := tupleIndex(n, c.tuples[k.text], k.text)
			return err
		}
		if err := c.array(n.kids[0]); err != nil {
			return err
		}
		return c.subscript(n)
	case nLambda:
		return syntaxErr(n.col, "a lambda is not an array (lambdas are arguments of fori_loop, while_loop, cond, switch, scan and the transformations, or applied: (lambda x: x + 1)(y))")
	case nAt:
		return c.at(n)
	case nString:
		return syntaxErr(n.col, "a string is not an array (strings are for mode='clip' and the like)")
	case nTuple:
		return syntaxErr(n.col, "a tuple or list is not an array (tuples are for shapes, axes and concatenate); pass arrays with --arg")
	}
	return syntaxErr(n.col, "%s is not an array", describe(n))
}

// intLiteral is an int literal's value; it must fit int64, the width of a
// weak int literal.
func intLiteral(n *node) (int64, error) {
	text := n.text
	if len(text) > 1 && text[0] == '0' && text[1] >= '0' && text[1] <= '9' {
		return 0, syntaxErr(n.col, "leading zeros in a decimal int literal are not permitted (use 0o for octal)")
	}
	mag, err := strconv.ParseUint(text, 0, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange), err == nil && (n.neg && mag > 1<<63 || !n.neg && mag > math.MaxInt64):
		sign := ""
		if n.neg {
			sign = "-"
		}
		return 0, &exprError{Kind: "overflow", Col: n.col, Msg: fmt.Sprintf("int literal %s%s does not fit in int64, the width of a weak int literal", sign, text)}
	case err != nil:
		return 0, syntaxErr(n.col, "invalid int literal %q", text)
	case n.neg:
		return -int64(mag), nil // −2⁶³ wraps to itself, as wanted
	}
	return int64(mag), nil
}

// floatLiteral is a float or imaginary literal's magnitude, negated when a
// minus sign was folded in. A literal too large for float64 is ±inf, as in
// Python.
func floatLiteral(n *node) (float64, error) {
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, syntaxErr(n.col, "invalid number literal %q", n.text)
	}
	if n.neg {
		f = -f
	}
	return f, nil
}

// exprPos is the position of a column of the one-line expression, printed
// as compilers print positions: "<expr>:1:5".
func exprPos(col int) trace.Pos { return trace.Pos{File: "<expr>", Line: 1, Col: col} }

// evaluator builds an expression into trace ops over the traced arguments.
// After each node it checks the trace's error, so the first failure can be
// pointed at in the expression rather than at a line of this file.
type evaluator struct {
	root   *node
	names  []string // the --arg names, in the jitted function's argument order
	vals   map[string]trace.Value
	tuples map[string][]trace.Value // a lambda's tuple parameters (a loop's carries)
	// firsts is the first node whose result carried each error (by
	// errKey): the final error's is where it arose. A probe's error (a
	// control-flow op or transformation of free operands is traced once in
	// a scratch trace first) is not the trace's, so it does not count.
	firsts map[string]*node
	own    error // an error found by the evaluator itself (an index out of range)
	// scope is a value of the trace the expression builds into now (an
	// argument, or a lambda's parameter): every node's equations get the
	// node's column as their position there (trace.WithPos).
	scope trace.Value
}

// fn is the function kiln.Jit traces.
func (ev *evaluator) fn(args []trace.Value) []trace.Value {
	ev.vals, ev.tuples, ev.firsts, ev.own = map[string]trace.Value{}, map[string][]trace.Value{}, map[string]*node{}, nil
	for i, name := range ev.names {
		ev.vals[name] = args[i]
	}
	ev.scope = trace.Value{}
	if len(args) > 0 {
		ev.scope = args[0]
	}
	v := ev.eval(ev.root)
	if ev.own != nil {
		return nil // Trace fails; the caller reports ev.own instead
	}
	return []trace.Value{v}
}

func (ev *evaluator) eval(n *node) trace.Value {
	if ev.own != nil {
		return trace.Value{}
	}
	v := trace.WithPos(ev.scope, exprPos(n.col), func() trace.Value { return ev.build(n) })
	ev.noteErr(n, v)
	return v
}

// noteErr records n as the first node whose result carried v's error, if
// it is the first.
func (ev *evaluator) noteErr(n *node, v trace.Value) {
	if err := v.Err(); err != nil && ev.own == nil {
		if k := errKey(err); ev.firsts[k] == nil {
			ev.firsts[k] = n
		}
	}
}

var binaryOps = map[string]func(x, y trace.Value) trace.Value{
	"+": trace.Value.Add, "-": trace.Value.Sub, "*": trace.Value.Mul, "/": trace.Value.Div,
	"//": trace.Value.FloorDiv, "%": trace.Value.Rem, "**": trace.Value.Pow, "@": trace.Value.MatMul,
	"&": trace.Value.And, "|": trace.Value.Or, "^": trace.Value.Xor, "<<": trace.Value.Shl, ">>": trace.Value.Shr,
	"==": trace.Value.Eq, "!=": trace.Value.Ne, "<": trace.Value.Lt, "<=": trace.Value.Le,
	">": trace.Value.Gt, ">=": trace.Value.Ge,
}

// build makes one node's value. Literals are weak (kiln.Int, Float,
// Complex; Bool is strong), so x ** 2 is integer_pow.
func (ev *evaluator) build(n *node) trace.Value {
	switch n.kind {
	case nName:
		if v, ok := ev.vals[n.text]; ok {
			return v
		}
		return trace.Float(constants[n.text])
	case nInt:
		v, _ := intLiteral(n)
		return trace.Int(v)
	case nFloat:
		f, _ := floatLiteral(n)
		return trace.Float(f)
	case nImag:
		f, _ := floatLiteral(n)
		c := complex(0, math.Abs(f))
		if n.neg {
			c = -c // −2j is (−0 − 2j), as in Python
		}
		return trace.Complex(c)
	case nBool:
		return trace.Bool(n.text == "True")
	case nUnary:
		x := ev.eval(n.kids[0])
		switch n.text {
		case "-":
			return x.Neg()
		case "~":
			return x.Not()
		}
		return x
	case nBinary:
		x, y := ev.eval(n.kids[0]), ev.eval(n.kids[1])
		return binaryOps[n.text](x, y)
	case nCall:
		b := ev.args(n)
		if ev.own != nil {
			return trace.Value{}
		}
		b.ev = ev
		return b.fn.apply(b)
	case nApply:
		return ev.values(n)[0]
	case nSubscript:
		if treeOf(n.kids[0]).isTuple() {
			return ev.values(n)[0]
		}
		var vs []trace.Value
		switch k := n.kids[0]; {
		case k.kind == nCall && k.call.tupleValued():
			vs = ev.pair(k)
		case k.kind == nName && ev.tuples[k.text] != nil:
			vs = ev.tuples[k.text]
		}
		if vs != nil {
			i, _ := intLiteral(n.items[0])
			if i < 0 {
				i += int64(len(vs))
			}
			if i < 0 || int(i) >= len(vs) {
				return trace.Value{}
			}
			return vs[i]
		}
		return ev.index(n, ev.eval(n.kids[0]))
	case nAt:
		return ev.at(n)
	}
	return trace.Value{}
}

func shapeText(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// children are the array operands of a node, in evaluation order.
func children(n *node) []*node {
	switch n.kind {
	case nUnary, nBinary:
		return n.kids
	case nApply:
		return n.kids[1:]
	case nSubscript, nAt:
		return append(slices.Clone(n.kids), arrayItems(n)...)
	case nCall:
		var out []*node
		for _, p := range n.call.fn.params {
			if a, ok := n.call.arrays[p.name]; ok {
				out = append(out, a)
			}
		}
		return append(out, n.call.list...)
	}
	return nil
}

// session is one kiln eval run: the options and the converted arguments,
// shared by the main trace and by the sub-traces that locate an error.
type session struct {
	opts   []kilnpkg.Option
	names  []string
	inputs []any
}

// jit makes the jitted function of the expression rooted at root.
func (s *session) jit(root *node) (*kilnpkg.Func, *evaluator) {
	ev := &evaluator{root: root, names: s.names}
	return kilnpkg.Jit(ev.fn, s.opts...), ev
}

// traceErr traces the subexpression n alone and returns its error.
func (s *session) traceErr(n *node) error {
	f, ev := s.jit(n)
	_, err := f.Trace(s.inputs...)
	if ev.own != nil {
		return ev.own
	}
	return err
}

// explain turns the error of tracing the whole expression into one that
// points at the expression: the evaluator's own error as it is, a trace or
// policy error with its position rewritten to the column of the node that
// caused it. Free subexpressions (literals only) are traced lazily, so a
// failure inside one, or a policy error (found after tracing), is located
// by tracing subexpressions alone until the smallest one that fails the
// same way.
func (s *session) explain(ev *evaluator, err error) error {
	if ev.own != nil {
		return ev.own
	}
	n := ev.firsts[errKey(err)]
	if n == nil {
		n = ev.root
	}
	key := errKey(err)
	for {
		next := (*node)(nil)
		for _, k := range children(n) {
			if errKey(s.traceErr(k)) == key {
				next = k
				break
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	// f(…)[i] of a tuple-valued call (scan, a loop over a tuple) fails in
	// the call: point at its name, not at the subscript's '['.
	if n.kind == nSubscript && n.kids[0].kind == nCall && n.kids[0].call != nil && n.kids[0].call.tupleValued() {
		n = n.kids[0]
	}
	for n.kind == nSubscript && isApplied(n.kids[0]) && treeOf(n.kids[0]).isTuple() {
		n = n.kids[0] // f(x)[i] of a function returning a tuple fails in the application
	}
	var ve *trace.VmapError
	if errors.As(err, &ve) && ve.Rule != trace.OpInvalid {
		// An op vmap cannot batch: its equation's position, when it came
		// from the expression (trace.WithPos), else the call making it.
		if ve.Pos.File == "<expr>" {
			return err
		}
		if op := opNode(n, ve.Rule.String()); op != nil {
			n = op
		}
	}
	relocate(err, exprPos(n.col))
	return err
}

// errKey identifies an error without its position.
func errKey(err error) string {
	var se *trace.ShapeError
	var de *trace.DTypeError
	var oe *trace.OpError
	var pe *kilnpkg.PolicyError
	var ce *trace.ControlError
	var be *kilnpkg.BudgetError
	var dv *trace.DerivError
	var ve *trace.VmapError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ve):
		return "vmap|" + ve.Rule.String() + "|" + ve.Msg
	case errors.As(err, &ce):
		return "control|" + ce.Op + "|" + ce.Msg
	case errors.As(err, &be):
		return "budget|" + be.Op + "|" + be.Msg
	case errors.As(err, &dv):
		return "derivative|" + dv.Op + "|" + dv.Msg
	case errors.As(err, &se):
		return "shape|" + se.Op + "|" + se.Msg
	case errors.As(err, &de):
		return "dtype|" + de.Op + "|" + de.Msg
	case errors.As(err, &oe):
		return "op|" + oe.Op + "|" + oe.Err.Error()
	case errors.As(err, &pe):
		w := pe.Widening
		return "policy|" + w.From.String() + "|" + w.To.String() + "|" + w.Why
	}
	return err.Error()
}

// relocate sets the position of a trace or policy error.
func relocate(err error, pos trace.Pos) {
	var se *trace.ShapeError
	var de *trace.DTypeError
	var oe *trace.OpError
	var pe *kilnpkg.PolicyError
	var ce *trace.ControlError
	var be *kilnpkg.BudgetError
	var dv *trace.DerivError
	var ve *trace.VmapError
	switch {
	case errors.As(err, &ve):
		ve.Pos = pos
	case errors.As(err, &ce):
		ce.Pos = pos
	case errors.As(err, &be):
		be.Pos = pos
	case errors.As(err, &dv):
		dv.Pos = pos
	case errors.As(err, &se):
		se.Pos = pos
	case errors.As(err, &de):
		de.Pos = pos
	case errors.As(err, &oe):
		oe.Pos = pos
	case errors.As(err, &pe):
		pe.Widening.Pos = pos
	}
}
