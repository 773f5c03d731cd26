package kernels_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// fp8Formats are the 8-bit float formats.
func fp8Formats() []tensor.FloatFormat {
	var fs []tensor.FloatFormat
	for f := range tensor.FloatFormat(tensor.NumFloatFormats) {
		if f.Bits() == 8 {
			fs = append(fs, f)
		}
	}
	return fs
}

// Which format pairs run on the bf16 GEMM, by the formats' definitions:
// every value of every fp8 format but f8e8m0fnu is a normal bf16 (3 or
// fewer mantissa bits, exponents inside bf16's normal range), so its
// products are exact in f32; f8e8m0fnu's 2⁻¹²⁷ is a bf16 subnormal.
func TestFP8OnBF16(t *testing.T) {
	for _, fa := range fp8Formats() {
		for _, fb := range fp8Formats() {
			want := fa != tensor.FormatF8E8M0FNU && fb != tensor.FormatF8E8M0FNU
			if got := kernels.FP8OnBF16(fa, fb); got != want {
				t.Errorf("FP8OnBF16(%v, %v) = %v, want %v", fa, fb, got, want)
			}
		}
		if kernels.FP8OnBF16(fa, tensor.FormatF4E2M1FN) {
			t.Errorf("FP8OnBF16(%v, f4e2m1fn) = true for a 4-bit format", fa)
		}
	}
}

// add32 is the f32 sum of f32 values, rounded once (the float64 sum of
// two f32s is exact or within half an f64 ulp, which rounds as the exact
// sum does: 53 ≥ 2·24 + 2).
func add32(x, y float32) float32 { return float32(float64(x) + float64(y)) }

// fma32 is x·y + z rounded once to f32 (subnormals included), by exact
// arithmetic.
func fma32(x, y, z float32) float32 {
	if math.IsNaN(float64(x)) || math.IsNaN(float64(y)) || math.IsNaN(float64(z)) ||
		math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) {
		return float32(float64(x)*float64(y) + float64(z))
	}
	p := new(big.Float).SetPrec(2000).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetFloat64(float64(z)))
	if p.Sign() == 0 {
		if x*y == 0 && z == 0 && math.Signbit(float64(z)) && math.Signbit(float64(x)) != math.Signbit(float64(y)) {
			return z // −0 + −0
		}
		return 0
	}
	f, _ := p.Float32()
	return f
}

// fp8Ref is docs/SPEC.md's rule for FP8 by its definition, on the
// operands' decoded values: on the bf16 GEMM the pair rule (k in pairs
// from +0, the odd product first, an odd K padded with a zero product),
// with exact products and one rounding per step — no flushing, which the
// formats never need; else the f32 rule (k in order, fused).
func fp8Ref(p kernels.NarrowMatMul, a []byte, fa tensor.FloatFormat, b []byte, fb tensor.FloatFormat) []float32 {
	at := func(i, l int) float32 {
		if p.TransA {
			return fa.ToFloat32(a[l*p.M+i])
		}
		return fa.ToFloat32(a[i*p.K+l])
	}
	bt := func(l, j int) float32 {
		if p.TransB {
			return fb.ToFloat32(b[j*p.K+l])
		}
		return fb.ToFloat32(b[l*p.N+j])
	}
	c := make([]float32, p.M*p.N)
	pairs := kernels.FP8OnBF16(fa, fb)
	for i := range p.M {
		for j := range p.N {
			var acc float32
			if pairs {
				for l := 0; l < p.K; l += 2 {
					if l+1 < p.K {
						acc = add32(acc, float32(at(i, l+1)*bt(l+1, j)))
					}
					acc = add32(acc, float32(at(i, l)*bt(l, j)))
				}
			} else {
				for l := range p.K {
					acc = fma32(at(i, l), bt(l, j), acc)
				}
			}
			c[i*p.N+j] = acc
		}
	}
	return c
}

func sameF32(x, y float32) bool {
	return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
}

