package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The micro-kernels of every tier against their Go twin of the same tile
// shape: bit-identical, with and without load, for kc of 0, 1 and more,
// on values that make rounding matter (and Inf/NaN that FMA propagates).
func TestGemmKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f32 := func() float32 {
		switch rng.IntN(40) {
		case 0:
			return float32(math.Inf(1))
		case 1:
			return float32(math.NaN())
		case 2:
			return float32(math.Copysign(0, -1))
		}
		return float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10)))
	}
	f64 := func() float64 { return float64(f32()) * (1 + rng.Float64()*1e-9) }
	for _, tier := range Available() {
		restore := SetLevel(tier)
		checkGemmKernel(t, tier, GemmF32(), fma32, f32)
		checkGemmKernel(t, tier, GemmF32Narrow(), fma32, f32)
		checkGemmKernel(t, tier, GemmF32Tall(), fma32, f32)
		checkGemmKernel(t, tier, GemmF64(), math.FMA, f64)
		restore()
	}
}

func checkGemmKernel[T float32 | float64](t *testing.T, tier Tier, k GemmKernel[T], fma func(x, y, z T) T, gen func() T) {
	t.Helper()
	if low := k.Low; low != nil {
		// The short forms: same columns, fewer rows, each the whole
		// chain's choice for the rows it covers.
		if low.NR != k.NR || low.MR >= k.MR {
			t.Errorf("%v %d×%d: Low is %d×%d", tier, k.MR, k.NR, low.MR, low.NR)
		}
		for mb := 1; mb <= low.MR; mb++ {
			if f := k.For(mb); f.MR < mb || f.Low != nil && f.Low.MR >= mb {
				t.Errorf("%v %d×%d: For(%d) is the %d-row kernel", tier, k.MR, k.NR, mb, f.MR)
			}
		}
		checkGemmKernel(t, tier, *low, fma, gen)
	}
	if f := k.For(k.MR); f.MR != k.MR {
		t.Errorf("%v %d×%d: For(%d) is the %d-row kernel", tier, k.MR, k.NR, k.MR, f.MR)
	}
	twin := GemmTileGo(k.MR, k.NR, fma)
	if k.Run2 != nil {
		checkGemmRun2(t, tier, k, twin, gen)
	}
	for _, kc := range []int{0, 1, 2, 7, 64} {
		for i, load := range []bool{false, true, false, true} {
			// Packed a and b, then matrices read in place.
			ra, sa, sb := 1, k.MR, k.NR
			if i >= 2 {
				ra, sa, sb = kc+5, 1, k.NR+3
			}
			a, b := make([]T, max(kc, 1)*k.MR+k.MR*(kc+5)), make([]T, kc*sb)
			for i := range a {
				a[i] = gen()
			}
			for i := range b {
				b[i] = gen()
			}
			ldc := k.NR + 3
			c := make([]T, (k.MR-1)*ldc+k.NR)
			for i := range c {
				c[i] = gen()
			}
			want := append([]T(nil), c...)
			twin.Run(kc, a, ra, sa, b, sb, want, ldc, load)
			k.Run(kc, a, ra, sa, b, sb, c, ldc, load)
			for i := range c {
				if math.Float64bits(float64(c[i])) != math.Float64bits(float64(want[i])) && !(c[i] != c[i] && want[i] != want[i]) {
					t.Fatalf("%v %d×%d kc=%d load=%v ra=%d sa=%d: c[%d] = %v, twin %v", tier, k.MR, k.NR, kc, load, ra, sa, i, c[i], want[i])
				}
			}
		}
	}
}

// checkGemmRun2 checks k.Run2 against the Go twin's Run over a packed
// copy of the b rows it steps through (sb1, sb2 apart in two levels),
// with and without load, on a packed a panel.
func checkGemmRun2[T float32 | float64](t *testing.T, tier Tier, k, twin GemmKernel[T], gen func() T) {
	t.Helper()
	for _, k1 := range []int{0, 1, 3, 56} {
		for _, k2 := range []int{1, 2, 3, 8} {
			for _, load := range []bool{false, true} {
				kc := k1 * k2
				sb1, sb2 := k.NR+7, (k.NR+7)*(k1+1)+3 // i2 the outer stride in memory, as a cotangent's batch
				a := make([]T, max(kc, 1)*k.MR)
				b := make([]T, max(k1, 1)*sb1+k2*sb2+k.NR)
				for i := range a {
					a[i] = gen()
				}
				for i := range b {
					b[i] = gen()
				}
				packed := make([]T, kc*k.NR)
				for i1 := range k1 {
					for i2 := range k2 {
						copy(packed[(i1*k2+i2)*k.NR:][:k.NR], b[i1*sb1+i2*sb2:])
					}
				}
				ldc := k.NR + 3
				c := make([]T, (k.MR-1)*ldc+k.NR)
				for i := range c {
					c[i] = gen()
				}
				want := append([]T(nil), c...)
				twin.Run(kc, a, 1, k.MR, packed, k.NR, want, ldc, load)
				k.Run2(k1, k2, a, b, sb1, sb2, c, ldc, load)
				for i := range c {
					if math.Float64bits(float64(c[i])) != math.Float64bits(float64(want[i])) && !(c[i] != c[i] && want[i] != want[i]) {
						t.Fatalf("%v %d×%d Run2 k1=%d k2=%d load=%v: c[%d] = %v, twin %v", tier, k.MR, k.NR, k1, k2, load, i, c[i], want[i])
					}
				}
			}
		}
	}
}

