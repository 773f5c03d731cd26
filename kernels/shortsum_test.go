package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// The written-out sums of short segments (shortSums) give the bits of the
// per-segment tree (treeReduce from +0, its leaf the tier's vector sum)
// for every length under 16 at every tier: NaN payloads and signs, quiet
// and signaling (which NaN wins), signed zeros, infinities and roundings.
func TestShortSumsMatchTree(t *testing.T) {
	atEveryTier(t, checkShortSums)
}

// atEveryTier runs check as a subtest at each SIMD tier the CPU has.
func atEveryTier(t *testing.T, check func(t *testing.T)) {
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		t.Run(tier.String(), check)
		restore()
	}
}

func checkShortSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	f64 := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return math.Float64frombits(0x7ff0000000000000 | uint64(rng.IntN(2))<<63 | (1 + rng.Uint64()&0x7ffffffffffff) | uint64(rng.IntN(2))<<51)
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.Inf(1 - 2*rng.IntN(2))
		}
		return rng.NormFloat64() * math.Exp2(float64(rng.IntN(60)-30))
	}
	for l := 1; l < 16; l++ {
		const nseg = 300
		s32, s64 := make([]float32, nseg*l), make([]float64, nseg*l)
		for i := range s64 {
			s64[i] = f64()
			s32[i] = float32(s64[i])
			if s64[i] != s64[i] {
				s32[i] = math.Float32frombits(0x7f800000 | uint32(rng.IntN(2))<<31 | uint32(1+rng.IntN(0x3fffff)) | uint32(rng.IntN(2))<<22)
			}
		}
		d32, d64 := make([]float32, nseg), make([]float64, nseg)
		if !shortSums(d32, s32, l) || !shortSums(d64, s64, l) {
			t.Fatal("shortSums declined a float type")
		}
		for i := range nseg {
			want32 := float32(0) + treeReduce(s32[i*l:(i+1)*l], false)
			want64 := float64(0) + treeReduce(s64[i*l:(i+1)*l], false)
			if math.Float32bits(d32[i]) != math.Float32bits(want32) {
				t.Fatalf("f32 l=%d segment %d %v: %v (%#x), tree %v (%#x)", l, i, s32[i*l:(i+1)*l], d32[i], math.Float32bits(d32[i]), want32, math.Float32bits(want32))
			}
			if math.Float64bits(d64[i]) != math.Float64bits(want64) {
				t.Fatalf("f64 l=%d segment %d %v: %v, tree %v", l, i, s64[i*l:(i+1)*l], d64[i], want64)
			}
		}
	}
	if shortSums(make([]int32, 1), make([]int32, 3), 3) {
		t.Error("shortSums took int32 segments, which the tree wraps")
	}
}

// The float max and min folds give numerics.Maximum's and Minimum's
// results, folded left to right: the first NaN (its payload), else the
// largest (smallest), +0 over −0 for a max and −0 over +0 for a min.
func TestFloatFoldMatchesNumerics(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pick := func() float64 {
		switch rng.IntN(10) {
		case 0:
			return math.Float64frombits(0x7ff8000000000000 | rng.Uint64()&0xfffffffffffff)
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return 0
		case 3:
			return math.Inf(1 - 2*rng.IntN(2))
		}
		return float64(rng.IntN(7) - 3)
	}
	for _, isMin := range []bool{false, true} {
		fold := numerics.Maximum[float64]
		if isMin {
			fold = numerics.Minimum[float64]
		}
		red := floatFoldReducer[float64](isMin)
		for l := 1; l < 40; l++ {
			const nseg = 200
			s := make([]float64, nseg*l)
			for i := range s {
				s[i] = pick()
			}
			d := make([]float64, nseg)
			red.seg(unsafe.Pointer(&d[0]), unsafe.Pointer(&s[0]), nseg, l)
			for i := range nseg {
				x := s[i*l : (i+1)*l]
				want := x[0]
				for _, v := range x[1:] {
					want = fold(want, v)
				}
				if math.Float64bits(d[i]) != math.Float64bits(want) {
					t.Fatalf("min=%v %v: %v (%#x), numerics %v (%#x)", isMin, x, d[i], math.Float64bits(d[i]), want, math.Float64bits(want))
				}
			}
		}
	}
}

// A narrow column sum's leaves (narrowLeaves) are the leaf sums of the
// columns' values as contiguous runs: numerics.SumLeafFloat's bits, quiet
// and signaling NaN payloads and signed zeros included, for every leaf
// length and every narrow width, f32 and f64, at every tier of the vector
// add that sums eight rows at a time.
func TestNarrowLeavesMatchLeaf(t *testing.T) {
	atEveryTier(t, checkNarrowLeaves)
}

