package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// leafDef is the leaf of kernels' package doc, written as plainly as
// possible: the definition SumLeafF64 and SumLeafF32 must meet.
func leafDef[T float32 | float64](x []T) T {
	m := len(x)
	if m < 8 {
		var s T
		for i, v := range x {
			if i == 0 {
				s = v
			} else {
				s = s + v
			}
		}
		return s
	}
	var r [8]T
	copy(r[:], x[:8])
	i := 8
	for ; i+8 <= m; i += 8 {
		for j := range r {
			r[j] = r[j] + x[i+j]
		}
	}
	s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	for ; i < m; i++ {
		s = s + x[i]
	}
	return s
}

// sumGens fill leaves: ordinary values of mixed magnitudes and signs (the
// order of additions shows in the rounding), the same with rare specials,
// the twin test's mix (NaNs with payloads, ±Inf, ±0, subnormals), only
// zeros of both signs, and only subnormals.
func sumGens64() map[string]func(*rand.Rand, []float64) {
	return map[string]func(*rand.Rand, []float64){
		"mixed": func(r *rand.Rand, x []float64) {
			for i := range x {
				x[i] = r.NormFloat64() * math.Ldexp(1, r.IntN(80)-40)
			}
		},
		"rare-specials": func(r *rand.Rand, x []float64) {
			for i := range x {
				x[i] = r.NormFloat64() * math.Ldexp(1, r.IntN(80)-40)
				if r.IntN(100) == 0 {
					x[i] = math.Float64frombits(special64[r.IntN(len(special64))])
				}
			}
		},
		"specials": func(r *rand.Rand, x []float64) { genF64(r, asBytes(x)) },
		"zeros": func(r *rand.Rand, x []float64) {
			for i := range x {
				x[i] = math.Copysign(0, float64(r.IntN(2)*2-1))
			}
		},
		"subnormals": func(r *rand.Rand, x []float64) {
			for i := range x {
				x[i] = math.Float64frombits(r.Uint64()&(1<<52-1) | uint64(r.IntN(2))<<63)
			}
		},
	}
}

func sumGens32() map[string]func(*rand.Rand, []float32) {
	return map[string]func(*rand.Rand, []float32){
		"mixed": func(r *rand.Rand, x []float32) {
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(40)-20))
			}
		},
		"rare-specials": func(r *rand.Rand, x []float32) {
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(40)-20))
				if r.IntN(100) == 0 {
					x[i] = math.Float32frombits(special32[r.IntN(len(special32))])
				}
			}
		},
		"specials": func(r *rand.Rand, x []float32) { genF32(r, asBytes(x)) },
		"zeros": func(r *rand.Rand, x []float32) {
			for i := range x {
				x[i] = float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
			}
		},
		"subnormals": func(r *rand.Rand, x []float32) {
			for i := range x {
				x[i] = math.Float32frombits(r.Uint32()&(1<<23-1) | uint32(r.IntN(2))<<31)
			}
		},
	}
}

func asBytes[T any](x []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), len(x)*int(unsafe.Sizeof(z)))
}

// sumLengths: every length up to 300 and a few longer ones.
func sumLengths() []int {
	ns := testSizes()
	return append(ns, 4096)
}

// sumSlice places n values at off bytes past a 64-byte boundary, between
// NaN guards that would show in the sum if a kernel read them.
func sumSlice[T float32 | float64](n, off int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	b := aligned((n+32)*size+off, 0)
	all := view[T](b[off:])
	for i := range all {
		all[i] = T(math.NaN())
	}
	return all[16 : 16+n : 16+n]
}

