package gemm

import (
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

func BenchmarkZZKernelI8(b *testing.B) {
	k, _ := simd.GemmI8()
	kc4 := 256
	a := make([]uint8, kc4*12*4)
	bb := make([]int8, kc4*32*4)
	c := make([]int32, 12*32)
	for b.Loop() {
		k.Run(kc4, a, bb, c, 32, true)
	}
	b.ReportMetric(2*12*32*4*float64(kc4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GOPS")
}

func BenchmarkZZKernelF32(b *testing.B) {
	k := simd.GemmF32()
	kc := 256
	a := make([]float32, kc*12)
	bb := make([]float32, kc*32)
	c := make([]float32, 12*32)
	for b.Loop() {
		k.Run(kc, a, 1, 12, bb, 32, c, 32, true)
	}
	b.ReportMetric(2*12*32*float64(kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}
