package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/trace"
)

// Subscripts and x.at[…] of the expression language, NumPy's and
// jax.numpy's: static ints (int expressions of literals), slices of static
// ints with any step, None, ..., True/False, lists of static ints or of
// bools ([0, 2], [True, False]) and array expressions of an integer dtype
// (advanced indexing, as trace.Value.Index). x.at[idx] has get (mode=,
// fill_value=), set, add, multiply, min and max (mode=).

// isIntExpr reports whether n is a static int: an int literal or an int
// expression of literals (staticInt folds it).
func isIntExpr(n *node) bool {
	switch n.kind {
	case nInt:
		return true
	case nUnary:
		return isIntExpr(n.kids[0])
	case nBinary:
		_, ok := intOps[n.text]
		return ok && isIntExpr(n.kids[0]) && isIntExpr(n.kids[1])
	}
	return false
}

// listKind says what a list item holds: "ints", "bools" or "" (neither).
func listKind(n *node) string {
	if n.kind != nTuple || len(n.kids) == 0 {
		return ""
	}
	ints, bools := true, true
	for _, k := range n.kids {
		ints, bools = ints && isIntExpr(k), bools && k.kind == nBool
	}
	switch {
	case ints:
		return "ints"
	case bools:
		return "bools"
	}
	return ""
}

// isArrayItem reports whether a subscript item is an array expression
// (traced), not a static item.
func isArrayItem(it *node) bool {
	switch it.kind {
	case nNone, nEllipsis, nSlice, nBool, nTuple:
		return false
	}
	return !isIntExpr(it)
}

// arrayItems are the array expressions among n's subscript items.
func arrayItems(n *node) []*node {
	var out []*node
	for _, it := range n.items {
		if isArrayItem(it) {
			out = append(out, it)
		}
	}
	return out
}

// subscript checks a subscript's items.
func (c *checker) subscript(n *node) error {
	ellipsis := false
	for _, it := range n.items {
		switch {
		case it.kind == nNone, it.kind == nBool:
		case it.kind == nEllipsis:
			if ellipsis {
				return syntaxErr(it.col, "an index can only have a single ellipsis (...)")
			}
			ellipsis = true
		case it.kind == nSlice:
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
		case it.kind == nTuple:
			if listKind(it) == "" {
				return syntaxErr(it.col, "an index list holds static ints ([0, 2]) or bools ([True, False]); pass an index array with --arg")
			}
			if _, err := staticInts(boolFree(it.kids)); err != nil {
				return err
			}
		case isIntExpr(it):
			if _, err := staticInt(it); err != nil {
				return err
			}
		default:
			if err := c.array(it); err != nil {
				return err
			}
		}
	}
	return nil
}

// boolFree drops bool literals (a mask list has nothing to fold).
func boolFree(ns []*node) []*node {
	var out []*node
	for _, n := range ns {
		if n.kind != nBool {
			out = append(out, n)
		}
	}
	return out
}

// modes are the mode= strings of x.at[…] and take, jax.numpy's.
var modes = map[string]trace.IndexMode{
	"promise_in_bounds": trace.ModePromiseInBounds, "clip": trace.ModeClip, "fill": trace.ModeFill, "drop": trace.ModeFill,
}

// at checks x.at[items].method(args).
func (c *checker) at(n *node) error {
	if err := c.array(n.kids[0]); err != nil {
		return err
	}
	if err := c.subscript(n); err != nil {
		return err
	}
	args := n.kids[1:]
	want := 1
	if n.text == "get" {
		want = 0
	}
	if len(args) != want {
		return syntaxErr(n.col, "x.at[…].%s takes %s, got %d", n.text, plural(want, "positional argument"), len(args))
	}
	for _, a := range args {
		if err := c.array(a); err != nil {
			return err
		}
	}
	for _, kw := range n.kws {
		switch {
		case kw.name == "mode":
			if _, err := modeOf(kw.val); err != nil {
				return err
			}
		case kw.name == "fill_value" && n.text == "get":
			if _, err := literalOf(kw.val); err != nil {
				return err
			}
		default:
			return syntaxErr(kw.col, "x.at[…].%s has no argument %q (mode=%s)", n.text, kw.name, map[bool]string{true: ", fill_value=", false: ""}[n.text == "get"])
		}
	}
	return nil
}

// modeOf reads a mode= string.
func modeOf(n *node) (trace.IndexMode, error) {
	if n.kind == nString {
		if m, ok := modes[n.text]; ok {
			return m, nil
		}
	}
	names := make([]string, 0, len(modes))
	for k := range modes {
		names = append(names, "'"+k+"'")
	}
	slices.Sort(names)
	return 0, syntaxErr(n.col, "mode must be one of %s, found %s", strings.Join(names, " "), describe(n))
}

