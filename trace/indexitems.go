package trace

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// The items of a NumPy index, as Value.Index and Value.At take them:
//
//	int             a static index; negative counts from the end (x[2], x[-1])
//	Span            a slice start:stop:step: All, Range, RangeStep, From, To, Step
//	NewAxis, nil    a new axis of size 1 (None)
//	Ellipsis        as many full slices as needed (...)
//	Value           an integer index array (traced or constant; advanced
//	                indexing), or a constant bool mask
//	*tensor.Array   a constant integer index array or bool mask
//	[]int, []bool   the same, as a Python list would be
//	bool            a scalar bool (x[True] adds an axis of size 1, x[False]
//	                one of size 0)

// Span is a slice item start:stop:step. Step 0 means 1, as an omitted step;
// an omitted bound (HasStart, HasStop false) is the default for the step's
// sign.
type Span struct {
	Start, Stop, Step int
	HasStart, HasStop bool
}

// All is the full slice ":".
var All = Span{}

// Range is the slice start:stop.
func Range(start, stop int) Span {
	return Span{Start: start, Stop: stop, HasStart: true, HasStop: true}
}

// RangeStep is the slice start:stop:step.
func RangeStep(start, stop, step int) Span {
	return Span{Start: start, Stop: stop, Step: step, HasStart: true, HasStop: true}
}

// From is the slice start:.
func From(start int) Span { return Span{Start: start, HasStart: true} }

// To is the slice :stop.
func To(stop int) Span { return Span{Stop: stop, HasStop: true} }

// Step is the slice ::step (Step(-1) reverses).
func Step(step int) Span { return Span{Step: step} }

// bounds resolves the span against a dim of size n: Python's
// slice.indices and the number of elements.
func (s Span) bounds(n int) (lo, hi, step, count int) {
	step = s.Step
	if step == 0 {
		step = 1
	}
	start, stop := 0, n
	if step < 0 {
		start, stop = n-1, -n-1
	}
	if s.HasStart {
		start = s.Start
	}
	if s.HasStop {
		stop = s.Stop
	}
	lo, hi, count = sliceBounds(n, start, stop, step)
	return lo, hi, step, count
}

type newAxisItem struct{}

type ellipsisItem struct{}

// NewAxis is numpy.newaxis (None): a new axis of size 1.
var NewAxis = newAxisItem{}

// Ellipsis stands for as many full slices as the index leaves dims.
var Ellipsis = ellipsisItem{}

type itemKind uint8

const (
	itInt itemKind = iota
	itSpan
	itNone
	itEllipsis
	itArray // an integer index array (advanced)
	itMask  // a constant bool array (becomes itArrays)
	itBool  // a scalar bool (becomes a new axis and an itArray)
)

// item is one parsed index item.
type item struct {
	kind itemKind
	i    int
	span Span
	v    Value         // itArray
	mask *tensor.Array // itMask
	b    bool          // itBool
}

// parseItems classifies the raw items; bad item types and index dtypes are
// errors, as in NumPy.
func (b *builder) parseItems(op string, raw []any) ([]item, bool) {
	out := make([]item, 0, len(raw))
	for _, r := range raw {
		it, err := parseItem(b, op, r)
		if err {
			return nil, false
		}
		out = append(out, it)
	}
	return out, true
}

func parseItem(b *builder, op string, r any) (item, bool) {
	switch r := r.(type) {
	case nil, newAxisItem:
		return item{kind: itNone}, false
	case ellipsisItem:
		return item{kind: itEllipsis}, false
	case int:
		return item{kind: itInt, i: r}, false
	case int64:
		return item{kind: itInt, i: int(r)}, false
	case int32:
		return item{kind: itInt, i: int(r)}, false
	case Span:
		return item{kind: itSpan, span: r}, false
	case bool:
		return item{kind: itBool, b: r}, false
	case []int:
		vals := make([]int64, len(r))
		for i, x := range r {
			vals[i] = int64(x)
		}
		a, _ := tensor.FromSlice(vals)
		return item{kind: itArray, v: Const(a.Astype(b.cfg.DefaultInt()))}, false
	case []bool:
		a, _ := tensor.FromSlice(slices.Clone(r))
		return item{kind: itMask, mask: a}, false
	case *tensor.Array:
		if r == nil {
			b.opErr(op, fmt.Errorf("a nil *tensor.Array index"))
			return item{}, true
		}
		return parseItem(b, op, Const(r))
	case Value:
		d := r.DType()
		switch {
		case r.konst != nil && d == tensor.Bool:
			return item{kind: itMask, mask: r.konst}, false
		case r.lit != nil && d == tensor.Bool:
			return item{kind: itBool, b: r.lit.b}, false
		case d == tensor.Bool:
			b.shapeErr(op, "a boolean index needs a constant mask: with a traced one the result's shape would depend on the data "+
				"(JAX's NonConcreteBooleanIndexError); use where(mask, x, 0), or a constant (*tensor.Array) mask", shapeOf(r))
			return item{}, true
		case !d.IsInteger():
			b.dtypeErr(op, fmt.Sprintf("arrays used as indices must be of integer (or boolean) type, not %s", d), r.Type())
			return item{}, true
		}
		return item{kind: itArray, v: r}, false
	}
	b.opErr(op, fmt.Errorf("an index item of type %T; use int, Span, NewAxis, Ellipsis, an integer or bool array, []int, []bool or bool", r))
	return item{}, true
}