// TestSumLeaf: at every tier, on every length and at misaligned starts,
// SumLeafF64 and SumLeafF32 give the Generic tier's bits (NaN payloads
// included) and the definition's value (the NaN they return is not part
// of the definition).
func TestSumLeaf(t *testing.T) {
	tiers := simd.Available()
	for gname, gen := range sumGens64() {
		r := rand.New(rand.NewPCG(7, uint64(len(gname))))
		for _, n := range sumLengths() {
			for _, off := range sumOffsets(n, 8) {
				x := sumSlice[float64](n, off)
				gen(r, x)
				want := leafDef(x)
				var gen0 uint64
				for _, tier := range tiers {
					restore := simd.SetLevel(tier)
					got := simd.SumLeafF64(x)
					restore()
					if tier == simd.Generic {
						gen0 = math.Float64bits(got)
					} else if math.Float64bits(got) != gen0 {
						t.Fatalf("f64 %s n=%d off=%d %v: %#016x, Generic gave %#016x", gname, n, off, tier, math.Float64bits(got), gen0)
					}
					if !sameFloat(float64(got), float64(want), math.Float64bits(got) == math.Float64bits(want)) {
						t.Fatalf("f64 %s n=%d off=%d %v: %v (%#016x), the definition gives %v (%#016x)", gname, n, off, tier, got, math.Float64bits(got), want, math.Float64bits(want))
					}
				}
			}
		}
	}
	for gname, gen := range sumGens32() {
		r := rand.New(rand.NewPCG(8, uint64(len(gname))))
		for _, n := range sumLengths() {
			for _, off := range sumOffsets(n, 4) {
				x := sumSlice[float32](n, off)
				gen(r, x)
				want := leafDef(x)
				var gen0 uint32
				for _, tier := range tiers {
					restore := simd.SetLevel(tier)
					got := simd.SumLeafF32(x)
					restore()
					if tier == simd.Generic {
						gen0 = math.Float32bits(got)
					} else if math.Float32bits(got) != gen0 {
						t.Fatalf("f32 %s n=%d off=%d %v: %#08x, Generic gave %#08x", gname, n, off, tier, math.Float32bits(got), gen0)
					}
					if !sameFloat(float64(got), float64(want), math.Float32bits(got) == math.Float32bits(want)) {
						t.Fatalf("f32 %s n=%d off=%d %v: %v (%#08x), the definition gives %v (%#08x)", gname, n, off, tier, got, math.Float32bits(got), want, math.Float32bits(want))
					}
				}
			}
		}
	}
}

