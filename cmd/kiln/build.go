package main

import (
	"errors"
	"fmt"
	"math"
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
	names map[string]bool
}

// array checks that n is an array expression.
func (c *checker) array(n *node) error {
	switch n.kind {
	case nName:
		if c.names[n.text] {
			return nil
		}
		if _, ok := constants[n.text]; ok {
			return nil
		}
		if _, ok := functions[n.text]; ok {
			return syntaxErr(n.col, "%s is a function; call it: %s", n.text, functions[n.text].signature(n.text))
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
		fn, ok := functions[n.text]
		if !ok {
			return syntaxErr(n.col, "unknown function %q; functions: %s", n.text, strings.Join(functionNames(), " "))
		}
		b, err := c.bind(fn, n)
		if err != nil {
			return err
		}
		n.call = b
		return nil
	case nSubscript:
		if err := c.array(n.kids[0]); err != nil {
			return err
		}
		return c.subscript(n)
	case nTuple:
		return syntaxErr(n.col, "a tuple or list is not an array (tuples are for shapes, axes and concatenate); pass arrays with --arg")
	}
	return syntaxErr(n.col, "%s is not an array", describe(n))
}

// subscript checks a subscript's items: static ints, slices of static
// ints, None (a new axis) and at most one ellipsis.
func (c *checker) subscript(n *node) error {
	ellipsis := false
	for _, it := range n.items {
		switch it.kind {
		case nInt:
			if _, err := staticInt(it); err != nil {
				return err
			}
		case nNone:
		case nEllipsis:
			if ellipsis {
				return syntaxErr(it.col, "an index can only have a single ellipsis (...)")
			}
			ellipsis = true
		case nSlice:
			for k, part := range it.kids {
				if part == nil {
					continue
				}
				v, err := staticInt(part)
				if err != nil {
					return err
				}
				if k == 2 && v == 0 {
					return syntaxErr(part.col, "slice step cannot be zero")
				}
			}
		default:
			return syntaxErr(it.col, "only int literals, slices (a:b:c), None and ... can index (no array indexing), found %s", describe(it))
		}
	}
	return nil
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
	root  *node
	names []string // the --arg names, in the jitted function's argument order
	vals  map[string]trace.Value
	first *node // the first node whose result carried the trace's error
	own   error // an error found by the evaluator itself (an index out of range)
}

// fn is the function kiln.Jit traces.
func (ev *evaluator) fn(args []trace.Value) []trace.Value {
	ev.vals, ev.first, ev.own = map[string]trace.Value{}, nil, nil
	for i, name := range ev.names {
		ev.vals[name] = args[i]
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
	v := ev.build(n)
	if ev.first == nil && ev.own == nil && v.Err() != nil {
		ev.first = n
	}
	return v
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
		if ev.own != nil {
			return trace.Value{}
		}
		return b.fn.apply(b)
	case nSubscript:
		return ev.index(n, ev.eval(n.kids[0]))
	}
	return trace.Value{}
}

// index applies a subscript: slices map onto Value.Slice, an int onto a
// one-element slice and Squeeze, None onto ExpandDims, ... onto the axes it
// stands for.
func (ev *evaluator) index(n *node, v trace.Value) trace.Value {
	if ev.own != nil || v.Err() != nil {
		return v
	}
	shape := v.Shape()
	consumed := 0
	for _, it := range n.items {
		if it.kind == nInt || it.kind == nSlice {
			consumed++
		}
	}
	if consumed > len(shape) {
		ev.own = &trace.ShapeError{Op: "index", Pos: exprPos(n.col), Shapes: [][]int{shape},
			Msg: fmt.Sprintf("too many indices for an array of shape %s: %d given", shapeText(shape), consumed)}
		return trace.Value{}
	}
	axis, src := 0, 0 // the axis of v being indexed, and of the original shape
	for _, it := range n.items {
		switch it.kind {
		case nEllipsis:
			skip := len(shape) - consumed
			axis, src = axis+skip, src+skip
		case nNone:
			v = v.ExpandDims(axis)
			axis++
		case nInt:
			i, _ := staticInt(it)
			size := shape[src]
			if i < -size || i >= size {
				ev.own = &trace.ShapeError{Op: "index", Pos: exprPos(it.col), Shapes: [][]int{shape},
					Msg: fmt.Sprintf("index %d is out of bounds for axis %d with size %d", i, src, size)}
				return trace.Value{}
			}
			if i < 0 {
				i += size
			}
			v = v.Slice(axis, i, i+1, 1).Squeeze(axis)
			src++
		case nSlice:
			start, stop, step := 0, math.MaxInt, 1
			if it.kids[2] != nil {
				step, _ = staticInt(it.kids[2])
			}
			if step < 0 {
				start, stop = math.MaxInt, math.MinInt // the trace reports that only positive steps exist
			}
			if it.kids[0] != nil {
				start, _ = staticInt(it.kids[0])
			}
			if it.kids[1] != nil {
				stop, _ = staticInt(it.kids[1])
			}
			v = v.Slice(axis, start, stop, step)
			axis, src = axis+1, src+1
		}
	}
	return v
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
	case nUnary, nBinary, nSubscript:
		return n.kids
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
	n := ev.first
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
	relocate(err, exprPos(n.col))
	return err
}

// errKey identifies an error without its position.
func errKey(err error) string {
	var se *trace.ShapeError
	var de *trace.DTypeError
	var oe *trace.OpError
	var pe *kilnpkg.PolicyError
	switch {
	case err == nil:
		return ""
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
	switch {
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
