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

// naive is the definition: each element from +0, l in order, one FMA per
// product.
func naive[T Float](g *Call[T], fma func(x, y, z T) T) []T {
	c := make([]T, len(g.C))
	copy(c, g.C)
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				var s T
				for l := range g.K {
					s = fma(g.A[b*g.BatchA+i*g.RowA+l*g.ColA], g.B[b*g.BatchB+l*g.RowB+j*g.ColB], s)
				}
				c[b*g.BatchC+i*g.LDC+j] = s
			}
		}
	}
	return c
}

// problem builds a batched call with the given operand layouts: transA
// stores a column-major, transB likewise, and c has a row stride past n
// (its gaps must stay untouched).
func problem[T Float](rng *rand.Rand, batch, m, n, k int, transA, transB bool) *Call[T] {
	return laidOut(batch, m, n, k, transA, transB, 5, func(n int) []T {
		x := make([]T, n)
		for i := range x {
			x[i] = T(rng.NormFloat64())
			if rng.IntN(500) == 0 {
				x[i] = T(math.Inf(1 - 2*rng.IntN(2)))
			}
		}
		return x
	})
}

// laidOut is a batched call with operands from fill (fill(n) holds n
// elements), a and b stored column-major when transA and transB are set,
// and c's rows pad elements apart past n.
func laidOut[T Float](batch, m, n, k int, transA, transB bool, pad int, fill func(n int) []T) *Call[T] {
	g := &Call[T]{Batch: batch, M: m, N: n, K: k}
	g.A, g.BatchA, g.RowA, g.ColA = fill(batch*m*k), m*k, k, 1
	if transA {
		g.RowA, g.ColA = 1, m
	}
	g.B, g.BatchB, g.RowB, g.ColB = fill(batch*k*n), k*n, n, 1
	if transB {
		g.RowB, g.ColB = 1, k
	}
	g.LDC = n + pad
	g.BatchC = m * g.LDC
	g.C = fill(batch * m * g.LDC)
	return g
}

// parted is a product that splits into pieces (Call, CCall, BF16Call,
// I8Call).
type parted interface {
	Parts(workers int) int
	RunPart(p, parts int)
	Run()
}

// runIn runs g whole on this goroutine (parts 0), or split for parts
// workers with the pieces concurrently, as package kernels runs them.
func runIn(g parted, parts int) {
	if parts == 0 {
		g.Run()
		return
	}
	n := g.Parts(parts)
	var wg sync.WaitGroup
	for p := range n {
		wg.Add(1)
		go func() { defer wg.Done(); g.RunPart(p, n) }()
	}
	wg.Wait()
}

func same[T Float](x, y T) bool {
	return math.Float64bits(float64(x)) == math.Float64bits(float64(y)) || (x != x && y != y)
}

func check[T Float](t *testing.T, name string, g *Call[T], fma func(x, y, z T) T, parts int) {
	t.Helper()
	verify(t, name, g, g.C, naive(g, fma), parts)
}

// verify runs g (see runIn) and checks its result c against want, bit for
// bit (any NaN for a NaN).
func verify[T Float](t *testing.T, name string, g parted, c, want []T, parts int) {
	t.Helper()
	runIn(g, parts)
	for i := range want {
		if !same(c[i], want[i]) {
			t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
		}
	}
}

