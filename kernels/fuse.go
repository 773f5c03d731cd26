package kernels

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A peephole pass over a compiled body merges steps that each make a pass
// over the block into one step making one pass, with the same bits:
//
//   - a multiply by a loop-invariant scalar whose register result is read
//     only by the next step, an add or subtract of another invariant
//     scalar, becomes one affine step x·a + b (two roundings, no FMA):
//     x·a − b is x·a + (−b), and b − x·a is x·(−a) + b, exactly in IEEE
//     arithmetic. When the affine step writes a large output it streams
//     its stores past the caches (non-temporal stores);
//   - an f16 or bf16 add, subtract, multiply or divide and the rounding to
//     the storage precision after it become one kernel;
//   - the last rounding of a loop whose result is narrowed into an f16 or
//     bf16 buffer is dropped: narrowing rounds the same way, and rounding
//     twice to the same precision is rounding once (dropFinalRound); an
//     f16 or bf16 add, subtract, multiply or divide computing that result
//     then writes the storage bits itself (fuseStore).

// affineFn computes dst = x·*a + *b.
type affineFn func(dst, x, a, b unsafe.Pointer, n int)

// fuseOptions say what the pass may do.
type fuseOptions struct {
	off bool // keep the steps as compiled (tests compare both)
	// nt: the body's out is a buffer of at least ntMinBytes, which an
	// affine step writing it should stream when it is the body's only step.
	nt  bool
	out loc
}

// ntMinBytes is the output size from which E1-like loops measured faster
// with non-temporal stores (BenchmarkAffineNT: 11-12% faster at 32 and 64
// MiB, no faster from 4 to 16 MiB, 20-30% slower at 1 MiB, where the
// output is better left in the cache for its reader).
const ntMinBytes = 32 << 20

// affineTable[d][nt]: the affine kernels.
var affineTable [tensor.NumDTypes][2]func(neg [2]bool) affineFn

func simdAffine[T float32 | float64](f func(dst, x []T, a, b T)) func(neg [2]bool) affineFn {
	return func(neg [2]bool) affineFn {
		negA, negB := neg[0], neg[1]
		return func(dst, x, a, b unsafe.Pointer, n int) {
			av, bv := *(*T)(a), *(*T)(b)
			// Negate a NaN never: x·a − NaN and x·a + NaN give the same NaN.
			if negA && av == av {
				av = -av
			}
			if negB && bv == bv {
				bv = -bv
			}
			f(view[T](dst, n), view[T](x, n), av, bv)
		}
	}
}

// roundedBinary[op][d] and roundedScalar[op][d][rev] are the f16 and bf16
// ops fused with their rounding; storeBinary and storeScalar the same ops
// writing storage bits (uint16) instead.
var (
	roundedBinary [trace.NumOps][tensor.NumDTypes]binaryFn
	roundedScalar [trace.NumOps][tensor.NumDTypes][2]scalarFn
	storeBinary   [trace.NumOps][tensor.NumDTypes]binaryFn
	storeScalar   [trace.NumOps][tensor.NumDTypes][2]scalarFn
)

func simd2To16(f func(d []uint16, a, b []float32)) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[uint16](d, n), view[float32](a, n), view[float32](b, n)) }
}

func simdScalarTo16(f func(d []uint16, a []float32, s float32)) scalarFn {
	return func(d, a, s unsafe.Pointer, n int) { f(view[uint16](d, n), view[float32](a, n), *(*float32)(s)) }
}

