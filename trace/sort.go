package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// Sorting: the sort primitive (lax.sort) and jax.numpy's sort, argsort
// and lax.top_k built on it.
//
// The order is JAX's (its sort comparator canonicalizes floats): bool
// false < true, integers by value, floats ascending with −0 and +0 equal
// and every NaN, whatever its sign or payload, equal to the others and
// after +Inf; complex numbers lexicographically by (real, imag), each part
// in the float order. Several operands sort together: the first NumKeys
// are compared lexicographically (key 0 first) and the rest are payload,
// permuted the same way. Kiln always sorts stably — equal keys keep their
// order — whatever is_stable says (JAX's unstable sort may keep it too),
// so every backend gives the same bits.
//
// A program equation has one result, so lax.sort's n results are n sort
// equations over the same operands, each with its Params.Sort.Output;
// SortMany emits them all (lowering drops the unused ones). The CPU
// backend sorts such siblings once and moves each result by the kept
// permutation; OpenCL and the reference sort per equation.
//
// Argsort with Descending is jnp.argsort(descending=True): stable, so
// equal elements keep their order (the array and its iota are reversed,
// sorted ascending, and the indices reversed back), NaNs first. TopK is
// lax.top_k: along the last axis, the k largest in descending order, ties
// to the lower index, in XLA's total order for floats — NaN above +Inf,
// +0 above −0, −NaN below −Inf — with int32 indices.

// SortParams are the static parameters of a sort equation.
type SortParams struct {
	NumKeys int  // the leading operands compared, lexicographically (≥ 1)
	Stable  bool // lax.sort's is_stable; Kiln sorts stably either way
	Output  int  // which operand, permuted, is the equation's result
}

// String prints the parameters as the printers show them.
func (s SortParams) String() string {
	return fmt.Sprintf("num_keys=%d is_stable=%v output=%d", s.NumKeys, s.Stable, s.Output)
}

// SortOption configures Sort, Argsort.
type SortOption func(*sortOpts)

type sortOpts struct{ descending bool }

// Descending sorts from the largest element down (jnp.sort and
// jnp.argsort's descending=True).
func Descending() SortOption { return func(o *sortOpts) { o.descending = true } }

// SortMany is lax.sort(operands, dimension=axis, is_stable, num_keys): the
// operands, all of one shape, sorted together along axis by the first
// numKeys of them; it returns every operand permuted. Each result has its
// operand's type (weak flag included). With no operands it returns one
// Value holding the error.
func SortMany(operands []Value, axis, numKeys int, stable bool) []Value {
	out := make([]Value, len(operands))
	if len(operands) == 0 {
		return []Value{Failure(&OpError{Op: "sort", Pos: callerPos(), Err: fmt.Errorf("sort needs at least one operand")})}
	}
	for i := range operands {
		out[i] = sortOne("sort", operands, axis, numKeys, stable, i)
	}
	return out
}

// sortOne emits the sort equation whose result is operand out.
func sortOne(op string, xs []Value, axis, numKeys int, stable bool, out int) Value {
	if v, bad := zeroOperand(op, xs...); bad {
		return v
	}
	return operands(op, xs, func(b *builder, xs []Value) Value {
		vs := make([]*Var, len(xs))
		shapes := make([][]int, len(xs))
		for i, x := range xs {
			if vs[i] = b.materialize(x, op); vs[i] == nil {
				return Value{b: b}
			}
			shapes[i] = vs[i].Shape
		}
		shape := vs[0].Shape
		for _, v := range vs[1:] {
			if !ShapeEqual(v.Shape, shape) {
				return b.shapeErr(op, fmt.Sprintf("operands sorted together must have one shape, got %s", joinShapes(shapes)), shapes...)
			}
		}
		ax, ok := normAxis(axis, len(shape))
		if !ok {
			return b.shapeErr(op, fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(shape)), shape)
		}
		if numKeys < 1 || numKeys > len(vs) {
			return b.opErr(op, fmt.Errorf("num_keys %d with %d operands (want 1 ≤ num_keys ≤ %d)", numKeys, len(vs), len(vs)))
		}
		p := Params{Axis: ax, Sort: SortParams{NumKeys: numKeys, Stable: stable, Output: out}}
		return b.emit(OpSort, vs, vs[out].Type, shape, p, "")
	})
}

// sortAxis flattens x for AxisNone and normalizes axis.
func sortAxis(op string, b *builder, v *Var, axis int) (Value, int, bool) {
	xv := Value{b: b, v: v}
	if axis == AxisNone {
		xv, axis = xv.Reshape(-1), 0
	}
	s := xv.Shape()
	ax, ok := normAxis(axis, len(s))
	if !ok {
		b.shapeErr(op, fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(s)), s)
	}
	return xv, ax, ok
}

