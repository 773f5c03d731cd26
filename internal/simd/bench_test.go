package simd_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// Benchmarks: every kernel at 4096 elements (in L1/L2, compute-bound) and
// 1M (memory-bound), at every tier, named BenchmarkKernels/<Kernel>/n=<n>/tier=<tier>
// so benchstat compares tiers:
//
//	go test -run '^$' -bench . ./internal/simd/ > bench.txt
//	benchstat -col /tier bench.txt

var benchSizes = []int{4096, 1 << 20}

// benchKernel runs c over n elements at every tier, reporting bytes moved
// (inputs plus dst) per op.
func benchKernel(b *testing.B, c kcase) {
	for _, n := range benchSizes {
		r := rand.New(rand.NewPCG(1, 2))
		ins := make([][]byte, len(c.ins))
		moved := n * c.dst
		for i, size := range c.ins {
			ins[i] = aligned(n*size, 0)
			gen := genFor(size)
			if i < len(c.gen) && c.gen[i] != nil {
				gen = c.gen[i]
			}
			gen(r, ins[i])
			moved += n * size
		}
		dst := aligned(n*c.dst, 0)
		if len(c.ins) == 0 {
			c.gen[0](r, dst)
			moved += n * c.dst
		}
		for _, tier := range simd.Available() {
			b.Run(fmt.Sprintf("n=%d/tier=%v", n, tier), func(b *testing.B) {
				defer simd.SetLevel(tier)()
				b.SetBytes(int64(moved))
				for b.Loop() {
					c.call(dst, ins)
				}
			})
		}
	}
}

// benchCases are the kernels with inputs that keep the transcendentals in
// their vector domains (the common case); special values are the twin
// test's business.
func benchCases() map[string]kcase {
	m := map[string]kcase{}
	for _, c := range allCases() {
		m[c.name] = c
	}
	bench := func(name string, gen func(*rand.Rand, []byte)) {
		c := m[name]
		c.gen = []func(*rand.Rand, []byte){gen}
		m[name] = c
	}
	for _, n := range []string{"ExpF32", "TanhF32", "LogisticF32", "SinF32", "CosF32"} {
		bench(n, uniformBytes32(-10, 10))
	}
	bench("LogF32", uniformBytes32(1e-3, 1e3))
	for _, n := range []string{"ExpF64", "TanhF64", "LogisticF64", "SinF64", "CosF64"} {
		bench(n, uniformBytes64(-10, 10))
	}
	bench("LogF64", uniformBytes64(1e-3, 1e3))
	for _, n := range []string{"AddF32", "SubF32", "MulF32", "DivF32", "MinF32", "MaxF32", "SqrtF32", "F32ToF16", "F32ToBF16", "RoundF16", "RoundBF16", "F32ToF64"} {
		if c, ok := m[n]; ok {
			c.gen = []func(*rand.Rand, []byte){uniformBytes32(0.5, 100), uniformBytes32(0.5, 100)}
			m[n] = c
		}
	}
	return m
}

func uniformBytes32(lo, hi float64) func(*rand.Rand, []byte) {
	return func(r *rand.Rand, b []byte) {
		v := f32s(b)
		for i := range v {
			v[i] = float32(lo + (hi-lo)*r.Float64())
		}
	}
}

func uniformBytes64(lo, hi float64) func(*rand.Rand, []byte) {
	return func(r *rand.Rand, b []byte) {
		v := f64s(b)
		for i := range v {
			v[i] = lo + (hi-lo)*r.Float64()
		}
	}
}

func BenchmarkKernels(b *testing.B) {
	cs := benchCases()
	for _, c := range allCases() {
		if strings.Contains(c.name, "/s=") && !strings.HasSuffix(c.name, "/s=2.5") {
			continue // one scalar operand is enough
		}
		b.Run(c.name, func(b *testing.B) { benchKernel(b, cs[c.name]) })
	}
}
