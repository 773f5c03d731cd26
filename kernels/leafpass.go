package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// leafPass runs the whole groups of a float sum reduction straight from
// its input buffer, several groups per call, when the body is
//
//   - nothing: the sum reads an f32 or f64 input x itself (sum(x)), or
//   - (x − c)²: a subtract of a loop-invariant scalar c from such an x,
//     then the product of that with itself, as in a variance's second
//     pass, sum((x − mean(x))²) — simd.SumLeavesSqDiffF64 computes each
//     leaf's values in vector registers instead of writing them to the
//     body's registers and reading them back twice (E4's second pass made
//     three passes over each block, and took 1.5 times its first's time);
//   - x·x: the product of such an x with itself (sum(x²), a norm's or the
//     second moment's pass), run as (x − (+0))², which has its bits.
//
// A group's partial is its leaves' sums, the fixed tree over them and +0
// added, as treeReducer's seg computes it from the body's values, so the
// bits are the same. Taking several groups per call saves the per-group
// calls (eval, seg, the leaf kernel's dispatch),
// which cost E4's first pass about a tenth of its time on 8 KiB groups.
// Groups shorter than groupElems (an output's last) take the body.
type leafPass struct {
	x int // source index of x
	c int // register holding c (filled once per worker); -1: plain sum or x²
	// square: the body is x·x, which the leaves compute as (x − (+0))²
	square bool
	// groups writes the partials of m ≤ leafBatch whole groups from
	// element start to dst (m accumulators).
	groups func(dst unsafe.Pointer, w *worker, srcs []unsafe.Pointer, start, m int)
}

// leafBatch is how many groups leafPass takes per call: 64 KiB of f64.
const leafBatch = 8

// leafPass returns the leaf pass of b's values for a sum in dtype d, or
// nil when b is neither form (or d is not f32 or f64, computed as stored).
func (b *body) leafPass(d tensor.DType) *leafPass {
	if d != tensor.F64 && d != tensor.F32 {
		return nil
	}
	if len(b.steps) == 0 {
		if b.out.kind != locBuf || b.out.size != d.Size() {
			return nil
		}
		q := &leafPass{x: b.out.idx, c: -1}
		if d == tensor.F64 {
			q.groups = leafGroups(q, func(dst, x []float64, _ float64) { simd.SumLeavesF64(dst, x) })
		} else {
			q.groups = leafGroups(q, func(dst, x []float32, _ float32) { simd.SumLeavesF32(dst, x) })
		}
		return q
	}
	plain := func(s *step) bool {
		return s.round == nil && s.check == nil && s.fused == fusedNone && !s.wide && !s.widens && s.dt == d
	}
	if len(b.steps) == 1 {
		// x·x is (x − (+0))² bit for bit: x − (+0) is x for every x
		// (−0 included), and a NaN x comes out of the subtract quieted,
		// as out of the product.
		mul := &b.steps[0]
		x := mul.args[0]
		if !plain(mul) || mul.kind != stepBinary || mul.op != trace.OpMul || x.kind != locBuf || x.size != d.Size() ||
			mul.args[1] != x || b.out != mul.dst {
			return nil
		}
		q := &leafPass{x: x.idx, c: -1, square: true}
		if d == tensor.F64 {
			q.groups = leafGroups(q, simd.SumLeavesSqDiffF64)
		} else {
			q.groups = leafGroups(q, simd.SumLeavesSqDiffF32)
		}
		return q
	}
	if len(b.steps) != 2 {
		return nil
	}
	sub, mul := &b.steps[0], &b.steps[1]
	if !plain(sub) || !plain(mul) || sub.kind != stepScalar || sub.op != trace.OpSub || sub.rev ||
		sub.args[0].kind != locBuf || sub.args[0].size != d.Size() || sub.args[1].kind != locReg || sub.dst.kind != locReg {
		return nil
	}
	if mul.kind != stepBinary || mul.op != trace.OpMul || mul.args[0] != sub.dst || mul.args[1] != sub.dst || b.out != mul.dst {
		return nil
	}
	q := &leafPass{x: sub.args[0].idx, c: sub.args[1].idx}
	if d == tensor.F64 {
		q.groups = leafGroups(q, simd.SumLeavesSqDiffF64)
	} else {
		q.groups = leafGroups(q, simd.SumLeavesSqDiffF32)
	}
	return q
}

// groupLeaves is the number of leaves in a whole group.
const groupLeaves = groupElems / leafElems

// leafGroups returns q's groups function for element type T, given the
// kernel writing the leaves' sums of x (with c, for (x − c)²).
func leafGroups[T float32 | float64](q *leafPass, leaves func(dst, x []T, c T)) func(dst unsafe.Pointer, w *worker, srcs []unsafe.Pointer, start, m int) {
	return func(dst unsafe.Pointer, w *worker, srcs []unsafe.Pointer, start, m int) {
		var buf [leafBatch * groupLeaves]T
		var zero, c T
		if q.c >= 0 {
			c = *(*T)(w.regs[q.c])
		}
		x := view[T](unsafe.Add(srcs[q.x], start*int(unsafe.Sizeof(zero))), m*groupElems)
		leaves(buf[:m*groupLeaves], x, c)
		d := view[T](dst, m)
		for g := range d {
			d[g] = zero + treeCombine(buf[g*groupLeaves:(g+1)*groupLeaves], false)
		}
	}
}
