package trace

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// The lax-level indexing ops: gather, the scatters, the dynamic slices and
// rev. Index operands may have any integer dtype; a bool or inexact index
// is a *DTypeError. Out-of-bounds behaviour is lax's: see IndexMode.

// An IndexOption sets a keyword argument of the indexing functions (Gather,
// Scatter, Take, TakeAlongAxis, OneHot and the Ref methods of At).
type IndexOption func(*indexOpts)

type indexOpts struct {
	mode    IndexMode
	modeSet bool
	fill    Value
	axis    int
	axisSet bool
	dtype   tensor.DType
	dtSet   bool
	wrap    bool
}

// WithMode sets the out-of-bounds mode (JAX's mode=).
func WithMode(m IndexMode) IndexOption {
	return func(o *indexOpts) { o.mode, o.modeSet = m, true }
}

// WithFill sets the fill value of ModeFill gathers (JAX's fill_value=): a
// literal (Int, Float, Complex or Bool), converted to the operand's dtype.
func WithFill(v Value) IndexOption { return func(o *indexOpts) { o.fill = v } }

// WithWrap makes Take wrap indices modulo the axis size (jnp.take's
// mode="wrap").
func WithWrap() IndexOption { return func(o *indexOpts) { o.wrap = true } }

// WithAxis sets OneHot's axis (default −1).
func WithAxis(axis int) IndexOption { return func(o *indexOpts) { o.axis, o.axisSet = axis, true } }

// WithDType sets OneHot's result dtype (default: the default float).
func WithDType(d tensor.DType) IndexOption { return func(o *indexOpts) { o.dtype, o.dtSet = d, true } }

