package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/simd"
)

// bf16Naive is the bf16 rule by its definition: per element, k in pairs
// from +0, each pair one simd.BF16Step, the pair past an odd K zero.
func bf16Naive(g *BF16Call) []float32 {
	c := append([]float32(nil), g.C...)
	at := func(x []uint16, i int, ok bool) uint32 {
		if !ok {
			return 0
		}
		return uint32(x[i])
	}
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				var s float32
				for l := 0; l < g.K; l += 2 {
					ai := b*g.BatchA + i*g.RowA + l*g.ColA
					bi := b*g.BatchB + l*g.RowB + j*g.ColB
					aw := at(g.A, ai, true) | at(g.A, ai+g.ColA, l+1 < g.K)<<16
					bw := at(g.B, bi, true) | at(g.B, bi+g.RowB, l+1 < g.K)<<16
					s = simd.BF16Step(s, aw, bw)
				}
				c[b*g.BatchC+i*g.LDC+j] = s
			}
		}
	}
	return c
}

// bf16Values draws bf16 bits: mostly ordinary values, some subnormals
// (read as zeros), infinities and small exponents whose sums flush.
func bf16Values(rng *rand.Rand, n int) []uint16 {
	x := make([]uint16, n)
	for i := range x {
		sign := uint16(rng.IntN(2)) << 15
		switch rng.IntN(60) {
		case 0:
			x[i] = sign | uint16(rng.IntN(0x80))
		case 1:
			x[i] = sign | 0x7f80
		case 2, 3:
			x[i] = sign | uint16(rng.IntN(4)+61)<<7 | uint16(rng.IntN(0x80))
		default:
			x[i] = sign | uint16(rng.IntN(16)+119)<<7 | uint16(rng.IntN(0x80))
		}
	}
	return x
}

// The bf16 product against its definition at every tier (the VDPBF16PS
// kernel and the Go twin): sizes around the tile and block edges (1,
// primes, odd K, K past the block), transposed and strided operands,
// batches, and concurrent parts, every element bit-identical.
func TestGemmBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	sizes := [][3]int{{1, 1, 1}, {1, 7, 3}, {13, 1, 5}, {12, 32, 2}, {24, 64, 9}, {37, 53, 41}, {5, 97, 1500}, {30, 70, 0}, {25, 600, 20}, {14, 33, 1031}, {13, 1100, 9}}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range sizes {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, parts := range []int{1, 2, 5} {
					m, n, k := s[0], s[1], s[2]
					const batch = 2
					g := &BF16Call{Batch: batch, M: m, N: n, K: k, BatchA: m * k, RowA: k, ColA: 1, BatchB: k * n, RowB: n, ColB: 1,
						LDC: n + 3, BatchC: m * (n + 3)}
					if tr[0] {
						g.RowA, g.ColA = 1, m
					}
					if tr[1] {
						g.RowB, g.ColB = 1, k
					}
					g.A, g.B = bf16Values(rng, batch*m*k), bf16Values(rng, batch*k*n)
					g.C = make([]float32, batch*m*g.LDC)
					for i := range g.C {
						g.C[i] = float32(rng.NormFloat64())
					}
					want := bf16Naive(g)
					runIn(g, parts)
					for i := range want {
						if math.Float32bits(g.C[i]) != math.Float32bits(want[i]) && !(g.C[i] != g.C[i] && want[i] != want[i]) {
							t.Fatalf("%v %v trans=%v parts=%d: c[%d] = %v, want %v", tier, s, tr, parts, i, g.C[i], want[i])
						}
					}
				}
			}
		}
		restore()
	}
}