// expand replaces the ellipsis with full slices, bool masks with their
// nonzero coordinates (one index array per mask dim) and scalar bools with
// a new axis of x indexed by [0] (true) or [] (false), as NumPy does. It
// returns the items, each consuming one dim of the returned shape (itNone
// none), that shape (x's, with the scalar bools' new axes) and where the
// ellipsis was in the items (−1: nowhere): even standing for no dims, it
// keeps advanced indices on its two sides apart, as in NumPy.
func (b *builder) expand(op string, shape []int, items []item) ([]item, []int, int, bool) {
	consumed, ellipses := 0, 0
	for _, it := range items {
		switch it.kind {
		case itInt, itSpan, itArray:
			consumed++
		case itMask:
			consumed += it.mask.Rank()
		case itEllipsis:
			ellipses++
		}
	}
	if ellipses > 1 {
		b.shapeErr(op, "an index can only have a single ellipsis (...)", shape)
		return nil, nil, 0, false
	}
	if consumed > len(shape) {
		b.shapeErr(op, fmt.Sprintf("too many indices for an array of shape %s: %d given", shapeString(shape), consumed), shape)
		return nil, nil, 0, false
	}
	var out []item
	var newShape []int
	dim, gap := 0, -1 // the next dim of shape; the ellipsis' position
	for _, it := range items {
		switch it.kind {
		case itEllipsis:
			gap = len(out)
			for range len(shape) - consumed {
				out, newShape, dim = append(out, item{kind: itSpan}), append(newShape, shape[dim]), dim+1
			}
		case itNone:
			out = append(out, it)
		case itBool:
			n := 0
			if it.b {
				n = 1
			}
			idx, _ := tensor.FromSlice(make([]int64, n))
			out, newShape = append(out, item{kind: itArray, v: Const(idx.Astype(b.cfg.DefaultInt()))}), append(newShape, 1)
		case itMask:
			ms := it.mask.Shape()
			if !ShapeEqual(ms, shape[dim:dim+len(ms)]) {
				b.shapeErr(op, fmt.Sprintf("boolean index %s does not match the indexed dims %s of %s", shapeString(ms), shapeString(shape[dim:dim+len(ms)]), shapeString(shape)), shape, ms)
				return nil, nil, 0, false
			}
			for _, coords := range nonzero(it.mask, b.cfg.DefaultInt()) {
				out, newShape, dim = append(out, item{kind: itArray, v: Const(coords)}), append(newShape, shape[dim]), dim+1
			}
		default:
			out, newShape, dim = append(out, it), append(newShape, shape[dim]), dim+1
		}
	}
	for ; dim < len(shape); dim++ {
		out, newShape = append(out, item{kind: itSpan}), append(newShape, shape[dim])
	}
	return out, newShape, gap, true
}

// nonzero is numpy.nonzero of a bool array: per dim, the coordinates of
// its true elements in row-major order, as arrays of dtype d.
func nonzero(mask *tensor.Array, d tensor.DType) []*tensor.Array {
	shape := mask.Shape()
	data, _ := tensor.Data[bool](mask)
	coords := make([][]int64, len(shape))
	for flat, on := range data {
		if !on {
			continue
		}
		rem := flat
		for k := len(shape) - 1; k >= 0; k-- {
			coords[k] = append(coords[k], int64(rem%shape[k]))
			rem /= shape[k]
		}
	}
	out := make([]*tensor.Array, len(shape))
	for k, c := range coords {
		if c == nil {
			c = []int64{}
		}
		a, _ := tensor.FromSlice(c)
		out[k] = a.Astype(d)
	}
	return out
}
