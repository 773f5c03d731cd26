package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// fp8Operand returns the narrow float array (8, 6 or 4 bits, one code a
// byte) that bf16 operand in of a dot (fusion dot) converts —
// preferred_element_type bf16 or f32 of narrow float operands lowers to
// such converts — with its format, when the bf16 GEMM can read it past
// the convert (unpacking its codes to bf16 as it packs, gemm.FP8Call), or
// nil; narrowOnBF16 says for which formats that gives the convert's
// bits. The source must still be in its buffer when the dot runs (see
// int8Operand).
func (x *cpuExec) fp8Operand(dot *lower.Fusion, in *lower.Instr) (*lower.Instr, tensor.FloatFormat) {
	if in.Op != trace.OpConvert || in.DType != tensor.BF16 {
		return nil, 0
	}
	src := in.Args[0]
	f, ok := src.DType.FloatFormat()
	if !ok || !x.materialized(src) || !x.keptUntil(src, in, dot) {
		return nil, 0
	}
	return src, f
}

// gemmFP8Job runs pieces of one fp8 product on the workers, each piece
// rounding its elements into the bf16 result as soon as it has them.
type gemmFP8Job struct {
	call  gemm.FP8Call
	parts int
	out   unsafe.Pointer // the bf16 result
}

func (j *gemmFP8Job) runRange(_ *runState, _ *worker, lo, hi int) {
	narrow := narrowFn(tensor.BF16)
	for p := lo; p < hi; p++ {
		j.call.RunPart(p, j.parts)
		if j.out == nil { // an f32 result: the accumulators are the result
			continue
		}
		b, i0, i1, j0, j1 := j.call.Region(p, j.parts)
		for i := i0; i < i1; i++ {
			at := b*j.call.BatchC + i*j.call.LDC + j0
			narrow(unsafe.Add(j.out, 2*at), unsafe.Pointer(&j.call.C[at]), j1-j0)
		}
	}
}

// runGemmFP8 runs a product of narrow float operands (read as stored: one
// code a byte) on the bf16 GEMM into its f32 accumulators c — the result
// itself when it is f32 (preferred_element_type f32), else each piece
// rounded into the bf16 out once: the bits of the bf16 × bf16 product of
// the converted operands (the bf16 rule; narrowOnBF16 holds).
func runGemmFP8(x *cpuExec, rs *runState, k *dotKernel, out, c, a, b unsafe.Pointer, na, nb int) {
	t := fp8Codes()
	j := slotJob[gemmFP8Job](rs, k.slot)
	j.call = gemm.FP8Call{Batch: k.b, M: k.m, N: k.n, K: k.kk, A: view[uint8](a, na), ATable: &t[k.fa].bf16,
		B: view[uint8](b, nb), BTable: &t[k.fb].bf16, C: view[float32](c, k.b*k.m*k.n), BatchC: k.m * k.n, LDC: k.n, Stop: rs.gemmStop()}
	j.call.BatchA, j.call.RowA, j.call.ColA = k.lhs.strides[0], k.lhs.strides[1], k.lhs.strides[2]
	j.call.BatchB, j.call.RowB, j.call.ColB = k.rhs.strides[0], k.rhs.strides[1], k.rhs.strides[2]
	j.out = nil
	if k.dtype == tensor.BF16 {
		j.out = out
	}
	workers := x.cpu.workers()
	if rs.solo || !x.wide(k.b*k.m*k.n*k.kk, 2*x.gemmParallelMin()) {
		workers = 1
	}
	j.parts = j.call.Parts(workers)
	x.parallel(rs, j.parts, k.b*k.m*k.n*max(k.kk, 1), j)
	j.call, j.out = gemm.FP8Call{}, nil // hold no caller's array between Runs
}

// narrowOnBF16 reports whether the bf16 GEMM reading the codes of narrow
// float formats fa and fb through their bf16 tables (gemm.FP8Call) gives
// the bits of the bf16 dot of the operands converted to bf16: every code
// of each format is exactly a bf16 that is zero, normal, infinite or NaN
// (fp8Codes' table is then the convert). Every narrow float format but
// f8e8m0fnu qualifies — the 8-bit ones (FP8OnBF16) and f6e2m3fn,
// f6e3m2fn, f4e2m1fn (at most 3 mantissa bits, exponents well inside
// bf16's normal range); f8e8m0fnu's 2⁻¹²⁷ is a bf16 subnormal, which the
// bf16 rule reads as zero.
func narrowOnBF16(fa, fb tensor.FloatFormat) bool {
	if int(fa) >= tensor.NumFloatFormats || int(fb) >= tensor.NumFloatFormats {
		return false
	}
	t := fp8Codes()
	return t[fa].normal && t[fb].normal
}
