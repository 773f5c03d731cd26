package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The complex micro-kernels of every tier against their Go twin on the
// same packed panels, and their b packing against the twin's (a copy,
// NaN payloads included): bit-identical (any NaN for a NaN), with and without
// load, for kc of 0, 1 and more, on values spanning many exponents and
// with infinities, NaNs and zeros of both signs, whose signs and NaNs
// depend on the non-FMA order of the complex multiply.
func TestGemmCKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	val := func() float64 {
		switch rng.IntN(40) {
		case 0:
			return math.Inf(1 - 2*rng.IntN(2))
		case 1:
			return math.NaN()
		case 2, 3:
			return math.Copysign(0, -1)
		case 4, 5:
			return 0
		}
		return rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
	}
	for _, tier := range Available() {
		restore := SetLevel(tier)
		checkGemmCKernel(t, tier, GemmC64(), val)
		checkGemmCKernel(t, tier, GemmC128(), val)
		restore()
	}
}

func checkGemmCKernel[T float32 | float64](t *testing.T, tier Tier, k GemmCKernel[T], val func() float64) {
	t.Helper()
	if got := slices.Sorted(slices.Values(k.Lanes)); len(got) != k.NR || got[0] != 0 || got[k.NR-1] != k.NR-1 {
		t.Fatalf("%v %d×%d: lanes %v are not a permutation of the tile's columns", tier, k.MR, k.NR, k.Lanes)
	}
	twin := GemmCTileGo[T](k.MR, k.NR, k.Lanes)
	for _, kb := range []int{0, 1, 7} {
		rs := k.NR + 5
		src := make([]T, 2*max(kb*rs, 1))
		for i := range src {
			src[i] = T(val())
		}
		got, want := make([]T, 2*k.NR*kb), make([]T, 2*k.NR*kb)
		k.Pack(got, src, rs, kb)
		twin.Pack(want, src, rs, kb)
		for i := range want {
			if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
				t.Fatalf("%v %d×%d pack kb=%d: dst[%d] = %v, twin %v", tier, k.MR, k.NR, kb, i, got[i], want[i])
			}
		}
	}
	for _, kc := range []int{0, 1, 2, 7, 64} {
		for _, load := range []bool{false, true} {
			a, b := make([]T, 2*k.MR*kc), make([]T, 2*k.NR*kc)
			for i := range a {
				a[i] = T(val())
			}
			for i := range b {
				b[i] = T(val())
			}
			ldc := k.NR + 3
			c := make([]T, 2*((k.MR-1)*ldc+k.NR))
			for i := range c {
				c[i] = T(val())
			}
			want := append([]T(nil), c...)
			twin.Run(kc, a, b, want, ldc, load)
			k.Run(kc, a, b, c, ldc, load)
			for i := range c {
				if math.Float64bits(float64(c[i])) != math.Float64bits(float64(want[i])) && !(c[i] != c[i] && want[i] != want[i]) {
					t.Fatalf("%v %d×%d kc=%d load=%v: c[%d] = %v, twin %v", tier, k.MR, k.NR, kc, load, i, c[i], want[i])
				}
			}
		}
	}
}
