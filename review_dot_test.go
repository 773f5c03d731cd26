package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewVmapDotPreferred: dot_general with batch dims of its own and
// a preferred element type (i8 · i8 accumulated in i32; bf16 in f32),
// beside the same product without it, batched on either side, per
// example — the batching rule keeps the preferred type, and the two
// products stay two.
func TestReviewVmapDotPreferred(t *testing.T) {
	a := make([]int8, 2*2*3*4)
	b := make([]int8, 2*2*4*2)
	for i := range a {
		a[i] = int8(i*37%255 - 127)
	}
	for i := range b {
		b[i] = int8(i*53%255 - 127)
	}
	A := tensor.Must(tensor.FromSlice(a, 2, 2, 3, 4)) // batch 2, then [2,3,4]
	B := tensor.Must(tensor.FromSlice(b, 2, 2, 4, 2)) // batch 2, then [2,4,2]
	dims := kiln.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}
	f := func(x, y kiln.Value) []kiln.Value {
		return []kiln.Value{
			kiln.DotGeneral(x, y, dims, kiln.PreferredElementType(tensor.I32)),
			kiln.DotGeneral(x, y, dims),
			kiln.DotGeneral(x.Astype(tensor.BF16), y.Astype(tensor.BF16), dims, kiln.PreferredElementType(tensor.F32)),
			kiln.DotGeneral(x.Astype(tensor.BF16), y.Astype(tensor.BF16), dims),
		}
	}
	reviewPerExample(t, "both batched", f, []int{0, 0}, nil, A, B)
	reviewPerExample(t, "lhs batched on 2", f, []int{2, kiln.NoAxis}, nil, moveAxisArray(t, A, 0, 2), takeAxis(B, 0, 1))
	reviewPerExample(t, "rhs batched on -1", f, []int{kiln.NoAxis, -1}, nil, takeAxis(A, 0, 0), moveAxisArray(t, B, 0, 3))
}