func init() {
	affineTable[tensor.F32] = [2]func([2]bool) affineFn{simdAffine(simd.AffineF32), simdAffine(simd.AffineNTF32)}
	affineTable[tensor.F64] = [2]func([2]bool) affineFn{simdAffine(simd.AffineF64), simdAffine(simd.AffineNTF64)}

	type kernels struct {
		add, sub, mul, div                       func(d, a, b []float32)
		addS, subS, subSRev, mulS, divS, divSRev func(d, a []float32, s float32)
	}
	for d, k := range map[tensor.DType]kernels{
		tensor.F16: {simd.AddRoundF16, simd.SubRoundF16, simd.MulRoundF16, simd.DivRoundF16,
			simd.AddScalarRoundF16, simd.SubScalarRoundF16, simd.SubScalarRevRoundF16,
			simd.MulScalarRoundF16, simd.DivScalarRoundF16, simd.DivScalarRevRoundF16},
		tensor.BF16: {simd.AddRoundBF16, simd.SubRoundBF16, simd.MulRoundBF16, simd.DivRoundBF16,
			simd.AddScalarRoundBF16, simd.SubScalarRoundBF16, simd.SubScalarRevRoundBF16,
			simd.MulScalarRoundBF16, simd.DivScalarRoundBF16, simd.DivScalarRevRoundBF16},
	} {
		roundedBinary[trace.OpAdd][d] = simd2(k.add)
		roundedBinary[trace.OpSub][d] = simd2(k.sub)
		roundedBinary[trace.OpMul][d] = simd2(k.mul)
		roundedBinary[trace.OpDiv][d] = simd2(k.div)
		roundedScalar[trace.OpAdd][d] = [2]scalarFn{simdScalar(k.addS), simdScalar(k.addS)}
		roundedScalar[trace.OpSub][d] = [2]scalarFn{simdScalar(k.subS), simdScalar(k.subSRev)}
		roundedScalar[trace.OpMul][d] = [2]scalarFn{simdScalar(k.mulS), simdScalar(k.mulS)}
		roundedScalar[trace.OpDiv][d] = [2]scalarFn{simdScalar(k.divS), simdScalar(k.divSRev)}
	}
	type storeKernels struct {
		add, sub, mul, div                       func(d []uint16, a, b []float32)
		addS, subS, subSRev, mulS, divS, divSRev func(d []uint16, a []float32, s float32)
	}
	for d, k := range map[tensor.DType]storeKernels{
		tensor.F16: {simd.AddToF16, simd.SubToF16, simd.MulToF16, simd.DivToF16,
			simd.AddScalarToF16, simd.SubScalarToF16, simd.SubScalarRevToF16,
			simd.MulScalarToF16, simd.DivScalarToF16, simd.DivScalarRevToF16},
		tensor.BF16: {simd.AddToBF16, simd.SubToBF16, simd.MulToBF16, simd.DivToBF16,
			simd.AddScalarToBF16, simd.SubScalarToBF16, simd.SubScalarRevToBF16,
			simd.MulScalarToBF16, simd.DivScalarToBF16, simd.DivScalarRevToBF16},
	} {
		storeBinary[trace.OpAdd][d] = simd2To16(k.add)
		storeBinary[trace.OpSub][d] = simd2To16(k.sub)
		storeBinary[trace.OpMul][d] = simd2To16(k.mul)
		storeBinary[trace.OpDiv][d] = simd2To16(k.div)
		storeScalar[trace.OpAdd][d] = [2]scalarFn{simdScalarTo16(k.addS), simdScalarTo16(k.addS)}
		storeScalar[trace.OpSub][d] = [2]scalarFn{simdScalarTo16(k.subS), simdScalarTo16(k.subSRev)}
		storeScalar[trace.OpMul][d] = [2]scalarFn{simdScalarTo16(k.mulS), simdScalarTo16(k.mulS)}
		storeScalar[trace.OpDiv][d] = [2]scalarFn{simdScalarTo16(k.divS), simdScalarTo16(k.divSRev)}
	}
}

// isRound16 reports whether a step rounds its result to d's precision
// with the executor's rounding.
func isRound16(s *step) bool {
	return s.round != nil && (s.dt == tensor.F16 || s.dt == tensor.BF16)
}

// fuse runs the peephole pass over b's steps.
func (b *body) fuse(o fuseOptions) {
	if o.off {
		return
	}
	for i := range b.steps {
		s := &b.steps[i]
		if !isRound16(s) {
			continue
		}
		switch s.kind {
		case stepBinary:
			if f := roundedBinary[s.op][s.dt]; f != nil {
				s.bin, s.round = f, nil
				s.label = strings.Replace(s.label, ".", "+round.", 1)
			}
		case stepScalar:
			rev := 0
			if s.rev {
				rev = 1
			}
			if f := roundedScalar[s.op][s.dt][rev]; f != nil {
				s.scal, s.round = f, nil
				s.label = strings.Replace(s.label, ".", "+round.", 1)
			}
		}
	}
	out := b.steps[:0]
	for i := 0; i < len(b.steps); i++ {
		if i+1 < len(b.steps) {
			if m, ok := b.affine(i, o); ok {
				out = append(out, m)
				i++
				continue
			}
		}
		out = append(out, b.steps[i])
	}
	b.steps = out
	// Streaming stores pay off only for a body that streams (see
	// loopKernel.stream): fenced after every block they measured slower.
	if o.nt && b.streams() {
		if s := &b.steps[0]; s.kind == stepAffine && s.dst == o.out {
			s.aff = affineTable[s.dt][1](s.neg)
			s.label = "affine-nt." + s.dt.String()
		}
	}
}

