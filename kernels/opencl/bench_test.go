package opencl

import (
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The docs/SPEC.md §8 workloads E1 and E2 at 16M elements on the OpenCL device,
// beside the CPU backend on the same module:
//
//	run:     a whole Run — inputs copied to the device, kernels, outputs read back;
//	kernels: the kernels alone (inputs already on the device);
//	cpu:     the CPU backend's Run.
//
// Bytes per element count one pass: E1 reads x f32 and writes f32 (8 B),
// E2 reads i8 and f16 and writes f16 (5 B).

const benchN = 1 << 24

func BenchmarkE1(b *testing.B) {
	xs := make([]float32, benchN)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range xs {
		xs[i] = float32(r.Float64()*2 - 1)
	}
	x, _ := tensor.FromSlice(xs, benchN)
	m := module(b, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Float(1.7)).Add(trace.Float(0.3))}
	}, abstract(tensor.F32, benchN))
	benchModule(b, m, []*tensor.Array{x}, 8)
}

func BenchmarkE2(b *testing.B) {
	xs := make([]int8, benchN)
	ys := make([]tensor.Float16, benchN)
	r := rand.New(rand.NewPCG(2, 2))
	for i := range xs {
		xs[i] = int8(r.IntN(256) - 128)
		ys[i] = tensor.Float32ToF16(float32(200*r.Float64() - 100))
	}
	x, _ := tensor.FromSlice(xs, benchN)
	y, _ := tensor.FromSlice(ys, benchN)
	benchModule(b, module(b, e2, abstract(tensor.I8, benchN), abstract(tensor.F16, benchN)), []*tensor.Array{x, y}, 5)
}

func benchModule(b *testing.B, m *lower.Module, inputs []*tensor.Array, bytesPerElem int64) {
	be := testBackend(b)
	exe, err := be.CompileModule(m)
	if err != nil {
		b.Fatal(err)
	}
	defer exe.Close()
	outs := make([]*tensor.Array, len(m.Outputs))
	for i, o := range m.Outputs {
		outs[i], _ = tensor.Zeros(o.DType, o.Shape...)
	}
	b.Run("run", func(b *testing.B) {
		if err := exe.RunInto(outs, inputs); err != nil { // first touch, kernel finalization
			b.Fatal(err)
		}
		b.SetBytes(bytesPerElem * benchN)
		for b.Loop() {
			if err := exe.RunInto(outs, inputs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kernels", func(b *testing.B) {
		if err := exe.RunInto(outs, inputs); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(bytesPerElem * benchN)
		r := exe.res
		for b.Loop() {
			r.mu.Lock()
			err := r.enqueueKernels(r.queue, nil)
			if err == nil && r.cl.Finish(r.queue) != clSuccess {
				b.Fatal("clFinish failed")
			}
			r.mu.Unlock()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cpu", func(b *testing.B) {
		cpu, err := kernels.DefaultCPU().Compile(m)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(bytesPerElem * benchN)
		cpu.RunInto(outs, inputs)
		for b.Loop() {
			if err := cpu.RunInto(outs, inputs); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDispatch is E5's dispatch overhead: a cached Run of a*x + b on
// one element (copy in, one kernel, copy out, clFinish).
func BenchmarkDispatch(b *testing.B) {
	be := testBackend(b)
	m := module(b, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Float(1.7)).Add(trace.Float(0.3))}
	}, abstract(tensor.F32, 1))
	exe, err := be.CompileModule(m)
	if err != nil {
		b.Fatal(err)
	}
	defer exe.Close()
	x, _ := tensor.FromSlice([]float32{2}, 1)
	out, _ := tensor.Zeros(tensor.F32, 1)
	ins, outs := []*tensor.Array{x}, []*tensor.Array{out}
	exe.RunInto(outs, ins)
	for b.Loop() {
		if err := exe.RunInto(outs, ins); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArgsort: a stable argsort of 256 rows of 4096 f32 (the bitonic
// network, a work-group per row), beside the CPU backend (radix sort).
func BenchmarkArgsort(b *testing.B) {
	const rows, n = 256, 4096
	xs := make([]float32, rows*n)
	r := rand.New(rand.NewPCG(3, 3))
	for i := range xs {
		xs[i] = float32(r.Float64()*2 - 1)
	}
	x, _ := tensor.FromSlice(xs, rows, n)
	m := module(b, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.Argsort(a[0], 1)}
	}, abstract(tensor.F32, rows, n))
	benchModule(b, m, []*tensor.Array{x}, 12)
}
