package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A complex dot_general with both operands stored transposed (aᵀ·bᵀ)
// reads them in place through their strides on the complex GEMM: no
// gather copy of either.
func TestComplexDotReadsInPlace(t *testing.T) {
	for _, d := range []tensor.DType{tensor.C64, tensor.C128} {
		fn := func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}})}
		}
		x := compileMatrices(t, fn, [2]int{7, 5}, d, [2]int{3, 7}, d)
		dot := dotKernelOf(t, d.String(), x)
		if dot.lhs.gather != nil || dot.rhs.gather != nil {
			t.Errorf("%v: transposed operands gathered (lhs %v, rhs %v), want read in place", d, dot.lhs.gather != nil, dot.rhs.gather != nil)
		}
		if dot.lhs.strides != [3]int{0, 1, 5} || dot.rhs.strides != [3]int{0, 1, 7} {
			t.Errorf("%v: strides lhs %v rhs %v, want [0 1 5] and [0 1 7]", d, dot.lhs.strides, dot.rhs.strides)
		}
	}
}