// TestSumLeaves: SumLeavesF64 and SumLeavesF32 give SumLeaf's bits on
// every leaf, for lengths around every count of leaves up to 10, at every
// tier, with a dst longer or shorter than the leaves.
func TestSumLeaves(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	gens64, gens32 := sumGens64(), sumGens32()
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for leaves := 0; leaves <= 10; leaves++ {
			for _, extra := range []int{-127, -100, -1, 0, 1, 7, 8, 65} {
				n := leaves*128 + extra
				if n < 0 {
					continue
				}
				nd := (n + 127) / 128
				for _, gname := range []string{"mixed", "rare-specials", "specials"} {
					for _, off := range []int{0, 8, 24} {
						x := sumSlice[float64](n, off)
						gens64[gname](r, x)
						for _, d := range []int{nd, max(nd-2, 0)} {
							dst := make([]float64, d+1)
							dst[d] = 42
							simd.SumLeavesF64(dst[:d], x)
							for k := range d {
								want := simd.SumLeafF64(x[k*128 : min(k*128+128, n)])
								if math.Float64bits(dst[k]) != math.Float64bits(want) {
									t.Fatalf("%v f64 %s n=%d off=%d leaf %d: %#016x, SumLeafF64 gives %#016x", tier, gname, n, off, k, math.Float64bits(dst[k]), math.Float64bits(want))
								}
							}
							if dst[d] != 42 {
								t.Fatalf("%v f64 n=%d: wrote past dst", tier, n)
							}
						}
						y := sumSlice[float32](n, off/2)
						gens32[gname](r, y)
						for _, d := range []int{nd, max(nd-3, 0)} {
							dst := make([]float32, d+1)
							dst[d] = 42
							simd.SumLeavesF32(dst[:d], y)
							for k := range d {
								want := simd.SumLeafF32(y[k*128 : min(k*128+128, n)])
								if math.Float32bits(dst[k]) != math.Float32bits(want) {
									t.Fatalf("%v f32 %s n=%d off=%d leaf %d: %#08x, SumLeafF32 gives %#08x", tier, gname, n, off, k, math.Float32bits(dst[k]), math.Float32bits(want))
								}
							}
							if dst[d] != 42 {
								t.Fatalf("%v f32 n=%d: wrote past dst", tier, n)
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// sumOffsets: byte offsets from a 64-byte boundary to start at; every one
// for a few lengths (those not a multiple of the element size only without
// -race, as in the twin test).
func sumOffsets(n, size int) []int {
	if n != 8 && n != 129 && n != 257 {
		return []int{(n * size) % 64}
	}
	var offs []int
	for o := 0; o < 64; o++ {
		if o%size == 0 || !raceEnabled {
			offs = append(offs, o)
		}
	}
	return offs
}

// sameFloat: equal bits, or both NaN.
func sameFloat(a, b float64, bitsEqual bool) bool { return bitsEqual || (a != a && b != b) }

func BenchmarkSumLeaf(b *testing.B) {
	for _, n := range []int{128, 4096} {
		x64 := make([]float64, n)
		x32 := make([]float32, n)
		for i := range x64 {
			x64[i] = float64(i%7) - 3.25
			x32[i] = float32(x64[i])
		}
		for _, tier := range simd.Available() {
			b.Run(fmt.Sprintf("F64/n=%d/tier=%v", n, tier), func(b *testing.B) {
				defer simd.SetLevel(tier)()
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					for i := 0; i < n; i += 128 {
						sink64 += simd.SumLeafF64(x64[i : i+128])
					}
				}
			})
			b.Run(fmt.Sprintf("F32/n=%d/tier=%v", n, tier), func(b *testing.B) {
				defer simd.SetLevel(tier)()
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					for i := 0; i < n; i += 128 {
						sink32 += simd.SumLeafF32(x32[i : i+128])
					}
				}
			})
		}
	}
}

func BenchmarkSumLeaves(b *testing.B) {
	const n = 4096
	x64 := make([]float64, n)
	x32 := make([]float32, n)
	for i := range x64 {
		x64[i] = float64(i%7) - 3.25
		x32[i] = float32(x64[i])
	}
	d64, d32 := make([]float64, n/128), make([]float32, n/128)
	for _, tier := range simd.Available() {
		b.Run(fmt.Sprintf("F64/n=%d/tier=%v", n, tier), func(b *testing.B) {
			defer simd.SetLevel(tier)()
			b.SetBytes(8 * n)
			for b.Loop() {
				simd.SumLeavesF64(d64, x64)
			}
		})
		b.Run(fmt.Sprintf("F32/n=%d/tier=%v", n, tier), func(b *testing.B) {
			defer simd.SetLevel(tier)()
			b.SetBytes(4 * n)
			for b.Loop() {
				simd.SumLeavesF32(d32, x32)
			}
		})
	}
}

var (
	sink64 float64
	sink32 float32
)

// TestSumLeavesSqDiff: SumLeavesSqDiffF64 and SumLeavesSqDiffF32 give, on
// every leaf, the bits of SubScalar, then Mul of the result by itself,
// then SumLeaf (NaN payloads included: of x's values and of c), for
// lengths around every count of leaves up to 10, at every tier, with a dst
// longer or shorter than the leaves.
func TestSumLeavesSqDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	gens64, gens32 := sumGens64(), sumGens32()
	cs := []float64{0, 3, -1.5e-3, math.Inf(1), math.Float64frombits(0x7ff8_0000_0000_0123)}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for leaves := 0; leaves <= 10; leaves++ {
			for _, extra := range []int{-127, -1, 0, 1, 65} {
				n := leaves*128 + extra
				if n < 0 {
					continue
				}
				nd := (n + 127) / 128
				for _, gname := range []string{"mixed", "rare-specials", "specials"} {
					for _, c := range cs {
						off := 8 * r.IntN(3)
						x := sumSlice[float64](n, off)
						gens64[gname](r, x)
						v := make([]float64, n)
						simd.SubScalarF64(v, x, c)
						simd.MulF64(v, v, v)
						for _, d := range []int{nd, max(nd-2, 0)} {
							dst := make([]float64, d+1)
							dst[d] = 42
							simd.SumLeavesSqDiffF64(dst[:d], x, c)
							for k := range d {
								want := simd.SumLeafF64(v[k*128 : min(k*128+128, n)])
								if math.Float64bits(dst[k]) != math.Float64bits(want) {
									t.Fatalf("%v f64 %s c=%v n=%d off=%d leaf %d: %#016x, the three kernels give %#016x", tier, gname, c, n, off, k, math.Float64bits(dst[k]), math.Float64bits(want))
								}
							}
							if dst[d] != 42 {
								t.Fatalf("%v f64 n=%d: wrote past dst", tier, n)
							}
						}
						c32 := float32(c)
						y := sumSlice[float32](n, off/2)
						gens32[gname](r, y)
						w := make([]float32, n)
						simd.SubScalarF32(w, y, c32)
						simd.MulF32(w, w, w)
						for _, d := range []int{nd, max(nd-3, 0)} {
							dst := make([]float32, d+1)
							dst[d] = 42
							simd.SumLeavesSqDiffF32(dst[:d], y, c32)
							for k := range d {
								want := simd.SumLeafF32(w[k*128 : min(k*128+128, n)])
								if math.Float32bits(dst[k]) != math.Float32bits(want) {
									t.Fatalf("%v f32 %s c=%v n=%d off=%d leaf %d: %#08x, the three kernels give %#08x", tier, gname, c32, n, off, k, math.Float32bits(dst[k]), math.Float32bits(want))
								}
							}
							if dst[d] != 42 {
								t.Fatalf("%v f32 n=%d: wrote past dst", tier, n)
							}
						}
					}
				}
			}
		}
		restore()
	}
}
