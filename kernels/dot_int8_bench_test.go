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

// BenchmarkMatMulI8Modes is the int8 1024×1024 product (int8 operands,
// preferred_element_type int32) on one worker in the modes that matter
// for the AVX2 tier: avx2-novnni (the plain loop, what the AVX2 tier ran
// before its AVX-VNNI kernel and still runs without AVX-VNNI), avx2 (the
// VEX VPDPBUSD GEMM) and avx512 (the AVX512_VNNI GEMM), beside the f32
// product at avx2 and avx512 — in one loop alternating them, so load on
// the machine falls on each alike. Each program is compiled and run in its
// mode. It reports each one's GOP/s from its fastest run and the ratios
// of the fastest times, "x/y" meaning time(x)/time(y).
//
//	go test -run '^$' -bench MatMulI8Modes -benchtime 5x ./kernels
func BenchmarkMatMulI8Modes(b *testing.B) {
	const n = 1024
	cpu := kernels.NewCPU(kernels.CPUOptions{Workers: 1})
	type run struct {
		name string
		mode simd.Mode
		call func()
	}
	build := func(name string, mode simd.Mode, d tensor.DType) run {
		defer mode.Set()()
		inputs := []*tensor.Array{i8Input(d, 1, n, n), i8Input(d, 2, n, n)}
		if d == tensor.F32 {
			inputs = []*tensor.Array{randomInput(d, 1, n, n), randomInput(d, 2, n, n)}
		}
		abs := []trace.Abstract{{Type: promote.Strong(d), Shape: []int{n, n}}, {Type: promote.Strong(d), Shape: []int{n, n}}}
		p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
			if d == tensor.I8 {
				return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
			}
			return []trace.Value{a[0].MatMul(a[1])}
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
	modes := map[string]simd.Mode{}
	for _, m := range simd.Modes() {
		modes[m.String()] = m
	}
	var runs []run
	for _, r := range []struct {
		mode string
		d    tensor.DType
	}{{"avx2-novnni", tensor.I8}, {"avx2", tensor.I8}, {"avx512", tensor.I8}, {"avx2", tensor.F32}, {"avx512", tensor.F32}} {
		if m, ok := modes[r.mode]; ok {
			runs = append(runs, build(r.d.String()+"/"+r.mode, m, r.d))
		}
	}
	best := make([]time.Duration, len(runs))
	for i := range best {
		best[i] = time.Hour
	}
	for b.Loop() {
		for i, r := range runs {
			restore := r.mode.Set()
			t0 := time.Now()
			r.call()
			best[i] = min(best[i], time.Since(t0))
			restore()
		}
	}
	at := map[string]time.Duration{}
	for i, r := range runs {
		at[r.name] = best[i]
		b.ReportMetric(2*n*n*n/best[i].Seconds()/1e9, r.name+"-GOP/s")
	}
	for _, q := range [][2]string{{"i8/avx2", "i8/avx2-novnni"}, {"i8/avx2", "f32/avx2"}, {"i8/avx2", "i8/avx512"}, {"i8/avx512", "f32/avx512"}} {
		if x, y := at[q[0]], at[q[1]]; x > 0 && y > 0 {
			b.ReportMetric(x.Seconds()/y.Seconds(), q[0]+"/"+q[1])
		}
	}
}
