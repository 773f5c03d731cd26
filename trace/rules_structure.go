package trace

import (
	"slices"
	"sort"
)

// Transpose rules of the structural ops and reduce_sum (the table is
// rules.go). They are written with the builder's own ops, which have
// rules of their own, so derivatives of derivatives need nothing more.

func inversePerm(p []int) []int {
	inv := make([]int, len(p))
	for i, a := range p {
		inv[a] = i
	}
	return inv
}

// argsort returns the permutation that sorts xs.
func argsort(xs []int) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	return idx
}

// transposeBroadcast sums the cotangent over the result dims the broadcast
// made (new ones, and operand dims of size 1 stretched), then lays the
// remaining dims out as the operand's.
func transposeBroadcast(c *Call, ct Value) []Value {
	in, out, dims := c.Eqn.Args[0], c.Eqn.Out, c.Eqn.Params.Dims
	kept := map[int]bool{}
	var order []int // result dims kept, by operand dim
	for i, d := range dims {
		if in.Shape[i] == out.Shape[d] {
			kept[d] = true
			order = append(order, d)
		}
	}
	var axes []int
	for d := range out.Shape {
		if !kept[d] {
			axes = append(axes, d)
		}
	}
	x := ct
	if len(axes) > 0 {
		x = Reduce(OpReduceSum, x, axes, false)
	}
	if len(order) > 1 {
		// The remaining dims are in result order; the operand may have
		// them in another.
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		perm := make([]int, len(order))
		for i, d := range order {
			perm[i] = slices.Index(sorted, d)
		}
		x = x.Transpose(perm...)
	}
	return []Value{x.Reshape(in.Shape...)}
}

// transposeReduceSum broadcasts the cotangent back over the summed axes.
func transposeReduceSum(c *Call, ct Value) []Value {
	in := c.Eqn.Args[0]
	keep := slices.Clone(in.Shape)
	for _, a := range c.Eqn.Params.Axes {
		keep[a] = 1
	}
	return []Value{ct.Reshape(keep...).BroadcastTo(in.Shape...)}
}

// transposeConcat slices each linear operand's part out of the cotangent.
func transposeConcat(c *Call, ct Value) []Value {
	out := make([]Value, len(c.Eqn.Args))
	ax, off := c.Eqn.Params.Axis, 0
	for i, a := range c.Eqn.Args {
		n := a.Shape[ax]
		if c.Linear[i] {
			out[i] = ct.Slice(ax, off, off+n, 1)
		}
		off += n
	}
	return out
}

// transposeSlice puts the cotangent back where the slice took it from,
// zeros elsewhere (XLA pads, interior padding for strides).
func transposeSlice(c *Call, ct Value) []Value {
	in, p := c.Eqn.Args[0], c.Eqn.Params
	if x, ok := unsliceStrided(ct, in.Shape, p.Start, p.Stride); ok {
		return []Value{x}
	}
	x := ct
	for ax := range in.Shape {
		x = unsliceAxis(x, ax, in.Shape[ax], p.Start[ax], p.Stride[ax])
	}
	return []Value{x}
}

// unsliceStrided is transposeSlice for a slice strided on some axis,
// every axis at once: x's shape [.., m, ..] with an inserted unit axis
// after each strided axis ([.., m, 1, ..]) is padded with zeros to
// [.., L, s, ..] (L = ⌈n/s⌉; element j at (q+j, r) for start q·s+r) and
// on the unstrided axes to their full length, by concatenates only; then
// one reshape merges [L, s] to L·s and a slice cuts it to n. The
// concatenates form one loop fusion and the slice fuses into the
// cotangent's reader, where unsliceAxis's interleave-reshape-pad per axis
// took three kernels (a max_pool's gradient: one per window position and
// axis). The elements are the same: x's, at the same places, and zeros.
// It declines (ok false) when no axis is strided or some axis is empty.
func unsliceStrided(x Value, shape, start, stride []int) (Value, bool) {
	xs := x.Shape()
	strided := false
	for ax := range shape {
		if xs[ax] == 0 || shape[ax] == 0 {
			return Value{}, false
		}
		strided = strided || stride[ax] > 1 && xs[ax] != shape[ax]
	}
	if !strided {
		return Value{}, false
	}
	// pos[ax] is ax's position in the expanded shape.
	var expanded []int
	pos := make([]int, len(shape))
	for ax, m := range xs {
		pos[ax] = len(expanded)
		expanded = append(expanded, m)
		if stride[ax] > 1 && m != shape[ax] {
			expanded = append(expanded, 1)
		}
	}
	zeros := func(cur []int, ax, k int) Value {
		sh := slices.Clone(cur)
		sh[ax] = k
		return zerosOf(x.b, x.Type(), sh)
	}
	pad := func(v Value, ax, before, after int) Value {
		parts := []Value{}
		if before > 0 {
			parts = append(parts, zeros(v.Shape(), ax, before))
		}
		parts = append(parts, v)
		if after > 0 {
			parts = append(parts, zeros(v.Shape(), ax, after))
		}
		if len(parts) == 1 {
			return v
		}
		return Concatenate(ax, parts...)
	}
	v := x.Reshape(expanded...)
	merged := slices.Clone(shape)
	for ax, m := range xs {
		n, lo, s := shape[ax], start[ax], stride[ax]
		if m == n {
			continue
		}
		if s <= 1 {
			v = pad(v, pos[ax], lo, n-lo-m)
			continue
		}
		l, q, r := (n+s-1)/s, lo/s, lo%s
		v = pad(v, pos[ax], q, l-q-m)
		v = pad(v, pos[ax]+1, r, s-1-r)
		merged[ax] = l * s
	}
	v = v.Reshape(merged...)
	for ax := range shape {
		if merged[ax] != shape[ax] {
			v = v.Slice(ax, 0, shape[ax], 1)
		}
	}
	return v, true
}

// unsliceAxis widens x along ax to n elements: x's elements go to lo,
// lo+s, lo+2s, …; zeros fill the rest.
func unsliceAxis(x Value, ax, n, lo, s int) Value {
	shape := x.Shape()
	m := shape[ax]
	if m == n {
		return x
	}
	zeros := func(k int) Value {
		sh := slices.Clone(x.Shape())
		sh[ax] = k
		return zerosOf(x.b, x.Type(), sh)
	}
	if m == 0 {
		return zeros(n)
	}
	if s > 1 {
		// Interleave s−1 zeros after each element: [.., m, ..] becomes
		// [.., m, s, ..], then [.., m·s, ..], cut after the last element.
		gap := slices.Clone(shape)
		gap = slices.Insert(gap, ax+1, s-1)
		e := Concatenate(ax+1, x.ExpandDims(ax+1), zerosOf(x.b, x.Type(), gap))
		flat := slices.Clone(shape)
		flat[ax] = m * s
		x = e.Reshape(flat...).Slice(ax, 0, (m-1)*s+1, 1)
	}
	parts := []Value{}
	if lo > 0 {
		parts = append(parts, zeros(lo))
	}
	parts = append(parts, x)
	if hi := n - lo - x.Shape()[ax]; hi > 0 {
		parts = append(parts, zeros(hi))
	}
	if len(parts) == 1 {
		return x
	}
	return Concatenate(ax, parts...)
}

// isIdentity reports whether p is 0, 1, …, len(p)−1.
func isIdentity(p []int) bool {
	for i, a := range p {
		if a != i {
			return false
		}
	}
	return true
}
