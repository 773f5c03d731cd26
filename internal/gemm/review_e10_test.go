package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// reviewE10Specials are values that tell fma(a, b, +0) from its
// shortcuts: signed zeros, products that underflow to ∓0 or to a
// subnormal, subnormals, infinities, NaN and overflowing products.
var reviewE10Specials = []float64{0, math.Copysign(0, -1), 1, -1, 1e-30, -1e-30, 1e-40, -1e-42,
	5e-324, -1e-300, 1e-160, -1e-160, math.Inf(1), math.Inf(-1), math.NaN(), 3e38, -3e38, 1e300}

func reviewE10Fill[T Float](rng *rand.Rand, special int) func(n int) []T {
	return func(n int) []T {
		x := make([]T, n)
		for i := range x {
			x[i] = T(rng.NormFloat64())
			if rng.IntN(special) == 0 {
				x[i] = T(reviewE10Specials[rng.IntN(len(reviewE10Specials))])
			}
		}
		return x
	}
}

// reviewE10Call is a random K = 1 product: m×1 a read every rowA (0: one
// value broadcast down the column), 1×n b read every colB, c rows ldc
// apart, batches of a, b or both (a batch stride of 0 shares the operand).
func reviewE10Call[T Float](rng *rand.Rand, batch, m, n, rowA, colB, pad int, shareA, shareB bool) *Call[T] {
	fill := reviewE10Fill[T](rng, 3)
	g := &Call[T]{Batch: batch, M: m, N: n, K: 1, RowA: rowA, ColA: 1 + rng.IntN(3), RowB: 1 + rng.IntN(5), ColB: colB}
	g.BatchA = max(1, (m-1)*rowA+1)
	if shareA {
		g.BatchA = 0
	}
	g.BatchB = max(1, (n-1)*colB+1)
	if shareB {
		g.BatchB = 0
	}
	g.A = fill(max(1, (batch-1)*g.BatchA+(m-1)*rowA+1))
	g.B = fill(max(1, (batch-1)*g.BatchB+(n-1)*colB+1))
	g.LDC = n + pad
	g.BatchC = m * g.LDC
	g.C = fill(batch * g.BatchC) // the gaps keep these values
	return g
}

// TestReviewE10OuterSweep: K = 1 products over every n from 1 to 40 (the
// flat run's periods lcm(n, 16), the masked row ends of 8- and 16-lane
// vectors), m from 1 to 300, strided and broadcast (stride 0) a and b,
// shared batch operands, ldc gaps, whole, split into concurrent pieces,
// and split with a Finisher that checks each block is final when told —
// all equal the in-order definition fma(a, b, +0) bit for bit on every
// tier, f32 and f64.
func TestReviewE10OuterSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 1))
	ms := []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 100, 129, 255, 256, 257, 300}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for n := 1; n <= 40; n++ {
			for trial := range 6 {
				m := ms[rng.IntN(len(ms))]
				if trial == 0 {
					m = 1 + rng.IntN(300)
				}
				rowA := []int{1, 1, 2, 0}[rng.IntN(4)]
				colB := []int{1, 1, 3, 0}[rng.IntN(4)]
				pad := []int{0, 0, 1, 16 - n%16, 7}[rng.IntN(5)]
				batch := 1 + rng.IntN(3)
				shareA, shareB := rng.IntN(4) == 0, rng.IntN(4) == 0
				parts := []int{0, 1, 2, 3, 5}[rng.IntN(5)]
				name := fmt.Sprintf("%v m=%d n=%d rowA=%d colB=%d ldc=%d batch=%d share=%v,%v parts=%d",
					tier, m, n, rowA, colB, n+pad, batch, shareA, shareB, parts)
				g32 := reviewE10Call[float32](rng, batch, m, n, rowA, colB, pad, shareA, shareB)
				verify(t, name+" f32", g32, g32.C, naive(g32, numerics.FMA32), parts)
				g64 := reviewE10Call[float64](rng, batch, m, n, rowA, colB, pad, shareA, shareB)
				verify(t, name+" f64", g64, g64.C, naive(g64, math.FMA), parts)
				f := reviewE10Call[float32](rng, batch, m, n, rowA, colB, pad, shareA, shareB)
				checkFinished(t, name+" finished", f, naive(f, numerics.FMA32), max(parts, 1))
			}
		}
		restore()
	}
}

