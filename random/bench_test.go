package random_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
)

// BenchmarkPermutation times one Run of a compiled Permutation(key, n)
// (JAX's sort rounds; n = 2000 takes two).
func BenchmarkPermutation(b *testing.B) {
	for _, n := range []int{2000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := kiln.Jit(func(k kiln.Value) kiln.Value { return random.Permutation(k, n) })
			key, _ := tensor.FromSlice([]uint32{0, 1})
			if _, err := f.Run(key); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Run(key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