// Every code of every 8-bit format times every code of each other format
// (a 256×1 by 1×256 outer product), at every tier: each is its product
// as the format defines the values (NaN where either is NaN or for
// inf × 0, ±inf kept, exact otherwise) — the unpacking of every code.
func TestNarrowMatMulFP8Codes(t *testing.T) {
	codes := make([]byte, 256)
	for i := range codes {
		codes[i] = byte(i)
	}
	p := kernels.NarrowMatMul{M: 256, N: 256, K: 1}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, fa := range fp8Formats() {
			for _, fb := range fp8Formats() {
				c := make([]float32, 256*256)
				if err := p.FP8(c, codes, fa, codes, fb); err != nil {
					t.Fatal(err)
				}
				for i := range 256 {
					for j := range 256 {
						want := fma32(fa.ToFloat32(byte(i)), fb.ToFloat32(byte(j)), 0)
						if got := c[i*256+j]; !sameF32(got, want) {
							t.Fatalf("%v %v×%v: %#02x × %#02x = %v, want %v", tier, fa, fb, i, j, got, want)
						}
					}
				}
			}
		}
		restore()
	}
}

// fp8Operand draws n codes, every code present when n ≥ 256.
func fp8Operand(rng *rand.Rand, n int) []byte {
	x := make([]byte, n)
	for i := range x {
		x[i] = byte(rng.IntN(256))
	}
	for i := range min(n, 256) {
		x[rng.IntN(n)] = byte(i)
	}
	return x
}

// fp8Finite draws n codes of f's finite values (no NaN, no inf), so that
// long sums keep their bits to compare.
func fp8Finite(rng *rand.Rand, f tensor.FloatFormat, n int) []byte {
	x := make([]byte, n)
	for i := range x {
		for {
			x[i] = byte(rng.IntN(256))
			if v := f.ToFloat32(x[i]); !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
				break
			}
		}
	}
	return x
}

// FP8 products against fp8Ref bit for bit: every pair of 8-bit formats
// on small odd sizes with every code present (NaN and inf propagating),
// then the sizes of the issue (1, 3, 17, 64, 127, 255, 1000) on finite
// values, transposed operands, several workers, at every tier.
func TestNarrowMatMulFP8(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	type job struct {
		p      kernels.NarrowMatMul
		fa, fb tensor.FloatFormat
		finite bool
	}
	var jobs []job
	for _, fa := range fp8Formats() {
		for _, fb := range fp8Formats() {
			for _, s := range [][3]int{{3, 17, 17}, {17, 3, 255}, {13, 35, 64}} {
				jobs = append(jobs, job{kernels.NarrowMatMul{M: s[0], N: s[1], K: s[2], TransA: rng.IntN(2) == 0, TransB: rng.IntN(2) == 0, Workers: 2}, fa, fb, false})
			}
		}
	}
	e4, e5 := tensor.FormatF8E4M3FN, tensor.FormatF8E5M2
	for _, s := range [][3]int{{1, 1, 1}, {1, 1000, 3}, {1000, 3, 17}, {3, 17, 1000}, {64, 127, 255}, {127, 64, 1000}, {255, 255, 64}} {
		for _, tr := range [][2]bool{{false, false}, {true, true}} {
			jobs = append(jobs, job{kernels.NarrowMatMul{M: s[0], N: s[1], K: s[2], TransA: tr[0], TransB: tr[1], Workers: 3}, e4, e5, true})
		}
	}
	jobs = append(jobs, job{kernels.NarrowMatMul{M: 64, N: 64, K: 1000}, e4, e4, true}, job{kernels.NarrowMatMul{M: 17, N: 127, K: 1000}, e5, e5, true})
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, j := range jobs {
			p := j.p
			var a, b []byte
			if j.finite {
				a, b = fp8Finite(rng, j.fa, p.M*p.K), fp8Finite(rng, j.fb, p.K*p.N)
			} else {
				a, b = fp8Operand(rng, p.M*p.K), fp8Operand(rng, p.K*p.N)
				for code := range 256 {
					if j.fa.IsNaN(byte(code)) {
						a[rng.IntN(len(a))] = byte(code) // at least one NaN to propagate
						break
					}
				}
			}
			want := fp8Ref(p, a, j.fa, b, j.fb)
			got := make([]float32, p.M*p.N)
			if err := p.FP8(got, a, j.fa, b, j.fb); err != nil {
				t.Fatal(err)
			}
			got16 := make([]tensor.BFloat16, p.M*p.N)
			if err := p.FP8BF16(got16, a, j.fa, b, j.fb); err != nil {
				t.Fatal(err)
			}
			nan := 0
			for i := range want {
				if !sameF32(got[i], want[i]) {
					t.Fatalf("%v %+v %v×%v: c[%d] = %v, want %v", tier, p, j.fa, j.fb, i, got[i], want[i])
				}
				if w := tensor.BFloat16FromFloat32(want[i]); got16[i] != w && !(w.Float32() != w.Float32() && got16[i].Float32() != got16[i].Float32()) {
					t.Fatalf("%v %+v %v×%v: bf16 c[%d] = %v, want %v", tier, p, j.fa, j.fb, i, got16[i], w)
				}
				if want[i] != want[i] {
					nan++
				}
			}
			if !j.finite && j.fa.HasNaN() && nan == 0 {
				t.Errorf("%v %+v %v×%v: no NaN in the result; the NaN codes propagate nowhere", tier, p, j.fa, j.fb)
			}
		}
		restore()
	}
}

