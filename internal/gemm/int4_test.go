package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/simd"
)

// i4Elem is element e of an operand of kind k: the value its byte or
// nibble holds.
func i4Elem(x []uint8, k IntKind, e int) int32 {
	switch k {
	case Int8:
		return int32(int8(x[e]))
	case Uint8:
		return int32(x[e])
	}
	v := x[e/2] >> (4 * uint(e%2)) & 0xf
	if k == Int4 {
		return int32(int8(v<<4) >> 4)
	}
	return int32(v)
}

// i4Naive is the I4Call's definition: the wrapping int32 sum of the
// values' products, in k order.
func i4Naive(g *I4Call) []int32 {
	c := append([]int32(nil), g.C...)
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				var s int32
				for l := range g.K {
					s += i4Elem(g.A, g.AKind, b*g.BatchA+i*g.RowA+l*g.ColA) * i4Elem(g.B, g.BKind, b*g.BatchB+l*g.RowB+j*g.ColB)
				}
				c[b*g.BatchC+i*g.LDC+j] = s
			}
		}
	}
	return c
}

// i4Len is the bytes an operand of kind k with n elements takes.
func i4Len(k IntKind, n int) int {
	if k.nibbles() {
		return (n + 1) / 2
	}
	return n
}

// The 4-bit products against their definition in every mode (the VNNI
// kernels and the Go twin): every kind of a with every kind of b, sizes
// around the tile and block edges (odd K, so 4-bit rows start inside a
// byte), transposed operands, odd batch offsets, concurrent parts; every
// byte value present in the operands.
func TestGemmI4(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	sizes := [][3]int{{1, 1, 1}, {3, 3, 3}, {17, 17, 17}, {12, 32, 4}, {13, 33, 9}, {37, 53, 41}, {5, 70, 1100}, {30, 70, 0}, {64, 64, 64}, {20, 1030, 7}}
	kinds := []IntKind{Int8, Uint8, Int4, Uint4}
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		for _, s := range sizes {
			for _, ak := range kinds {
				for _, bk := range kinds {
					if bk == Uint8 || !ak.nibbles() && !bk.nibbles() {
						continue
					}
					for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}} {
						m, n, k := s[0], s[1], s[2]
						const batch = 2
						g := &I4Call{Batch: batch, M: m, N: n, K: k, BatchA: m*k + 1, RowA: k, ColA: 1, AKind: ak,
							BatchB: k*n + 1, RowB: n, ColB: 1, BKind: bk, LDC: n + 3, BatchC: m * (n + 3)}
						if tr[0] {
							g.RowA, g.ColA = 1, m
						}
						if tr[1] {
							g.RowB, g.ColB = 1, k
						}
						g.A, g.B = make([]uint8, i4Len(ak, batch*g.BatchA)), make([]uint8, i4Len(bk, batch*g.BatchB))
						for i := range g.A {
							g.A[i] = uint8(i*37 + rng.IntN(2))
						}
						for i := range g.B {
							g.B[i] = uint8(rng.IntN(256))
						}
						g.C = make([]int32, batch*m*g.LDC)
						for i := range g.C {
							g.C[i] = int32(rng.Uint32())
						}
						want := i4Naive(g)
						runIn(g, 1+rng.IntN(3))
						for i := range want {
							if g.C[i] != want[i] {
								t.Fatalf("%v %v a=%d b=%d trans=%v: c[%d] = %d, want %d", mode, s, ak, bk, tr, i, g.C[i], want[i])
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// BenchmarkGemmI4 is the int4 × int8 product (a's nibbles unpacked in the
// packing) and the int8 × int4 one against the int8 product of the same
// size (and int8 × int4 with b stored transposed against int8 × int8 so), on one goroutine at the active tier, in one loop that alternates
// them so load on the machine falls on each alike: i4/i8 is the ratio of
// their fastest times (target ≤ 1/0.9).
//
//	go test -run '^$' -bench GemmI4 -benchtime 10x ./internal/gemm
func BenchmarkGemmI4(b *testing.B) {
	for _, n := range []int{256, 1024} {
		b.Run(fmt.Sprintf("ratio/%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			a4, b4 := make([]uint8, n*n/2), make([]uint8, n*n/2)
			a8, b8 := make([]int8, n*n), make([]int8, n*n)
			for i := range a4 {
				a4[i], b4[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
			}
			for i := range a8 {
				a8[i], b8[i] = int8(rng.IntN(256)), int8(rng.IntN(256))
			}
			c := make([]int32, n*n)
			g8 := &I8Call{Batch: 1, M: n, N: n, K: n, A: a8, RowA: n, ColA: 1, B: b8, RowB: n, ColB: 1, C: c, LDC: n}
			ga := &I4Call{Batch: 1, M: n, N: n, K: n, A: a4, RowA: n, ColA: 1, AKind: Int4,
				B: bytesOfInt8(b8), RowB: n, ColB: 1, BKind: Int8, C: c, LDC: n}
			gb := &I4Call{Batch: 1, M: n, N: n, K: n, A: bytesOfInt8(a8), RowA: n, ColA: 1, AKind: Int8,
				B: b4, RowB: n, ColB: 1, BKind: Int4, C: c, LDC: n}
			// b stored transposed (n×k, as weights often are).
			g8t := *g8
			g8t.RowB, g8t.ColB = 1, n
			gbt := *gb
			gbt.RowB, gbt.ColB = 1, n
			best := [5]time.Duration{time.Hour, time.Hour, time.Hour, time.Hour, time.Hour}
			for b.Loop() {
				for i, run := range []func(){g8.Run, ga.Run, gb.Run, g8t.Run, gbt.Run} {
					t0 := time.Now()
					run()
					best[i] = min(best[i], time.Since(t0))
				}
			}
			b.ReportMetric(best[1].Seconds()/best[0].Seconds(), "i4×i8/i8")
			b.ReportMetric(best[2].Seconds()/best[0].Seconds(), "i8×i4/i8")
			b.ReportMetric(best[4].Seconds()/best[3].Seconds(), "i8×i4ᵀ/i8×i8ᵀ")
			b.ReportMetric(2*float64(n*n*n)/best[0].Seconds()/1e9, "i8-GOP/s")
			b.ReportMetric(2*float64(n*n*n)/best[1].Seconds()/1e9, "i4×i8-GOP/s")
		})
	}
}

func bytesOfInt8(x []int8) []uint8 {
	out := make([]uint8, len(x))
	for i, v := range x {
		out[i] = uint8(v)
	}
	return out
}