// The VNNI kernels — VPDPBUSD on ZMM (AVX512_VNNI) and its VEX form on
// YMM as four 6×16 sub-tiles (AVX-VNNI, the AVX2 tier) — against their Go
// twin on random bytes (all 256 values of each side, runs of the
// extremes 0/255 by -128/127), with and without load, including sums
// that wrap; and with VNNI hidden every tier reports the Go twin.
func TestGemmI8Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ran := 0
	for _, tier := range Available() {
		restore := SetLevel(tier)
		k, fast := GemmI8()
		want := tier == AVX512 && detectedVNNI[0] || tier == AVX2 && detectedVNNI[1]
		if fast != want || fast != VNNI() {
			t.Errorf("%v: GemmI8 fast = %v, VNNI() = %v; the CPU's AVX512_VNNI, AVX-VNNI are %v", tier, fast, VNNI(), detectedVNNI)
		}
		hide := SetVNNI(false)
		if _, fast := GemmI8(); fast || VNNI() {
			t.Errorf("%v: VNNI hidden, GemmI8 still reports its VNNI kernel", tier)
		}
		hide()
		if !fast {
			restore()
			continue
		}
		ran++
		for _, kc4 := range []int{0, 1, 2, 5, 300} {
			for _, load := range []bool{false, true} {
				a, b := make([]uint8, kc4*GemmI8MR*4), make([]int8, kc4*GemmI8NR*4)
				extreme := kc4 == 2 // 255·-128 and 255·127 in every product
				for i := range a {
					a[i] = uint8(rng.IntN(256))
					if extreme {
						a[i] = 255
					}
				}
				for i := range b {
					b[i] = int8(rng.IntN(256) - 128)
					if extreme {
						b[i] = [2]int8{-128, 127}[i/4%2]
					}
				}
				ldc := GemmI8NR + 1
				c := make([]int32, (GemmI8MR-1)*ldc+GemmI8NR)
				for i := range c {
					c[i] = int32(rng.Uint32())
				}
				corr := make([]int32, GemmI8NR)
				for i := range corr {
					corr[i] = int32(rng.Uint32())
				}
				want := append([]int32(nil), c...)
				gemmI8Go(kc4, a, b, want, ldc, load, corr)
				k.Run(kc4, a, b, c, ldc, load, corr)
				for i := range c {
					if c[i] != want[i] {
						t.Fatalf("%v kc4=%d load=%v: c[%d] = %d, twin %d", tier, kc4, load, i, c[i], want[i])
					}
				}
			}
		}
		restore()
	}
	if ran == 0 {
		t.Skip("no AVX512_VNNI or AVX-VNNI here: the Go twin is the kernel")
	}
}

// InterleaveI8x4 at every tier on every column count up to 100 (whole
// groups of 16, tails, several 32-column panels), the extremes of int8
// included, on rows longer than the count, with panels strided apart by
// more than their 128 bytes: every byte outside the packed dwords (the
// gaps, past the end) must stay untouched.
func TestInterleaveI8x4(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const stride = 4*GemmI8NR + 12
	for _, tier := range Available() {
		restore := SetLevel(tier)
		for n := range 101 {
			var rows [4][]int8
			for r := range rows {
				rows[r] = make([]int8, n+3)
				for j := range rows[r] {
					rows[r][j] = int8(rng.IntN(256) - 128)
					if rng.IntN(8) == 0 {
						rows[r][j] = [2]int8{-128, 127}[rng.IntN(2)]
					}
				}
			}
			size := (n/GemmI8NR+1)*stride + 5
			dst, want := make([]int8, size), make([]int8, size)
			for i := range dst {
				dst[i] = int8(i)
				want[i] = int8(i)
			}
			sums, wantSums := make([]int32, n), make([]int32, n)
			for j := range sums {
				sums[j] = int32(rng.Uint32())
				wantSums[j] = sums[j]
			}
			InterleaveI8x4(dst, sums, rows[0], rows[1], rows[2], rows[3], stride)
			for j := range n {
				for r := range rows {
					want[j/GemmI8NR*stride+j%GemmI8NR*4+r] = rows[r][j]
					wantSums[j] += int32(rows[r][j])
				}
			}
			for i := range dst {
				if dst[i] != want[i] {
					t.Fatalf("%v n=%d: dst[%d] = %d, want %d", tier, n, i, dst[i], want[i])
				}
			}
			for j := range sums {
				if sums[j] != wantSums[j] {
					t.Fatalf("%v n=%d: sums[%d] = %d, want %d", tier, n, j, sums[j], wantSums[j])
				}
			}
		}
		restore()
	}
}