// intValue is element e (in storage order) of x stored as s.
func intValue(x []byte, s kernels.IntStorage, e int) int32 {
	switch s {
	case kernels.StoredI8:
		return int32(int8(x[e]))
	case kernels.StoredU8:
		return int32(x[e])
	case kernels.StoredI4:
		return int32(tensor.FormatI4.Int64(x[e/2] >> (4 * uint(e%2))))
	case kernels.StoredU4:
		return int32(tensor.FormatU4.Int64(x[e/2] >> (4 * uint(e%2))))
	case kernels.StoredI2:
		return int32(tensor.FormatI2.Int64(x[e/4] >> (2 * uint(e%4))))
	}
	return int32(tensor.FormatU2.Int64(x[e/4] >> (2 * uint(e%4))))
}

// storageBytes is the bytes n values stored as s take.
func storageBytes(s kernels.IntStorage, n int) int {
	switch s {
	case kernels.StoredI4, kernels.StoredU4:
		return (n + 1) / 2
	case kernels.StoredI2, kernels.StoredU2:
		return (n + 3) / 4
	}
	return n
}

// Integer products against the wrapping int32 sum of the values'
// products, exactly: int4 × int8 (and every other pair of storages with a
// narrow side), the issue's sizes, transposed operands, several workers,
// in every mode (the VNNI kernels, their Go twin).
func TestNarrowMatMulInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	all := []kernels.IntStorage{kernels.StoredI8, kernels.StoredU8, kernels.StoredI4, kernels.StoredU4, kernels.StoredI2, kernels.StoredU2}
	type job struct {
		p      kernels.NarrowMatMul
		sa, sb kernels.IntStorage
	}
	var jobs []job
	for _, sa := range all {
		for _, sb := range all {
			if sb == kernels.StoredU8 || sa <= kernels.StoredU8 && sb <= kernels.StoredU8 {
				continue
			}
			for _, s := range [][3]int{{3, 17, 17}, {17, 3, 127}, {13, 35, 64}} {
				jobs = append(jobs, job{kernels.NarrowMatMul{M: s[0], N: s[1], K: s[2], TransA: rng.IntN(2) == 0, TransB: rng.IntN(2) == 0, Workers: 2}, sa, sb})
			}
		}
	}
	for _, s := range [][3]int{{1, 1, 1}, {1, 1000, 3}, {1000, 3, 17}, {3, 17, 1000}, {64, 127, 255}, {127, 64, 1000}, {255, 255, 64}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}} {
			jobs = append(jobs, job{kernels.NarrowMatMul{M: s[0], N: s[1], K: s[2], TransA: tr[0], TransB: tr[1], Workers: 3}, kernels.StoredI4, kernels.StoredI8})
		}
		jobs = append(jobs, job{kernels.NarrowMatMul{M: s[0], N: s[1], K: s[2], TransB: true, Workers: 2}, kernels.StoredI8, kernels.StoredI4})
	}
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		for _, j := range jobs {
			p := j.p
			a, b := make([]byte, storageBytes(j.sa, p.M*p.K)), make([]byte, storageBytes(j.sb, p.K*p.N))
			for i := range a {
				a[i] = byte(i*37 + rng.IntN(2)) // every byte value
			}
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			want := make([]int32, p.M*p.N)
			for i := range p.M {
				for jj := range p.N {
					var s int32
					for l := range p.K {
						ea, eb := i*p.K+l, l*p.N+jj
						if p.TransA {
							ea = l*p.M + i
						}
						if p.TransB {
							eb = jj*p.K + l
						}
						s += intValue(a, j.sa, ea) * intValue(b, j.sb, eb)
					}
					want[i*p.N+jj] = s
				}
			}
			got := make([]int32, p.M*p.N)
			if err := p.Int(got, a, j.sa, b, j.sb); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v %+v %v×%v: c[%d] = %d, want %d", mode, p, j.sa, j.sb, i, got[i], want[i])
				}
			}
		}
		restore()
	}
}

