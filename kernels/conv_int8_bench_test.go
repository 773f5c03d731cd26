package kernels_test

import (
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// BenchmarkConvI8 is E6k's convolution (3×3, 64 → 64 features, 56×56,
// batch 8, NHWC × HWIO, SAME) of int8 operands into int32
// (preferred_element_type, on the int8 GEMM) beside the same
// convolution in f32, on the default CPU, in one loop alternating them so
// that load on the machine falls on each alike: i8 at the best tier (the
// VNNI GEMM where the CPU has it), i8 with VNNI hidden (widened onto the
// f32 GEMM, convI8Float) and f32 at the best tier. It reports each one's
// GOP/s from its fastest run and the ratio of the fastest times i8/f32
// (below 1: the int8 convolution is faster).
//
//	go test -run '^$' -bench ConvI8 -benchtime 10x ./kernels
func BenchmarkConvI8(b *testing.B) {
	const n, h, w, c, o = 8, 56, 56, 64, 64
	cpu := kernels.DefaultCPU()
	type run struct {
		name string
		mode simd.Mode
		call func()
	}
	ls, rs := []int{n, h, w, c}, []int{3, 3, c, o}
	opts := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	build := func(name string, mode simd.Mode, d tensor.DType) run {
		defer mode.Set()()
		inputs := []*tensor.Array{i8Input(d, 1, ls...), i8Input(d, 2, rs...)}
		if d == tensor.F32 {
			inputs = []*tensor.Array{randomInput(d, 1, ls...), randomInput(d, 2, rs...)}
		}
		abs := []trace.Abstract{{Type: promote.Strong(d), Shape: ls}, {Type: promote.Strong(d), Shape: rs}}
		p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
			if d == tensor.I8 {
				return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], opts, trace.PreferredElementType(tensor.I32))}
			}
			return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], opts)}
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
		outs, err := exe.Run(inputs)
		if err != nil {
			b.Fatal(err)
		}
		return run{name, mode, func() {
			if err := exe.RunInto(outs, inputs); err != nil {
				b.Fatal(err)
			}
		}}
	}
	modes := simd.Modes()
	best := modes[0] // the best tier, with its VNNI kernel if the CPU has one
	for _, m := range modes {
		if m.Tier > best.Tier || m.Tier == best.Tier && m.VNNI {
			best = m
		}
	}
	runs := []run{build("i8", best, tensor.I8), build("f32", best, tensor.F32)}
	for _, m := range modes {
		if m.Tier == best.Tier && m.VNNI != best.VNNI {
			runs = append(runs, build("i8-"+m.String(), m, tensor.I8))
		}
	}
	times := make([]time.Duration, len(runs))
	for i := range times {
		times[i] = time.Hour
	}
	for b.Loop() {
		for i, r := range runs {
			restore := r.mode.Set()
			t0 := time.Now()
			r.call()
			times[i] = min(times[i], time.Since(t0))
			restore()
		}
	}
	const ops = 2 * n * h * w * o * 9 * c
	for i, r := range runs {
		b.ReportMetric(ops/times[i].Seconds()/1e9, r.name+"-GOP/s")
	}
	b.ReportMetric(times[0].Seconds()/times[1].Seconds(), "i8/f32")
}