// Every tier, sizes around the tile and block edges (1, primes, past
// KC and NC), transposed operands, batches and concurrent parts: every
// element bit-identical to the in-order FMA definition.
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sizes := [][3]int{{1, 1, 1}, {1, 7, 3}, {13, 1, 5}, {12, 32, 1}, {24, 64, 9}, {37, 53, 41}, {5, 97, 600}, {130, 70, 0}, {25, 1100, 20}, {26, 40, 512}, {40, 16, 33}, {30, 10, 300},
		{20, 64, 17}, {11, 40, 7}, {64, 64, 64}}
	// Bottom edges of every kind: 1 row (13, 37), 2, 4 and 8 in place on
	// the short kernels (26, 40, 20), 5 and 6 through the 8-row one's tile,
	// 10 and 11 through the whole tile's.
	// k = 512: row-major a rows 2 or 4 KiB apart are copied row by row (packA), not read in place.
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range sizes {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, parts := range []int{0, 2, 5} {
					for _, batch := range []int{1, 3} {
						name := fmt.Sprintf("%v %dx%dx%d trans=%v parts=%d batch=%d", tier, s[0], s[1], s[2], tr, parts, batch)
						check(t, name+" f32", problem[float32](rng, batch, s[0], s[1], s[2], tr[0], tr[1]), numerics.FMA32, parts)
						check(t, name+" f64", problem[float64](rng, batch, s[0], s[1], s[2], tr[0], tr[1]), math.FMA, parts)
					}
				}
			}
		}
		restore()
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"48K": 48 << 10, "1024K": 1 << 20, "32M": 32 << 20, "512": 512, "x": 0} {
		if got := parseSize(in); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", in, got, want)
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	for _, n := range []int{64, 256, 512, 1024} {
		for _, tier := range simd.Available() {
			b.Run(fmt.Sprintf("f32/%d/%v", n, tier), func(b *testing.B) {
				restore := simd.SetLevel(tier)
				defer restore()
				rng := rand.New(rand.NewPCG(1, 1))
				g := problem[float32](rng, 1, n, n, n, false, false)
				g.LDC, g.BatchC = n, n*n
				b.SetBytes(0)
				for b.Loop() {
					g.Run()
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkGemmI8 is the int8 product (row-major and with b's columns
// contiguous, "bt") on one goroutine, in GOP/s (2 per multiply-add):
// compare with BenchmarkGemm's f32 and BenchmarkKernelPeak's ceiling.
func BenchmarkGemmI8(b *testing.B) {
	for _, n := range []int{256, 1024} {
		for _, bt := range []bool{false, true} {
			name := fmt.Sprintf("%d", n)
			if bt {
				name += "/bt"
			}
			b.Run(name, func(b *testing.B) {
				g := &I8Call{Batch: 1, M: n, N: n, K: n, A: make([]int8, n*n), RowA: n, ColA: 1, B: make([]int8, n*n), RowB: n, ColB: 1,
					C: make([]int32, n*n), LDC: n}
				if bt {
					g.RowB, g.ColB = 1, n
				}
				for i := range g.A {
					g.A[i], g.B[i] = int8(i*7), int8(i*13)
				}
				for b.Loop() {
					g.Run()
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GOP/s")
			})
		}
	}
}

// The int8 product against the plain wrapping int32 sum: sizes around the
// tile and block edges (k not a multiple of 4, past KC; n past NC),
// transposed operands, batches and concurrent parts, a read as uint8
// (AUnsigned), operands a quarter of them extremes (-128, 127, -1, 0;
// 255 as uint8), at every tier with and without its VNNI kernel
// (simd.Modes).
func TestGemmI8(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tier := range simd.Modes() {
		restore := tier.Set()
		for _, s := range [][3]int{{1, 1, 1}, {13, 33, 5}, {24, 64, 8}, {37, 53, 1030}, {5, 600, 7}, {3, 1100, 9}, {20, 20, 0}} {
			for _, tr := range [][2]bool{{false, false}, {true, true}} {
				for _, parts := range []int{1, 2, 3} {
					m, n, k := s[0], s[1], s[2]
					unsigned := parts == 2 // a as uint8
					g := &I8Call{Batch: 2, M: m, N: n, K: k, BatchA: m * k, RowA: k, ColA: 1, BatchB: k * n, RowB: n, ColB: 1,
						LDC: n + 2, BatchC: m * (n + 2), AUnsigned: unsigned}
					if tr[0] {
						g.RowA, g.ColA = 1, m
					}
					if tr[1] {
						g.RowB, g.ColB = 1, k
					}
					g.A, g.B, g.C = make([]int8, 2*m*k), make([]int8, 2*k*n), make([]int32, 2*m*(n+2))
					for i := range g.A {
						g.A[i] = i8Value(rng)
					}
					for i := range g.B {
						g.B[i] = i8Value(rng)
					}
					for i := range g.C {
						g.C[i] = int32(rng.Uint32())
					}
					want := append([]int32(nil), g.C...)
					for b := range 2 {
						for i := range m {
							for j := range n {
								var s int32
								for l := range k {
									av := int32(g.A[b*g.BatchA+i*g.RowA+l*g.ColA])
									if unsigned {
										av = int32(uint8(g.A[b*g.BatchA+i*g.RowA+l*g.ColA]))
									}
									s += av * int32(g.B[b*g.BatchB+l*g.RowB+j*g.ColB])
								}
								want[b*g.BatchC+i*g.LDC+j] = s
							}
						}
					}
					runIn(g, parts)
					for i := range want {
						if g.C[i] != want[i] {
							t.Fatalf("%v %v trans=%v parts=%d unsigned a=%v: c[%d] = %d, want %d", tier, s, tr, parts, unsigned, i, g.C[i], want[i])
						}
					}
				}
			}
		}
		restore()
	}
}

// BenchmarkKernelPeak times the f32 and int8 micro-kernels alone on one
// core, their panels in L1 and L2 (256 steps), in GFLOP/s (2 per
// multiply-add): the ceiling the packed products reach for, and the
// ratio of their ceilings (VPDPBUSD does four multiply-adds per lane).
func BenchmarkKernelPeak(b *testing.B) {
	const steps = 256
	b.Run("f32", func(b *testing.B) {
		k := simd.GemmF32()
		a, bp, c := make([]float32, steps*k.MR), make([]float32, steps*k.NR), make([]float32, k.MR*k.NR)
		for b.Loop() {
			k.Run(steps, a, 1, k.MR, bp, k.NR, c, k.NR, true)
		}
		b.ReportMetric(2*float64(k.MR*k.NR*steps)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("i8", func(b *testing.B) {
		k, _ := simd.GemmI8()
		a, bp, c := make([]uint8, steps*i8MR*4), make([]int8, steps*i8NR*4), make([]int32, i8MR*i8NR)
		corr := make([]int32, i8NR)
		for b.Loop() {
			k.Run(steps, a, bp, c, i8NR, true, corr)
		}
		b.ReportMetric(2*float64(i8MR*i8NR*4*steps)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// TestPartOfSplitsCheaperSide: two pieces of a product whose both sides
// split into whole tiles split the side that repacks the smaller operand
// — columns when m < n (each piece then packs all of a, m×k, rather than
// all of b, k×n) — and the pieces tile c exactly once.
func TestPartOfSplitsCheaperSide(t *testing.T) {
	for _, c := range []struct {
		m, n int
		cols bool
	}{
		{64, 128, true},     // E7's weight gradient xᵀ·dy
		{256, 128, false},   // E7's hidden layer x·w
		{1024, 1024, false}, // square: rows, as always
		{12, 1000, true},    // one row tile: columns
		{1000, 32, false},   // one column tile: rows
	} {
		parts := splitParts(1, c.m, c.n, 12, 32, 2)
		seen := make([]int, c.m*c.n)
		for p := range parts {
			_, i0, i1, j0, j1 := partOf(1, c.m, c.n, 12, 32, p, parts)
			if cols := j1-j0 < c.n; parts == 2 && cols != c.cols {
				t.Errorf("%d×%d: piece %d is rows [%d,%d) columns [%d,%d); want columns split = %v", c.m, c.n, p, i0, i1, j0, j1, c.cols)
			}
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					seen[i*c.n+j]++
				}
			}
		}
		for e, k := range seen {
			if k != 1 {
				t.Fatalf("%d×%d: element %d computed %d times", c.m, c.n, e, k)
			}
		}
	}
}