// literalOf reads a static scalar (fill_value=): a number or a bool
// literal, weak as a Python scalar is.
func literalOf(n *node) (trace.Value, error) {
	switch n.kind {
	case nInt:
		v, err := intLiteral(n)
		return trace.Int(v), err
	case nFloat:
		f, err := floatLiteral(n)
		return trace.Float(f), err
	case nBool:
		return trace.Bool(n.text == "True"), nil
	case nName:
		if f, ok := constants[n.text]; ok {
			return trace.Float(f), nil
		}
	}
	return trace.Value{}, syntaxErr(n.col, "fill_value must be a number or bool literal, found %s", describe(n))
}

// items builds a subscript's items for trace.Value.Index and At.
func (ev *evaluator) items(n *node) []any {
	out := make([]any, len(n.items))
	for i, it := range n.items {
		switch {
		case it.kind == nNone:
			out[i] = trace.NewAxis
		case it.kind == nEllipsis:
			out[i] = trace.Ellipsis
		case it.kind == nBool:
			out[i] = it.text == "True"
		case it.kind == nSlice:
			var s trace.Span
			if it.kids[0] != nil {
				s.Start, _ = staticInt(it.kids[0])
				s.HasStart = true
			}
			if it.kids[1] != nil {
				s.Stop, _ = staticInt(it.kids[1])
				s.HasStop = true
			}
			if it.kids[2] != nil {
				s.Step, _ = staticInt(it.kids[2])
			}
			out[i] = s
		case it.kind == nTuple && listKind(it) == "bools":
			m := make([]bool, len(it.kids))
			for k, b := range it.kids {
				m[k] = b.text == "True"
			}
			out[i] = m
		case it.kind == nTuple:
			out[i], _ = staticInts(it.kids)
		case isIntExpr(it):
			out[i], _ = staticInt(it)
		default:
			out[i] = ev.eval(it)
		}
	}
	return out
}

// checkStatic reports, at their own columns, the errors of a subscript
// that need no tracing: too many indices and static ints out of bounds
// (NumPy's IndexError; JAX's jax_check_static_indices).
func (ev *evaluator) checkStatic(n *node, shape []int) bool {
	consumed := 0
	for _, it := range n.items {
		switch {
		case it.kind == nNone, it.kind == nEllipsis, it.kind == nBool:
		default:
			consumed++
		}
	}
	if consumed > len(shape) {
		ev.own = &trace.ShapeError{Op: "index", Pos: exprPos(n.col), Shapes: [][]int{shape},
			Msg: fmt.Sprintf("too many indices for an array of shape %s: %d given", shapeText(shape), consumed)}
		return false
	}
	src := 0 // the dim of shape an item indexes
	for _, it := range n.items {
		switch {
		case it.kind == nEllipsis:
			src += len(shape) - consumed
		case it.kind == nNone, it.kind == nBool:
		case isIntExpr(it):
			i, _ := staticInt(it)
			if size := shape[src]; i < -size || i >= size {
				ev.own = &trace.ShapeError{Op: "index", Pos: exprPos(it.col), Shapes: [][]int{shape},
					Msg: fmt.Sprintf("index %d is out of bounds for axis %d with size %d", i, src, size)}
				return false
			}
			src++
		default:
			src++
		}
	}
	return true
}

// index applies a subscript: trace.Value.Index.
func (ev *evaluator) index(n *node, v trace.Value) trace.Value {
	if ev.own != nil || v.Err() != nil || !ev.checkStatic(n, v.Shape()) {
		return v
	}
	items := ev.items(n)
	if ev.own != nil {
		return trace.Value{}
	}
	return v.Index(items...)
}

// at builds x.at[items].method(args).
func (ev *evaluator) at(n *node) trace.Value {
	x := ev.eval(n.kids[0])
	var opts []trace.IndexOption
	mode := trace.ModePromiseInBounds
	for _, kw := range n.kws {
		switch kw.name {
		case "mode":
			mode, _ = modeOf(kw.val)
			opts = append(opts, trace.WithMode(mode))
		case "fill_value":
			f, _ := literalOf(kw.val)
			opts = append(opts, trace.WithFill(f))
		}
	}
	if ev.own != nil || x.Err() != nil || mode == trace.ModePromiseInBounds && !ev.checkStatic(n, x.Shape()) {
		return x
	}
	ref := x.At(ev.items(n)...)
	if n.text == "get" {
		return ref.Get(opts...)
	}
	v := ev.eval(n.kids[1])
	if ev.own != nil {
		return trace.Value{}
	}
	switch n.text {
	case "set":
		return ref.Set(v, opts...)
	case "add":
		return ref.Add(v, opts...)
	case "multiply":
		return ref.Mul(v, opts...)
	case "min":
		return ref.Min(v, opts...)
	}
	return ref.Max(v, opts...)
}
