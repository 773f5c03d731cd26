package simd_test

import (
	"flag"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/x448/float16"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
)

var exhaustive = flag.Bool("simd.exhaustive", false, "test conversions on every float32 bit pattern at every tier, and the float32 transcendentals on every input")

// forEachF32 calls check on chunks of float32 bit patterns b ≡ 0 mod
// stride, covering all 2**32 patterns when stride is 1, on every core.
func forEachF32(stride uint64, check func(x []float32) string) string {
	const chunk = 1 << 20
	var mu sync.Mutex
	var first string
	var wg sync.WaitGroup
	next := make(chan uint64)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := make([]float32, chunk)
			for start := range next {
				n := 0
				for b := start; b < 1<<32 && n < chunk; b += stride {
					x[n] = math.Float32frombits(uint32(b))
					n++
				}
				if msg := check(x[:n]); msg != "" {
					mu.Lock()
					if first == "" {
						first = msg
					}
					mu.Unlock()
				}
			}
		}()
	}
	for start := uint64(0); start < 1<<32; start += chunk * stride {
		next <- start
	}
	close(next)
	wg.Wait()
	return first
}

// strides returns, per tier, how densely the bit patterns are walked: all
// of them with -simd.exhaustive; else a dense subset at the best tier (the
// one that runs) and a sparser one at the others, denser with KILN_LONG=1
// (every 23rd and 61st pattern; every 181st and 487th by default, prime
// strides so every low mantissa bit varies).
func strides() map[simd.Tier]uint64 {
	av := simd.Available()
	m := map[simd.Tier]uint64{}
	for _, t := range av {
		switch {
		case *exhaustive:
			m[t] = 1
		case t == av[len(av)-1]:
			m[t] = longtest.Pick[uint64](23, 181)
		default:
			m[t] = longtest.Pick[uint64](61, 487)
		}
	}
	if testing.Short() {
		for t := range m {
			m[t] *= 16
		}
	}
	return m
}

// TestNarrowingEveryPattern checks F32ToF16, F32ToBF16, RoundF16 and
// RoundBF16 against package tensor's conversions from float64, a rounding
// algorithm of its own (tensor's float32 ones are the Go twins' own,
// internal/numerics, and would check nothing at the Generic tier).
func TestNarrowingEveryPattern(t *testing.T) {
	for tier, stride := range strides() {
		t.Run(tier.String(), func(t *testing.T) {
			defer simd.SetLevel(tier)()
			msg := forEachF32(stride, func(x []float32) string {
				h := make([]uint16, len(x))
				r := make([]float32, len(x))
				simd.F32ToF16(h, x)
				for i, v := range x {
					if want := tensor.Float64ToF16(float64(v)).Bits(); h[i] != want {
						return sprintf("F32ToF16(%#08x) = %#04x, want %#04x", math.Float32bits(v), h[i], want)
					}
				}
				copy(r, x)
				simd.RoundF16(r)
				for i, v := range x {
					if want := float16.Frombits(tensor.Float64ToF16(float64(v)).Bits()).Float32(); math.Float32bits(r[i]) != math.Float32bits(want) {
						return sprintf("RoundF16(%#08x) = %#08x, want %#08x", math.Float32bits(v), math.Float32bits(r[i]), math.Float32bits(want))
					}
				}
				simd.F32ToBF16(h, x)
				for i, v := range x {
					if want := tensor.Float64ToBF16(float64(v)).Bits(); h[i] != want {
						return sprintf("F32ToBF16(%#08x) = %#04x, want %#04x", math.Float32bits(v), h[i], want)
					}
				}
				copy(r, x)
				simd.RoundBF16(r)
				for i, v := range x {
					if want := math.Float32frombits(uint32(tensor.Float64ToBF16(float64(v)).Bits()) << 16); math.Float32bits(r[i]) != math.Float32bits(want) {
						return sprintf("RoundBF16(%#08x) = %#08x, want %#08x", math.Float32bits(v), math.Float32bits(r[i]), math.Float32bits(want))
					}
				}
				return ""
			})
			if msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestWideningEveryPattern checks F16ToF32 against x448/float16 and
// BF16ToF32 against its definition (the bits shifted up) on all 65536
// patterns, at every tier. (Package tensor's conversions are the Go twins'
// own, internal/numerics: no oracle for them.)
func TestWideningEveryPattern(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	dst := make([]float32, len(src))
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		simd.F16ToF32(dst, src)
		for i, h := range src {
			if got, want := math.Float32bits(dst[i]), math.Float32bits(float16.Frombits(h).Float32()); got != want {
				t.Fatalf("%v: F16ToF32(%#04x) = %#08x, want %#08x", tier, h, got, want)
			}
		}
		simd.BF16ToF32(dst, src)
		for i, h := range src {
			if got, want := math.Float32bits(dst[i]), uint32(h)<<16; got != want {
				t.Fatalf("%v: BF16ToF32(%#04x) = %#08x, want %#08x", tier, h, got, want)
			}
		}
		restore()
	}
}

// TestIntToFloat checks the widening conversions on every int8, uint8,
// int16 and uint16 and on int32 extremes and random values, against Go's
// conversions (round to nearest even).
func TestIntToFloat(t *testing.T) {
	i8 := make([]int8, 256)
	u8 := make([]uint8, 256)
	for i := range 256 {
		i8[i], u8[i] = int8(i), uint8(i)
	}
	i16 := make([]int16, 1<<16)
	u16 := make([]uint16, 1<<16)
	for i := range 1 << 16 {
		i16[i], u16[i] = int16(i), uint16(i)
	}
	i32 := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 1<<24 + 1, 1<<24 + 3, -(1<<25 + 2), 1<<25 + 6, 123456789}
	for i := int32(0); i < 1000; i++ {
		i32 = append(i32, int32(uint32(i)*2654435761))
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		checkConv(t, tier, "I8ToF32", simd.I8ToF32, i8)
		checkConv(t, tier, "U8ToF32", simd.U8ToF32, u8)
		checkConv(t, tier, "I16ToF32", simd.I16ToF32, i16)
		checkConv(t, tier, "U16ToF32", simd.U16ToF32, u16)
		checkConv(t, tier, "I32ToF32", simd.I32ToF32, i32)
		checkConv(t, tier, "I32ToF64", simd.I32ToF64, i32)
		restore()
	}
}

func checkConv[D float32 | float64, S int8 | uint8 | int16 | uint16 | int32](t *testing.T, tier simd.Tier, name string, f func([]D, []S), src []S) {
	t.Helper()
	dst := make([]D, len(src))
	f(dst, src)
	for i, v := range src {
		if dst[i] != D(v) {
			t.Errorf("%v: %s(%d) = %v, want %v", tier, name, v, dst[i], D(v))
			return
		}
	}
}