// PackI8Rows at every tier for 12 and 32 rows, XOR masks of the a panel
// and none, on every dword count up to 40 (whole groups of four, tails),
// with row strides longer than, odd, and equal to the rows, against a
// loop of its definition; bytes past the panel stay untouched.
func TestPackI8Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tier := range Available() {
		restore := SetLevel(tier)
		for _, rows := range []int{12, 32, 4} {
			for _, flip := range []uint32{0x80808080, 0, 0x01020304} {
				for n4 := range 41 {
					for _, extra := range []int{0, 3, 64} {
						lda := 4*n4 + extra
						if lda == 0 {
							continue // no rows to read
						}
						a := make([]int8, rows*lda+4*n4)
						for i := range a {
							a[i] = int8(rng.IntN(256) - 128)
						}
						size := n4*rows*4 + 7
						dst, want := make([]uint8, size), make([]uint8, size)
						for i := range dst {
							dst[i], want[i] = uint8(i), uint8(i)
						}
						for l4 := range n4 {
							for r := range rows {
								for b := range 4 {
									want[(l4*rows+r)*4+b] = uint8(a[r*lda+4*l4+b]) ^ uint8(flip>>(8*b))
								}
							}
						}
						PackI8Rows(dst, a, lda, n4, rows, flip)
						for i := range dst {
							if dst[i] != want[i] {
								t.Fatalf("%v rows=%d flip=%#x n4=%d lda=%d: dst[%d] = %d, want %d", tier, rows, flip, n4, lda, i, dst[i], want[i])
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// PackI8Cols12 at every tier for 0 to 20 steps, row strides of 16 and
// more, with and without the +128 mask, against its definition; bytes
// past the panel stay untouched.
func TestPackI8Cols12(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tier := range Available() {
		restore := SetLevel(tier)
		for n4 := range 21 {
			for _, lda := range []int{16, 19, 100} {
				for _, flip := range []uint32{0x80808080, 0} {
					a := make([]int8, 4*n4*lda+16)
					for i := range a {
						a[i] = int8(rng.IntN(256) - 128)
					}
					size := n4*GemmI8MR*4 + 9
					dst, want := make([]uint8, size), make([]uint8, size)
					for i := range dst {
						dst[i], want[i] = uint8(i), uint8(i)
					}
					for l := range n4 {
						for r := range GemmI8MR {
							for b := range 4 {
								want[(l*GemmI8MR+r)*4+b] = uint8(a[(4*l+b)*lda+r]) ^ uint8(flip>>(8*b))
							}
						}
					}
					PackI8Cols12(dst, a, lda, n4, flip)
					for i := range dst {
						if dst[i] != want[i] {
							t.Fatalf("%v n4=%d lda=%d flip=%#x: dst[%d] = %d, want %d", tier, n4, lda, flip, i, dst[i], want[i])
						}
					}
				}
			}
		}
		restore()
	}
}

// SumPanelI8 at every tier against the plain sum, for 0, 1, 7 and 600
// steps of extreme and random bytes, onto nonzero sums.
func TestSumPanelI8(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tier := range Available() {
		restore := SetLevel(tier)
		for _, kc4 := range []int{0, 1, 7, 600} {
			b := make([]int8, kc4*GemmI8NR*4+9)
			for i := range b {
				b[i] = int8(rng.IntN(256) - 128)
				if i%5 == 0 {
					b[i] = -128
				}
			}
			sums, want := make([]int32, GemmI8NR), make([]int32, GemmI8NR)
			for j := range sums {
				sums[j] = int32(rng.Uint32())
				want[j] = sums[j]
				for l := range kc4 {
					for b4 := range 4 {
						want[j] += int32(b[(l*GemmI8NR+j)*4+b4])
					}
				}
			}
			SumPanelI8(kc4, b, sums)
			for j := range sums {
				if sums[j] != want[j] {
					t.Fatalf("%v kc4=%d: sums[%d] = %d, want %d", tier, kc4, j, sums[j], want[j])
				}
			}
		}
		restore()
	}
}
