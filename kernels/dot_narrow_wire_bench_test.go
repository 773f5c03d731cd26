package kernels_test

import (
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BenchmarkMatMulNarrowDType is the narrow dtypes' dot_general at n =
// 1024 through trace, lower and the CPU backend on one worker, beside its peer in one
// alternating loop: f8e4m3fn × f8e4m3fn with preferred_element_type bf16
// (the bf16 GEMM reading the codes past the converts) against bf16 × bf16
// (E6l), and int4 × int4 with preferred_element_type i32 (the int8 GEMM
// reading the bytes as stored) against int8 × int8 → i32 (E6j). It
// reports rates from the fastest runs and x/y = time(x)/time(y) of the
// summed times (target ≤ 1/0.9).
//
//	go test -run '^$' -bench MatMulNarrowDType -benchtime 20x ./kernels
func BenchmarkMatMulNarrowDType(b *testing.B) {
	const n = 1024
	cpu := kernels.NewCPU(kernels.CPUOptions{Workers: 1}) // one worker: steadier on a shared machine
	build := func(d tensor.DType, pref tensor.DType, in []*tensor.Array) func() {
		abs := []trace.Abstract{{Type: promote.Strong(d), Shape: []int{n, n}}, {Type: promote.Strong(d), Shape: []int{n, n}}}
		p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
			if pref == d {
				return []trace.Value{a[0].MatMul(a[1])}
			}
			return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(pref))}
		})
		if err != nil {
			b.Fatal(err)
		}
		mod, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			b.Fatal(err)
		}
		exe, err := cpu.Compile(mod)
		if err != nil {
			b.Fatal(err)
		}
		outs, err := exe.Run(in)
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			if err := exe.RunInto(outs, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	f32in := []*tensor.Array{randomInput(tensor.F32, 1, n, n), randomInput(tensor.F32, 2, n, n)}
	i8in := []*tensor.Array{i8Input(tensor.I8, 1, n, n), i8Input(tensor.I8, 2, n, n)}
	runs := []func(){
		build(tensor.BF16, tensor.BF16, []*tensor.Array{f32in[0].Astype(tensor.BF16), f32in[1].Astype(tensor.BF16)}),
		build(tensor.F8E4M3FN, tensor.BF16, []*tensor.Array{f32in[0].Astype(tensor.F8E4M3FN), f32in[1].Astype(tensor.F8E4M3FN)}),
		build(tensor.I8, tensor.I32, i8in),
		build(tensor.I4, tensor.I32, []*tensor.Array{i8in[0].Astype(tensor.I4), i8in[1].Astype(tensor.I4)}),
	}
	best, sum := alternate(b, runs)
	ops := 2 * float64(n) * float64(n) * float64(n)
	for i, name := range []string{"bf16-GFLOP/s", "f8e4m3fn→bf16-GFLOP/s", "i8→i32-GOP/s", "i4→i32-GOP/s"} {
		b.ReportMetric(ops/best[i].Seconds()/1e9, name)
	}
	b.ReportMetric(sum[1].Seconds()/sum[0].Seconds(), "fp8/bf16")
	b.ReportMetric(sum[3].Seconds()/sum[2].Seconds(), "i4/i8")
}
