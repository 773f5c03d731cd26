package kernels_test

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BenchmarkMatMulNarrow is issue 27's narrow matmul rows at n = 1024,
// each beside the row it must keep pace with, on all GOMAXPROCS workers,
// in one loop that alternates the four so load on the machine falls on
// each alike:
//
//   - fp8: e4m3fn × e4m3fn → f32 (NarrowMatMul.FP8: codes unpacked to
//     bf16 in the bf16 GEMM's packing) against bench row E6i, bf16 × bf16
//     with preferred_element_type f32, compiled and run by the CPU
//     backend;
//   - int4: int4 × int8 → i32 (NarrowMatMul.Int: nibbles unpacked in the
//     int8 GEMM's packing) against E6j, int8 × int8 with
//     preferred_element_type i32.
//
// It reports each one's rate from its fastest run, "x/y" = time(x)/time(y)
// of the summed times and "min-x/y" of the fastest runs (target ≤ 1/0.9:
// the narrow row at least 0.9 of its peer's rate; on a busy machine a
// single lucky run skews min-, the sums less). Until the narrow dtypes reach
// dot_general, the narrow rows call NarrowMatMul directly; the peers go
// through trace, lower and the backend, whose overhead at this size is a
// few microseconds.
//
//	go test -run '^$' -bench MatMulNarrow -benchtime 20x ./kernels
func BenchmarkMatMulNarrow(b *testing.B) {
	const n = 1024
	compiled := func(d, res tensor.DType, inputs []*tensor.Array) func() {
		abs := []trace.Abstract{{Type: promote.Strong(d), Shape: []int{n, n}}, {Type: promote.Strong(d), Shape: []int{n, n}}}
		p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(res))}
		})
		if err != nil {
			b.Fatal(err)
		}
		mod, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			b.Fatal(err)
		}
		exe, err := kernels.DefaultCPU().Compile(mod)
		if err != nil {
			b.Fatal(err)
		}
		outs, err := exe.Run(inputs)
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			if err := exe.RunInto(outs, inputs); err != nil {
				b.Fatal(err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(27, 1))
	f8 := tensor.FormatF8E4M3FN
	fp8 := func() []byte {
		x := make([]byte, n*n)
		for i := range x {
			x[i] = f8.FromFloat64(rng.NormFloat64())
		}
		return x
	}
	a8, b8 := fp8(), fp8()
	a4 := make([]byte, n*n/2)
	for i := range a4 {
		a4[i] = byte(rng.IntN(256))
	}
	bi8 := i8Input(tensor.I8, 2, n, n)
	bBytes := make([]byte, n*n)
	for i, v := range bi8.Data().([]int8) {
		bBytes[i] = byte(v)
	}
	p := kernels.NarrowMatMul{M: n, N: n, K: n, Workers: runtime.GOMAXPROCS(0)}
	c32, ci := make([]float32, n*n), make([]int32, n*n)
	runs := []func(){
		compiled(tensor.BF16, tensor.F32, []*tensor.Array{randomInput(tensor.BF16, 1, n, n), randomInput(tensor.BF16, 2, n, n)}),
		func() {
			if err := p.FP8(c32, a8, f8, b8, f8); err != nil {
				b.Fatal(err)
			}
		},
		compiled(tensor.I8, tensor.I32, []*tensor.Array{i8Input(tensor.I8, 1, n, n), bi8}),
		func() {
			if err := p.Int(ci, a4, kernels.StoredI4, bBytes, kernels.StoredI8); err != nil {
				b.Fatal(err)
			}
		},
	}
	best, sum := alternate(b, runs)
	ops := 2 * float64(n) * float64(n) * float64(n)
	for i, name := range []string{"bf16→f32-GFLOP/s", "fp8→f32-GFLOP/s", "i8→i32-GOP/s", "i4×i8→i32-GOP/s"} {
		b.ReportMetric(ops/best[i].Seconds()/1e9, name)
	}
	b.ReportMetric(best[1].Seconds()/best[0].Seconds(), "min-fp8/bf16")
	b.ReportMetric(best[3].Seconds()/best[2].Seconds(), "min-i4×i8/i8")
	b.ReportMetric(sum[1].Seconds()/sum[0].Seconds(), "fp8/bf16")
	b.ReportMetric(sum[3].Seconds()/sum[2].Seconds(), "i4×i8/i8")
}

// alternate runs each of runs once per benchmark iteration, in turn, and
// returns each one's fastest and summed times (so their ratios come from
// the same moments of a shared machine).
func alternate(b *testing.B, runs []func()) (best, sum []time.Duration) {
	best, sum = make([]time.Duration, len(runs)), make([]time.Duration, len(runs))
	for i := range best {
		best[i] = time.Hour
	}
	for b.Loop() {
		for i, run := range runs {
			t0 := time.Now()
			run()
			d := time.Since(t0)
			best[i], sum[i] = min(best[i], d), sum[i]+d
		}
	}
	return best, sum
}
