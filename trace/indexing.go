package trace

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// NumPy indexing: x[idx] (Value.Index) and x.at[idx] (Value.At), with
// NumPy's rules for where the dims of advanced (array) indices go. The
// items are listed in indexitems.go. How an index is computed, as in JAX:
//   - ints, slices, new axes and the ellipsis alone: one static slice, a
//     rev for negative steps and a reshape;
//   - with index arrays that are all scalars (x[i] with i traced): the
//     static part, then dynamic_slice;
//   - otherwise the static part, then one gather.
//
// x.at[idx].set/add/mul/min/max is one scatter over the whole index.

// Index is NumPy's x[idx...]. Static int indices out of bounds are a
// *ShapeError (NumPy's IndexError; JAX's jax_check_static_indices);
// negative indices, static or in arrays, count from the end; array
// indices out of bounds are clamped, as jax.numpy does (x.at[idx].get()
// with mode "promise_in_bounds"). A bool index must be a constant mask or a
// scalar: with a traced mask the result's shape would depend on the data.
func (x Value) Index(idx ...any) Value { return x.At(idx...).Get() }

// Ref is x.at[idx] (jax.numpy's indexed update helper): Get reads the
// index, and Set, Add, Mul, Min and Max return a copy of x with it
// updated. None of them changes x.
type Ref struct {
	x   Value
	idx []any
}

// At is jax.numpy's x.at[idx]: the items are as for Index.
func (x Value) At(idx ...any) Ref { return Ref{x: x, idx: slices.Clone(idx)} }

// Get is x.at[idx].get(): x[idx], with WithMode(ModeClip) or
// WithMode(ModeFill) (and WithFill) for out-of-bounds array indices.
func (r Ref) Get(opts ...IndexOption) Value { return r.apply(OpGather, Value{}, opts) }

// Set is x.at[idx].set(v): x with x[idx] replaced by v, broadcast to the
// shape of x[idx]. Repeated indices: the last update wins. Out-of-bounds
// array indices drop their update (WithMode(ModeClip) clamps them).
// v is promoted with x as jax.numpy does, and the result has x's type.
func (r Ref) Set(v Value, opts ...IndexOption) Value { return r.apply(OpScatter, v, opts) }

// Add is x.at[idx].add(v): repeated indices add up, in index order.
func (r Ref) Add(v Value, opts ...IndexOption) Value { return r.apply(OpScatterAdd, v, opts) }

// Mul is x.at[idx].multiply(v).
func (r Ref) Mul(v Value, opts ...IndexOption) Value { return r.apply(OpScatterMul, v, opts) }

// Min is x.at[idx].min(v): the minimum of x[idx] and v (NaN propagates).
func (r Ref) Min(v Value, opts ...IndexOption) Value { return r.apply(OpScatterMin, v, opts) }

// Max is x.at[idx].max(v): the maximum of x[idx] and v (NaN propagates).
func (r Ref) Max(v Value, opts ...IndexOption) Value { return r.apply(OpScatterMax, v, opts) }

// apply builds a get (op OpGather) or an update.
func (r Ref) apply(op Op, upd Value, opts []IndexOption) Value {
	name := "index"
	if op != OpGather {
		name = op.String()
	}
	o := parseOpts(opts)
	vals := []Value{r.x}
	if op != OpGather {
		vals = append(vals, upd)
	}
	for _, it := range r.idx {
		if v, ok := it.(Value); ok {
			vals = append(vals, v)
		}
	}
	return operands(name, vals, func(b *builder, xs []Value) Value {
		x := b.materialize(xs[0], name)
		if x == nil {
			return Value{b: b}
		}
		ix := &indexer{b: b, op: name, mode: o.mode}
		if !ix.prepare(x, r.idx) {
			return Value{b: b}
		}
		if op == OpGather {
			return ix.get(o)
		}
		return ix.update(op, xs[1], x.Shape)
	})
}

// indexer computes one NumPy index.
type indexer struct {
	b     *builder
	op    string
	mode  IndexMode
	x     *Var   // the operand, with the scalar bools' new axes
	items []item // expanded: one per dim of x, or itNone
	// arrays: some item is an index array, so the ints are advanced too.
	arrays bool
	// contiguous: the advanced items are next to each other, so their
	// broadcast dims replace them in place (else they go first).
	contiguous bool
	bcast      []int // the broadcast shape of the advanced indices
}

