package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// half16 returns binary16 bits for a test operand: mostly normal values,
// with subnormals (which must widen exactly), ±0, ±Inf, NaNs with
// payloads and the largest finite values mixed in.
func half16(rng *rand.Rand) uint16 {
	switch rng.IntN(40) {
	case 0:
		return uint16(rng.IntN(0x400)) | uint16(rng.IntN(2))<<15 // ±0 and subnormals
	case 1:
		return 0x7c00 | uint16(rng.IntN(2))<<15 // ±Inf
	case 2:
		return 0x7c00 | uint16(1+rng.IntN(0x3ff)) | uint16(rng.IntN(2))<<15 // NaNs
	case 3:
		return 0x7bff | uint16(rng.IntN(2))<<15 // ±65504
	}
	return numerics.F32ToF16Bits(float32(rng.NormFloat64()))
}

// layout16 lays out a batch of r×c binary16 matrices: 0 row-major, 1
// column-major (transposed), 2 neither stride 1 (every other element of
// a wider row-major matrix), and returns the bits and strides.
func layout16(rng *rand.Rand, batch, r, c, layout int) (x []uint16, bs, rs, cs int) {
	switch layout {
	case 0:
		bs, rs, cs = r*c, c, 1
	case 1:
		bs, rs, cs = r*c, 1, r
	default:
		bs, rs, cs = r*(2*c+1), 2*c+1, 2
	}
	x = make([]uint16, batch*bs)
	for i := range x {
		x[i] = half16(rng)
	}
	return x, bs, rs, cs
}

// problem16 builds a batched f32 call whose operands are binary16 (a
// only, b only, or both, by which), with the given layouts.
func problem16(rng *rand.Rand, batch, m, n, k, la, lb int, which string) *Call[float32] {
	g := problem[float32](rng, batch, m, n, k, false, false)
	if which != "b" {
		g.A = nil
		g.A16, g.BatchA, g.RowA, g.ColA = layout16(rng, batch, m, k, la)
	}
	if which != "a" {
		g.B = nil
		g.B16, g.BatchB, g.RowB, g.ColB = layout16(rng, batch, k, n, lb)
	}
	return g
}

// naive16 is the definition for a call with binary16 operands: the
// in-order FMA chain of the exactly widened values.
func naive16(g *Call[float32]) []float32 {
	at := func(x []float32, x16 []uint16, i int) float32 {
		if x16 != nil {
			return numerics.F16BitsToF32(x16[i])
		}
		return x[i]
	}
	c := append([]float32(nil), g.C...)
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				var s float32
				for l := range g.K {
					s = numerics.FMA32(at(g.A, g.A16, b*g.BatchA+i*g.RowA+l*g.ColA), at(g.B, g.B16, b*g.BatchB+l*g.RowB+j*g.ColB), s)
				}
				c[b*g.BatchC+i*g.LDC+j] = s
			}
		}
	}
	return c
}

// TestGemmF16 holds products of binary16 operands, widened while packed,
// to the in-order FMA chain of the widened values, bit for bit: every
// tier, sizes around the tiles and blocks (1, primes, past KC and NC, the
// narrow kernel's n ≤ 16), row-major, transposed and strided operands,
// either or both operands binary16, batches, and 1, 2 or 3 concurrent
// parts reporting their finished blocks (each element once, final).
func TestGemmF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	sizes := [][3]int{{1, 1, 1}, {1, 7, 3}, {13, 1, 5}, {12, 32, 1}, {37, 53, 41}, {5, 97, 600}, {30, 10, 0}, {25, 1100, 20}, {26, 40, 512}, {40, 16, 33}}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range sizes {
			for _, lay := range [][2]int{{0, 0}, {1, 1}, {0, 1}, {1, 0}, {2, 2}} {
				for _, which := range []string{"ab", "a", "b"} {
					parts, batch := 1+rng.IntN(3), 1+rng.IntN(3)
					name := fmt.Sprintf("%v %dx%dx%d layouts=%v f16=%s parts=%d batch=%d", tier, s[0], s[1], s[2], lay, which, parts, batch)
					g := problem16(rng, batch, s[0], s[1], s[2], lay[0], lay[1], which)
					want := naive16(g)
					checkFinished(t, name, g, want, parts)
					for i := range g.C { // the gaps past n included: untouched
						if !same(g.C[i], want[i]) {
							t.Fatalf("%s: c[%d] = %v, want %v", name, i, g.C[i], want[i])
						}
					}
				}
			}
		}
		restore()
	}
}

// TestGemmF16F64: a float64 product of binary16 operands widens them to
// float64 (exact too), element by element.
func TestGemmF16F64(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	g := problem[float64](rng, 2, 13, 37, 29, false, false)
	g.A, g.B = nil, nil
	g.A16, g.BatchA, g.RowA, g.ColA = layout16(rng, 2, 13, 29, 0)
	g.B16, g.BatchB, g.RowB, g.ColB = layout16(rng, 2, 29, 37, 1)
	want := append([]float64(nil), g.C...)
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				var s float64
				for l := range g.K {
					s = math.FMA(float64(numerics.F16BitsToF32(g.A16[b*g.BatchA+i*g.RowA+l*g.ColA])),
						float64(numerics.F16BitsToF32(g.B16[b*g.BatchB+l*g.RowB+j*g.ColB])), s)
				}
				want[b*g.BatchC+i*g.LDC+j] = s
			}
		}
	}
	g.Run()
	for i := range want {
		if !same(g.C[i], want[i]) {
			t.Fatalf("c[%d] = %v, want %v", i, g.C[i], want[i])
		}
	}
}

// BenchmarkGemmF16 is the 1024 product of binary16 operands (row-major,
// a transposed, b transposed) on one goroutine, alternated in one loop
// with the f32 product so load on the machine falls on each alike: it
// reports each one's fastest time over the f32 one's (the cost of
// widening while packing) and the f32 GFLOP/s.
//
//	go test -run '^$' -bench GemmF16 -benchtime 10x ./internal/gemm
func BenchmarkGemmF16(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 1))
	f32 := problem[float32](rng, 1, n, n, n, false, false)
	calls := []*Call[float32]{f32}
	names := []string{"f32"}
	for _, lay := range [][2]int{{0, 0}, {1, 0}, {0, 1}} {
		calls = append(calls, problem16(rng, 1, n, n, n, lay[0], lay[1], "ab"))
		names = append(names, fmt.Sprintf("f16-%d%d/f32", lay[0], lay[1]))
	}
	best := make([]time.Duration, len(calls))
	for i, g := range calls {
		g.LDC, g.BatchC = n, n*n
		best[i] = time.Hour
	}
	for b.Loop() {
		for i, g := range calls {
			t0 := time.Now()
			g.Run()
			best[i] = min(best[i], time.Since(t0))
		}
	}
	for i := 1; i < len(calls); i++ {
		b.ReportMetric(best[i].Seconds()/best[0].Seconds(), names[i])
	}
	b.ReportMetric(2*n*n*n/best[0].Seconds()/1e9, "f32-GFLOP/s")
}
