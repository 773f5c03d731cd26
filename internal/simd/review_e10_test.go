//go:build linux

package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// guarded maps a few pages followed by one that faults on any access, so
// a slice placed to end at the guard page's start makes any read or write
// past its end (a vector load or store not masked at the row end, a flat
// period run one vector too far) crash the test instead of passing
// silently.
type guarded struct {
	mem  []byte
	base int // start of the guard page within mem
}

func newGuarded(t *testing.T, bytes int) *guarded {
	t.Helper()
	page := syscall.Getpagesize()
	n := (bytes+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err) // not a hidden failure: the platform has no anonymous maps
	}
	if err := syscall.Mprotect(mem[n-page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(mem) })
	return &guarded{mem: mem, base: n - page}
}

// f32 is the n float32 values that end exactly at the guard page.
func (g *guarded) f32(n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(&g.mem[g.base-4*n])), n)
}

// f64 is the n float64 values that end exactly at the guard page.
func (g *guarded) f64(n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(&g.mem[g.base-8*n])), n)
}

// TestReviewE10OuterGuardPages runs OuterF32/F64 with dst, a and b each
// ending exactly at a page that faults when touched, on every tier, for
// every n from 1 to 40 (masked row ends of 8- and 16-lane vectors; the
// flat run's periods for n < 16 with ldc = n) and m from 1 to 300 (whole
// periods and the rows after them), row gaps and none: no access past any
// slice's end, every element fma(a, b, +0) bit for bit, the gaps untouched.
func TestReviewE10OuterGuardPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 4))
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return outerSpecials[rng.IntN(len(outerSpecials))]
		}
		return rng.NormFloat64()
	}
	const sentinel = -777.25
	ms := []int{1, 2, 3, 5, 8, 15, 16, 17, 31, 32, 33, 48, 100, 255, 256, 257, 300}
	gd, ga, gb := newGuarded(t, 8*300*56), newGuarded(t, 8*300), newGuarded(t, 8*40)
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for n := 1; n <= 40; n++ {
			for _, m := range ms {
				for _, pad := range []int{0, 1, 16 - n%16} {
					if pad == 0 && m > 1 && rng.IntN(2) == 0 && n >= 16 {
						continue
					}
					ldc := n + pad
					size := (m-1)*ldc + n
					name := fmt.Sprintf("%v m=%d n=%d ldc=%d", tier, m, n, ldc)
					{
						dst, a, b := gd.f32(size), ga.f32(m), gb.f32(n)
						for i := range dst {
							dst[i] = sentinel
						}
						for i := range a {
							a[i] = float32(pick())
						}
						for j := range b {
							b[j] = float32(pick())
						}
						simd.OuterF32(dst, a, b, ldc)
						for e, got := range dst {
							r, c := e/ldc, e%ldc
							want := float32(sentinel)
							if c < n {
								want = fmaRef32(a[r], b[c])
							}
							if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
								t.Fatalf("OuterF32 %s: element %d (row %d, column %d) = %v (%#x), want %v (%#x)", name, e, r, c, got, math.Float32bits(got), want, math.Float32bits(want))
							}
						}
					}
					{
						dst, a, b := gd.f64(size), ga.f64(m), gb.f64(n)
						for i := range dst {
							dst[i] = sentinel
						}
						for i := range a {
							a[i] = pick()
						}
						for j := range b {
							b[j] = pick()
						}
						simd.OuterF64(dst, a, b, ldc)
						for e, got := range dst {
							r, c := e/ldc, e%ldc
							want := float64(sentinel)
							if c < n {
								want = math.FMA(a[r], b[c], 0)
							}
							if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
								t.Fatalf("OuterF64 %s: element %d (row %d, column %d) = %v (%#x), want %v (%#x)", name, e, r, c, got, math.Float64bits(got), want, math.Float64bits(want))
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// TestReviewE10OuterAllocs: OuterF32 (general rows, masked row ends, the
// flat run with its stack pattern) and OuterF64 allocate nothing, on
// every tier: E10's per-example gradients run them 256 times a step.
func TestReviewE10OuterAllocs(t *testing.T) {
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, n := range []int{3, 10, 16, 37, 128} {
			m := 64
			dst, a, b := make([]float32, m*n), make([]float32, m), make([]float32, n)
			d64, a64, b64 := make([]float64, m*n), make([]float64, m), make([]float64, n)
			if allocs := testing.AllocsPerRun(20, func() {
				simd.OuterF32(dst, a, b, n)
				simd.OuterF64(d64, a64, b64, n)
			}); allocs != 0 {
				t.Errorf("%v n=%d: %v allocations per call, want 0", tier, n, allocs)
			}
		}
		restore()
	}
}
