package opencl

import (
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BenchmarkConv is conv 3×3, 64→64 channels, 56×56, batch 1, f32 NHWC,
// SAME: the direct convolution kernel (one work-item per output element)
// on the OpenCL device — a whole Run, inputs copied in and the output
// read back — beside the CPU backend's im2col + GEMM, in GFLOP/s.
func BenchmarkConv(b *testing.B) {
	const n, h, c, o, k = 1, 56, 64, 64, 3
	flops := 2.0 * n * h * h * o * c * k * k
	r := rand.New(rand.NewPCG(3, 3))
	xs, ws := make([]float32, n*h*h*c), make([]float32, k*k*c*o)
	for i := range xs {
		xs[i] = float32(r.Float64()*2 - 1)
	}
	for i := range ws {
		ws[i] = float32(r.Float64()*2 - 1)
	}
	x, _ := tensor.FromSlice(xs, n, h, h, c)
	w, _ := tensor.FromSlice(ws, k, k, c, o)
	m := module(b, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}})}
	}, abstract(tensor.F32, n, h, h, c), abstract(tensor.F32, k, k, c, o))
	out, _ := tensor.Zeros(tensor.F32, n, h, h, o)
	ins, outs := []*tensor.Array{x, w}, []*tensor.Array{out}
	b.Run("opencl-run", func(b *testing.B) {
		be := testBackend(b)
		exe, err := be.CompileModule(m)
		if err != nil {
			b.Fatal(err)
		}
		defer exe.Close()
		if err := exe.RunInto(outs, ins); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := exe.RunInto(outs, ins); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("cpu", func(b *testing.B) {
		exe, err := kernels.DefaultCPU().Compile(m)
		if err != nil {
			b.Fatal(err)
		}
		if err := exe.RunInto(outs, ins); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := exe.RunInto(outs, ins); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