// affine merges steps i (x·a) and i+1 (± b) when it can.
func (b *body) affine(i int, o fuseOptions) (step, bool) {
	s, t := &b.steps[i], &b.steps[i+1]
	mk := affineTable[s.dt]
	switch {
	case mk[0] == nil,
		s.kind != stepScalar || s.op != trace.OpMul || s.round != nil || s.dst.kind != locReg,
		t.kind != stepScalar || (t.op != trace.OpAdd && t.op != trace.OpSub) || t.round != nil,
		t.dt != s.dt || t.args[0] != s.dst,
		t.dst != s.dst && b.live(s.dst, i+2):
		return step{}, false
	}
	m := step{kind: stepAffine, dst: t.dst, args: [3]loc{s.args[0], s.args[1], t.args[1]},
		op: t.op, dt: s.dt, label: "affine." + s.dt.String(),
		neg: [2]bool{t.op == trace.OpSub && t.rev, t.op == trace.OpSub && !t.rev}}
	m.aff = mk[0](m.neg)
	return m, true
}

// live reports whether register r is read at or after step j before being
// written, or holds the body's result.
func (b *body) live(r loc, j int) bool {
	for ; j < len(b.steps); j++ {
		s := &b.steps[j]
		for _, a := range s.args {
			if a == r {
				return true
			}
		}
		if s.dst == r {
			return false
		}
	}
	return b.out == r
}

// fuseStore merges the narrowing of the body's result into an f16 or bf16
// buffer dst with the step computing it, when that step is an add,
// subtract, multiply or divide of d (its rounding already dropped, see
// dropFinalRound): the step then writes the storage bits to dst itself.
// It reports whether it did, so the loop stores nothing after the body.
func (b *body) fuseStore(d tensor.DType, dst loc, o fuseOptions) bool {
	if o.off || (d != tensor.F16 && d != tensor.BF16) || len(b.steps) == 0 {
		return false
	}
	s := &b.steps[len(b.steps)-1]
	if s.dst != b.out || s.round != nil || s.dt != d || s.dst.kind != locReg {
		return false
	}
	switch s.kind {
	case stepBinary:
		f := storeBinary[s.op][d]
		if f == nil {
			return false
		}
		s.bin = f
	case stepScalar:
		rev := 0
		if s.rev {
			rev = 1
		}
		f := storeScalar[s.op][d][rev]
		if f == nil {
			return false
		}
		s.scal = f
	default:
		return false
	}
	s.dst, b.out = dst, dst
	s.label = strings.Replace(s.label, ".", "+store.", 1)
	return true
}

// streams reports whether b is one step that reads only buffers (and
// loop-invariant scalars) and writes a buffer: then it runs on any number
// of elements at once, its registers being read at their first element only.
func (b *body) streams() bool {
	if len(b.steps) != 1 {
		return false
	}
	s := &b.steps[0]
	if s.dst.kind != locBuf || s.round != nil || s.dst != b.out {
		return false
	}
	for i, a := range s.args {
		scalar := i > 0 && (s.kind == stepScalar || s.kind == stepAffine)
		if a.kind == locReg && !scalar {
			return false
		}
	}
	return s.kind != stepGather
}

// dropFinalRound removes the rounding of the step that computes the
// body's result when that result is then narrowed to d (f16 or bf16)
// anyway: narrow(round(v)) and narrow(v) are the same bits, NaNs included.
func (b *body) dropFinalRound(d tensor.DType, o fuseOptions) {
	if o.off || (d != tensor.F16 && d != tensor.BF16) || len(b.steps) == 0 {
		return
	}
	s := &b.steps[len(b.steps)-1]
	if s.dst == b.out && s.round != nil && s.dt == d && s.kind != stepGather {
		s.round = nil
	}
}

// String lists the steps, one a line: "r1 = mul.f32 buf0, r0" (registers
// r, buffer views buf; "+round" is the rounding to f16 or bf16).
func (b *body) String() string {
	var sb strings.Builder
	name := func(l loc) string {
		switch l.kind {
		case locReg:
			return fmt.Sprintf("r%d", l.idx)
		case locBuf:
			return fmt.Sprintf("buf%d", l.idx)
		}
		return "-"
	}
	line := func(prefix string, s *step) {
		var args []string
		if s.kind == stepGather {
			args = append(args, fmt.Sprintf("buf%d", s.src))
		}
		for _, a := range s.args {
			if a.kind != locNone {
				args = append(args, name(a))
			}
		}
		label := s.label
		if s.round != nil {
			label += " +round"
		}
		fmt.Fprintf(&sb, "%s%s = %s %s\n", prefix, name(s.dst), label, strings.Join(args, ", "))
	}
	for i := range b.once {
		line("once ", &b.once[i])
	}
	for i := range b.steps {
		line("", &b.steps[i])
	}
	fmt.Fprintf(&sb, "out %s\n", name(b.out))
	return sb.String()
}
