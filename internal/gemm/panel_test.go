package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// rowStride, for every k block up to the largest KC and both element
// sizes, gives rows that start on whole cache lines, never a multiple of
// 2 KiB apart (they would share one L1 set), and fit the a workspace's
// halfSlack elements of padding per row.
func TestRowStride(t *testing.T) {
	for _, size := range []int{4, 8} {
		line := 64 / size
		for kb := 1; kb <= 1024; kb++ {
			st := rowStride(kb, size)
			if st < kb || st%line != 0 || st*size%2048 == 0 || st-kb > halfSlack {
				t.Fatalf("size %d, kb %d: row stride %d", size, kb, st)
			}
		}
	}
}

// TestGemmRowPanels: at every tier, every bottom edge (1 to 12 rows, on
// the AVX-512 kernels' 4- and 8-row forms in place or through their
// tile) of an a stored row-major with a row stride that is or is not a
// multiple of 2 or 4 KiB (copied row by row into a rowStride panel, or
// read in place), or column-major with such a column stride, with k
// blocks whose panel stride rowStride moves off 2 KiB (490 f32 and 245 f64
// steps, alone or after a whole KC block), binary16 a, concurrent parts —
// and products past NC (f32, f64, binary16), whose finished blocks are
// parts of rows: all bit-identical to the in-order FMA definition.
func TestGemmRowPanels(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		kc32, nc32 := blocking(kernel[float32]())
		kc64, nc64 := blocking(kernel[float64]())
		for r := 1; r <= 12; r++ {
			m := r + 12*(r%2)
			lay, parts := r%4, []int{0, 2, 3}[r%3]
			k32, k64 := 490, 245
			if r%3 == 0 {
				k32, k64 = kc32+490, kc64+245
			}
			name := fmt.Sprintf("%v m=%d layout=%d parts=%d", tier, m, lay, parts)
			check(t, name+" f32", withA[float32](rng, m, 40, k32, lay), numerics.FMA32, parts)
			check(t, name+" f64", withA[float64](rng, m, 40, k64, lay), math.FMA, parts)
			if lay == 0 || lay == 3 {
				g := problem16(rng, 1, m, 40, k32, lay/3, 0, "a")
				checkFinished(t, name+" f16 a", g, naive16(g), max(parts, 1))
			}
		}
		for i, s := range [][3]int{{13, nc32 + 37, 3}, {9, nc64 + 17, 5}} {
			for _, parts := range []int{1, 2} {
				name := fmt.Sprintf("%v %v past NC parts=%d", tier, s, parts)
				g := problem[float32](rng, 1, s[0], s[1], s[2], i == 1, i == 1)
				checkFinished(t, name+" f32", g, naive(g, numerics.FMA32), parts)
				check(t, name+" f64", problem[float64](rng, 1, s[0], s[1], s[2], i == 1, i == 1), math.FMA, parts)
				g = problem16(rng, 1, s[0], s[1], s[2], i, i, "ab")
				checkFinished(t, name+" f16", g, naive16(g), parts)
			}
		}
		restore()
	}
}

// withA is a two-batch m×n×k call whose a is laid out as lay: 0 row-major,
// rows contiguous; 1 row-major, rows 2 KiB (or the next multiple of 2 KiB
// past k) apart; 2 likewise 4 KiB; 3 column-major, columns 2 KiB apart.
func withA[T Float](rng *rand.Rand, m, n, k, lay int) *Call[T] {
	g := problem[T](rng, 2, m, n, k, false, false)
	per := 2048 / int(unsafe.Sizeof(T(0)))
	stride := k
	switch lay {
	case 1:
		stride = (k + per - 1) / per * per
	case 2:
		stride = (k + 2*per - 1) / (2 * per) * (2 * per)
	case 3:
		stride = (m + per - 1) / per * per
	}
	rows := m
	if lay == 3 {
		rows = k
	}
	g.A, g.BatchA = make([]T, 2*rows*stride), rows*stride
	for i := range g.A {
		g.A[i] = T(rng.NormFloat64())
	}
	g.RowA, g.ColA = stride, 1
	if lay == 3 {
		g.RowA, g.ColA = 1, stride
	}
	return g
}
