package kernels_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// benchProgram compiles fn for the inputs and times RunInto into
// preallocated outputs (the steady state of a jitted function).
func benchProgram(b *testing.B, inputs []*tensor.Array, fn func(a []trace.Value) []trace.Value) {
	abs := make([]trace.Abstract, len(inputs))
	bytes := 0
	for i, a := range inputs {
		abs[i] = trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()}
		bytes += a.Size() * a.DType().Size()
	}
	p, err := trace.Trace(promote.Config{}, abs, fn)
	if err != nil {
		b.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
	if err != nil {
		b.Fatal(err)
	}
	exe, err := kernels.DefaultCPU().Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	outs, err := exe.Run(inputs)
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range outs {
		bytes += o.Size() * o.DType().Size()
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := exe.RunInto(outs, inputs); err != nil {
			b.Fatal(err)
		}
	}
}

const benchN = 1 << 24

func BenchmarkE1AxPlusB(b *testing.B) {
	x := conformance.Input(tensor.F32, 1, benchN)
	benchProgram(b, []*tensor.Array{x}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Float(1.5)).Add(trace.Float(0.25))}
	})
}

func BenchmarkE2MixedF16(b *testing.B) {
	x := conformance.Input(tensor.I8, 1, benchN)
	y := conformance.Input(tensor.F16, 2, benchN)
	benchProgram(b, []*tensor.Array{x, y}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5))}
	})
}

func BenchmarkE4Variance(b *testing.B) {
	x := conformance.Input(tensor.F64, 1, benchN)
	benchProgram(b, []*tensor.Array{x}, func(a []trace.Value) []trace.Value {
		x := a[0]
		return []trace.Value{x.Sub(x.Mean()).Pow(trace.Int(2)).Sum()}
	})
}

// BenchmarkMulF16: one f16 multiply of two 32 MiB inputs, the single-step
// loop that reads and writes storage bits.
func BenchmarkMulF16(b *testing.B) {
	x := conformance.Input(tensor.F16, 1, benchN)
	y := conformance.Input(tensor.F16, 2, benchN)
	benchProgram(b, []*tensor.Array{x, y}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(a[1])}
	})
}

// BenchmarkMatMul times a jitted n×n matmul per dtype (f32, f64; bf16
// accumulates in f32; i8 with preferred_element_type int32 runs the int8
// GEMM): GFLOP/s counts 2·n³ (integer operations for i8). bench/ compares
// it with OpenBLAS in one run. Complex products: BenchmarkMatMulComplex.
func BenchmarkMatMul(b *testing.B) {
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I8} {
		for _, n := range []int{64, 128, 256, 1024, 2048} {
			b.Run(fmt.Sprintf("%v/%d", d, n), func(b *testing.B) {
				x, y := conformance.Input(d, 1, n, n), conformance.Input(d, 2, n, n)
				benchProgram(b, []*tensor.Array{x, y}, func(a []trace.Value) []trace.Value {
					if d == tensor.I8 {
						return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
					}
					return []trace.Value{a[0].MatMul(a[1])}
				})
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkMatMulComplex times a jitted n×n c64 and c128 matmul (the
// complex GEMM) on GOMAXPROCS workers (-cpu 1,2): GFLOP/s counts 8·n³,
// the real operations of n³ complex multiply-adds.
func BenchmarkMatMulComplex(b *testing.B) {
	for _, d := range []tensor.DType{tensor.C64, tensor.C128} {
		for _, n := range []int{256, 512, 1024} {
			b.Run(fmt.Sprintf("%v/%d", d, n), func(b *testing.B) {
				x, y := conformance.Input(d, 1, n, n), conformance.Input(d, 2, n, n)
				benchProgram(b, []*tensor.Array{x, y}, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1])} })
				b.ReportMetric(8*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkIotaWeighted: x·iota + y over f32[2^24], the iota computed from
// the index inside the loop (no iota kernel, no buffer), beside the same
// loop reading a third input in its place ("buffer").
func BenchmarkIotaWeighted(b *testing.B) {
	x := conformance.Input(tensor.F32, 1, benchN)
	y := conformance.Input(tensor.F32, 2, benchN)
	b.Run("iota", func(b *testing.B) {
		benchProgram(b, []*tensor.Array{x, y}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(trace.Iota(tensor.F32, []int{benchN}, 0)).Add(a[1])}
		})
	})
	b.Run("buffer", func(b *testing.B) {
		z := conformance.Input(tensor.F32, 3, benchN)
		benchProgram(b, []*tensor.Array{x, y, z}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(a[2]).Add(a[1])}
		})
	})
}
