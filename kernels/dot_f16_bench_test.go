package kernels_test

import (
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BenchmarkMatMulF16 times f16 products at n = 1024 against the f32 a @ b
// in one loop that alternates them, so load on the machine falls on each
// alike: a @ b, aᵀ @ b (a transposed operand), relu(a @ b + bias) (a
// fused epilogue), all f16, and a @ b with preferred_element_type f32
// (f16 operands, f32 result). It reports each one's fastest time over the
// f32 product's (steadier than totals on a busy machine).
//
//	go test -run '^$' -bench MatMulF16 -benchtime 20x ./kernels
func BenchmarkMatMulF16(b *testing.B) {
	const n = 1024
	build := func(d tensor.DType, fn func(a []trace.Value) trace.Value) func() {
		inputs := []*tensor.Array{randomInput(d, 1, n, n), randomInput(d, 2, n, n), randomInput(d, 3, n)}
		return runner(b, inputs, lower.Options{Fold: kernels.Fold}, func(a []trace.Value) []trace.Value { return []trace.Value{fn(a)} })
	}
	names := []string{"f16/f32", "f16-aT/f32", "f16-bias-relu/f32", "f16→f32/f32"}
	best := fastest(b,
		build(tensor.F16, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }),
		build(tensor.F16, func(a []trace.Value) trace.Value { return a[0].Transpose(1, 0).MatMul(a[1]) }),
		build(tensor.F16, func(a []trace.Value) trace.Value {
			return a[0].MatMul(a[1]).Add(a[2]).Maximum(trace.Float(0))
		}),
		build(tensor.F16, func(a []trace.Value) trace.Value {
			return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32))
		}),
		build(tensor.F32, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }),
	)
	f32 := len(best) - 1
	for i, name := range names {
		b.ReportMetric(best[i].Seconds()/best[f32].Seconds(), name)
	}
	b.ReportMetric(2*n*n*n/best[0].Seconds()/1e9, "f16-GFLOP/s")
	b.ReportMetric(2*n*n*n/best[f32].Seconds()/1e9, "f32-GFLOP/s")
}
