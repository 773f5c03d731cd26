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

// BenchmarkDenseEpilogue is E6g's dense layer tanh(x @ w + b), x
// f32[4096×1024], w f32[1024×1024], in one loop that alternates three
// executables so load on the machine falls on each alike: the layer with
// its epilogue fused into the GEMM, the layer unfused (the product
// written out, then a loop fusion over it), and the bare x @ w. It
// reports each one's minimum time over the bare GEMM's (fused/gemm is issue 12's
// ≤ 1.1 target; unfused/gemm what fusion saves).
//
//	go test -run '^$' -bench DenseEpilogue -benchtime 10x ./kernels
func BenchmarkDenseEpilogue(b *testing.B) {
	const m, k, n = 4096, 1024, 1024
	inputs := []*tensor.Array{randomInput(tensor.F32, 1, m, k), randomInput(tensor.F32, 2, k, n), randomInput(tensor.F32, 3, n)}
	abs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{m, k}}, {Type: promote.Strong(tensor.F32), Shape: []int{k, n}}, {Type: promote.Strong(tensor.F32), Shape: []int{n}}}
	build := func(nin int, opts lower.Options, fn func(a []trace.Value) trace.Value) func() {
		p, err := trace.Trace(promote.Config{}, abs[:nin], func(a []trace.Value) []trace.Value { return []trace.Value{fn(a)} })
		if err != nil {
			b.Fatal(err)
		}
		mod, err := lower.Compile(p, opts)
		if err != nil {
			b.Fatal(err)
		}
		exe, err := kernels.DefaultCPU().Compile(mod)
		if err != nil {
			b.Fatal(err)
		}
		outs, err := exe.Run(inputs[:nin])
		if err != nil {
			b.Fatal(err)
		}
		return func() {
			if err := exe.RunInto(outs, inputs[:nin]); err != nil {
				b.Fatal(err)
			}
		}
	}
	layer := func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]).Add(a[2]).Tanh() }
	gemm := func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }
	runs := []func(){build(3, lower.Options{}, layer), build(3, lower.Options{NoEpilogues: true}, layer), build(2, lower.Options{}, gemm)}
	best := [3]time.Duration{time.Hour, time.Hour, time.Hour} // minimum times: see BenchmarkSmallLayerEpilogue
	for b.Loop() {
		for i, run := range runs {
			t0 := time.Now()
			run()
			best[i] = min(best[i], time.Since(t0))
		}
	}
	b.ReportMetric(best[0].Seconds()/best[2].Seconds(), "fused/gemm")
	b.ReportMetric(best[1].Seconds()/best[2].Seconds(), "unfused/gemm")
}

// BenchmarkSmallLayerEpilogue is E7's first layer (x f32[256×64] @ w
// f32[64×128] + b): its relu and the derivative's mask, which both read
// the pre-activation, so the product is the epilogue fusion's second
// output. It alternates the fused and unfused executables and reports
// fused/unfused.
//
//	go test -run '^$' -bench SmallLayerEpilogue ./kernels
func BenchmarkSmallLayerEpilogue(b *testing.B) {
	const m, k, n = 256, 64, 128
	inputs := []*tensor.Array{randomInput(tensor.F32, 1, m, k), randomInput(tensor.F32, 2, k, n), randomInput(tensor.F32, 3, n), randomInput(tensor.F32, 4, m, n)}
	abs := make([]trace.Abstract, len(inputs))
	for i, a := range inputs {
		abs[i] = trace.Abstract{Type: promote.Strong(tensor.F32), Shape: a.Shape()}
	}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		z := a[0].MatMul(a[1]).Add(a[2])
		return []trace.Value{z.Maximum(trace.Int(0)), trace.Where(z.Gt(trace.Int(0)), a[3], trace.Int(0))}
	})
	if err != nil {
		b.Fatal(err)
	}
	var runs []func()
	for _, off := range []bool{false, true} {
		mod, err := lower.Compile(p, lower.Options{NoEpilogues: off})
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
		runs = append(runs, func() {
			if err := exe.RunInto(outs, inputs); err != nil {
				b.Fatal(err)
			}
		})
	}
	// The minimum of each: on a loaded machine the totals swing with
	// other processes, the fastest runs far less.
	best := [2]time.Duration{time.Hour, time.Hour}
	for b.Loop() {
		for i, run := range runs {
			t0 := time.Now()
			run()
			best[i] = min(best[i], time.Since(t0))
		}
	}
	b.ReportMetric(best[0].Seconds()/best[1].Seconds(), "fused/unfused")
	b.ReportMetric(float64(best[0].Nanoseconds()), "fused-min-ns")
	b.ReportMetric(float64(best[1].Nanoseconds()), "unfused-min-ns")
}