func checkNarrowLeaves(t *testing.T) {
	testNarrowLeaves(t, func(r *rand.Rand) float32 {
		switch r.IntN(12) {
		case 0:
			return math.Float32frombits(0x7fc00000 | uint32(r.Uint64())&0x3fffff)
		case 1:
			return math.Float32frombits(0xff800001 | uint32(r.Uint64())&0x1fffff) // signaling, negative
		case 2:
			return float32(math.Copysign(0, -1))
		}
		return float32(r.NormFloat64())
	}, func(v float32) uint64 { return uint64(math.Float32bits(v)) })
	testNarrowLeaves(t, func(r *rand.Rand) float64 {
		switch r.IntN(12) {
		case 0:
			return math.Float64frombits(0x7ff8000000000000 | r.Uint64()&0x7ffffffffffff)
		case 1:
			return math.Float64frombits(0x7ff0000000000001 | r.Uint64()&0x3ffffffffffff) // signaling
		case 2:
			return math.Copysign(0, -1)
		}
		return r.NormFloat64()
	}, math.Float64bits)
}

func testNarrowLeaves[T float32 | float64](t *testing.T, gen func(*rand.Rand) T, bits func(T) uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(15, 16))
	for k := 1; k < 16; k++ {
		for n := 1; n <= 130; n += 1 + n/8 {
			x := make([]T, n*k)
			for i := range x {
				x[i] = gen(rng)
			}
			got := make([]T, k)
			narrowLeaves(got, x, k, n)
			for j := range k {
				col := make([]T, n)
				for i := range n {
					col[i] = x[i*k+j]
				}
				if want := numerics.SumLeafFloat(col); bits(got[j]) != bits(want) {
					t.Fatalf("%T k=%d n=%d column %d: %v (%#x), leaf %v (%#x)", got[j], k, n, j, got[j], bits(got[j]), want, bits(want))
				}
			}
		}
	}
}

// BenchmarkNarrowLeaves sums E7's ten-column bias gradient, 256 rows of
// ten, into its leaf sums.
func BenchmarkNarrowLeaves(b *testing.B) {
	x := make([]float32, 256*10)
	for i := range x {
		x[i] = float32(i%37) * 0.25
	}
	dst := make([]float32, 10)
	for b.Loop() {
		narrowLeaves(dst, x, 10, 256)
	}
}

// The float32 max and min folds, whose short rows the AVX-512 tier folds
// sixteen at a time (simd.MaxRowsF32), give numerics.Maximum's and
// Minimum's results at every tier: rows of every length, signed zeros and
// infinities in every order, and NaNs (quiet and signaling payloads) both
// dense and sparse, so that some groups of sixteen rows hold one and go a
// row at a time between groups that do not.
func TestFloatFoldF32MatchesNumerics(t *testing.T) {
	atEveryTier(t, checkFloatFoldF32)
}

func checkFloatFoldF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	pick := func(nanOneIn int) float32 {
		if rng.IntN(nanOneIn) == 0 {
			if rng.IntN(2) == 0 {
				return math.Float32frombits(0x7fc00000 | uint32(rng.IntN(2))<<31 | uint32(rng.Uint64())&0x3fffff)
			}
			return math.Float32frombits(0x7f800001 | uint32(rng.IntN(2))<<31 | uint32(rng.Uint64())&0x1fffff) // signaling
		}
		switch rng.IntN(8) {
		case 0:
			return float32(math.Copysign(0, -1))
		case 1:
			return 0
		case 2:
			return float32(math.Inf(1 - 2*rng.IntN(2)))
		case 3:
			return math.Float32frombits(uint32(rng.IntN(2))<<31 | uint32(1+rng.IntN(0x7fffff))) // subnormal
		}
		return float32(rng.IntN(7)-3) * float32(math.Exp2(float64(rng.IntN(40)-20)))
	}
	for _, isMin := range []bool{false, true} {
		fold := numerics.Maximum[float32]
		if isMin {
			fold = numerics.Minimum[float32]
		}
		red := floatFoldReducer[float32](isMin)
		for _, nanOneIn := range []int{10, 3000} {
			for l := 1; l < 40; l++ {
				nseg := 100 + rng.IntN(200)
				s := make([]float32, nseg*l)
				for i := range s {
					s[i] = pick(nanOneIn)
				}
				d := make([]float32, nseg)
				red.seg(unsafe.Pointer(&d[0]), unsafe.Pointer(&s[0]), nseg, l)
				for i := range nseg {
					x := s[i*l : (i+1)*l]
					want := x[0]
					for _, v := range x[1:] {
						want = fold(want, v)
					}
					if math.Float32bits(d[i]) != math.Float32bits(want) {
						t.Fatalf("min=%v l=%d row %d %v: %v (%#x), numerics %v (%#x)", isMin, l, i, x, d[i], math.Float32bits(d[i]), want, math.Float32bits(want))
					}
				}
			}
		}
	}
}

// BenchmarkShortRows reduces E7's logits, 256 rows of ten, a row at a
// time: their sums (the softmax's denominators) and their maxima.
func BenchmarkShortRows(b *testing.B) {
	x := make([]float32, 256*10)
	for i := range x {
		x[i] = float32(i%37) * 0.25
	}
	d := make([]float32, 256)
	b.Run("sum", func(b *testing.B) {
		for b.Loop() {
			sumShort(d, x, 10)
		}
	})
	b.Run("max", func(b *testing.B) {
		for b.Loop() {
			foldFloats(d, x, 10, false)
		}
	})
}