func parseOpts(opts []IndexOption) indexOpts {
	var o indexOpts
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// operands finds the trace of xs (replaying free values lazily) and
// attaches them; literals stay literals.
func operands(op string, xs []Value, then func(b *builder, xs []Value) Value) Value {
	b, ok := builderOf(op, xs...)
	if b == nil {
		return freeOp(func(b *builder) Value { return operands(op, attachAll(b, op, xs), then) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xs = attachAll(b, op, xs)
	for _, x := range xs {
		if b.err != nil || (x.v == nil && x.lit == nil) {
			return Value{b: b}
		}
	}
	return then(b, xs)
}

// indexVar materializes an index operand, which must be an integer array:
// bool and inexact indices are *DTypeErrors, as in NumPy and JAX.
func (b *builder) indexVar(op string, x Value, what string) *Var {
	v := b.materialize(x, op)
	if v == nil {
		return nil
	}
	if d := v.Type.DType; !d.IsInteger() {
		b.dtypeErr(op, fmt.Sprintf("%s must have an integer dtype, not %s", what, d), v.Type)
		return nil
	}
	return v
}

// defaultFill is JAX's fill value of a ModeFill gather: NaN for inexact
// dtypes, the minimum of signed and the maximum of unsigned integers, true
// for bool.
func defaultFill(d tensor.DType) *tensor.Array {
	switch {
	case d.IsFloat():
		return tensor.Scalar(math.NaN()).Astype(d)
	case d.IsComplex():
		return tensor.Scalar(complex(math.NaN(), 0)).Astype(d)
	case d.IsSigned():
		return tensor.Scalar(int64(-1) << (d.Bits() - 1)).Astype(d)
	case d.IsUnsigned():
		return tensor.Scalar(^uint64(0)).Astype(d)
	}
	return tensor.Scalar(true)
}

// fillValue is the static fill value of a gather on dtype d.
func (b *builder) fillValue(op string, fill Value, d tensor.DType) *tensor.Array {
	if fill.b == nil && fill.v == nil && fill.lit == nil && fill.konst == nil && fill.replay == nil {
		return defaultFill(d)
	}
	if fill.lit == nil {
		b.opErr(op, fmt.Errorf("the fill value must be a literal (Int, Float, Complex or Bool), as JAX's static fill_value"))
		return nil
	}
	a, err := literalArray(b.cfg, fill.lit, d)
	if err != nil {
		b.opErr(op, err)
		return nil
	}
	return a
}

// Gather is lax.gather: for every index vector of indices (its last
// dimension), a window of sliceSizes starting there is read from operand;
// dims say how the windows and the index batch dims form the result (see
// GatherDims). With ModePromiseInBounds (the default) and ModeClip each
// start index is clamped so the window fits; with ModeFill a window that
// does not fit whole is the fill value (WithFill; default NaN, the
// integer's minimum or maximum, or true, as JAX). The result has operand's
// type, weak flag included.
func Gather(operand, indices Value, dims GatherDims, sliceSizes []int, opts ...IndexOption) Value {
	const op = "gather"
	o := parseOpts(opts)
	return operands(op, []Value{operand, indices}, func(b *builder, xs []Value) Value {
		x := b.materialize(xs[0], op)
		idx := b.indexVar(op, xs[1], "gather indices")
		if x == nil || idx == nil {
			return Value{b: b}
		}
		out, msg := GatherShape(x.Shape, idx.Shape, dims, sliceSizes)
		if msg != "" {
			return b.shapeErr(op, msg, x.Shape, idx.Shape)
		}
		p := Params{Index: IndexParams{Gather: cloneGather(dims), SliceSizes: slices.Clone(sliceSizes), Mode: ModeClip}}
		if o.mode == ModeFill {
			p.Index.Mode = ModeFill
			if p.Value = b.fillValue(op, o.fill, x.Type.DType); p.Value == nil {
				return Value{b: b}
			}
		}
		return b.emit(OpGather, []*Var{x, idx}, x.Type, out, p, "")
	})
}

func cloneGather(d GatherDims) GatherDims { return GatherDimsOf(ScatterDimsOf(d)) }

// Scatter is lax.scatter (op OpScatter), scatter_add, scatter_mul,
// scatter_min or scatter_max: the window of updates at every index vector
// of indices is combined into a copy of operand (see ScatterDims). Updates
// are applied in row-major order of their scatter dims, so with repeated
// indices the last update wins (scatter) and sums add in that order. With
// ModePromiseInBounds (the default) and ModeFill a window that does not
// fit whole is dropped; ModeClip clamps its start. operand and updates are
// promoted together as jax.numpy does, combined in the common type and the
// result converted back to operand's type; min and max of complex numbers
// are errors.
func Scatter(op Op, operand, indices, updates Value, dims ScatterDims, opts ...IndexOption) Value {
	name := op.String()
	o := parseOpts(opts)
	if !op.IsScatter() {
		return operands(name, []Value{operand}, func(b *builder, _ []Value) Value {
			return b.opErr(name, fmt.Errorf("%s is not a scatter", name))
		})
	}
	return operands(name, []Value{operand, indices, updates}, func(b *builder, xs []Value) Value {
		x := b.materialize(xs[0], name)
		idx := b.indexVar(name, xs[1], "scatter indices")
		if x == nil || idx == nil {
			return Value{b: b}
		}
		ushape := shapeOf(xs[2])
		if msg := ScatterCheck(x.Shape, idx.Shape, ushape, dims); msg != "" {
			return b.shapeErr(name, msg, x.Shape, idx.Shape, ushape)
		}
		mode := ModeFill
		if o.mode == ModeClip {
			mode = ModeClip
		}
		return b.scatter(op, x, idx, xs[2], cloneScatter(dims), mode, nil)
	})
}

func cloneScatter(d ScatterDims) ScatterDims { return ScatterDimsOf(GatherDimsOf(d)) }

// scatter promotes operand and updates, emits the scatter in the common
// type and converts the result back to x's type. shapeUpd, if set, shapes
// the converted updates (broadcast to an index's shape).
func (b *builder) scatter(op Op, x, idx *Var, upd Value, dims ScatterDims, mode IndexMode, shapeUpd func(*Var) *Var) Value {
	name := op.String()
	ut := b.typeOf(upd)
	common, err := b.cfg.ResultType(x.Type, ut)
	if err != nil {
		return b.opErr(name, err)
	}
	if c := op.ScatterCombiner(); c != OpInvalid {
		if msg := domainError(c, common.DType); msg != "" {
			return b.dtypeErr(name, msg, x.Type, ut)
		}
		if (c == OpMax || c == OpMin) && common.DType.IsComplex() {
			return b.dtypeErr(name, fmt.Sprintf("complex numbers (%s) have no order", common.DType), x.Type, ut)
		}
	}
	why := "promote " + joinTypes([]promote.Type{x.Type, ut}) + " -> " + common.String() + " (" + b.cfg.RuleSet().Name() + ")"
	xv := b.to(Value{b: b, v: x}, common, name, why)
	uv := b.to(upd, common, name, why)
	if uv != nil && shapeUpd != nil {
		uv = shapeUpd(uv)
	}
	if xv == nil || uv == nil {
		return Value{b: b}
	}
	r := b.emit(op, []*Var{xv, idx, uv}, common, x.Shape, Params{Index: IndexParams{Scatter: dims, Mode: mode}}, "")
	if common == x.Type {
		return r
	}
	return Value{b: b, v: b.to(r, x.Type, name, name+" converts back to the operand's "+x.Type.String()+" (jax.numpy)")}
}