// Sort is jnp.sort(x, axis): x sorted along axis (AxisNone: the flattened
// x), ascending unless Descending (then the ascending sort, reversed, as
// JAX does). The result has x's type.
func Sort(x Value, axis int, opts ...SortOption) Value {
	o := sortOptions(opts)
	return unary("sort", x, func(b *builder, v *Var) Value {
		xv, ax, ok := sortAxis("sort", b, v, axis)
		if !ok {
			return Value{b: b}
		}
		s := sortOne("sort", []Value{xv}, ax, 1, true, 0)
		if o.descending {
			s = s.Flip(ax)
		}
		return s
	})
}

// Sort is Sort(x, axis, opts...).
func (x Value) Sort(axis int, opts ...SortOption) Value { return Sort(x, axis, opts...) }

// Argsort is jnp.argsort(x, axis) with stable=True: the indices that sort
// x along axis (AxisNone: of the flattened x), in the default int dtype
// (i64, i32 with X32). Descending is descending=True (equal elements keep
// their order, NaNs come first).
func Argsort(x Value, axis int, opts ...SortOption) Value {
	o := sortOptions(opts)
	return unary("argsort", x, func(b *builder, v *Var) Value {
		xv, ax, ok := sortAxis("argsort", b, v, axis)
		if !ok {
			return Value{b: b}
		}
		iota := Iota(b.cfg.DefaultInt(), xv.Shape(), ax)
		if o.descending {
			xv, iota = xv.Flip(ax), iota.Flip(ax)
		}
		idx := sortOne("argsort", []Value{xv, iota}, ax, 1, true, 1)
		if o.descending {
			idx = idx.Flip(ax)
		}
		return idx
	})
}

// Argsort is Argsort(x, axis, opts...).
func (x Value) Argsort(axis int, opts ...SortOption) Value { return Argsort(x, axis, opts...) }

// TopK is lax.top_k(x, k): the k largest elements along the last axis in
// descending order and their int32 indices; equal elements come lowest
// index first, and floats are in the total order (NaN largest, +0 above
// −0). x must be real and of rank ≥ 1 with at least k elements in its last
// axis.
func TopK(x Value, k int) (values, indices Value) {
	idx := unary("top_k", x, func(b *builder, v *Var) Value {
		s := v.Shape
		switch {
		case len(s) == 0:
			return b.shapeErr("top_k", "top_k needs an array of rank ≥ 1, not a scalar", s)
		case k < 0 || k > s[len(s)-1]:
			return b.shapeErr("top_k", fmt.Sprintf("k %d is out of range for the last axis of %s", k, shapeString(s)), s)
		case v.Type.DType.IsComplex():
			return b.dtypeErr("top_k", fmt.Sprintf("top_k of complex %s: complex numbers are not ordered", v.Type), v.Type)
		}
		ax := len(s) - 1
		key := descendingKey(Value{b: b, v: v})
		iota := Iota(tensor.I32, s, ax)
		return sortOne("top_k", []Value{key, iota}, ax, 1, true, 1).Slice(ax, 0, k, 1)
	})
	if idx.Err() != nil {
		return idx, idx
	}
	return TakeAlongAxis(x, idx, -1, WithMode(ModeClip)), idx
}

// descendingKey maps x to an integer (or bool) key whose ascending order is
// x's descending total order.
func descendingKey(x Value) Value {
	d := x.DType()
	if !d.IsFloat() {
		return x.Not() // bool: true first; ints: ^x = −x−1 (signed), max−x (unsigned)
	}
	if d.IsNarrow() { // exact in f32, whose order is the same
		x, d = x.Astype(tensor.F32), tensor.F32
	}
	var it tensor.DType
	switch d.Bits() {
	case 16:
		it = tensor.I16
	case 32:
		it = tensor.I32
	default:
		it = tensor.I64
	}
	bits := x.BitcastConvert(it)
	// The total order of the bits as a signed integer is t = bits for bits
	// ≥ 0 and bits ^ MaxInt below; the key is ^t: ^bits, or bits with the
	// sign bit cleared.
	maxInt := Int(int64(1)<<(it.Bits()-1) - 1)
	return Where(bits.Lt(Int(0)), bits.And(maxInt), bits.Not())
}

func sortOptions(opts []SortOption) sortOpts {
	var o sortOpts
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// checkSort: operands of one shape, NumKeys and Output in range, Axis a
// dim, the result operand Output's type and shape.
func checkSort(op Op, args []Abstract, out Abstract, p *Params) error {
	if len(args) == 0 {
		return fault(CheckParams, "sort of no operands")
	}
	shape := args[0].Shape
	for i, a := range args[1:] {
		if err := sameShape(fmt.Sprintf("operand %d", i+1), a.Shape, shape); err != nil {
			return err
		}
	}
	s := p.Sort
	switch {
	case p.Axis < 0 || p.Axis >= len(shape):
		return fault(CheckParams, "sort axis %d of a rank-%d operand", p.Axis, len(shape))
	case s.NumKeys < 1 || s.NumKeys > len(args):
		return fault(CheckParams, "num_keys %d with %d operands", s.NumKeys, len(args))
	case s.Output < 0 || s.Output >= len(args):
		return fault(CheckParams, "output %d of %d operands", s.Output, len(args))
	}
	if err := sameType("the result", out.Type, args[s.Output].Type); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, shape)
}