// Bad arguments are *NarrowDotErrors naming the method and the caller's
// line, and write nothing.
func TestNarrowMatMulErrors(t *testing.T) {
	p := kernels.NarrowMatMul{M: 2, N: 3, K: 4}
	c := make([]float32, 6)
	c32 := make([]int32, 6)
	for name, call := range map[string]func() error{
		"short a": func() error {
			return p.FP8(c, make([]byte, 7), tensor.FormatF8E4M3FN, make([]byte, 12), tensor.FormatF8E5M2)
		},
		"short b": func() error {
			return p.FP8(c, make([]byte, 8), tensor.FormatF8E4M3FN, make([]byte, 11), tensor.FormatF8E5M2)
		},
		"short c": func() error {
			return p.FP8(c[:5], make([]byte, 8), tensor.FormatF8E4M3FN, make([]byte, 12), tensor.FormatF8E5M2)
		},
		"fp4": func() error {
			return p.FP8(c, make([]byte, 8), tensor.FormatF4E2M1FN, make([]byte, 12), tensor.FormatF8E5M2)
		},
		"bad format": func() error {
			return p.FP8(c, make([]byte, 8), tensor.FloatFormat(200), make([]byte, 12), tensor.FormatF8E5M2)
		},
		"negative": func() error {
			return kernels.NarrowMatMul{M: -1}.FP8(c, nil, tensor.FormatF8E4M3FN, nil, tensor.FormatF8E4M3FN)
		},
		"short i4": func() error { return p.Int(c32, make([]byte, 3), kernels.StoredI4, make([]byte, 12), kernels.StoredI8) },
		"u8 b":     func() error { return p.Int(c32, make([]byte, 8), kernels.StoredI8, make([]byte, 12), kernels.StoredU8) },
		"bad kind": func() error {
			return p.Int(c32, make([]byte, 8), kernels.IntStorage(9), make([]byte, 12), kernels.StoredI8)
		},
	} {
		c[0], c32[0] = 7, 7
		err := call()
		var ne *kernels.NarrowDotError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), "NarrowMatMul.") || !strings.Contains(ne.Pos, "dot_narrow_test.go:") {
			t.Errorf("%s: error %v (%T), want a *NarrowDotError naming the method and this file", name, err, err)
		}
		if c[0] != 7 || c32[0] != 7 {
			t.Errorf("%s: c written", name)
		}
	}
}

// ExampleNarrowMatMul multiplies fp8 (e4m3fn) matrices into f32 and an
// int4 matrix by an int8 one into int32.
func ExampleNarrowMatMul() {
	f := tensor.FormatF8E4M3FN
	enc := func(xs ...float32) []byte {
		out := make([]byte, len(xs))
		for i, x := range xs {
			out[i] = f.FromFloat32(x)
		}
		return out
	}
	p := kernels.NarrowMatMul{M: 2, N: 2, K: 3}
	c := make([]float32, 4)
	err := p.FP8(c, enc(1, 2, 3, 0.5, -1, 448), f, enc(1, 0, 0, 1, 0.125, -2), f)
	fmt.Println(c, err)

	a := make([]byte, 3) // 2×3 int4, two values a byte, the first in the low nibble
	_ = tensor.PackInts(tensor.FormatI4, a, []int8{1, -2, 3, 7, -8, 0})
	ci := make([]int32, 4)
	err = p.Int(ci, a, kernels.StoredI4, []byte{1, 2, 3, 4, 0xff, 100}, kernels.StoredI8)
	fmt.Println(ci, err)
	// Output:
	// [1.375 -4 56.5 -897] <nil>
	// [-8 294 -17 -18] <nil>
}
