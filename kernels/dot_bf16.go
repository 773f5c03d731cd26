package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/tensor"
)

// gemmBF16Job runs pieces of one bf16 product on the workers; for a
// bf16 result each piece rounds its own elements into out as soon as it
// has them (in its worker, while they are in cache).
type gemmBF16Job struct {
	call   gemm.BF16Call
	parts  int
	narrow unaryFn        // nil: the f32 accumulators are the result
	out    unsafe.Pointer // with narrow: the bf16 result
}

func (j *gemmBF16Job) runRange(_ *runState, _ *worker, lo, hi int) {
	for p := lo; p < hi; p++ {
		j.call.RunPart(p, j.parts)
		if j.narrow == nil {
			continue
		}
		b, i0, i1, j0, j1 := j.call.Region(p, j.parts)
		for i := i0; i < i1; i++ {
			at := b*j.call.BatchC + i*j.call.LDC + j0
			j.narrow(unsafe.Add(j.out, 2*at), unsafe.Pointer(&j.call.C[at]), j1-j0)
		}
	}
}

// runGemmBF16 runs a bf16 product (operands read as stored) into its f32
// accumulators c: the output itself for an f32 result, else a temporary
// that each piece rounds into out once.
func runGemmBF16(x *cpuExec, rs *runState, k *dotKernel, out, c, a, b unsafe.Pointer, na, nb int) {
	j := slotJob[gemmBF16Job](rs, k.slot)
	j.call = gemm.BF16Call{Batch: k.b, M: k.m, N: k.n, K: k.kk,
		A: view[uint16](a, na), B: view[uint16](b, nb), C: view[float32](c, k.b*k.m*k.n), BatchC: k.m * k.n, LDC: k.n, Stop: rs.gemmStop()}
	j.call.BatchA, j.call.RowA, j.call.ColA = k.lhs.strides[0], k.lhs.strides[1], k.lhs.strides[2]
	j.call.BatchB, j.call.RowB, j.call.ColB = k.rhs.strides[0], k.rhs.strides[1], k.rhs.strides[2]
	j.narrow, j.out = nil, nil
	if k.dtype == tensor.BF16 {
		j.narrow, j.out = narrowFn(tensor.BF16), out
	}
	workers := x.cpu.workers()
	if rs.solo || !x.wide(k.b*k.m*k.n*k.kk, 2*x.gemmParallelMin()) { // a bf16 step does twice an f32 one's work
		workers = 1
	}
	j.parts = j.call.Parts(workers)
	x.parallel(rs, j.parts, k.b*k.m*k.n*max(k.kk, 1), j)
	j.call, j.out = gemm.BF16Call{}, nil // hold no caller's array between Runs
}
