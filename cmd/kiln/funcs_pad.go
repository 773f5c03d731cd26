package main

import (
	"fmt"

	"github.com/kiln-go/kiln/trace"
)

// jnp.pad's arguments. pad_width and constant_values take every form
// jnp.pad takes, broadcast to a (before, after) pair per axis as
// jnp.pad's _broadcast_to_pairs does: n or (n,) for every side of every
// axis, (before, after) for every axis, ((before, after),) likewise, and
// ((b0, a0), (b1, a1), …) one pair per axis. A pad_width is static ints;
// a constant value is any array expression (a scalar). Per-axis constant
// values are applied as jnp.pad applies them — axis by axis, before then
// after — so a corner takes the value of the last axis padded there.

var padModes = map[string]trace.PadMode{"constant": trace.PadConstant, "edge": trace.PadEdge, "reflect": trace.PadReflect, "symmetric": trace.PadSymmetric, "wrap": trace.PadWrap}

// bindPad checks a kPadWidth or kPadVals argument: a leaf (an int
// literal for pad_width, an array for constant_values), a tuple of leaves,
// or a tuple of equally long tuples of leaves.
func (c *checker) bindPad(b *bound, p param, arg *node) error {
	leaf := func(n *node) error {
		if p.kind == kPadVals {
			b.list = append(b.list, n)
			return c.array(n)
		}
		v, err := staticInt(n)
		b.ints[p.name] = append(b.ints[p.name], v)
		return err
	}
	if arg.kind != nTuple {
		if p.kind == kPadVals {
			b.arrays[p.name] = arg
			return c.array(arg)
		}
		return leaf(arg)
	}
	shape := []int{len(arg.kids)}
	for i, k := range arg.kids {
		if k.kind != nTuple {
			if len(shape) == 2 {
				return syntaxErr(k.col, "%s: %s entries must be the same shape: all ints or all (before, after) tuples", b.name, p.name)
			}
			if err := leaf(k); err != nil {
				return err
			}
			continue
		}
		switch {
		case i > 0 && len(shape) == 1:
			return syntaxErr(k.col, "%s: %s entries must be the same shape: all ints or all (before, after) tuples", b.name, p.name)
		case i == 0:
			shape = append(shape, len(k.kids))
		case len(k.kids) != shape[1]:
			return syntaxErr(k.col, "%s: %s entries must be the same shape: (%d items, then %d)", b.name, p.name, shape[1], len(k.kids))
		}
		for _, kk := range k.kids {
			if kk.kind == nTuple {
				return syntaxErr(kk.col, "%s: %s nests at most two tuples deep, as ((before, after), …)", b.name, p.name)
			}
			if err := leaf(kk); err != nil {
				return err
			}
		}
	}
	if b.nested == nil {
		b.nested = map[string][]int{}
	}
	b.nested[p.name] = shape
	return nil
}

// padPairs broadcasts a pad argument of the given nesting shape to one
// (before, after) pair of leaf indices per axis of a rank-nd array, or
// explains why it cannot (jnp.pad's message).
func padPairs(name string, shape []int, nd int) ([][2]int, error) {
	pairs := make([][2]int, nd)
	for i := range pairs {
		switch {
		case len(shape) == 2 && shape[0] == nd && shape[1] == 2:
			pairs[i] = [2]int{2 * i, 2*i + 1}
		case len(shape) == 2 && shape[0] == 1 && shape[1] == 2, len(shape) == 1 && shape[0] == 2:
			pairs[i] = [2]int{0, 1}
		case len(shape) == 1 && shape[0] == 1, len(shape) == 0:
			pairs[i] = [2]int{0, 0}
		default:
			return nil, fmt.Errorf("%s with nd=%d has unsupported shape (%s). Valid shapes are (%d, 2), (1, 2), (2,), (1,), or ()", name, nd, joinShape(shape), nd)
		}
	}
	return pairs, nil
}

func joinShape(s []int) string {
	if len(s) == 1 {
		return fmt.Sprintf("%d,", s[0])
	}
	out := ""
	for i, d := range s {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprint(d)
	}
	return out
}

func pad(a *bound) trace.Value {
	x := a.x("array")
	fail := func(format string, args ...any) trace.Value {
		return trace.Failure(&trace.ShapeError{Op: "pad", Pos: trace.CallerPos(), Shapes: [][]int{x.Shape()}, Msg: fmt.Sprintf(format, args...)})
	}
	mode := trace.PadConstant
	if s, ok := a.strs["mode"]; ok {
		m, known := padModes[s]
		if !known {
			return fail("unknown mode '%s' (constant, edge, reflect, symmetric, wrap)", s)
		}
		mode = m
	}
	_, scalar := a.arrays["constant_values"]
	perAxis := a.nested["constant_values"] != nil
	if mode != trace.PadConstant && (scalar || perAxis) {
		return fail("unsupported keyword arguments for mode '%s': constant_values", a.strs["mode"])
	}
	nd := len(x.Shape())
	wi, err := padPairs("pad_width", a.nested["pad_width"], nd)
	if err != nil {
		return fail("%v", err)
	}
	w := a.ints["pad_width"]
	widths := make([][2]int, nd)
	for i, p := range wi {
		widths[i] = [2]int{w[p[0]], w[p[1]]}
	}
	if !perAxis {
		return trace.Pad(x, widths, mode, a.vals["constant_values"])
	}
	vi, err := padPairs("constant_values", a.nested["constant_values"], nd)
	if err != nil {
		return fail("%v", err)
	}
	for ax := range nd {
		for side := range 2 {
			if widths[ax][side] == 0 {
				continue
			}
			one := make([][2]int, nd)
			one[ax][side] = widths[ax][side]
			x = trace.Pad(x, one, trace.PadConstant, a.listVals[vi[ax][side]])
		}
	}
	return x
}
