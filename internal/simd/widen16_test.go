package simd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
)

// F16ToF32Runs at every tier against the scalar widening: every binary16
// bit pattern (subnormals, Infs, NaNs with payloads) passes through it,
// run lengths 0-40 (the eights, the four and the singles), strides with
// gaps in the source and in dst (which must stay untouched).
func TestF16ToF32Runs(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, tier := range Available() {
		restore := SetLevel(tier)
		next, total := uint32(0), 0
		for n := range 41 {
			for _, count := range []int{0, 1, 2, 7, 90} {
				ls, ld := n+rng.IntN(5), n+rng.IntN(5)
				src := make([]uint16, max(0, (count-1)*ls+n)+rng.IntN(3))
				for i := range src {
					src[i] = uint16(next)
					next = (next + 1) & 0xffff
				}
				total += len(src)
				const fill = 12345.5
				dst := make([]float32, max(0, (count-1)*ld+n)+3)
				for i := range dst {
					dst[i] = fill
				}
				F16ToF32Runs(dst, src, n, count, ld, ls)
				for i, got := range dst {
					l, r := i/max(ld, 1), i%max(ld, 1)
					want := float32(fill)
					if n > 0 && l < count && r < n {
						want = numerics.F16BitsToF32(src[l*ls+r])
					}
					if math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%v n=%d count=%d ld=%d ls=%d: dst[%d] = %#x, want %#x", tier, n, count, ld, ls, i, math.Float32bits(got), math.Float32bits(want))
					}
				}
			}
		}
		restore()
		if total < 0x10000 {
			t.Fatalf("%v: only %d of the 65536 bit patterns passed through", tier, total)
		}
	}
}
