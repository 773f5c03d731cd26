package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewConvTwoLayoutsSameOperands: two 0-D convolutions of the same
// operands that differ only in the output layout ("CN" then "NC") are two
// different results, the second the transpose of the first; the fused
// pipeline must not give the second the first's layout. Found by
// TestVmapProperty -vmap.seed=731008031.
func TestReviewConvTwoLayoutsSameOperands(t *testing.T) {
	f := func(x, w kiln.Value) []kiln.Value {
		cn := kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{DimensionNumbers: [3]string{"NC", "OI", "CN"}, FeatureGroupCount: 3})
		nc := kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{DimensionNumbers: [3]string{"NC", "OI", "NC"}, FeatureGroupCount: 3})
		return []kiln.Value{cn, nc}
	}
	x := tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3))
	w := tensor.Must(tensor.FromSlice([]float32{1, 10, 100}, 3, 1))
	for _, opts := range [][]kiln.Option{nil, {kiln.NoFusion()}} {
		got, err := kiln.Jit(f, opts...).RunAll(x, w)
		if err != nil {
			t.Fatal(err)
		}
		// out[n][c] = x[n][c] * w[c]; "CN" is its transpose.
		nc := []float32{1, 20, 300, 4, 50, 600, 7, 80, 900}
		cn := []float32{1, 4, 7, 20, 50, 80, 300, 600, 900}
		equalArrays(t, "CN", got[0], tensor.Must(tensor.FromSlice(cn, 3, 3)))
		equalArrays(t, "NC", got[1], tensor.Must(tensor.FromSlice(nc, 3, 3)))
	}
}
