package kernels

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// naiveGather is gather's definition: dst[i] = src[offset of iteration
// element lo+i].
func naiveGather(src []uint32, g *strided, lo, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		rem, off := lo+i, g.base
		for j := len(g.shape) - 1; j >= 0; j-- {
			off += rem % g.shape[j] * g.strides[j]
			rem /= g.shape[j]
		}
		out[i] = src[off]
	}
	return out
}

// TestGatherBroadcastRuns holds gather's row- and column-broadcast fast
// paths (and the general loop around them) to its definition for random
// shapes, bases, strides, block starts and lengths.
func TestGatherBroadcastRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]uint32, 4096)
	for i := range src {
		src[i] = uint32(i) * 2654435761
	}
	for it := range 20000 {
		rows, cols := 1+r.IntN(40), 1+r.IntN(40)
		var g strided
		switch it % 4 {
		case 0: // a row repeated down the matrix
			g = strided{shape: []int{rows, cols}, strides: []int{0, 1}}
		case 1: // a column repeated across it
			g = strided{shape: []int{rows, cols}, strides: []int{1 + r.IntN(3), 0}}
		case 2: // transposed
			g = strided{shape: []int{rows, cols}, strides: []int{1, rows}}
		default:
			g = strided{shape: []int{rows, cols}, strides: []int{r.IntN(3), r.IntN(3)}}
		}
		g.base = r.IntN(100)
		total := rows * cols
		lo := r.IntN(total)
		n := 1 + r.IntN(total-lo)
		if it%3 == 0 { // whole rows from a row start, as a reduction's chunks read
			lo = r.IntN(rows) * cols
			n = (1 + r.IntN(rows-lo/cols)) * cols
		}
		want := naiveGather(src, &g, lo, n)
		got := make([]uint32, n)
		gather[uint32](unsafe.Pointer(&got[0]), unsafe.Pointer(&src[0]), &g, lo, n)
		if !slices.Equal(got, want) {
			t.Fatalf("shape %v strides %v base %d lo %d n %d:\ngot  %v\nwant %v", g.shape, g.strides, g.base, lo, n, got, want)
		}
	}
}
