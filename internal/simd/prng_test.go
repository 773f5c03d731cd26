package simd_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// ThreefryKey at every tier: Random123's known-answer vectors (in the
// high/low packing) and, for every length up to 3 unrolled vector blocks
// plus a tail, the scalar Threefry2x32 — which the KATs pin too.
func TestThreefryKey(t *testing.T) {
	kats := []struct{ k, x, want uint64 }{
		{0, 0, 0x6b200159_99ba4efe},
		{0xffffffff_ffffffff, 0xffffffff_ffffffff, 0x1cb996fc_bb002be7},
		{0x13198a2e_03707344, 0x243f6a88_85a308d3, 0xc4923a9c_483df7a0},
	}
	for _, c := range kats {
		if got := simd.Threefry2x32(c.k, c.x); got != c.want {
			t.Fatalf("Threefry2x32(%#x, %#x) = %#x, want %#x", c.k, c.x, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tier := range simd.Available() {
		t.Run(tier.String(), func(t *testing.T) {
			defer simd.SetLevel(tier)()
			for _, c := range kats {
				d := make([]uint64, 1)
				simd.ThreefryKey(d, []uint64{c.x}, c.k)
				if d[0] != c.want {
					t.Errorf("ThreefryKey(%#x, %#x) = %#x, want %#x", c.k, c.x, d[0], c.want)
				}
			}
			for n := range 3*4*8 + 9 {
				k := r.Uint64()
				x := make([]uint64, n)
				for i := range x {
					x[i] = r.Uint64()
				}
				in := append([]uint64(nil), x...)
				d := make([]uint64, n+1)
				d[n] = 0xdead
				simd.ThreefryKey(d[:n], x, k)
				for i := range x {
					if want := simd.Threefry2x32(k, x[i]); d[i] != want {
						t.Fatalf("n=%d: ThreefryKey[%d] = %#x, want %#x", n, i, d[i], want)
					}
				}
				if d[n] != 0xdead {
					t.Fatalf("n=%d: wrote past dst", n)
				}
				for i := range x {
					if x[i] != in[i] {
						t.Fatalf("n=%d: input changed", n)
					}
				}
			}
		})
	}
}

func BenchmarkThreefryKey(b *testing.B) {
	const n = 4096
	x, d := make([]uint64, n), make([]uint64, n)
	for i := range x {
		x[i] = uint64(i)
	}
	for _, tier := range simd.Available() {
		b.Run(tier.String(), func(b *testing.B) {
			defer simd.SetLevel(tier)()
			b.SetBytes(8 * n)
			for range b.N {
				simd.ThreefryKey(d, x, 42)
			}
		})
	}
}
