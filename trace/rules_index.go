package trace

import (
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// Derivatives of the indexing ops (the table is rules.go), JAX's: gather
// transposes to scatter_add and scatter_add to gather, dynamic_slice and
// dynamic_update_slice to each other, rev to itself. Index operands are
// integers and carry no tangent. The rules re-emit the ops with the
// primal's parameters (raw, with no normalization of indices: the
// equation's indices are already the ones the op reads).

// emitRaw emits op on xs (attached to their common trace) with params p,
// a result of xs[0]'s type and the given shape.
func emitRaw(op Op, p Params, shape []int, xs ...Value) Value {
	name := op.String()
	return operands(name, xs, func(b *builder, xs []Value) Value {
		vs := make([]*Var, len(xs))
		for i, x := range xs {
			if vs[i] = b.materialize(x, name); vs[i] == nil {
				return Value{b: b}
			}
		}
		return b.emit(op, vs, vs[0].Type, slices.Clone(shape), p, "")
	})
}

// startsOf are the start operands of a dynamic slice (from operand from).
func startsOf(c *Call, from int) []Value { return c.In[from:] }

func transposeRev(c *Call, ct Value) []Value {
	return []Value{emitRaw(OpRev, c.Eqn.Params, c.Eqn.Args[0].Shape, ct)}
}

// jvpGather gathers the operand's tangent at the same indices; where a
// fill gather fills, the tangent is 0.
func jvpGather(c *Call) Value {
	t := c.Tangents[0]
	if isZero(t) {
		return Value{}
	}
	p := c.Eqn.Params
	if p.Index.Mode == ModeFill {
		p.Value = tensor.Scalar(0.0).Astype(c.Eqn.Args[0].Type.DType)
	}
	return emitRaw(OpGather, p, c.Eqn.Out.Shape, t, c.In[1])
}

// transposeGather adds the cotangent back where the gather read it: a
// scatter_add into zeros (a fill gather's dropped windows add nothing).
func transposeGather(c *Call, ct Value) []Value {
	in := c.Eqn.Args[0]
	ip := c.Eqn.Params.Index
	p := Params{Index: IndexParams{Scatter: ScatterDimsOf(ip.Gather), Mode: ip.Mode}}
	z := zerosOf(ct.b, in.Type, in.Shape)
	return []Value{emitRaw(OpScatterAdd, p, in.Shape, z, c.In[1], ct), Value{}}
}

// scatterGather is the gather that reads back what a scatter with the
// equation's dims writes, of x (the operand's shape), for updates of the
// given shape; dropped windows read fill (mode drop) or are clamped.
func scatterGather(c *Call, x Value, fill float64) Value {
	e := c.Eqn
	ip := e.Params.Index
	d := ip.Scatter
	window := ScatterWindow(len(e.Args[0].Shape), e.Args[2].Shape, d)
	p := Params{Index: IndexParams{Gather: GatherDimsOf(d), SliceSizes: window, Mode: ModeClip}}
	if ip.Mode != ModeClip {
		p.Index.Mode = ModeFill
		p.Value = tensor.Scalar(fill).Astype(x.DType())
	}
	return emitRaw(OpGather, p, e.Args[2].Shape, x, c.In[1])
}

// jvpScatterAdd is linear in the operand and the updates together.
func jvpScatterAdd(c *Call) Value {
	if isZero(c.Tangents[0]) && isZero(c.Tangents[2]) {
		return Value{}
	}
	return emitRaw(OpScatterAdd, c.Eqn.Params, c.Eqn.Out.Shape, c.Tangent(0), c.In[1], c.Tangent(2))
}

func transposeScatterAdd(c *Call, ct Value) []Value {
	out := make([]Value, 3)
	if c.Linear[0] {
		out[0] = ct
	}
	if c.Linear[2] {
		out[2] = scatterGather(c, ct, 0)
	}
	return out
}

// jvpScatter: an element takes the tangent of what it ends up holding —
// the operand's, or the update that won (the last one in Kiln's order).
// Which update won is found as JAX does: scatter the updates' positions
// (1, 2, …) the same way and gather them back.
func jvpScatter(c *Call) Value {
	if isZero(c.Tangents[0]) && isZero(c.Tangents[2]) {
		return Value{}
	}
	e := c.Eqn
	upd, x := e.Args[2], e.Args[0]
	ids := make([]int64, ShapeSize(upd.Shape))
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	ida, _ := tensor.FromSlice(ids)
	ida, _ = ida.Reshape(upd.Shape...) // FromSlice with no shape would be 1-D
	zero, _ := tensor.Zeros(tensor.I64, x.Shape...)
	idc := Const(ida)
	p := e.Params
	scattered := emitRaw(OpScatter, p, x.Shape, Const(zero), c.In[1], idc)
	won := scatterGather(c, scattered, 0).Eq(idc)
	kept := scattered.Eq(Int(0))
	tu := Where(won, c.Tangent(2), Scalar(c.Tangent(2), 0))
	tx := Where(kept, c.Tangent(0), Scalar(c.Tangent(0), 0))
	return emitRaw(OpScatterAdd, p, x.Shape, tx, c.In[1], tu)
}

// jvpScatterMul: multiplying by the (primal) updates is linear in the
// operand; the updates' tangent needs each update's partner products,
// which JAX too computes only for unique indices: it is a *DerivError.
func jvpScatterMul(c *Call) Value {
	if !isZero(c.Tangents[2]) {
		c.lin.derivErr(c.Eqn, "the derivative of x.at[i].mul(y) with respect to y is not implemented (JAX: only for unique indices, which Kiln cannot promise)")
		return Value{b: c.lin}
	}
	if isZero(c.Tangents[0]) {
		return Value{}
	}
	return emitRaw(OpScatterMul, c.Eqn.Params, c.Eqn.Out.Shape, c.Tangents[0], c.In[1], c.In[2])
}

func transposeScatterMul(c *Call, ct Value) []Value {
	return []Value{emitRaw(OpScatterMul, c.Eqn.Params, c.Eqn.Out.Shape, ct, c.In[1], c.In[2]), Value{}, Value{}}
}

// jvpScatterExtremal (scatter_min, scatter_max) is JAX's: an element's
// tangent is the mean of the tangents of the values that tie for its
// result — the operand's, if it was kept, and the winning updates'.
func jvpScatterExtremal(c *Call) Value {
	if isZero(c.Tangents[0]) && isZero(c.Tangents[2]) {
		return Value{}
	}
	e := c.Eqn
	x, upd := c.In[0], c.In[2]
	p := e.Params
	won := scatterGather(c, c.Out, 0).Eq(upd)
	kept := x.Eq(c.Out)
	t := e.Out.Type
	count := func(m Value) Value { return ConvertTo(m, t, "tied values are counted in the result's dtype") }
	z := zerosOf(c.lin, t, e.Out.Shape)
	n := emitRaw(OpScatterAdd, p, e.Out.Shape, z, c.In[1], count(won)).Add(count(kept))
	tu := Where(won, c.Tangent(2), Scalar(c.Tangent(2), 0))
	tx := Where(kept, c.Tangent(0), Scalar(c.Tangent(0), 0))
	return emitRaw(OpScatterAdd, p, e.Out.Shape, tx, c.In[1], tu).Div(n)
}

func jvpDynamicSlice(c *Call) Value {
	if isZero(c.Tangents[0]) {
		return Value{}
	}
	return emitRaw(OpDynamicSlice, c.Eqn.Params, c.Eqn.Out.Shape, append([]Value{c.Tangents[0]}, startsOf(c, 1)...)...)
}

func transposeDynamicSlice(c *Call, ct Value) []Value {
	in := c.Eqn.Args[0]
	z := zerosOf(ct.b, in.Type, in.Shape)
	out := make([]Value, len(c.Eqn.Args))
	out[0] = emitRaw(OpDynamicUpdateSlice, Params{}, in.Shape, append([]Value{z, ct}, startsOf(c, 1)...)...)
	return out
}

func jvpDynamicUpdateSlice(c *Call) Value {
	if isZero(c.Tangents[0]) && isZero(c.Tangents[1]) {
		return Value{}
	}
	return emitRaw(OpDynamicUpdateSlice, Params{}, c.Eqn.Out.Shape, append([]Value{c.Tangent(0), c.Tangent(1)}, startsOf(c, 2)...)...)
}

func transposeDynamicUpdateSlice(c *Call, ct Value) []Value {
	e := c.Eqn
	upd := e.Args[1]
	out := make([]Value, len(e.Args))
	// The window is read first: in a loop (a scan's stacked output, in
	// reverse) the zeroing can then happen in place, after every read.
	if c.Linear[1] {
		p := Params{Index: IndexParams{SliceSizes: slices.Clone(upd.Shape)}}
		out[1] = emitRaw(OpDynamicSlice, p, upd.Shape, append([]Value{ct}, startsOf(c, 2)...)...)
	}
	if c.Linear[0] {
		z := zerosOf(ct.b, upd.Type, upd.Shape)
		out[0] = emitRaw(OpDynamicUpdateSlice, Params{}, e.Out.Shape, append([]Value{ct, z}, startsOf(c, 2)...)...)
	}
	return out
}
