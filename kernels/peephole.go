package kernels

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

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
//     then writes the storage bits itself (fuseStore);
//   - the widening of an f16 or bf16 input buffer to f32, whose register
//     only such an op (rounded or storing) reads, becomes part of that op:
//     the op reads the storage bits from the buffer and widens them in
//     vector registers (fuseWiden), so `x16 * y16` is one pass;
//   - a wrapping int8 or uint8 add, subtract or multiply whose result only
//     a conversion to f32 (or to f16 or bf16, whose compute form is f32
//     and which hold every byte exactly) reads becomes one kernel widening
//     the wrapped bytes (fuseIntWiden): `float(x*2)` for int8 x is one pass.

// fusedKind says which fused f16/bf16 kernel family a step runs.
type fusedKind uint8

const (
	fusedNone  fusedKind = iota
	fusedRound           // op and rounding to the storage precision
	fusedStore           // op writing the storage bits
)

// affineFn computes dst = x·*a + *b.
type affineFn func(dst, x, a, b unsafe.Pointer, n int)

// peepholeOptions say what the pass may do.
type peepholeOptions struct {
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

// opTable holds kernels of the f16/bf16 add, subtract, multiply and divide
// by op and dtype: bin for two blocks, scal[rev] for a block and a
// loop-invariant scalar (rev: the scalar is the left operand).
type opTable struct {
	bin  [trace.NumOps][tensor.NumDTypes]binaryFn
	scal [trace.NumOps][tensor.NumDTypes][2]scalarFn
}

// apply makes binary or scalar step s run t's kernel for its op and dtype,
// reporting whether t has one.
func (t *opTable) apply(s *step) bool {
	switch s.kind {
	case stepBinary:
		if f := t.bin[s.op][s.dt]; f != nil {
			s.bin = f
			return true
		}
	case stepScalar:
		rev := 0
		if s.rev {
			rev = 1
		}
		if f := t.scal[s.op][s.dt][rev]; f != nil {
			s.scal = f
			return true
		}
	}
	return false
}

// rounded: the ops fused with their rounding; stored: the same ops writing
// storage bits instead; storedNT: those with streaming (non-temporal,
// unfenced) stores. registerSIMD (simd_gen.go) fills them.
//
// wideBinary[k][op][d][form] and wideScalar[k][op][d][rev] are those ops
// (k: 0 rounded, 1 storing) reading operands as storage bits: form bit 0
// for a, bit 1 for b.
var (
	rounded, stored, storedNT opTable
	wideBinary                [2][trace.NumOps][tensor.NumDTypes][4]binaryFn
	wideScalar                [2][trace.NumOps][tensor.NumDTypes][2]scalarFn
)

// wideBin adapts a binary kernel of package simd whose operands and
// result are float32 or storage bits ([]uint16), one of them bits.
func wideBin(f any) binaryFn {
	switch f := f.(type) {
	case func([]uint16, []float32, []float32):
		return func(d, a, b unsafe.Pointer, n int) { f(view[uint16](d, n), view[float32](a, n), view[float32](b, n)) }
	case func([]float32, []uint16, []float32):
		return func(d, a, b unsafe.Pointer, n int) { f(view[float32](d, n), view[uint16](a, n), view[float32](b, n)) }
	case func([]float32, []float32, []uint16):
		return func(d, a, b unsafe.Pointer, n int) { f(view[float32](d, n), view[float32](a, n), view[uint16](b, n)) }
	case func([]float32, []uint16, []uint16):
		return func(d, a, b unsafe.Pointer, n int) { f(view[float32](d, n), view[uint16](a, n), view[uint16](b, n)) }
	case func([]uint16, []uint16, []float32):
		return func(d, a, b unsafe.Pointer, n int) { f(view[uint16](d, n), view[uint16](a, n), view[float32](b, n)) }
	case func([]uint16, []float32, []uint16):
		return func(d, a, b unsafe.Pointer, n int) { f(view[uint16](d, n), view[float32](a, n), view[uint16](b, n)) }
	case func([]uint16, []uint16, []uint16):
		return func(d, a, b unsafe.Pointer, n int) { f(view[uint16](d, n), view[uint16](a, n), view[uint16](b, n)) }
	}
	panic(fmt.Sprintf("kernels: no adapter for %T", f))
}

// wideScal adapts a scalar kernel of package simd reading or writing
// storage bits.
func wideScal(f any) scalarFn {
	switch f := f.(type) {
	case func([]uint16, []float32, float32):
		return func(d, a, s unsafe.Pointer, n int) { f(view[uint16](d, n), view[float32](a, n), *(*float32)(s)) }
	case func([]float32, []uint16, float32):
		return func(d, a, s unsafe.Pointer, n int) { f(view[float32](d, n), view[uint16](a, n), *(*float32)(s)) }
	case func([]uint16, []uint16, float32):
		return func(d, a, s unsafe.Pointer, n int) { f(view[uint16](d, n), view[uint16](a, n), *(*float32)(s)) }
	}
	panic(fmt.Sprintf("kernels: no adapter for %T", f))
}

// isRound16 reports whether a step rounds its result to d's precision
// with the executor's rounding.
func isRound16(s *step) bool {
	return s.round != nil && (s.dt == tensor.F16 || s.dt == tensor.BF16)
}

// peephole runs the peephole pass over b's steps.
func (b *body) peephole(o peepholeOptions) {
	if o.off {
		return
	}
	for i := range b.steps {
		s := &b.steps[i]
		if isRound16(s) && rounded.apply(s) {
			s.round, s.fused = nil, fusedRound
			s.label = strings.Replace(s.label, ".", "+round.", 1)
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
func (b *body) affine(i int, o peepholeOptions) (step, bool) {
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
// written, or holds the body's result (or one of its results).
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
	return b.out == r || slices.Contains(b.keep, r)
}

// fuseStore merges the narrowing of the body's result into an f16 or bf16
// buffer dst with the step computing it, when that step is an add,
// subtract, multiply or divide of d (its rounding already dropped, see
// dropFinalRound): the step then writes the storage bits to dst itself.
// It reports whether it did, so the loop stores nothing after the body.
func (b *body) fuseStore(d tensor.DType, dst loc, o peepholeOptions) bool {
	if o.off || (d != tensor.F16 && d != tensor.BF16) || len(b.steps) == 0 {
		return false
	}
	s := &b.steps[len(b.steps)-1]
	if s.dst != b.out || s.round != nil || s.dt != d || s.dst.kind != locReg || !stored.apply(s) {
		return false
	}
	s.dst, b.out, s.fused = dst, dst, fusedStore
	s.label = strings.Replace(s.label, ".", "+store.", 1)
	return true
}

// storeNT makes the body's last step, when it stores f16 or bf16 bits to
// the output buffer dst with a plain storing kernel, use streaming stores
// (unfenced: the loop fences). It reports whether it did.
func (b *body) storeNT(dst loc) bool {
	if len(b.steps) == 0 {
		return false
	}
	s := &b.steps[len(b.steps)-1]
	if s.fused != fusedStore || s.wide || s.dst != dst || b.out != dst || !storedNT.apply(s) {
		return false
	}
	s.label = strings.Replace(s.label, "+store.", "+store-nt.", 1)
	return true
}

// fuseWiden merges into each fused f16/bf16 step (rounded or storing) the
// widening steps of its operands that read an input buffer, when the
// widened register is read by no other step: the step then reads the
// buffer's storage bits itself. Run it after fuse and fuseStore.
func (b *body) fuseWiden(o peepholeOptions) {
	if o.off {
		return
	}
	drop := make([]bool, len(b.steps))
	for j := range b.steps {
		s := &b.steps[j]
		npos := 2
		switch {
		case s.fused == fusedNone:
			continue
		case s.kind == stepScalar:
			npos = 1
		case s.kind != stepBinary:
			continue
		}
		form, from := 0, [2]int{-1, -1}
		for p := range npos {
			if i := b.widening(j, s.args[p]); i >= 0 && !drop[i] && b.steps[i].dt == s.dt {
				form, from[p] = form|1<<p, i
			}
		}
		if form == 0 {
			continue
		}
		k := 0
		if s.fused == fusedStore {
			k = 1
		}
		if s.kind == stepScalar {
			rev := 0
			if s.rev {
				rev = 1
			}
			f := wideScalar[k][s.op][s.dt][rev]
			if f == nil {
				continue
			}
			s.scal = f
		} else {
			f := wideBinary[k][s.op][s.dt][form]
			if f == nil {
				continue
			}
			s.bin = f
		}
		for p, i := range from {
			if i >= 0 {
				s.args[p] = b.steps[i].args[0]
				drop[i] = true
			}
		}
		s.label = strings.Replace(s.label, ".", "+widen.", 1)
		s.wide = true
	}
	out := b.steps[:0]
	for i, s := range b.steps {
		if !drop[i] {
			out = append(out, s)
		}
	}
	b.steps = out
}

// fuseIntWiden merges each byte add, subtract or multiply into the
// conversion to f32 that alone reads its result (see the top of the file).
// The merged step runs where the conversion ran, so it requires that no
// step in between writes the op's operands, and that the conversion does
// not write over them (its f32 result would overrun the bytes it reads).
func (b *body) fuseIntWiden(o peepholeOptions) {
	if o.off {
		return
	}
	drop := make([]bool, len(b.steps))
	for j := range b.steps {
		c := &b.steps[j]
		// f32, f16 and bf16 hold every byte value, so the widened op's
		// result needs no rounding; a narrow float (f32 in compute form
		// too) rounds it, which the merged step would skip.
		if c.kind != stepUnary || c.op != trace.OpConvert || computeDType(c.to) != tensor.F32 || c.to.IsNarrow() || c.args[0].kind != locReg {
			continue
		}
		r := c.args[0]
		i := j - 1
		for ; i >= 0 && b.steps[i].dst != r; i-- {
		}
		if i < 0 || drop[i] {
			continue
		}
		p := &b.steps[i]
		f := widenOpTable[p.op][p.dt]
		if p.kind != stepBinary || p.dt != c.dt || f == nil || p.round != nil || c.dst == p.args[0] || c.dst == p.args[1] {
			continue
		}
		ok := c.dst == r || !b.live(r, j+1)
		for k := i + 1; k < j && ok; k++ {
			s := &b.steps[k]
			ok = s.dst != p.args[0] && s.dst != p.args[1]
			for _, a := range s.args {
				ok = ok && a != r
			}
		}
		if !ok {
			continue
		}
		*c = step{kind: stepBinary, bin: f, dst: c.dst, args: p.args, op: p.op, dt: p.dt,
			label: p.label + "+widen.f32"}
		drop[i] = true
	}
	out := b.steps[:0]
	for i, s := range b.steps {
		if !drop[i] {
			out = append(out, s)
		}
	}
	b.steps = out
}

// widening returns the index of the step that computes register r for
// step j when it is a widening of an input buffer whose result only step
// j reads; otherwise -1.
func (b *body) widening(j int, r loc) int {
	if r.kind != locReg {
		return -1
	}
	i := j - 1
	for ; i >= 0 && b.steps[i].dst != r; i-- {
	}
	if i < 0 || !b.steps[i].widens || b.steps[i].args[0].kind != locBuf {
		return -1
	}
	for k := i + 1; k < j; k++ {
		for _, a := range b.steps[k].args {
			if a == r {
				return -1
			}
		}
	}
	if b.steps[j].dst != r && b.live(r, j+1) {
		return -1
	}
	return i
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
		if (a.kind == locReg || a.kind == locPer) && !scalar {
			return false
		}
	}
	return s.kind != stepGather
}

// dropFinalRound removes the rounding of the step that computes the
// body's result when that result is then narrowed to d (f16 or bf16)
// anyway: narrow(round(v)) and narrow(v) are the same bits, NaNs included.
func (b *body) dropFinalRound(d tensor.DType, o peepholeOptions) {
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
		case locRow:
			return fmt.Sprintf("row%d", l.idx)
		case locPer:
			return fmt.Sprintf("r%d%%%d", l.idx, l.period)
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
