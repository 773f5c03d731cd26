package kernels_test

import (
	"testing"
	"time"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BenchmarkMatMulF16 times f16 products at n = 1024 against the f32 a @ b
// in one loop that alternates them, so load on the machine falls on each
// alike: a @ b, aᵀ @ b (a transposed operand), relu(a @ b + bias) (a
// fused epilogue), all f16, and a @ b with preferred_element_type f32
// (f16 operands, f32 result). It reports each f16 time over the f32 one,
// from the summed times and from each one's fastest run (steadier on a
// busy machine).
//
//	go test -run '^$' -bench MatMulF16 -benchtime 20x ./kernels
func BenchmarkMatMulF16(b *testing.B) {
	const n = 1024
	build := func(d tensor.DType, fn func(a []trace.Value) trace.Value) func() {
		inputs := []*tensor.Array{randomInput(d, 1, n, n), randomInput(d, 2, n, n), randomInput(d, 3, n)}
		abs := []trace.Abstract{{Type: promote.Strong(d), Shape: []int{n, n}}, {Type: promote.Strong(d), Shape: []int{n, n}},
			{Type: promote.Strong(d), Shape: []int{n}}}
		p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return []trace.Value{fn(a)} })
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
	names := []string{"f16/f32", "f16-aT/f32", "f16-bias-relu/f32", "f16→f32/f32"}
	runs := []func(){
		build(tensor.F16, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }),
		build(tensor.F16, func(a []trace.Value) trace.Value { return a[0].Transpose(1, 0).MatMul(a[1]) }),
		build(tensor.F16, func(a []trace.Value) trace.Value {
			return a[0].MatMul(a[1]).Add(a[2]).Maximum(trace.Float(0))
		}),
		build(tensor.F16, func(a []trace.Value) trace.Value {
			return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32))
		}),
		build(tensor.F32, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }),
	}
	f32 := len(runs) - 1
	sum, best := make([]time.Duration, len(runs)), make([]time.Duration, len(runs))
	for i := range best {
		best[i] = time.Hour
	}
	for b.Loop() {
		for i, run := range runs {
			t0 := time.Now()
			run()
			d := time.Since(t0)
			sum[i] += d
			best[i] = min(best[i], d)
		}
	}
	for i, name := range names {
		b.ReportMetric(sum[i].Seconds()/sum[f32].Seconds(), name)
		b.ReportMetric(best[i].Seconds()/best[f32].Seconds(), "min-"+name)
	}
	b.ReportMetric(2*n*n*n/best[0].Seconds()/1e9, "f16-GFLOP/s")
	b.ReportMetric(2*n*n*n/best[f32].Seconds()/1e9, "f32-GFLOP/s")
}
