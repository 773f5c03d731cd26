package simd_test

import (
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// TestByteWidenAllPairs checks the byte ops widened to float32 on every
// pair of bytes, at every tier, against float32 of Go's wrapping op.
func TestByteWidenAllPairs(t *testing.T) {
	a8, b8 := make([]int8, 1<<16), make([]int8, 1<<16)
	au, bu := make([]uint8, 1<<16), make([]uint8, 1<<16)
	for i := range a8 {
		a8[i], b8[i] = int8(i), int8(i>>8)
		au[i], bu[i] = uint8(i), uint8(i>>8)
	}
	dst := make([]float32, 1<<16)
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, c := range []struct {
			name string
			run  func()
			want func(i int) float32
		}{
			{"AddI8ToF32", func() { simd.AddI8ToF32(dst, a8, b8) }, func(i int) float32 { return float32(a8[i] + b8[i]) }},
			{"SubI8ToF32", func() { simd.SubI8ToF32(dst, a8, b8) }, func(i int) float32 { return float32(a8[i] - b8[i]) }},
			{"MulI8ToF32", func() { simd.MulI8ToF32(dst, a8, b8) }, func(i int) float32 { return float32(a8[i] * b8[i]) }},
			{"AddU8ToF32", func() { simd.AddU8ToF32(dst, au, bu) }, func(i int) float32 { return float32(au[i] + bu[i]) }},
			{"SubU8ToF32", func() { simd.SubU8ToF32(dst, au, bu) }, func(i int) float32 { return float32(au[i] - bu[i]) }},
			{"MulU8ToF32", func() { simd.MulU8ToF32(dst, au, bu) }, func(i int) float32 { return float32(au[i] * bu[i]) }},
		} {
			c.run()
			for i, v := range dst {
				if w := c.want(i); v != w {
					t.Fatalf("%v %s(%d, %d) = %v, want %v", tier, c.name, byte(i), byte(i>>8), v, w)
				}
			}
		}
		restore()
	}
}