// prepare parses, expands and checks the index against x.
func (ix *indexer) prepare(x *Var, raw []any) bool {
	b := ix.b
	parsed, ok := b.parseItems(ix.op, raw)
	if !ok {
		return false
	}
	items, shape, gap, ok := b.expand(ix.op, x.Shape, parsed)
	if !ok {
		return false
	}
	if !ShapeEqual(shape, x.Shape) {
		if x = (Value{b: b, v: x}).Reshape(shape...).v; x == nil {
			return false
		}
	}
	ix.x, ix.items = x, items
	var shapes [][]int
	first, last := -1, -1
	for i := range items {
		it := &items[i]
		if it.kind == itArray {
			ix.arrays = true
			v := b.attach(it.v, ix.op)
			if it.v.v = b.materialize(v, ix.op); it.v.v == nil {
				return false
			}
			it.v.b = b
			shapes = append(shapes, it.v.v.Shape)
		}
	}
	dim := 0
	for i := range items {
		it := &items[i]
		if it.kind == itNone {
			continue
		}
		n := x.Shape[dim]
		if it.kind == itInt {
			if !ix.checkInt(it, dim, n) {
				return false
			}
		}
		if ix.advanced(*it) {
			if first < 0 {
				first = i
			}
			last = i
		}
		dim++
	}
	ix.contiguous = first < 0 || !(gap > first && gap <= last)
	for i := first; first >= 0 && i <= last; i++ {
		ix.contiguous = ix.contiguous && ix.advanced(items[i])
	}
	if ix.bcast, ok = BroadcastShapes(shapes...); !ok {
		b.shapeErr(ix.op, "index arrays of shapes "+joinShapes(shapes)+" do not broadcast", shapes...)
	}
	return ok
}

// advanced reports whether an item is part of the advanced index.
func (ix *indexer) advanced(it item) bool {
	return it.kind == itArray || ix.arrays && it.kind == itInt
}

// checkInt normalizes a static int index of a dim of size n: negative
// counts from the end; out of bounds it is an error in mode
// promise_in_bounds, clamped without arrays in mode clip, and left to the
// gather or scatter otherwise.
func (ix *indexer) checkInt(it *item, dim, n int) bool {
	i := it.i
	if i < 0 {
		i += n
	}
	switch {
	case n == 0:
		ix.b.shapeErr(ix.op, fmt.Sprintf("index %d is out of bounds for axis %d with size 0", it.i, dim), ix.x.Shape)
		return false
	case i >= 0 && i < n:
	case ix.mode == ModePromiseInBounds:
		ix.b.shapeErr(ix.op, fmt.Sprintf("index %d is out of bounds for axis %d with size %d", it.i, dim, n), ix.x.Shape)
		return false
	case ix.mode == ModeClip && !ix.arrays:
		i = min(max(i, 0), n-1)
	}
	it.i = i
	return true
}

// layout is the result shape, walking the items in order: the advanced
// block where the first advanced item is (contiguous) or first, a span's
// count, 1 for a new axis. isNew marks the new axes.
func (ix *indexer) layout() (shape []int, isNew []bool) {
	add := func(dims ...int) {
		for _, d := range dims {
			shape, isNew = append(shape, d), append(isNew, false)
		}
	}
	if ix.arrays && !ix.contiguous {
		add(ix.bcast...)
	}
	placed := !ix.contiguous
	dim := 0
	for _, it := range ix.items {
		switch {
		case it.kind == itNone:
			shape, isNew = append(shape, 1), append(isNew, true)
			continue
		case ix.advanced(it):
			if !placed {
				add(ix.bcast...)
				placed = true
			}
		case it.kind == itSpan:
			_, _, _, n := it.span.bounds(ix.x.Shape[dim])
			add(n)
		}
		dim++
	}
	return shape, isNew
}

// empty handles an index whose result has no elements, as JAX does
// without a gather (NumPy: an array index into a dim of size 0 must be
// empty itself): the zeros of that shape. An array index into a dim of
// size 0 with a non-empty result is a *ShapeError.
func (ix *indexer) empty(final []int) (Value, bool) {
	if ShapeSize(final) == 0 {
		z, err := tensor.Zeros(ix.x.Type.DType, final...)
		if err != nil {
			return ix.b.opErr(ix.op, err), true
		}
		return ix.b.emit(OpConst, nil, ix.x.Type, final, Params{Value: z}, ""), true
	}
	for d, it := range ix.dimItems() {
		if ix.advanced(it) && ix.x.Shape[d] == 0 {
			return ix.b.shapeErr(ix.op, fmt.Sprintf("index is out of bounds for axis %d with size 0", d), ix.x.Shape), true
		}
	}
	return Value{}, false
}

