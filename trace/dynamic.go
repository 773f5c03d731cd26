package trace

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// startVars materializes the start indices of a dynamic slice: one integer
// scalar per operand dim. Negative starts count from the end of their dim
// (lax's allow_negative_indices); the op then clamps each start so the
// window fits, as XLA does.
func (b *builder) startVars(op string, x *Var, starts []Value, sizes []int) []*Var {
	if len(starts) != x.Rank() {
		b.shapeErr(op, fmt.Sprintf("%d start indices for an operand of rank %d %s", len(starts), x.Rank(), shapeString(x.Shape)), x.Shape)
		return nil
	}
	out := make([]*Var, len(starts))
	for i, s := range starts {
		if s.lit != nil && s.lit.kind == tensor.KindInt && s.lit.i < 0 {
			// A literal start counts from the end now, not in the program.
			s = Value{b: b, lit: &literal{kind: tensor.KindInt, i: s.lit.i + int64(x.Shape[i])}}
		}
		v := b.indexVar(op, s, "start indices")
		if v == nil {
			return nil
		}
		if v.Rank() != 0 {
			b.shapeErr(op, fmt.Sprintf("start index %d has shape %s; start indices are scalars", i, shapeString(v.Shape)), x.Shape, v.Shape)
			return nil
		}
		if s.lit != nil {
			out[i] = v
			continue
		}
		if out[i] = b.normIndex(v, x.Shape[i]); out[i] == nil {
			return nil
		}
	}
	return out
}

// normIndex makes negative indices count from the end of a dim of size n
// (NumPy's and JAX's normalization): select(i < 0, i + n, i). Signed
// indices narrower than the default int are widened first, so that i + n
// cannot overflow (JAX adds in the index's own dtype); unsigned indices
// are returned as they are.
func (b *builder) normIndex(v *Var, n int) *Var {
	d := v.Type.DType
	if d.IsUnsigned() {
		return v
	}
	if wide := b.cfg.IndexType(); d.Bits() < wide.Bits() {
		if v = b.to(Value{b: b, v: v}, promote.Strong(wide), "index", "indices widen to "+wide.String()+" before counting from the end"); v == nil {
			return nil
		}
	}
	x := Value{b: b, v: v}
	return Where(x.Lt(Int(0)), x.Add(Int(int64(n))), x).v
}

// DynamicSlice is lax.dynamic_slice: the window of sliceSizes of x that
// starts at starts (one integer scalar per dim, traced or literal).
// Negative starts count from the end; each start is then clamped into
// [0, dim − size], as XLA does, so the window always fits.
func DynamicSlice(x Value, starts []Value, sliceSizes []int) Value {
	const op = "dynamic_slice"
	return operands(op, append([]Value{x}, starts...), func(b *builder, xs []Value) Value {
		v := b.materialize(xs[0], op)
		if v == nil {
			return Value{b: b}
		}
		if len(sliceSizes) != v.Rank() {
			return b.shapeErr(op, fmt.Sprintf("slice_sizes %v has %d entries, the operand %s has rank %d", sliceSizes, len(sliceSizes), shapeString(v.Shape), v.Rank()), v.Shape)
		}
		for i, s := range sliceSizes {
			if s < 0 || s > v.Shape[i] {
				return b.shapeErr(op, fmt.Sprintf("slice_sizes %v: %d is outside [0, %d] for dim %d of %s", sliceSizes, s, v.Shape[i], i, shapeString(v.Shape)), v.Shape)
			}
		}
		st := b.startVars(op, v, xs[1:], sliceSizes)
		if st == nil {
			return Value{b: b}
		}
		return b.emit(OpDynamicSlice, append([]*Var{v}, st...), v.Type, slices.Clone(sliceSizes), Params{Index: IndexParams{SliceSizes: slices.Clone(sliceSizes)}}, "")
	})
}

// DynamicUpdateSlice is lax.dynamic_update_slice: x with the window at
// starts replaced by update, whose rank is x's and whose dims fit in x's.
// Starts are normalized and clamped as DynamicSlice's. update must have
// x's dtype; a weak update (a literal-derived value) takes it, as in JAX.
func DynamicUpdateSlice(x, update Value, starts []Value) Value {
	const op = "dynamic_update_slice"
	return operands(op, append([]Value{x, update}, starts...), func(b *builder, xs []Value) Value {
		v := b.materialize(xs[0], op)
		if v == nil {
			return Value{b: b}
		}
		us, ut := shapeOf(xs[1]), b.typeOf(xs[1])
		if len(us) != v.Rank() {
			return b.shapeErr(op, fmt.Sprintf("update %s and operand %s must have the same rank", shapeString(us), shapeString(v.Shape)), v.Shape, us)
		}
		for i, n := range us {
			if n > v.Shape[i] {
				return b.shapeErr(op, fmt.Sprintf("update %s does not fit in operand %s (dim %d)", shapeString(us), shapeString(v.Shape), i), v.Shape, us)
			}
		}
		// One dtype needs no promotion: two weak complex values of one
		// dtype join to the default complex type, which may be another.
		if common, err := b.cfg.ResultType(v.Type, ut); ut.DType != v.Type.DType && (err != nil || common.DType != v.Type.DType) {
			return b.dtypeErr(op, fmt.Sprintf("the update is %s, the operand %s: lax.dynamic_update_slice needs one dtype; convert with astype(update, %s)", ut, v.Type, v.Type.DType), v.Type, ut)
		}
		u := b.to(xs[1], v.Type, op, "")
		st := b.startVars(op, v, xs[2:], us)
		if u == nil || st == nil {
			return Value{b: b}
		}
		return b.emit(OpDynamicUpdateSlice, append([]*Var{v, u}, st...), v.Type, v.Shape, Params{}, "")
	})
}

// Rev is lax.rev: x with the given dims reversed (none: x itself).
func Rev(x Value, dims ...int) Value {
	return unary("rev", x, func(b *builder, v *Var) Value {
		return b.rev(v, dims, "rev")
	})
}

// Flip is numpy.flip: x with the given axes reversed, or every axis when
// none are given.
func (x Value) Flip(axes ...int) Value {
	return unary("flip", x, func(b *builder, v *Var) Value {
		if len(axes) == 0 {
			for i := range v.Rank() {
				axes = append(axes, i)
			}
		}
		return b.rev(v, axes, "flip")
	})
}

func (b *builder) rev(v *Var, dims []int, op string) Value {
	ax, msg := normAxes(dims, v.Rank())
	if msg != "" {
		return b.shapeErr(op, msg, v.Shape)
	}
	if len(dims) == 0 {
		ax = nil
	}
	var kept []int // reversing a dim of size 0 or 1 changes nothing
	for _, a := range ax {
		if v.Shape[a] > 1 {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		return Value{b: b, v: v}
	}
	return b.emit(OpRev, []*Var{v}, v.Type, v.Shape, Params{Axes: kept}, "")
}
