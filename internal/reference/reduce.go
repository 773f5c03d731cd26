package reference

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Reductions. Each result element reduces one group: the operand elements
// that share its kept indices, listed in row-major order of the reduced
// axes (kernels/doc.go's x[0], …, x[n−1]).

// reduceGroups returns the groups of a reduction of shape over axes, one
// per result element in row-major order of the kept axes.
func reduceGroups(shape, axes []int) [][]int {
	reduced := make([]bool, len(shape))
	for _, a := range axes {
		reduced[a] = true
	}
	var keptAxes, keptShape, redAxes, redShape []int
	for i, d := range shape {
		if reduced[i] {
			redAxes, redShape = append(redAxes, i), append(redShape, d)
		} else {
			keptAxes, keptShape = append(keptAxes, i), append(keptShape, d)
		}
	}
	st := strides(shape)
	var groups [][]int
	forEach(keptShape, func(k []int) {
		base := 0
		for i, a := range keptAxes {
			base += k[i] * st[a]
		}
		g := []int{}
		forEach(redShape, func(r []int) {
			flat := base
			for i, a := range redAxes {
				flat += r[i] * st[a]
			}
			g = append(g, flat)
		})
		groups = append(groups, g)
	})
	return groups
}

// reducedShape drops the reduced axes, or keeps them as 1 with keepDims.
func reducedShape(shape, axes []int, keepDims bool) []int {
	out := []int{}
	for i, d := range shape {
		switch {
		case !contains(axes, i):
			out = append(out, d)
		case keepDims:
			out = append(out, 1)
		}
	}
	return out
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// reduce evaluates reduce_sum/prod/max/min and argmax/argmin.
func reduce(e *trace.Eqn, x *tensor.Array) (*tensor.Array, error) {
	p := e.Params
	in := x.Shape()
	for i, a := range p.Axes {
		if a < 0 || a >= len(in) || (i > 0 && a <= p.Axes[i-1]) {
			return nil, fmt.Errorf("axes %v are not sorted, unique axes of %v", p.Axes, in)
		}
	}
	groups := reduceGroups(in, p.Axes)
	shape := reducedShape(in, p.Axes, p.KeepDims)
	if e.Op == trace.OpArgMax || e.Op == trace.OpArgMin {
		if len(p.Axes) != 1 || !p.DType.Valid() || !p.DType.IsInteger() {
			return nil, fmt.Errorf("%s wants one axis and an integer index dtype, got axes %v and %v", e.Op, p.Axes, p.DType)
		}
		idx, err := argReduce(e.Op, widen(x), groups)
		if err != nil {
			return nil, err
		}
		a, err := tensor.New(tensor.I64, shape, idx) // FromSlice would make an empty shape 1-D
		if err != nil {
			return nil, err
		}
		return a.Astype(p.DType), nil
	}
	res, err := reduceValues(e.Op, widen(x), groups)
	if err != nil {
		return nil, err
	}
	// An f16 or bf16 operand was reduced in float32; narrow rounds once.
	return narrow(res, x.DType(), shape)
}

// reducer describes one reduction on compute values of type T.
type reducer[T any] struct {
	op    func(a, b T) T
	tree  bool // sum and prod follow the fixed tree; max and min fold left
	empty T    // the result of reducing nothing
	hasID bool // whether reducing nothing is defined (not for max and min)
	// startAtZero: a sum is +0 ⊕ tree, so a sum of −0s is +0 (as NumPy and
	// XLA's reduce from 0 give); see kernels/doc.go.
	startAtZero bool
}

func reduceValues(op trace.Op, x any, groups [][]int) (any, error) {
	switch x := x.(type) {
	case []bool:
		return reduceWith(x, groups, boolReducer(op))
	case []uint8:
		return reduceWith(x, groups, intReducer[uint8](op))
	case []uint16:
		return reduceWith(x, groups, intReducer[uint16](op))
	case []uint32:
		return reduceWith(x, groups, intReducer[uint32](op))
	case []uint64:
		return reduceWith(x, groups, intReducer[uint64](op))
	case []int8:
		return reduceWith(x, groups, intReducer[int8](op))
	case []int16:
		return reduceWith(x, groups, intReducer[int16](op))
	case []int32:
		return reduceWith(x, groups, intReducer[int32](op))
	case []int64:
		return reduceWith(x, groups, intReducer[int64](op))
	case []float32:
		return reduceWith(x, groups, floatReducer[float32](op))
	case []float64:
		return reduceWith(x, groups, floatReducer[float64](op))
	case []cpx[float32]:
		return reduceWith(x, groups, complexReducer[float32](op))
	case []cpx[float64]:
		return reduceWith(x, groups, complexReducer[float64](op))
	}
	return nil, fmt.Errorf("%s of %T", op, x)
}

func boolReducer(op trace.Op) reducer[bool] {
	or := func(a, b bool) bool { return a || b }
	and := func(a, b bool) bool { return a && b }
	switch op {
	case trace.OpReduceSum:
		return reducer[bool]{op: or, tree: true, hasID: true}
	case trace.OpReduceProd:
		return reducer[bool]{op: and, tree: true, empty: true, hasID: true}
	case trace.OpReduceMax:
		return reducer[bool]{op: or}
	case trace.OpReduceMin:
		return reducer[bool]{op: and}
	}
	return reducer[bool]{}
}

func intReducer[T integer](op trace.Op) reducer[T] {
	switch op {
	case trace.OpReduceSum:
		return reducer[T]{op: func(a, b T) T { return a + b }, tree: true, hasID: true}
	case trace.OpReduceProd:
		return reducer[T]{op: func(a, b T) T { return a * b }, tree: true, empty: 1, hasID: true}
	case trace.OpReduceMax:
		return reducer[T]{op: func(a, b T) T { return max(a, b) }}
	case trace.OpReduceMin:
		return reducer[T]{op: func(a, b T) T { return min(a, b) }}
	}
	return reducer[T]{}
}

func floatReducer[T float](op trace.Op) reducer[T] {
	switch op {
	case trace.OpReduceSum:
		return reducer[T]{op: func(a, b T) T { return T(a + b) }, tree: true, hasID: true, startAtZero: true} // empty: +0
	case trace.OpReduceProd:
		return reducer[T]{op: func(a, b T) T { return T(a * b) }, tree: true, empty: 1, hasID: true}
	case trace.OpReduceMax:
		return reducer[T]{op: ieeeMaximum[T]}
	case trace.OpReduceMin:
		return reducer[T]{op: ieeeMinimum[T]}
	}
	return reducer[T]{}
}

func complexReducer[F float](op trace.Op) reducer[cpx[F]] {
	switch op {
	case trace.OpReduceSum:
		return reducer[cpx[F]]{op: cadd[F], tree: true, hasID: true, startAtZero: true}
	case trace.OpReduceProd:
		return reducer[cpx[F]]{op: cmul[F], tree: true, empty: cpx[F]{1, 0}, hasID: true}
	}
	return reducer[cpx[F]]{} // complex numbers have no order
}

func reduceWith[T any](x []T, groups [][]int, r reducer[T]) ([]T, error) {
	if r.op == nil {
		return nil, fmt.Errorf("the reduction is not defined for %T", x)
	}
	out := make([]T, len(groups))
	var vals []T
	for o, g := range groups {
		vals = vals[:0]
		for _, j := range g {
			vals = append(vals, x[j])
		}
		switch {
		case len(vals) == 0 && !r.hasID:
			return nil, fmt.Errorf("max and min of no elements are undefined")
		case len(vals) == 0:
			out[o] = r.empty
		case r.tree && r.startAtZero:
			out[o] = r.op(r.empty, treeReduce(vals, r.op))
		case r.tree:
			out[o] = treeReduce(vals, r.op)
		default:
			acc := vals[0]
			for _, v := range vals[1:] {
				acc = r.op(acc, v) // a NaN acc stays: the first NaN wins
			}
			out[o] = acc
		}
	}
	return out, nil
}

// leafSize is the number of values of a leaf of the summation tree.
const leafSize = 128

// treeReduce combines x (at least one value) along kernels/doc.go's fixed
// tree: leaves of 128 values in order, combined by T(lo, n) = leaf lo when
// n = 1, else T(lo, p) ⊕ T(lo+p, n−p) with p the largest power of two
// below n.
func treeReduce[T any](x []T, op func(a, b T) T) T {
	var node func(lo, n int) T
	node = func(lo, n int) T {
		if n == 1 {
			return leafReduce(x[lo*leafSize:min((lo+1)*leafSize, len(x))], op)
		}
		p := 1
		for 2*p < n {
			p *= 2
		}
		return op(node(lo, p), node(lo+p, n-p))
	}
	return node(0, (len(x)+leafSize-1)/leafSize)
}

// leafReduce combines one leaf of m ≥ 1 values: a left fold for m < 8;
// otherwise eight lane accumulators r[j] = x[j], r[j] ⊕= x[8i+j] for each
// further full group of eight, combined as ((r0⊕r1)⊕(r2⊕r3)) ⊕
// ((r4⊕r5)⊕(r6⊕r7)), then the m mod 8 values left over folded in, left to
// right. The backends share internal/numerics.SumLeaf; this definition is
// the reference's own on purpose (package doc).
func leafReduce[T any](x []T, op func(a, b T) T) T {
	if len(x) < 8 {
		acc := x[0]
		for _, v := range x[1:] {
			acc = op(acc, v)
		}
		return acc
	}
	var r [8]T
	copy(r[:], x[:8])
	i := 8
	for ; i+8 <= len(x); i += 8 {
		for j := range r {
			r[j] = op(r[j], x[i+j])
		}
	}
	acc := op(op(op(r[0], r[1]), op(r[2], r[3])), op(op(r[4], r[5]), op(r[6], r[7])))
	for ; i < len(x); i++ {
		acc = op(acc, x[i])
	}
	return acc
}

// argReduce returns, per group, the position of the first maximum (argmax)
// or minimum (argmin) within it. A NaN counts as the extreme and the first
// NaN wins; −0 and +0 are equal, so the first of them wins; true > false.
func argReduce(op trace.Op, x any, groups [][]int) ([]int64, error) {
	switch x := x.(type) {
	case []bool:
		return argWith(op, x, groups, func(a, b bool) bool { return b2i(a) > b2i(b) }, nil)
	case []uint8:
		return argWith(op, x, groups, greater[uint8], nil)
	case []uint16:
		return argWith(op, x, groups, greater[uint16], nil)
	case []uint32:
		return argWith(op, x, groups, greater[uint32], nil)
	case []uint64:
		return argWith(op, x, groups, greater[uint64], nil)
	case []int8:
		return argWith(op, x, groups, greater[int8], nil)
	case []int16:
		return argWith(op, x, groups, greater[int16], nil)
	case []int32:
		return argWith(op, x, groups, greater[int32], nil)
	case []int64:
		return argWith(op, x, groups, greater[int64], nil)
	case []float32:
		return argWith(op, x, groups, greater[float32], func(v float32) bool { return v != v })
	case []float64:
		return argWith(op, x, groups, greater[float64], func(v float64) bool { return v != v })
	}
	return nil, fmt.Errorf("%s of %T: complex numbers have no order", op, x)
}

func greater[T integer | float](a, b T) bool { return a > b }

// argWith scans each group once, keeping the first extreme: a later value
// replaces it only when strictly beyond it (gt for argmax, reversed for
// argmin) or when it is the first NaN.
func argWith[T any](op trace.Op, x []T, groups [][]int, gt func(a, b T) bool, isNaN func(T) bool) ([]int64, error) {
	if isNaN == nil {
		isNaN = func(T) bool { return false }
	}
	beyond := gt
	if op == trace.OpArgMin {
		beyond = func(a, b T) bool { return gt(b, a) }
	}
	out := make([]int64, len(groups))
	for o, g := range groups {
		if len(g) == 0 {
			return nil, fmt.Errorf("%s of no elements is undefined", op)
		}
		best := 0
		for k := 1; k < len(g) && !isNaN(x[g[best]]); k++ {
			if v := x[g[k]]; isNaN(v) || beyond(v, x[g[best]]) {
				best = k
			}
		}
		out[o] = int64(best)
	}
	return out, nil
}
