package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// sqDiff is a sum reduction whose body is (x − c)² — a subtract of a
// loop-invariant scalar c from an f32 or f64 input buffer x, then the
// product of that with itself — as in a variance's second pass,
// sum((x − mean(x))²). A group of it is one pass over x
// (simd.SumLeavesSqDiffF64), which computes each leaf's values in vector
// registers instead of writing them to the body's registers and reading
// them back twice: E4's second pass made three passes over each block
// (subtract, multiply, leaf sums), and took 1.5 times its first pass's
// time. The leaves' values, their sums and the tree over them are the
// unfused body's and reducer's, so the bits are the same.
type sqDiff struct {
	x     int // source index of x
	c     int // register holding c (filled once per worker)
	group func(dst unsafe.Pointer, w *worker, srcs []unsafe.Pointer, start, n int)
}

// sqDiffMin is the smallest group sqDiff runs: shorter segments take
// treeReducer's shortSums path, which the fused group does not mirror.
const sqDiffMin = 16

// sqDiff returns the fused form of b's values when b computes (x − c)² in
// dtype d (f32 or f64, computed as stored), nil otherwise.
func (b *body) sqDiff(d tensor.DType) *sqDiff {
	if len(b.steps) != 2 || (d != tensor.F64 && d != tensor.F32) {
		return nil
	}
	sub, mul := &b.steps[0], &b.steps[1]
	plain := func(s *step) bool {
		return s.round == nil && s.check == nil && s.fused == fusedNone && !s.wide && !s.widens && s.dt == d
	}
	if !plain(sub) || !plain(mul) || sub.kind != stepScalar || sub.op != trace.OpSub || sub.rev ||
		sub.args[0].kind != locBuf || sub.args[0].size != d.Size() || sub.args[1].kind != locReg || sub.dst.kind != locReg {
		return nil
	}
	if mul.kind != stepBinary || mul.op != trace.OpMul || mul.args[0] != sub.dst || mul.args[1] != sub.dst || b.out != mul.dst {
		return nil
	}
	q := &sqDiff{x: sub.args[0].idx, c: sub.args[1].idx}
	if d == tensor.F64 {
		q.group = sqDiffGroup(q, simd.SumLeavesSqDiffF64)
	} else {
		q.group = sqDiffGroup(q, simd.SumLeavesSqDiffF32)
	}
	return q
}

// sqDiffGroup returns the function writing to dst the sum of the n ≥
// sqDiffMin values of (x − c)² from element start, as treeReducer's seg
// sums a group of the body's values: the leaves' sums (at most maxLeaves),
// the fixed tree over them, +0 added. The worker must be prepared for the
// body (its register c filled).
func sqDiffGroup[T float32 | float64](q *sqDiff, leaves func(dst, x []T, c T)) func(dst unsafe.Pointer, w *worker, srcs []unsafe.Pointer, start, n int) {
	return func(dst unsafe.Pointer, w *worker, srcs []unsafe.Pointer, start, n int) {
		var buf [maxLeaves]T
		var zero T
		nl := (n + leafElems - 1) / leafElems
		x := view[T](unsafe.Add(srcs[q.x], start*int(unsafe.Sizeof(zero))), n)
		leaves(buf[:nl], x, *(*T)(w.regs[q.c]))
		*(*T)(dst) = zero + treeCombine(buf[:nl], false)
	}
}