// BenchmarkGemmBF16 times the bf16 product beside the f32 one of the same
// size, on the calling goroutine (one core): bf16/f32 is the ratio of
// their ns/op; the ratio sub-benchmarks alternate the two in one loop and
// report the ratio of their summed and of their fastest times.
//
//	go test -run '^$' -bench GemmBF16/ratio -benchtime 20x ./internal/gemm
func BenchmarkGemmBF16(b *testing.B) {
	for _, n := range []int{256, 1024} {
		b.Run(fmt.Sprintf("ratio/%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			gb := &BF16Call{Batch: 1, M: n, N: n, K: n, A: bf16Values(rng, n*n), RowA: n, ColA: 1,
				B: bf16Values(rng, n*n), RowB: n, ColB: 1, C: make([]float32, n*n), LDC: n}
			gf := problem[float32](rng, 1, n, n, n, false, false)
			gf.LDC, gf.BatchC = n, n*n
			var sb, sf time.Duration
			mb, mf := time.Hour, time.Hour
			for b.Loop() {
				t0 := time.Now()
				gb.Run()
				t1 := time.Now()
				gf.Run()
				t2 := time.Now()
				sb, sf = sb+t1.Sub(t0), sf+t2.Sub(t1)
				mb, mf = min(mb, t1.Sub(t0)), min(mf, t2.Sub(t1))
			}
			b.ReportMetric(sb.Seconds()/sf.Seconds(), "bf16/f32")
			b.ReportMetric(mb.Seconds()/mf.Seconds(), "min-bf16/f32")
			b.ReportMetric(2*float64(n*n*n)/mb.Seconds()/1e9, "bf16-GFLOP/s")
		})
	}
	for _, n := range []int{256, 1024} {
		rng := rand.New(rand.NewPCG(1, 1))
		b.Run(fmt.Sprintf("bf16/%d", n), func(b *testing.B) {
			g := &BF16Call{Batch: 1, M: n, N: n, K: n, A: bf16Values(rng, n*n), RowA: n, ColA: 1,
				B: bf16Values(rng, n*n), RowB: n, ColB: 1, C: make([]float32, n*n), LDC: n}
			for b.Loop() {
				g.Run()
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("f32/%d", n), func(b *testing.B) {
			g := problem[float32](rng, 1, n, n, n, false, false)
			g.LDC, g.BatchC = n, n*n
			for b.Loop() {
				g.Run()
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestGemmBF16Flush: products of tiny bf16 values are subnormal, so most
// partial sums are flushed by the bf16 rule (FTZ), and subnormal inputs
// read as zeros (DAZ); every tier — the VDPBF16PS kernel, the f32 kernels
// run with the thread's DAZ and FTZ set, the Go twin — gives the
// definition's bits.
func TestGemmBF16Flush(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	tiny := func(n int) []uint16 {
		x := make([]uint16, n)
		for i := range x {
			sign := uint16(rng.IntN(2)) << 15
			switch rng.IntN(8) {
			case 0:
				x[i] = sign | uint16(rng.IntN(0x80)) // subnormal
			case 1:
				x[i] = sign | uint16(rng.IntN(3)+126)<<7 | uint16(rng.IntN(0x80)) // about 1
			default:
				x[i] = sign | uint16(rng.IntN(6)+60)<<7 | uint16(rng.IntN(0x80)) // 2⁻⁶⁷…2⁻⁶²: products below 2⁻¹²⁶
			}
		}
		return x
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		flushed := 0
		for _, s := range [][3]int{{1, 1, 1}, {3, 5, 2}, {13, 37, 7}, {25, 70, 33}} {
			m, n, k := s[0], s[1], s[2]
			g := &BF16Call{Batch: 1, M: m, N: n, K: k, RowA: k, ColA: 1, RowB: n, ColB: 1, LDC: n, A: tiny(m * k), B: tiny(k * n), C: make([]float32, m*n)}
			want := bf16Naive(g)
			g.Run()
			for i := range want {
				if math.Float32bits(g.C[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v %v: c[%d] = %v, want %v", tier, s, i, g.C[i], want[i])
				}
				if want[i] == 0 {
					flushed++
				}
			}
		}
		if flushed < 5 {
			t.Errorf("%v: %d results flushed; the cases test little", tier, flushed)
		}
		restore()
	}
}
