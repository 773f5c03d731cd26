package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/simd"
)

// fp8Table draws a code table of bf16 bits as bf16Values does (ordinary
// values, subnormals, infinities, tiny exponents): FP8Call's contract is
// BF16Call's on the table values whatever they are.
func fp8Table(rng *rand.Rand) *[256]uint16 {
	var t [256]uint16
	copy(t[:], bf16Values(rng, 256))
	t[0x7f] = 0x7fc0 // a NaN
	return &t
}

// fp8AsBF16 is g with its codes replaced by their table values: the
// BF16Call that defines it.
func fp8AsBF16(g *FP8Call) *BF16Call {
	a, b := make([]uint16, len(g.A)), make([]uint16, len(g.B))
	for i, x := range g.A {
		a[i] = g.ATable[x]
	}
	for i, x := range g.B {
		b[i] = g.BTable[x]
	}
	return &BF16Call{Batch: g.Batch, M: g.M, N: g.N, K: g.K, A: a, BatchA: g.BatchA, RowA: g.RowA, ColA: g.ColA,
		B: b, BatchB: g.BatchB, RowB: g.RowB, ColB: g.ColB, C: append([]float32(nil), g.C...), BatchC: g.BatchC, LDC: g.LDC}
}

// The fp8 product against the bf16 rule of its table values, at every
// tier (unpacking in the VDPBF16PS kernel's packing; the widened BF16Call
// under DAZ/FTZ or the Go twin), sizes around the tile and block edges,
// transposed operands, batches and concurrent parts: every element
// bit-identical, every code present.
func TestGemmFP8(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	ta, tb := fp8Table(rng), fp8Table(rng)
	sizes := [][3]int{{1, 1, 1}, {3, 3, 3}, {17, 17, 17}, {12, 32, 2}, {37, 53, 41}, {5, 97, 1500}, {30, 70, 0}, {14, 33, 1031}, {64, 64, 64}}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range sizes {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, parts := range []int{1, 3} {
					m, n, k := s[0], s[1], s[2]
					const batch = 2
					g := &FP8Call{Batch: batch, M: m, N: n, K: k, BatchA: m * k, RowA: k, ColA: 1, BatchB: k * n, RowB: n, ColB: 1,
						LDC: n + 3, BatchC: m * (n + 3), ATable: ta, BTable: tb}
					if tr[0] {
						g.RowA, g.ColA = 1, m
					}
					if tr[1] {
						g.RowB, g.ColB = 1, k
					}
					g.A, g.B = make([]uint8, batch*m*k), make([]uint8, batch*k*n)
					for i := range g.A {
						g.A[i] = uint8(i*37 + rng.IntN(3)) // every code, shuffled
					}
					for i := range g.B {
						g.B[i] = uint8(rng.IntN(256))
					}
					g.C = make([]float32, batch*m*g.LDC)
					for i := range g.C {
						g.C[i] = float32(rng.NormFloat64())
					}
					ref := fp8AsBF16(g)
					want := bf16Naive(ref)
					runIn(g, parts)
					for i := range want {
						if !same(g.C[i], want[i]) {
							t.Fatalf("%v %v trans=%v parts=%d: c[%d] = %v, want %v", tier, s, tr, parts, i, g.C[i], want[i])
						}
					}
				}
			}
		}
		restore()
	}
}

// BenchmarkGemmFP8 is the fp8 product (codes unpacked to bf16 in the
// packing) against the bf16 one of the same size, on one goroutine, in
// one loop that alternates the two so load on the machine falls on each
// alike: fp8/bf16 is the ratio of their fastest times (target ≤ 1/0.9).
//
//	go test -run '^$' -bench GemmFP8 -benchtime 10x ./internal/gemm
func BenchmarkGemmFP8(b *testing.B) {
	for _, n := range []int{256, 1024} {
		b.Run(fmt.Sprintf("ratio/%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			ta, tb := fp8Table(rng), fp8Table(rng)
			gf := &FP8Call{Batch: 1, M: n, N: n, K: n, A: make([]uint8, n*n), RowA: n, ColA: 1, ATable: ta,
				B: make([]uint8, n*n), RowB: n, ColB: 1, BTable: tb, C: make([]float32, n*n), LDC: n}
			for i := range gf.A {
				gf.A[i], gf.B[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
			}
			gb := fp8AsBF16(gf)
			var mb, mf time.Duration = time.Hour, time.Hour
			for b.Loop() {
				t0 := time.Now()
				gb.Run()
				t1 := time.Now()
				gf.Run()
				t2 := time.Now()
				mb, mf = min(mb, t1.Sub(t0)), min(mf, t2.Sub(t1))
			}
			b.ReportMetric(mf.Seconds()/mb.Seconds(), "fp8/bf16")
			b.ReportMetric(2*float64(n*n*n)/mf.Seconds()/1e9, "fp8-GFLOP/s")
			b.ReportMetric(2*float64(n*n*n)/mb.Seconds()/1e9, "bf16-GFLOP/s")
		})
	}
}
