package progen

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/trace"
)

// Steps of sorting: sort, argsort (both directions), top_k's values or
// indices, and lax.sort of the value with another of its shape (one or
// two keys, either result). Variants that build on other ops are drawn
// only when those ops are allowed.

const (
	sortSort = iota
	sortArgsort
	sortTopKValues
	sortTopKIndices
	sortMany
	numSortVariants
)

// sortNeeds are the ops each variant emits besides sort.
var sortNeeds = [numSortVariants][]trace.Op{
	sortSort:        nil,
	sortArgsort:     {trace.OpIota},
	sortTopKValues:  {trace.OpIota, trace.OpSlice, trace.OpGather, trace.OpNot, trace.OpBitcastConvert, trace.OpLt, trace.OpAnd, trace.OpSelect, trace.OpIsNaN},
	sortTopKIndices: {trace.OpIota, trace.OpSlice, trace.OpNot, trace.OpBitcastConvert, trace.OpLt, trace.OpAnd, trace.OpSelect, trace.OpIsNaN},
	sortMany:        nil,
}

// pickSort fills a sort step drawn for the value s.args[0]: s.n is the
// variant, s.axis the axis, s.swap descending, s.start k (top_k) or the
// number of keys, s.stop the result (lax.sort), s.oneNaN whether top_k's
// operand has its NaNs made one NaN first.
//
// top_k orders floats by XLA's total order, in which a NaN's sign counts
// (−NaN below −Inf); sort and lax.sort treat every NaN alike. The sign of
// a NaN an op computes is not part of the contract — a dot product's
// summation order picks which NaN it propagates, so the fused GEMM and the
// reference may differ there, as XLA's backends do — so top_k of a
// computed float runs on where(isnan(x), NaN, x). Inputs keep their NaNs,
// payloads and signs included, so top_k's order of them is still checked.
func (g *gen) pickSort(s step) (step, bool) {
	r := g.r
	a := s.args[0].ref
	t, shape := g.types[a], g.shapes[a]
	if len(shape) == 0 {
		return s, false
	}
	s.n = int64(r.Intn(numSortVariants))
	for _, op := range sortNeeds[s.n] {
		if !g.ops[op] {
			return s, false
		}
	}
	s.axis = r.Intn(len(shape)) - r.Intn(2)*len(shape)
	s.swap = r.Intn(3) == 0 && g.ops[trace.OpRev]
	switch s.n {
	case sortTopKValues, sortTopKIndices:
		if t.DType.IsComplex() {
			return s, false
		}
		s.start = r.Intn(shape[len(shape)-1] + 1)
		if t.DType.IsFloat() && a >= len(g.c.Inputs) {
			s.oneNaN = true
		}
	case sortMany:
		var same []int
		for i, sh := range g.shapes {
			if trace.ShapeEqual(sh, shape) {
				same = append(same, i)
			}
		}
		s.args = append(s.args, operand{ref: same[r.Intn(len(same))]})
		s.start, s.stop = 1+r.Intn(2), r.Intn(2)
	}
	return s, true
}

func (s *step) applySort(vals []trace.Value) trace.Value {
	a := s.args[0].value(vals)
	var opts []trace.SortOption
	if s.swap {
		opts = append(opts, trace.Descending())
	}
	switch s.n {
	case sortSort:
		return trace.Sort(a, s.axis, opts...)
	case sortArgsort:
		return trace.Argsort(a, s.axis, opts...)
	case sortTopKValues, sortTopKIndices:
		if s.oneNaN {
			a = trace.Where(a.IsNaN(), trace.Float(math.NaN()), a)
		}
		v, i := trace.TopK(a, s.start)
		if s.n == sortTopKValues {
			return v
		}
		return i
	}
	return trace.SortMany([]trace.Value{a, s.args[1].value(vals)}, s.axis, s.start, s.swap)[s.stop]
}

func (s *step) sortString(args []string) string {
	switch s.n {
	case sortSort, sortArgsort:
		return fmt.Sprintf("%s(%s, axis=%d, descending=%v)", []string{"sort", "argsort"}[s.n], args[0], s.axis, s.swap)
	case sortTopKValues, sortTopKIndices:
		a := args[0]
		if s.oneNaN {
			a = fmt.Sprintf("where(isnan(%s), NaN, %s)", a, a)
		}
		return fmt.Sprintf("top_k(%s, %d)[%d]", a, s.start, s.n-sortTopKValues)
	}
	return fmt.Sprintf("lax.sort((%s, %s), dimension=%d, num_keys=%d, is_stable=%v)[%d]", args[0], args[1], s.axis, s.start, s.swap, s.stop)
}
