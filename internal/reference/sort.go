package reference

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// sortOp is lax.sort's result Params.Sort.Output: every row along
// Params.Axis is ordered, stably, by the first NumKeys operands compared
// lexicographically, in JAX's order (trace/sort.go): floats with −0 = +0
// and every NaN equal and last, complex by (real, imag), bool false first.
// The result's elements are the chosen operand's, moved bit for bit.
func sortOp(p trace.Params, args []*tensor.Array) (*tensor.Array, error) {
	s := p.Sort
	if len(args) == 0 || s.NumKeys < 1 || s.NumKeys > len(args) || s.Output < 0 || s.Output >= len(args) {
		return nil, fmt.Errorf("sort of %d operands with num_keys %d, output %d", len(args), s.NumKeys, s.Output)
	}
	shape := args[0].Shape()
	for _, a := range args {
		if !slices.Equal(a.Shape(), shape) {
			return nil, fmt.Errorf("sort operands of shapes %v and %v", shape, a.Shape())
		}
	}
	if p.Axis < 0 || p.Axis >= len(shape) {
		return nil, fmt.Errorf("sort axis %d of shape %v", p.Axis, shape)
	}
	keys := make([]func(i, j int) int, s.NumKeys)
	for k := range keys {
		keys[k] = comparer(args[k])
	}
	n, stride := shape[p.Axis], strides(shape)[p.Axis]
	total := trace.ShapeSize(shape)
	idx := make([]int, total)
	row := make([]int, n)
	for base := range total {
		if (base/stride)%n != 0 {
			continue // not the first element of a row
		}
		for r := range row {
			row[r] = base + r*stride
		}
		slices.SortStableFunc(row, func(i, j int) int {
			for _, c := range keys {
				if o := c(i, j); o != 0 {
					return o
				}
			}
			return 0
		})
		for r, from := range row {
			idx[base+r*stride] = from
		}
	}
	out := args[s.Output]
	return gather(out.DType(), shape, []*tensor.Array{out}, nil, idx)
}

// comparer compares elements i and j of a (flat indices) in sort order.
func comparer(a *tensor.Array) func(i, j int) int {
	switch x := widen(a).(type) {
	case []bool:
		return func(i, j int) int { return cmp.Compare(b2i(x[i]), b2i(x[j])) }
	case []int8:
		return ordered(x)
	case []int16:
		return ordered(x)
	case []int32:
		return ordered(x)
	case []int64:
		return ordered(x)
	case []uint8:
		return ordered(x)
	case []uint16:
		return ordered(x)
	case []uint32:
		return ordered(x)
	case []uint64:
		return ordered(x)
	case []float32:
		return func(i, j int) int { return floatOrder(x[i], x[j]) }
	case []float64:
		return func(i, j int) int { return floatOrder(x[i], x[j]) }
	case []cpx[float32]:
		return func(i, j int) int { return complexOrder(x[i], x[j]) }
	case []cpx[float64]:
		return func(i, j int) int { return complexOrder(x[i], x[j]) }
	}
	panic(fmt.Sprintf("reference: sort of %s", a.DType()))
}

func ordered[T integer](x []T) func(i, j int) int {
	return func(i, j int) int { return cmp.Compare(x[i], x[j]) }
}

// floatOrder is JAX's sort order: −0 = +0, NaNs equal to each other and
// after everything else.
func floatOrder[T float](a, b T) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func complexOrder[F float](a, b cpx[F]) int {
	if o := floatOrder(a.re, b.re); o != 0 {
		return o
	}
	return floatOrder(a.im, b.im)
}