// get computes x[idx].
func (ix *indexer) get(o indexOpts) Value {
	b := ix.b
	final, _ := ix.layout()
	if v, done := ix.empty(final); done {
		return v
	}
	if !ix.arrays {
		inBounds := true
		for d, it := range ix.dimItems() {
			inBounds = inBounds && (it.kind != itInt || it.i >= 0 && it.i < ix.x.Shape[d])
		}
		if inBounds {
			return ix.static(final)
		}
	}
	x := ix.sliced()
	if x == nil {
		return Value{b: b}
	}
	scalars := ix.arrays && len(ix.bcast) == 0
	for _, it := range ix.items {
		scalars = scalars && (it.kind != itArray || it.v.v.Rank() == 0)
	}
	if scalars && o.mode != ModeFill {
		return ix.dynamic(x, final)
	}
	p := ix.plan(x, true)
	if p == nil {
		return Value{b: b}
	}
	g := Gather(Value{b: b, v: x}, Value{b: b, v: p.indices}, p.dims, p.sizes, WithMode(o.mode), WithFill(o.fill))
	return g.Reshape(final...)
}

// dimItems returns the items that consume a dim, in dim order.
func (ix *indexer) dimItems() []item {
	var out []item
	for _, it := range ix.items {
		if it.kind != itNone {
			out = append(out, it)
		}
	}
	return out
}

// static computes an index of ints (in bounds), spans and new axes: one
// slice, one rev and a reshape.
func (ix *indexer) static(final []int) Value {
	v := ix.sliceVar(true)
	if v == nil {
		return Value{b: ix.b}
	}
	return Value{b: ix.b, v: v}.Reshape(final...)
}

// sliced applies the spans (and, without arrays, nothing else) to x: the
// operand of the dynamic_slice or gather that does the rest.
func (ix *indexer) sliced() *Var { return ix.sliceVar(false) }

// sliceVar emits one slice (positive steps; ints too when ints is set) and
// one rev for the negative steps.
func (ix *indexer) sliceVar(ints bool) *Var {
	b, x := ix.b, ix.x
	r := x.Rank()
	p := Params{Start: make([]int, r), Limit: slices.Clone(x.Shape), Stride: make([]int, r)}
	out := slices.Clone(x.Shape)
	var rev []int
	for d, it := range ix.dimItems() {
		p.Stride[d] = 1
		switch {
		case it.kind == itInt && ints:
			p.Start[d], p.Limit[d], out[d] = it.i, it.i+1, 1
		case it.kind == itSpan:
			lo, _, step, n := it.span.bounds(x.Shape[d])
			if step < 0 {
				lo, step = lo+(n-1)*step, -step
				rev = append(rev, d)
			}
			if n == 0 {
				lo = 0
			}
			p.Start[d], p.Limit[d], p.Stride[d], out[d] = lo, lo+max(n-1, 0)*step+min(n, 1), step, n
		}
	}
	v := x
	if !ShapeEqual(out, x.Shape) {
		v = b.emit(OpSlice, []*Var{x}, x.Type, out, p, "").v
	}
	if len(rev) > 0 {
		v = b.rev(v, rev, ix.op).v
	}
	return v
}

// dynamic computes an index whose arrays are all scalars on x, the spans
// already applied: one dynamic_slice of size 1 along the advanced dims.
func (ix *indexer) dynamic(x *Var, final []int) Value {
	b := ix.b
	starts := make([]Value, x.Rank())
	sizes := slices.Clone(x.Shape)
	for d, it := range ix.dimItems() {
		switch {
		case it.kind == itInt:
			starts[d], sizes[d] = Int(int64(it.i)), 1
		case it.kind == itArray:
			starts[d], sizes[d] = Value{b: b, v: it.v.v}, 1
		default:
			starts[d] = Int(0)
		}
	}
	return DynamicSlice(Value{b: b, v: x}, starts, sizes).Reshape(final...)
}