// TestReviewE10OuterMatchesPackedPath: the outer-product path (f32
// operands, K = 1) and the GEMM's packed path that binary16 operands
// still take at K = 1 (packed, widened, the micro-kernel's tile) give
// the same bits for the same values — the previous path's semantics —
// including signed zeros, ∞·0 and underflowing products.
func TestReviewE10OuterMatchesPackedPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 2))
	halves := []uint16{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x3c00, 0xbc00}
	pick := func() uint16 {
		if rng.IntN(2) == 0 {
			return halves[rng.IntN(len(halves))]
		}
		return numerics.F32ToF16Bits(float32(rng.NormFloat64()))
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range [][2]int{{1, 1}, {1, 10}, {10, 1}, {8, 10}, {17, 10}, {33, 16}, {128, 10}, {5, 33}, {64, 128}, {300, 40}, {40, 300}} {
			m, n := s[0], s[1]
			for _, parts := range []int{0, 2, 3} {
				a16, b16 := make([]uint16, m), make([]uint16, n)
				for i := range a16 {
					a16[i] = pick()
				}
				for j := range b16 {
					b16[j] = pick()
				}
				a32, b32 := make([]float32, m), make([]float32, n)
				for i, h := range a16 {
					a32[i] = numerics.F16BitsToF32(h)
				}
				for j, h := range b16 {
					b32[j] = numerics.F16BitsToF32(h)
				}
				packed := &Call[float32]{Batch: 1, M: m, N: n, K: 1, A16: a16, RowA: 1, ColA: m, B16: b16, RowB: n, ColB: 1, C: make([]float32, m*n), LDC: n}
				outer := &Call[float32]{Batch: 1, M: m, N: n, K: 1, A: a32, RowA: 1, ColA: m, B: b32, RowB: n, ColB: 1, C: make([]float32, m*n), LDC: n}
				runIn(packed, parts)
				runIn(outer, parts)
				for e := range outer.C {
					if math.Float32bits(outer.C[e]) != math.Float32bits(packed.C[e]) && !(outer.C[e] != outer.C[e] && packed.C[e] != packed.C[e]) {
						t.Fatalf("%v %dx%d parts=%d: element %d: outer path %v (%#x), packed path %v (%#x) of %v·%v",
							tier, m, n, parts, e, outer.C[e], math.Float32bits(outer.C[e]), packed.C[e], math.Float32bits(packed.C[e]), a32[e/n], b32[e%n])
					}
				}
			}
		}
		restore()
	}
}

// TestReviewE10OuterStop: a K = 1 product whose Stop is set while it runs
// (a cancelled run) returns without panicking, on every tier, whole and
// split, with or without a Finisher; set before it starts, it writes no
// element.
func TestReviewE10OuterStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 3))
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, rowA := range []int{1, 2} {
			m, n := 4000, 40
			g := reviewE10Call[float32](rng, 2, m, n, rowA, 1, 3, false, false)
			before := append([]float32(nil), g.C...)
			var stop flagStop
			stop.Store(true)
			g.Stop = &stop
			runIn(g, 3)
			for e := range before {
				if math.Float32bits(before[e]) != math.Float32bits(g.C[e]) {
					t.Fatalf("%v rowA=%d: stopped before it ran, yet c[%d] changed", tier, rowA, e)
				}
			}
			stop.Store(false)
			var wg sync.WaitGroup
			parts := g.Parts(3)
			for p := range parts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					g.RunPartThen(p, parts, finisherFunc(func(b, i0, i1, j0, j1 int) {
						if i0 > m/3 {
							stop.Store(true)
						}
					}))
				}()
			}
			wg.Wait()
			if !stop.Load() {
				t.Fatalf("%v rowA=%d: the product finished before the stop was set", tier, rowA)
			}
		}
		restore()
	}
}

type finisherFunc func(b, i0, i1, j0, j1 int)

func (f finisherFunc) Finished(b, i0, i1, j0, j1 int) { f(b, i0, i1, j0, j1) }
