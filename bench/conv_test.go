package main

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
)

// BenchmarkConv is issue 12's convolution target: conv 3×3, 64→64
// channels, 56×56, batch 8, f32, SAME padding, against Kiln's own f32
// GEMM in the same run. The conv is 2·8·56·56·64·64·9 = 1.85 GFLOP; its
// im2col GEMM is [25088×576]·[576×64], timed as a matmul of that shape
// (gemm-im2col-shape) and as a square 1024 matmul (gemm-1024). Each
// sub-benchmark reports GFLOP/s; "ratio" alternates the NHWC conv and the
// 1024 GEMM in one loop and reports conv/gemm throughput (the target is
// ≥ 0.8).
func BenchmarkConv(b *testing.B) {
	const n, h, c, o, k = 8, 56, 64, 64, 3
	convFlops := 2.0 * n * h * h * o * c * k * k
	nhwc := kiln.Jit(func(x, w kiln.Value) kiln.Value {
		return kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}})
	})
	nchw := kiln.Jit(func(x, w kiln.Value) kiln.Value {
		return kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{PaddingMode: "SAME"})
	})
	matmul := kiln.Jit(func(a, b kiln.Value) kiln.Value { return a.MatMul(b) })
	xh := mustArray(uniform32(20, n*h*h*c, -1, 1), n, h, h, c)
	wh := mustArray(uniform32(21, k*k*c*o, -1, 1), k, k, c, o)
	xc := mustArray(uniform32(22, n*c*h*h, -1, 1), n, c, h, h)
	wc := mustArray(uniform32(23, o*c*k*k, -1, 1), o, c, k, k)
	m, kk := n*h*h, k*k*c
	am := mustArray(uniform32(24, m*kk, -1, 1), m, kk)
	bm := mustArray(uniform32(25, kk*o, -1, 1), kk, o)
	a1 := mustArray(uniform32(26, 1024*1024, -1, 1), 1024, 1024)
	b1 := mustArray(uniform32(27, 1024*1024, -1, 1), 1024, 1024)
	type job struct {
		f     *kiln.Func
		args  []any
		flops float64
	}
	jobs := map[string]job{
		"conv-nhwc":         {nhwc, []any{xh, wh}, convFlops},
		"conv-nchw":         {nchw, []any{xc, wc}, convFlops},
		"gemm-im2col-shape": {matmul, []any{am, bm}, 2 * float64(m) * float64(kk) * float64(o)},
		"gemm-1024":         {matmul, []any{a1, b1}, 2 * 1024 * 1024 * 1024},
	}
	prep := func(b *testing.B, j job) func() {
		out, err := j.f.Run(j.args...)
		if err != nil {
			b.Fatal(err)
		}
		outs := []*tensor.Array{out}
		return func() {
			if err := j.f.RunInto(outs, j.args...); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, name := range []string{"conv-nhwc", "conv-nchw", "gemm-im2col-shape", "gemm-1024"} {
		j := jobs[name]
		b.Run(name, func(b *testing.B) {
			run := prep(b, j)
			run()
			for b.Loop() {
				run()
			}
			b.ReportMetric(j.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		conv, gemm := prep(b, jobs["conv-nhwc"]), prep(b, jobs["gemm-1024"])
		conv()
		gemm()
		var tc, tg time.Duration
		for b.Loop() {
			t0 := time.Now()
			conv()
			t1 := time.Now()
			gemm()
			tc, tg = tc+t1.Sub(t0), tg+time.Since(t1)
		}
		cr, gr := convFlops/tc.Seconds()*float64(b.N)/1e9, jobs["gemm-1024"].flops/tg.Seconds()*float64(b.N)/1e9
		b.ReportMetric(cr, "conv-GFLOP/s")
		b.ReportMetric(gr, "gemm-GFLOP/s")
		b.ReportMetric(cr/gr, "conv/gemm")
		b.Logf("conv %.2f GFLOP/s, gemm-1024 %.2f GFLOP/s, ratio %.3f", cr, gr, cr/gr)
	})
}

// BenchmarkMaxPool times flax's max_pool (3×3 window, stride 2, SAME) on
// [8, 56, 56, 64] f32 — Kiln's reduce_window composition — against a
// plain Go loop over the same windows on 2 goroutines, whose output it
// must equal. Reports each one's ns/op; kiln/go-loop is the ratio.
func BenchmarkMaxPool(b *testing.B) {
	const n, h, c, k, s = 8, 56, 64, 3, 2
	const oh = (h + s - 1) / s
	pad := max((oh-1)*s+k-h, 0) / 2
	x := uniform32(30, n*h*h*c, -1, 1)
	xa := mustArray(x, n, h, h, c)
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return nn.MaxPool(x, []int{k, k}, []int{s, s}, "SAME") })
	out, err := f.Run(xa)
	if err != nil {
		b.Fatal(err)
	}
	want := make([]float32, n*oh*oh*c)
	goPool := func() {
		var wg sync.WaitGroup
		for part := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for bi := part; bi < n; bi += 2 {
					for oy := range oh {
						for ox := range oh {
							dst := want[((bi*oh+oy)*oh+ox)*c:][:c]
							for i := range dst {
								dst[i] = float32(math.Inf(-1))
							}
							for ky := range k {
								iy := oy*s + ky - pad
								if iy < 0 || iy >= h {
									continue
								}
								for kx := range k {
									ix := ox*s + kx - pad
									if ix < 0 || ix >= h {
										continue
									}
									src := x[((bi*h+iy)*h+ix)*c:][:c]
									for i, v := range src {
										dst[i] = max(dst[i], v)
									}
								}
							}
						}
					}
				}
			}()
		}
		wg.Wait()
	}
	goPool()
	got, _ := tensor.Data[float32](out)
	for i := range want {
		if got[i] != want[i] {
			b.Fatalf("element %d: Kiln %v, Go loop %v", i, got[i], want[i])
		}
	}
	outs := []*tensor.Array{out}
	var tk, tg time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := f.RunInto(outs, xa); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		goPool()
		tk, tg = tk+t1.Sub(t0), tg+time.Since(t1)
	}
	b.ReportMetric(float64(tk.Nanoseconds())/float64(b.N), "kiln-ns/op")
	b.ReportMetric(float64(tg.Nanoseconds())/float64(b.N), "go-loop-ns/op")
	b.ReportMetric(tk.Seconds()/tg.Seconds(), "kiln/go-loop")
}

