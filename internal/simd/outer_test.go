package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// outerSpecials are the values the outer-product tests mix in: signed
// zeros, infinities, NaN, subnormals and products that underflow (to −0
// for a negative one) or overflow.
var outerSpecials = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
	1e-40, -1e-40, 1e-45, 5e-324, -1e-300, 1e-30, -1e-30, 3e38, -3e38, 1e300}

// fmaRef32 is fma(x, y, +0) in float32 through math.FMA: the float64
// product of float32 values is exact, so rounding it to float32 rounds
// once.
func fmaRef32(x, y float32) float32 { return float32(math.FMA(float64(x), float64(y), 0)) }

// TestOuter checks OuterF32/F64 and their NT forms on every tier against
// fma(a[i], b[j], +0) element by element, bit for bit (any NaN for a
// NaN), for rows shorter than, equal to and longer than a vector, row
// strides past the row (the gaps untouched), and aligned and unaligned
// dst.
func TestOuter(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 10))
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return outerSpecials[rng.IntN(len(outerSpecials))]
		}
		return rng.NormFloat64()
	}
	const sentinel = 12345.5
	zeros, negZeros := 0, 0
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, m := range []int{1, 2, 5, 13, 40} {
			for _, n := range []int{1, 3, 6, 7, 8, 9, 10, 12, 15, 16, 17, 31, 33, 64, 70, 128, 131} {
				for _, pad := range []int{0, 3, 16 - n%16} {
					for _, off := range []int{0, 1} {
						ldc := n + pad
						name := fmt.Sprintf("%v m=%d n=%d ldc=%d off=%d", tier, m, n, ldc, off)
						a32, b32 := make([]float32, m), make([]float32, n)
						a64, b64 := make([]float64, m), make([]float64, n)
						for i := range a32 {
							a64[i] = pick()
							a32[i] = float32(pick())
						}
						for j := range b32 {
							b64[j] = pick()
							b32[j] = float32(pick())
						}
						for _, k32 := range []struct {
							name string
							f    func(dst, a, b []float32, ldc int)
						}{{"OuterF32", simd.OuterF32}} {
							buf := aligned32(off + m*ldc + 16)
							for i := range buf {
								buf[i] = sentinel
							}
							dst := buf[off : off+(m-1)*ldc+n]
							k32.f(dst, a32, b32, ldc)
							for i := range buf {
								r, c := (i-off)/ldc, (i-off)%ldc
								want := float32(sentinel)
								if i >= off && r < m && c < n {
									want = fmaRef32(a32[r], b32[c])
									if want == 0 {
										zeros++
										if math.Signbit(float64(want)) {
											negZeros++
										}
									}
								}
								if got := buf[i]; math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
									t.Fatalf("%s %s: element %d (row %d, column %d) = %v (%#x), want %v (%#x)", k32.name, name, i-off, r, c, got, math.Float32bits(got), want, math.Float32bits(want))
								}
							}
						}
						for _, k64 := range []struct {
							name string
							f    func(dst, a, b []float64, ldc int)
						}{{"OuterF64", simd.OuterF64}} {
							buf := aligned64f(off + m*ldc + 8)
							for i := range buf {
								buf[i] = sentinel
							}
							dst := buf[off : off+(m-1)*ldc+n]
							k64.f(dst, a64, b64, ldc)
							for i := range buf {
								r, c := (i-off)/ldc, (i-off)%ldc
								want := float64(sentinel)
								if i >= off && r < m && c < n {
									want = math.FMA(a64[r], b64[c], 0)
								}
								if got := buf[i]; math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
									t.Fatalf("%s %s: element %d (row %d, column %d) = %v, want %v", k64.name, name, i-off, r, c, got, want)
								}
							}
						}
					}
				}
			}
		}
		restore()
	}
	if zeros == 0 || negZeros == 0 {
		t.Fatalf("checked %d zero products, %d of them −0: the specials must reach both", zeros, negZeros)
	}
}

// TestOuterZeroSigns pins the cases that tell fma(x, y, +0) from a
// multiply and from a multiply followed by an add of +0.
func TestOuterZeroSigns(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, c := range []struct{ a, b, want float32 }{
			{-1, 0, 0},               // an exact −0 product is +0 (a multiply gives −0)
			{negZero, 5, 0},          // likewise
			{1e-30, -1e-30, negZero}, // a negative product that underflows stays −0 (mul then +0 gives +0)
			{1e-30, 1e-30, 0},
			{1e-20, 1e-20, 1e-40}, // a subnormal result, rounded once
			{float32(math.Inf(-1)), 2, float32(math.Inf(-1))},
			{3e38, 3e38, float32(math.Inf(1))},
		} {
			for _, n := range []int{1, 16, 17, 40} { // tail lanes and whole vectors
				b := make([]float32, n)
				for j := range b {
					b[j] = c.b
				}
				dst := make([]float32, n)
				simd.OuterF32(dst, []float32{c.a}, b, n)
				for j, got := range dst {
					if math.Float32bits(got) != math.Float32bits(c.want) {
						t.Fatalf("%v: fma(%v, %v, +0) in column %d of %d = %v (%#x), want %v", tier, c.a, c.b, j, n, got, math.Float32bits(got), c.want)
					}
				}
			}
		}
		got := make([]float32, 3)
		simd.OuterF32(got, []float32{float32(math.Inf(1))}, []float32{0, negZero, float32(math.NaN())}, 3)
		for j, v := range got {
			if v == v {
				t.Fatalf("%v: ∞·%d-th special = %v, want NaN", tier, j, v)
			}
		}
		restore()
	}
}

// TestOuterBounds: a dst too short for the rows, or rows that overlap,
// panic before anything is written; empty operands write nothing.
func TestOuterBounds(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	dst := make([]float32, 10)
	mustPanic("short dst", func() { simd.OuterF32(dst, make([]float32, 3), make([]float32, 4), 4) })
	mustPanic("overlapping rows", func() { simd.OuterF32(dst, make([]float32, 2), make([]float32, 4), 3) })
	mustPanic("short dst f64", func() { simd.OuterF64(make([]float64, 7), make([]float64, 2), make([]float64, 4), 4) })
	simd.OuterF32(dst[:0], nil, []float32{1}, 1)
	simd.OuterF32(dst[:0], []float32{1}, nil, 1)
	for i, v := range dst {
		if v != 0 {
			t.Fatalf("element %d written: %v", i, v)
		}
	}
}

// aligned32 is a float32 slice of n elements starting on a 64-byte
// boundary.
func aligned32(n int) []float32 {
	s := make([]float32, n+16)
	k := int((64 - uintptr(unsafe.Pointer(&s[0]))%64) % 64 / 4)
	return s[k : k+n]
}

// aligned64f is aligned32 for float64.
func aligned64f(n int) []float64 {
	s := make([]float64, n+8)
	k := int((64 - uintptr(unsafe.Pointer(&s[0]))%64) % 64 / 8)
	return s[k : k+n]
}

// BenchmarkOuter times E10's per-example weight gradients (64×128 rows
// per example, f32, 8 MiB for its batch of 256) on one goroutine.
func BenchmarkOuter(b *testing.B) {
	const batch, m, n = 256, 64, 128
	dst := aligned32(batch * m * n)
	a, bv := make([]float32, batch*m), make([]float32, batch*n)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range bv {
		bv[i] = float32(i%5) + 0.5
	}
	b.SetBytes(int64(4 * len(dst)))
	for b.Loop() {
		for e := range batch {
			simd.OuterF32(dst[e*m*n:(e+1)*m*n], a[e*m:(e+1)*m], bv[e*n:(e+1)*n], n)
		}
	}
}
