package trace

import (
	"slices"
)

// Derivative rules of the reductions and dot_general (the table is
// rules.go).

// keptShape is a reduction's operand shape with the reduced axes as 1.
func keptShape(c *Call) []int {
	s := slices.Clone(c.Eqn.Args[0].Shape)
	for _, a := range c.Eqn.Params.Axes {
		s[a] = 1
	}
	return s
}

// jvpReduceChooser is reduce_max's and reduce_min's JVP, JAX's
// _reduce_chooser_jvp_rule: the tangent is the mean of the tangents at
// the positions that equal the result, so ties share it equally.
func jvpReduceChooser(c *Call) Value {
	t, x, p := c.Tangents[0], c.In[0], c.Eqn.Params
	at := x.Eq(c.Out.Reshape(keptShape(c)...))
	where := ConvertTo(at, c.Eqn.Args[0].Type, "the positions of the extremum, as numbers")
	counts := Reduce(OpReduceSum, where, p.Axes, p.KeepDims)
	return Reduce(OpReduceSum, t.Mul(where), p.Axes, p.KeepDims).Div(counts)
}

// jvpReduceProd is reduce_prod's JVP as JAX computes it: the reduced axes
// are flattened into one leading axis, which is multiplied down pairwise,
// the tangent following each product by the product rule. It needs no
// division, so zeros in the operand are exact.
func jvpReduceProd(c *Call) Value {
	t, x, p := c.Tangents[0], c.In[0], c.Eqn.Params
	in := c.Eqn.Args[0]
	var perm, rest []int
	n := 1
	perm = append(perm, p.Axes...)
	for d, size := range in.Shape {
		if !slices.Contains(p.Axes, d) {
			perm = append(perm, d)
			rest = append(rest, size)
		}
	}
	for _, a := range p.Axes {
		n *= in.Shape[a]
	}
	if n == 0 {
		return zerosOf(c.lin, c.Eqn.Out.Type, c.Eqn.Out.Shape)
	}
	flat := append([]int{n}, rest...)
	x = x.Transpose(perm...).Reshape(flat...)
	t = t.Transpose(perm...).Reshape(flat...)
	for n > 1 {
		n1 := (n + 1) / 2
		x1, x2 := x.Slice(0, 0, n1, 1), x.Slice(0, n1, n, 1)
		t1, t2 := t.Slice(0, 0, n1, 1), t.Slice(0, n1, n, 1)
		if n-n1 != n1 {
			pad := append([]int{1}, rest...)
			x2 = Concatenate(0, x2, one(x).BroadcastTo(pad...))
			t2 = Concatenate(0, t2, zerosOf(c.lin, c.Eqn.Args[0].Type, pad))
		}
		x, t = x1.Mul(x2), t1.Mul(x2).Add(x1.Mul(t2))
		n = n1
	}
	return t.Reshape(c.Eqn.Out.Shape...)
}

// jvpDotLHS and jvpDotRHS are dot_general's partials: the same dot with
// the tangent in place of one operand (dot_general is bilinear).
func jvpDotLHS(c *Call, t Value) Value { return c.lin.emitEqn(c.Eqn, []Value{t, c.In[1]}) }

func jvpDotRHS(c *Call, t Value) Value { return c.lin.emitEqn(c.Eqn, []Value{c.In[0], t}) }

// preferredPrimal is the primal operand of a bilinear op's transpose: with
// a preferred_element_type the cotangent ct has that type and the primal
// joins it there (as JAX's dot_general(g, y, preferred_element_type) and
// conv transposes do); the result goes back to the linear operand's type.
func preferredPrimal(c *Call, ct, v Value) Value {
	if c.Eqn.Params.HasPreferred {
		return ConvertTo(v, ct.Type(), c.Eqn.Op.String()+"'s transpose computes in its preferred_element_type")
	}
	return v
}

// transposeDot is JAX's dot_general transpose: the cotangent contracted
// with the other operand over its free dims, transposed into place.
func transposeDot(c *Call, ct Value) []Value {
	out := bilinear(c)
	if out == nil {
		return nil
	}
	x, y, d := c.Eqn.Args[0], c.Eqn.Args[1], c.Eqn.Params.Dot
	if c.Linear[0] {
		g := dotTransposeLHS(ct, preferredPrimal(c, ct, c.In[1]), x.Rank(), y.Rank(), d.LhsContract, d.RhsContract, d.LhsBatch, d.RhsBatch, false)
		out[0] = ConvertTo(g, x.Type, "cotangent of dot_general takes its operand's type")
	}
	if c.Linear[1] {
		g := dotTransposeLHS(ct, preferredPrimal(c, ct, c.In[0]), y.Rank(), x.Rank(), d.RhsContract, d.LhsContract, d.RhsBatch, d.LhsBatch, true)
		out[1] = ConvertTo(g, y.Type, "cotangent of dot_general takes its operand's type")
	}
	return out
}

// dotTransposeLHS is the cotangent of x in dot_general(x, y) (of y when
// swap: then x and y are the operands the other way round, and the
// result's free dims are y's then x's).
func dotTransposeLHS(g, y Value, xRank, yRank int, xContract, yContract, xBatch, yBatch []int, swap bool) Value {
	xKept := remaining(xRank, xContract, xBatch)
	yKept := remaining(yRank, yContract, yBatch)
	nb := len(xBatch)
	ansBatch := span(0, nb)
	var ansY []int
	if swap {
		ansY = span(nb, len(yKept))
	} else {
		ansY = span(nb+len(xKept), len(yKept))
	}
	dims := DotDims{LhsContract: ansY, RhsContract: yKept, LhsBatch: ansBatch, RhsBatch: slices.Clone(yBatch)}
	sortedByY := make([]int, len(xContract))
	for i, k := range argsort(yContract) {
		sortedByY[i] = xContract[k]
	}
	layout := append(append(slices.Clone(xBatch), xKept...), sortedByY...)
	// dot(y, g) lays the same result out as batch, y's dims, g's dims:
	// when that is x's layout and dot(g, y)'s is not, it needs no
	// transpose (the weight gradient xᵀ·g of a dense layer).
	swapped := append(append(slices.Clone(xBatch), sortedByY...), xKept...)
	if isIdentity(argsort(swapped)) && !isIdentity(argsort(layout)) {
		return DotGeneral(y, g, DotDims{LhsContract: yKept, RhsContract: ansY, LhsBatch: slices.Clone(yBatch), RhsBatch: ansBatch})
	}
	return DotGeneral(g, y, dims).Transpose(argsort(layout)...)
}

// remaining lists 0..rank-1 without the dims of the given lists.
func remaining(rank int, lists ...[]int) []int {
	var out []int
	for d := range rank {
		if !slices.ContainsFunc(lists, func(l []int) bool { return slices.Contains(l, d) }) {
			out = append(out, d)
		}
	}
	return out
}

// span is start, start+1, …, start+n−1.
func span(start, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = start + i
	}
	return out
}