// BenchmarkConvBF16 is E6k's convolution (3×3, 64→64, 56×56, batch 8,
// NHWC × HWIO, SAME) on bf16 operands — dot_general's bf16 rule over the
// conv's K order, on the bf16 GEMM (VDPBF16PS where the CPU has
// AVX512_BF16) — with a bf16 result and with an f32 one
// (preferred_element_type), against the f32 convolution in the same loop,
// alternating. It reports each one's GFLOP/s and bf16/f32, the f32 time
// over the bf16 one (> 1: bf16 is faster).
func BenchmarkConvBF16(b *testing.B) {
	const n, h, c, o, k = 8, 56, 64, 64, 3
	flops := 2.0 * n * h * h * o * c * k * k
	opts := kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	conv := kiln.Jit(func(x, w kiln.Value) kiln.Value { return kiln.ConvGeneralDilated(x, w, opts) })
	toF32 := kiln.Jit(func(x, w kiln.Value) kiln.Value {
		return kiln.ConvGeneralDilated(x, w, opts, kiln.PreferredElementType(tensor.F32))
	})
	x := mustArray(uniform32(20, n*h*h*c, -1, 1), n, h, h, c)
	w := mustArray(uniform32(21, k*k*c*o, -1, 1), k, k, c, o)
	xb, wb := x.Astype(tensor.BF16), w.Astype(tensor.BF16)
	prep := func(b *testing.B, f *kiln.Func, args ...any) func() {
		out, err := f.Run(args...)
		if err != nil {
			b.Fatal(err)
		}
		outs := []*tensor.Array{out}
		return func() {
			if err := f.RunInto(outs, args...); err != nil {
				b.Fatal(err)
			}
		}
	}
	f32, bf16, pref := prep(b, conv, x, w), prep(b, conv, xb, wb), prep(b, toF32, xb, wb)
	var tf, tb, tp time.Duration
	for b.Loop() {
		t0 := time.Now()
		f32()
		t1 := time.Now()
		bf16()
		t2 := time.Now()
		pref()
		tf, tb, tp = tf+t1.Sub(t0), tb+t2.Sub(t1), tp+time.Since(t2)
	}
	rate := func(t time.Duration) float64 { return flops * float64(b.N) / t.Seconds() / 1e9 }
	b.ReportMetric(rate(tf), "f32-GFLOP/s")
	b.ReportMetric(rate(tb), "bf16-GFLOP/s")
	b.ReportMetric(rate(tp), "bf16-f32acc-GFLOP/s")
	b.ReportMetric(tf.Seconds()/tb.Seconds(), "bf16/f32")
	b.ReportMetric(tf.Seconds()/tp.Seconds(), "bf16-f32acc/f32")
}
