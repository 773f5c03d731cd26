package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// TestOuterProductZeros: a product with one contracting step (vmap's
// per-example weight gradients are such outer products) gives the
// in-order FMA definition's bits — an exact zero product is +0 (fma(a, b,
// +0)), a product that underflows keeps its sign, infinities times zeros
// are NaN — on every tier, for strided and contiguous operands, batched
// and split. (A multiply-then-add-zero shortcut fails it: it makes the
// underflowed −0 a +0.)
func TestOuterProductZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	specials := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), 5e-324, -3e38, 1e-40}
	fill32 := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			if rng.IntN(3) == 0 {
				x[i] = float32(specials[rng.IntN(len(specials))])
			} else {
				x[i] = float32(rng.NormFloat64())
			}
		}
		return x
	}
	fill64 := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			if rng.IntN(3) == 0 {
				x[i] = specials[rng.IntN(len(specials))]
			} else {
				x[i] = rng.NormFloat64()
			}
		}
		return x
	}
	zeros := 0
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range [][2]int{{1, 1}, {7, 3}, {13, 40}, {64, 128}, {30, 1100}} {
			for _, tr := range [][2]bool{{false, false}, {true, true}} {
				for _, parts := range []int{0, 2, 5} {
					for _, batch := range []int{1, 4} {
						name := fmt.Sprintf("%v %dx%d trans=%v parts=%d batch=%d", tier, s[0], s[1], tr, parts, batch)
						g32 := laidOut(batch, s[0], s[1], 1, tr[0], tr[1], 3, fill32)
						want32 := naive(g32, numerics.FMA32)
						for _, w := range want32 {
							if w == 0 {
								zeros++
							}
						}
						verify(t, name+" f32", g32, g32.C, want32, parts)
						g64 := laidOut(batch, s[0], s[1], 1, tr[0], tr[1], 3, fill64)
						verify(t, name+" f64", g64, g64.C, naive(g64, math.FMA), parts)
					}
				}
			}
		}
		restore()
	}
	if zeros == 0 {
		t.Fatal("no zero product was checked")
	}
}

// TestOuterProductStrided: a product with one contracting step whose a
// column and b row are not contiguous (a read every RowA, b every ColB:
// gathered before the outer-product kernel runs) gives the definition's
// bits too, with c's row gaps untouched, whole and split, on every tier;
// a tall one takes several row blocks.
func TestOuterProductStrided(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			if rng.IntN(4) == 0 {
				x[i] = float32(math.Copysign(0, -1))
			}
		}
		return x
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range [][2]int{{1, 1}, {5, 17}, {40, 33}, {3000, 24}} {
			for _, rowA := range []int{1, 3} {
				for _, colB := range []int{1, 2} {
					for _, parts := range []int{0, 2, 5} {
						m, n, batch := s[0], s[1], 2
						g := &Call[float32]{Batch: batch, M: m, N: n, K: 1,
							A: fill(batch * m * rowA), BatchA: m * rowA, RowA: rowA, ColA: 1,
							B: fill(batch * n * colB), BatchB: n * colB, RowB: n * colB, ColB: colB,
							LDC: n + 2}
						g.BatchC = m * g.LDC
						g.C = fill(batch * g.BatchC)
						name := fmt.Sprintf("%v %dx%d rowA=%d colB=%d parts=%d", tier, m, n, rowA, colB, parts)
						verify(t, name, g, g.C, naive(g, numerics.FMA32), parts)
					}
				}
			}
		}
		restore()
	}
}
