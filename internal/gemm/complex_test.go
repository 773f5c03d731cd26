package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// cnaive is the definition: each element from +0, l in order, each
// product NumPy's complex multiply (every product, difference and sum
// rounded) added part by part.
func cnaive[T Float](g *CCall[T]) []T {
	c := append([]T(nil), g.C...)
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				var sr, si T
				for l := range g.K {
					ia, ib := 2*(b*g.BatchA+i*g.RowA+l*g.ColA), 2*(b*g.BatchB+l*g.RowB+j*g.ColB)
					ar, ai, br, bi := g.A[ia], g.A[ia+1], g.B[ib], g.B[ib+1]
					sr += T(T(ar*br) - T(ai*bi))
					si += T(T(ar*bi) + T(ai*br))
				}
				o := 2 * (b*g.BatchC + i*g.LDC + j)
				c[o], c[o+1] = sr, si
			}
		}
	}
	return c
}

// cproblem builds a batched complex call: transA and transB store the
// operands column-major, c has a row stride past n (its gaps must stay
// untouched). val draws each part.
func cproblem[T Float](val func() float64, batch, m, n, k int, transA, transB bool) *CCall[T] {
	return (*CCall[T])(laidOut(batch, m, n, k, transA, transB, 3, func(n int) []T {
		x := make([]T, 2*n) // n complex elements
		for i := range x {
			x[i] = T(val())
		}
		return x
	}))
}

func ccheck[T Float](t *testing.T, name string, g *CCall[T], parts int) {
	t.Helper()
	verify(t, name, g, g.C, cnaive(g), parts)
}

// The complex product at every tier against its definition, bit for bit:
// sizes around the tiles and blocks (1, primes, k past KC, n past NC, k
// = 0), transposed operands, batches and concurrent parts; and, on short
// sums of ±0, ±1, ±Inf and NaN, the signed zeros and NaNs that the
// non-FMA order decides.
func TestGemmComplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	normal := func() float64 {
		if rng.IntN(2000) == 0 {
			return math.Inf(1 - 2*rng.IntN(2))
		}
		return rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
	}
	special := func() float64 {
		return []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(8)]
	}
	sizes := [][3]int{{1, 1, 1}, {1, 7, 3}, {13, 1, 5}, {4, 32, 1}, {8, 64, 9}, {37, 53, 41}, {5, 97, 600}, {130, 70, 0}, {9, 400, 20}, {3, 170, 200},
		{5, 700, 3}, {6, 40, 800}} // past the blocks of the L1/2 and 4·L2 blocking (c64 KC 768, NC 672 on AVX-512)
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range sizes {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, parts := range []int{0, 2, 3} {
					for _, batch := range []int{1, 3} {
						name := fmt.Sprintf("%v %dx%dx%d trans=%v parts=%d batch=%d", tier, s[0], s[1], s[2], tr, parts, batch)
						ccheck(t, name+" c64", cproblem[float32](normal, batch, s[0], s[1], s[2], tr[0], tr[1]), parts)
						ccheck(t, name+" c128", cproblem[float64](normal, batch, s[0], s[1], s[2], tr[0], tr[1]), parts)
					}
				}
			}
		}
		for _, k := range []int{1, 2, 3} {
			for _, parts := range []int{0, 2} {
				name := fmt.Sprintf("%v specials k=%d parts=%d", tier, k, parts)
				ccheck(t, name+" c64", cproblem[float32](special, 2, 11, 37, k, false, false), parts)
				ccheck(t, name+" c128", cproblem[float64](special, 2, 11, 37, k, true, false), parts)
			}
		}
		restore()
	}
}

// BenchmarkGemmComplex is the c64 and c128 product of n×n matrices on one
// goroutine, in GFLOP/s counting 8 real operations per complex
// multiply-add.
func BenchmarkGemmComplex(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		for _, tier := range simd.Available() {
			b.Run(fmt.Sprintf("c64/%d/%v", n, tier), func(b *testing.B) { benchComplex[float32](b, tier, n) })
			b.Run(fmt.Sprintf("c128/%d/%v", n, tier), func(b *testing.B) { benchComplex[float64](b, tier, n) })
		}
	}
}

func benchComplex[T Float](b *testing.B, tier simd.Tier, n int) {
	restore := simd.SetLevel(tier)
	defer restore()
	rng := rand.New(rand.NewPCG(1, 1))
	g := cproblem[T](rng.NormFloat64, 1, n, n, n, false, false)
	g.LDC, g.BatchC = n, n*n
	for b.Loop() {
		g.Run()
	}
	b.ReportMetric(8*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
