package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/kiln-go/kiln/internal/simd"
)

// i8Value is a random int8, a quarter of the time an extreme.
func i8Value(rng *rand.Rand) int8 {
	if rng.IntN(4) == 0 {
		return [4]int8{-128, 127, -1, 0}[rng.IntN(4)]
	}
	return int8(rng.IntN(256) - 128)
}

// Each mode runs the kernel it names, and the modes cover the CPU: the
// VNNI kernel at exactly the tiers whose CPU feature (read here, not from
// package simd) is there, then the Go twin at every tier.
func TestI8Modes(t *testing.T) {
	withVNNI := map[simd.Tier]bool{}
	for _, m := range simd.Modes() {
		restore := m.Set()
		if _, fast := simd.GemmI8(); fast != m.VNNI {
			t.Errorf("%v: GemmI8 fast = %v", m, fast)
		}
		withVNNI[m.Tier] = withVNNI[m.Tier] || m.VNNI
		restore()
	}
	for _, tier := range simd.Available() {
		has := tier == simd.AVX512 && cpu.X86.HasAVX512VNNI || tier == simd.AVX2 && cpu.X86.HasAVXVNNI
		if withVNNI[tier] != has {
			t.Errorf("%v: a mode with the VNNI kernel = %v, the CPU's feature %v", tier, withVNNI[tier], has)
		}
	}
	n := 0
	for _, v := range withVNNI {
		if v {
			n++
		}
	}
	if len(simd.Modes()) != len(simd.Available())+n {
		t.Errorf("modes %v: want each of %v, and those with VNNI once more", simd.Modes(), simd.Available())
	}
}

// BenchmarkGemmI8Tiers is the int8 1024³ product on one goroutine at
// every tier with a VNNI kernel (without one, callers run their plain
// loop instead: kernels' BenchmarkMatMulI8Modes times it), beside the
// f32 product at every vector tier, in GOP/s (2 per multiply-add).
//
//	go test -run '^$' -bench GemmI8Tiers ./internal/gemm
func BenchmarkGemmI8Tiers(b *testing.B) {
	const n = 1024
	for _, m := range simd.Modes() {
		if !m.VNNI {
			continue
		}
		b.Run(fmt.Sprintf("i8/%v", m), func(b *testing.B) {
			defer m.Set()()
			g := &I8Call{Batch: 1, M: n, N: n, K: n, A: make([]int8, n*n), RowA: n, ColA: 1, B: make([]int8, n*n), RowB: n, ColB: 1,
				C: make([]int32, n*n), LDC: n}
			for i := range g.A {
				g.A[i], g.B[i] = int8(i*7), int8(i*13)
			}
			for b.Loop() {
				g.Run()
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GOP/s")
		})
	}
	for _, tier := range simd.Available()[1:] {
		b.Run(fmt.Sprintf("f32/%v", tier), func(b *testing.B) {
			defer simd.SetLevel(tier)()
			rng := rand.New(rand.NewPCG(1, 1))
			g := problem[float32](rng, 1, n, n, n, false, false)
			g.LDC, g.BatchC = n, n*n
			for b.Loop() {
				g.Run()
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
