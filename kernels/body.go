package kernels

import (
	"fmt"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A body is the elementwise part of a loop or reduce fusion compiled into a
// straight-line list of block steps. It is evaluated over an iteration
// space (the loop's output shape, or a reduction operand's shape with the
// reduced axes moved last) one block at a time: each step is one typed
// loop over the block, reading and writing registers (per-worker scratch of
// one block) or views of buffers at the block's offset.

// locKind says where a step operand lives.
type locKind uint8

const (
	locNone locKind = iota
	locReg          // a register: the block's values start at its base
	locBuf          // a buffer (or constant) viewed at the block's offset
	// locRow: a row broadcast down the iteration space (a bias added to
	// every row), read in place from source idx by a stepRow; never a
	// register, never materialised (see bodyBuilder.rowRead).
	locRow
	// locPer: a row broadcast of period elements (a bias, a softmax's
	// ten-class row), held in a pinned register filled once per worker
	// with the row repeated over a block and a period more; a block at
	// iteration element lo reads it from element lo mod period on (see
	// bodyBuilder.periodic).
	locPer
)

type loc struct {
	kind   locKind
	idx    int // register or source index
	size   int // bytes per element of a buffer view, or of a locPer's register
	period int // locPer: the row's length
}

type stepKind uint8

const (
	stepUnary stepKind = iota
	stepBinary
	stepSelect
	stepGather
	stepScalar // a binary op with one loop-invariant operand: args[1] holds it
	stepAffine // args[0]·a + b with a and b loop-invariant (args[1], args[2]); see fuse
	stepCheck  // checked mode: test args[0] (a divisor) before the step after it reads it (check.go)
	// stepRow is a binary op one of whose operands (a locRow) is a row
	// broadcast: bin runs once per row segment of the block, reading the
	// row in place at the segment's phase, instead of a gather
	// materialising the broadcast block first. g is the row's read
	// (rank 2, strides {0, 1}); dsize and asize are the bytes per element
	// of dst and of the other operand.
	stepRow
)

// step is one typed loop over a block.
type step struct {
	kind   stepKind
	dst    loc
	args   [3]loc
	un     unaryFn
	bin    binaryFn
	sel    selectFn
	scal   scalarFn
	aff    affineFn
	round  func(p unsafe.Pointer, n int) // applied to dst after the op
	gather func(dst, src unsafe.Pointer, g *strided, lo, n int)
	g      *strided
	src    int // gather, stepRow: source index
	// dsize, asize: stepRow's bytes per element of dst and of its block
	// operand.
	dsize, asize int
	check        *divideCheck
	instr        *lower.Instr // the instruction the step computes (nil for loads)

	// What the step computes, for the peephole pass and for printing.
	op    trace.Op
	dt    tensor.DType // the operands' dtype (the tables' index)
	to    tensor.DType // OpConvert: the result's dtype
	rev   bool         // stepScalar: the invariant operand is the left one
	neg   [2]bool      // stepAffine: a, b are negated (x·a − b, b − x·a)
	label string       // e.g. "mul.f32", "affine-nt.f32", "add+round.f16"
	// widens: a unary step widening dt (f16, bf16) storage bits to the
	// compute dtype; fused: which fused f16/bf16 kernel the step runs
	// (see peephole.go).
	widens bool
	fused  fusedKind
	wide   bool // a fused step reading storage bits (fuseWiden)
}

// body is a compiled elementwise computation.
type body struct {
	block int    // elements per block
	once  []step // fills of loop-invariant registers, run once per worker
	steps []step
	nregs int
	out   loc   // where the result is after the steps
	keep  []loc // the other results' locations (a multi-result body), live to the end too
	// fills: how many elements each once step fills, found at the first
	// prepare, after every pass has rewritten the steps (onceFills).
	fills atomic.Pointer[[]int]
	// raw: the body only moves data (see movesOnly), so its float values
	// are carried as the unsigned integers of their width (rawDType) and
	// keep every bit, a signaling NaN's too.
	raw bool
}

// onceFills returns how many elements each once step must fill: one for
// a register the steps read only as a loop-invariant scalar (stepScalar's
// and stepAffine's invariant operands, read at their first element), a
// block and a row more for a periodic register (locPer), a whole block
// otherwise. Adam's epilogue filled nine block registers with its rates
// per call, 2% of E7's step.
func (b *body) onceFills() []int {
	if f := b.fills.Load(); f != nil {
		return *f
	}
	need := map[int]int{} // a register read past its first element → the elements read
	use := func(l loc) {
		switch l.kind {
		case locReg:
			need[l.idx] = max(need[l.idx], b.block)
		case locPer:
			need[l.idx] = max(need[l.idx], b.block+l.period)
		}
	}
	use(b.out)
	for _, l := range b.keep {
		use(l)
	}
	for _, steps := range [][]step{b.once, b.steps} {
		for i := range steps {
			s := &steps[i]
			for j, a := range s.args {
				if j == 0 || (s.kind != stepScalar && s.kind != stepAffine) {
					use(a)
				}
			}
		}
	}
	fills := make([]int, len(b.once))
	for i := range b.once {
		fills[i] = 1
		if d := b.once[i].dst; d.kind != locReg {
			fills[i] = b.block
		} else if n := need[d.idx]; n > 0 {
			fills[i] = n
		}
	}
	b.fills.Store(&fills)
	return fills
}

// reads lists the buffers the steps read element by element (not the
// gathers' strided or broadcast reads, nor loop-invariant scalars), each
// once.
func (b *body) reads() []loc {
	var ls []loc
	for i := range b.steps {
		s := &b.steps[i]
		if s.kind == stepGather {
			continue
		}
		for j, a := range s.args {
			scalar := j > 0 && (s.kind == stepScalar || s.kind == stepAffine)
			if a.kind == locBuf && !scalar && !slices.Contains(ls, a) {
				ls = append(ls, a)
			}
		}
	}
	return ls
}

// source is where a fusion input's data lives: a plan buffer, or constant
// data held by the executable (indices after the plan's buffers).
type sourceFn func(in *lower.Instr) int

// bodyBuilder compiles a fusion's elementwise instructions.
type bodyBuilder struct {
	b       *body
	iter    []int // iteration shape
	perm    []int // iteration dim j reads operand-shaped values' dim perm[j]
	source  sourceFn
	members map[*lower.Instr]bool
	locs    map[*lower.Instr]loc
	free    []int // registers free for reuse
	pinned  map[int]bool
	uses    map[*lower.Instr]int // remaining uses of each value in the body
	// rows: the reads of broadcasts compiled to a locRow, until their
	// one consumer takes them (rowRead).
	rows map[*lower.Instr]rowRead
	// leafs: a mapped region's leaves (see mapped.go), read through their
	// own strides over the iteration space instead of operandStrides;
	// a varying leaf's source moves between calls, so it is never
	// loaded once as a loop invariant.
	leafs map[*lower.Instr]leafRead
	raw   bool // the body moves bits: see body.raw
}

// rowRead is a broadcast left unmaterialised: its dtype, source and
// iteration strides.
type rowRead struct {
	d       tensor.DType
	src     int
	strides []int
	g       *strided
}

// periodic reports whether a read through g (simplified) of elements of
// size bytes is a row broadcast that a periodic register (locPer) holds:
// a block and a row more fit in a register (block·16 bytes).
func (bb *bodyBuilder) periodic(g *strided, size int) bool {
	return len(g.shape) == 2 && g.strides[0] == 0 && g.strides[1] == 1 && g.shape[0] > 0 && g.shape[1] > 1 &&
		(bb.b.block+g.shape[1])*size <= bb.b.block*16
}

// rowMin is the shortest row a stepRow reads in place: per row segment it
// makes one call of the binary kernel, which on short rows (a 10-class
// bias) costs more than the gather saves.
const rowMin = 32

// leafRead is how a mapped region's body reads one leaf.
type leafRead struct {
	strides []int
	varying bool
}

// compileBody compiles the members of f that compute value root over the
// iteration shape iter; values of the operand shape are read with their
// dims permuted by perm. If dst is a buffer location and the root is
// computed at its storage precision, the root is written there directly.
//
// With raw set, a body that only moves data (movesOnly) carries its
// values as bits (body.raw); the caller then stores its result as the
// root's rawDType.
func compileBody(f *lower.Fusion, root *lower.Instr, iter, perm []int, block int, source sourceFn, dst loc, raw bool) (*body, error) {
	members := map[*lower.Instr]bool{}
	for _, in := range f.Instrs {
		if in != f.Outputs[0] || f.Kind == lower.FusionLoop {
			members[in] = true
		}
	}
	b, _, err := compileRootsLeafs(members, []*lower.Instr{root}, iter, perm, block, source, []loc{dst}, nil, raw)
	return b, err
}

// compileRoots compiles the members computing roots as one body, each
// value once: root i is written to dsts[i] directly when that is a buffer
// and the root is computed at its storage precision. It returns where
// each root is after the steps; every root's location stays live to the
// end (a later root may read an earlier one from it, and the caller
// stores them after the body).
func compileRoots(members map[*lower.Instr]bool, roots []*lower.Instr, iter, perm []int, block int, source sourceFn, dsts []loc) (*body, []loc, error) {
	return compileRootsLeafs(members, roots, iter, perm, block, source, dsts, nil, false)
}

// compileRootsLeafs is compileRoots reading the non-members in leafs
// through their own strides; raw lets a body of one root that only moves
// data carry its values as bits (body.raw).
func compileRootsLeafs(members map[*lower.Instr]bool, roots []*lower.Instr, iter, perm []int, block int, source sourceFn, dsts []loc, leafs map[*lower.Instr]leafRead, raw bool) (*body, []loc, error) {
	bb := &bodyBuilder{
		b: &body{block: block}, iter: iter, perm: perm, source: source,
		members: members, locs: map[*lower.Instr]loc{},
		pinned: map[int]bool{}, uses: map[*lower.Instr]int{}, leafs: leafs,
		rows: map[*lower.Instr]rowRead{},
	}
	var order []*lower.Instr
	var visit func(in *lower.Instr)
	seen := map[*lower.Instr]bool{}
	visit = func(in *lower.Instr) {
		if seen[in] {
			return
		}
		seen[in] = true
		if bb.members[in] && in.Op.Elementwise() {
			for _, a := range in.Args {
				a = bb.resolve(a)
				bb.uses[a]++
				visit(a)
			}
		}
		order = append(order, in)
	}
	dst := map[*lower.Instr]loc{}
	for i, r := range roots {
		r = bb.resolve(r)
		visit(r)
		bb.uses[r]++ // the result is read after the body
		if _, ok := dst[r]; !ok {
			dst[r] = dsts[i]
		}
	}
	bb.raw = raw && len(roots) == 1 && movesOnly(bb.members, order)
	bb.b.raw = bb.raw
	for _, in := range order {
		d, isRoot := dst[in]
		if err := bb.emit(in, isRoot, d); err != nil {
			return nil, nil, err
		}
	}
	outs := make([]loc, len(roots))
	for i, r := range roots {
		outs[i] = bb.locs[bb.resolve(r)]
	}
	bb.b.out = outs[len(outs)-1]
	bb.b.keep = outs[:len(outs)-1]
	return bb.b, outs, nil
}

func (bb *bodyBuilder) newReg() int {
	if n := len(bb.free); n > 0 {
		r := bb.free[n-1]
		bb.free = bb.free[:n-1]
		return r
	}
	bb.b.nregs++
	return bb.b.nregs - 1
}

func (bb *bodyBuilder) pinReg() loc {
	bb.b.nregs++
	r := bb.b.nregs - 1
	bb.pinned[r] = true
	return loc{kind: locReg, idx: r}
}

// resolve is the value the body computes for in: in itself, or for an
// identity broadcast of a member, that member. A fusion may hold both a
// broadcast and its operand when the operand has the broadcast's shape
// (a broadcast_in_dim's dims increase, so it is then the identity); the
// operand is computed in the body at the loop's index and has no buffer
// a broadcast could load it from.
func (bb *bodyBuilder) resolve(in *lower.Instr) *lower.Instr {
	for in.Op == trace.OpBroadcastInDim && bb.members[in] {
		x := in.Args[0]
		if !bb.members[x] || x.Op == trace.OpConst || !trace.ShapeEqual(x.Shape, in.Shape) {
			break
		}
		in = x
	}
	return in
}

// release frees the registers of in's operands that have no uses left.
func (bb *bodyBuilder) release(in *lower.Instr) {
	for _, a := range in.Args {
		a = bb.resolve(a)
		bb.uses[a]--
		if bb.uses[a] == 0 {
			if l := bb.locs[a]; l.kind == locReg && !bb.pinned[l.idx] && !slices.Contains(bb.free, l.idx) {
				bb.free = append(bb.free, l.idx)
			}
		}
	}
}

// operandStrides maps a value of shape s, laid out row-major, to strides
// over the iteration space: operand-shaped values are permuted, other
// shapes (a broadcast's operand) are first mapped through dims.
func (bb *bodyBuilder) operandStrides(shape []int) []int {
	st := numerics.RowMajorStrides(shape)
	out := make([]int, len(bb.iter))
	for j, p := range bb.perm {
		if shape[p] != 1 {
			out[j] = st[p]
		}
	}
	return out
}

// broadcastStrides maps a broadcast_in_dim's operand to iteration strides.
func (bb *bodyBuilder) broadcastStrides(in *lower.Instr) []int {
	x := in.Args[0]
	st := numerics.RowMajorStrides(x.Shape)
	full := make([]int, len(in.Shape)) // strides over the broadcast's shape
	for i, d := range in.Params.Dims {
		if x.Shape[i] != 1 {
			full[d] = st[i]
		}
	}
	out := make([]int, len(bb.iter))
	for j, p := range bb.perm {
		out[j] = full[p]
	}
	return out
}

// load makes the value of source src, read through strides, available in
// compute form: a view when it is contiguous and needs no widening,
// otherwise a gather and/or widen into a register (pinned and filled once
// when the value is the same for every element).
func (bb *bodyBuilder) load(d tensor.DType, src int, strides []int) loc {
	return bb.loadLeaf(d, src, strides, false)
}

// inputLoad loads non-member in, through its leaf strides if it has any.
func (bb *bodyBuilder) inputLoad(in *lower.Instr, d tensor.DType) loc {
	if l, ok := bb.leafs[in]; ok {
		return bb.loadLeaf(d, bb.source(in), l.strides, l.varying)
	}
	return bb.load(d, bb.source(in), bb.operandStrides(in.Shape))
}

// loadLeaf is load; a varying source is gathered per block even when
// every element reads the same value.
func (bb *bodyBuilder) loadLeaf(d tensor.DType, src int, strides []int, varying bool) loc {
	g := &strided{shape: slices.Clone(bb.iter), strides: strides}
	g.simplify()
	widen := widenFn(d)
	size := d.Size()
	invariant := true
	for _, s := range g.strides {
		invariant = invariant && s == 0
	}
	if invariant && varying {
		// The same value everywhere, but a different one each call: a
		// fill per block.
		in := loc{kind: locReg, idx: bb.newReg()}
		bb.b.steps = append(bb.b.steps, step{kind: stepGather, gather: gatherFn(size), g: &strided{}, src: src, dst: in, label: "fill." + d.String()})
		if widen == nil {
			return in
		}
		dst := loc{kind: locReg, idx: bb.newReg()}
		bb.b.steps = append(bb.b.steps, step{kind: stepUnary, un: widen, dst: dst, args: [3]loc{in}, dt: d, widens: true, label: "widen." + d.String()})
		bb.free = append(bb.free, in.idx)
		return dst
	}
	if g.contiguous() && widen == nil && !invariant {
		return loc{kind: locBuf, idx: src, size: size}
	}
	if widen == nil && !varying && bb.periodic(g, size) {
		// A row broadcast: the row repeated once per worker, not a
		// gather per block (nor, for a row read in place, a kernel call
		// per row: a 128-wide bias added to a 12-row GEMM block made
		// twelve).
		r := bb.pinReg()
		bb.b.once = append(bb.b.once, step{kind: stepGather, gather: gatherFn(size), g: g, src: src, dst: r, label: "repeat." + d.String()})
		return loc{kind: locPer, idx: r.idx, size: size, period: g.shape[1]}
	}
	steps, reg := &bb.b.steps, func() loc { return loc{kind: locReg, idx: bb.newReg()} }
	if invariant {
		steps, reg = &bb.b.once, bb.pinReg
		g = &strided{} // every element reads base
	}
	in := loc{kind: locBuf, idx: src, size: size}
	if !g.contiguous() || invariant {
		in = reg()
		*steps = append(*steps, step{kind: stepGather, gather: gatherFn(size), g: g, src: src, dst: in, label: "gather." + d.String()})
		if widen == nil {
			return in
		}
	}
	// Widening writes wider elements than it reads: never in place.
	dst := reg()
	*steps = append(*steps, step{kind: stepUnary, un: widen, dst: dst, args: [3]loc{in}, dt: d, widens: true, label: "widen." + d.String()})
	if in.kind == locReg && !invariant {
		bb.free = append(bb.free, in.idx)
	}
	return dst
}

// rowRead reports whether broadcast in, read through strides from source
// src, can stay a locRow for its one consumer: a row of at least rowMin
// f32 or f64 elements repeated down the iteration space (a bias added to a
// product's rows), used once, not a result.
func (bb *bodyBuilder) rowRead(in *lower.Instr, isRoot bool, src int, strides []int) (rowRead, bool) {
	if isRoot || bb.uses[in] != 1 || (in.DType != tensor.F32 && in.DType != tensor.F64) {
		return rowRead{}, false
	}
	g := &strided{shape: slices.Clone(bb.iter), strides: strides}
	g.simplify()
	if len(g.shape) != 2 || g.strides[0] != 0 || g.strides[1] != 1 || g.shape[1] < rowMin || bb.periodic(g, in.DType.Size()) {
		return rowRead{}, false
	}
	return rowRead{d: in.DType, src: src, strides: strides, g: g}, true
}

// emit compiles one value of the body.
func (bb *bodyBuilder) emit(in *lower.Instr, isRoot bool, dst loc) error {
	if !bb.members[in] || in.Op == trace.OpConst {
		// A fusion input (or a constant member): read from its source.
		bb.locs[in] = bb.inputLoad(in, bb.dt(in.DType))
		return nil
	}
	if in.Op == trace.OpBroadcastInDim {
		if x := in.Args[0]; bb.members[x] && x.Op != trace.OpConst {
			// A member is computed at the loop's index, into no buffer:
			// only an identity broadcast of it (resolve) can read it.
			return fmt.Errorf("kernels: broadcast_in_dim %%%d to %v reads %%%d of shape %v, a member of its fusion computed over another shape", in.ID, in.Shape, x.ID, x.Shape)
		}
		src, strides := bb.source(in.Args[0]), bb.broadcastStrides(in)
		if r, ok := bb.rowRead(in, isRoot, src, strides); ok && !bb.raw {
			bb.rows[in] = r
			bb.locs[in] = loc{kind: locRow, idx: src, size: in.DType.Size()}
			return nil
		}
		bb.locs[in] = bb.load(bb.dt(in.DType), src, strides)
		return nil
	}
	if !in.Op.Elementwise() {
		return fmt.Errorf("kernels: %s cannot run inside a loop fusion", in.Op)
	}
	var args [3]loc
	argTypes := make([]tensor.DType, len(in.Args))
	for i, a := range in.Args {
		l, ok := bb.locs[bb.resolve(a)]
		if !ok {
			return fmt.Errorf("kernels: %s reads %%%d before it is computed", in.Op, a.ID)
		}
		args[i], argTypes[i] = l, bb.dt(a.DType)
	}
	row := -1 // the operand read as a row in place, if any
	for i, a := range in.Args {
		if args[i].kind != locRow {
			continue
		}
		if row < 0 && len(in.Args) == 2 && in.Op.Info().Class != trace.ClassUnary && in.Op != trace.OpConvert &&
			in.Op != trace.OpBitcastConvert && binaryTable[in.Op][a.DType] != nil && args[1-i].kind != locRow {
			row = i
			continue
		}
		r := bb.rows[a] // a consumer that cannot read it in place: materialise it
		args[i] = bb.load(r.d, r.src, r.strides)
		bb.locs[a] = args[i]
	}
	od := bb.dt(in.DType) // the result's dtype in the body
	if a := in.Args[0]; in.Op == trace.OpBitcastConvert && !bb.members[a] && (a.DType == tensor.F16 || a.DType == tensor.BF16) {
		// The bits of an f16/bf16 input are read as stored, not from its
		// f32 compute form, whose widening quiets a signaling NaN.
		args[0], argTypes[0] = bb.inputLoad(a, tensor.U16), tensor.U16
	}
	// An op may write over an operand's register only when elements keep
	// their width; otherwise writing element i would clobber unread ones.
	inPlace := true
	for _, d := range argTypes {
		inPlace = inPlace && computeDType(d).Size() == computeDType(od).Size()
	}
	if inPlace {
		bb.release(in)
	}
	out := loc{kind: locReg}
	// A bitcast to f16/bf16 that is the result writes its bits to the
	// output as they are: through the f32 compute form a signaling NaN
	// would be quieted.
	rawRoot := isRoot && dst.kind == locBuf && in.Op == trace.OpBitcastConvert && (od == tensor.F16 || od == tensor.BF16)
	if isRoot && dst.kind == locBuf && (computeDType(od) == od || rawRoot) {
		out = dst
	} else {
		out.idx = bb.newReg()
	}
	if !inPlace {
		bb.release(in)
	}
	s := step{dst: out, args: args, instr: in}
	opd := od
	if len(argTypes) > 0 {
		opd = argTypes[len(argTypes)-1]
	}
	s.op, s.dt, s.label = in.Op, opd, in.Op.String()+"."+opd.String()
	if in.Op == trace.OpConvert {
		s.label = "convert." + opd.String() + "." + in.DType.String()
		s.to = in.DType
	}
	kd := kernelDType(opd) // the narrow dtypes run their compute dtype's kernels
	switch {
	case row >= 0:
		s.kind, s.bin, s.g, s.src = stepRow, binaryTable[in.Op][opd], bb.rows[in.Args[row]].g, args[row].idx
		s.dsize, s.asize = computeDType(in.DType).Size(), computeDType(argTypes[1-row]).Size()
		if out.kind == locBuf {
			s.dsize = out.size
		}
	case in.Op == trace.OpConvert:
		s.kind, s.un = stepUnary, convertFn(argTypes[0], in.DType)
	case in.Op == trace.OpBitcastConvert && rawRoot:
		s.kind, s.un = stepUnary, bitcastFn(argTypes[0], tensor.U16)
	case in.Op == trace.OpBitcastConvert:
		s.kind, s.un = stepUnary, bitcastFn(argTypes[0], od)
	case in.Op == trace.OpSelect:
		s.kind, s.sel = stepSelect, selectTable[kd]
	case in.Op.Info().Class == trace.ClassUnary:
		s.kind, s.un = stepUnary, unaryTable[in.Op][kd]
	case opd.IsNarrow():
		s.kind, s.bin = stepBinary, narrowBinary(in.Op, opd)
	default:
		s.kind, s.bin = stepBinary, binaryTable[in.Op][opd]
		for rev, inv := range [2]loc{args[1], args[0]} {
			if f := scalarTable[in.Op][opd][rev]; f != nil && inv.kind == locReg && bb.pinned[inv.idx] {
				s.kind, s.scal, s.rev = stepScalar, f, rev == 1
				s.args = [3]loc{args[rev], inv}
				if s.rev && (in.Op == trace.OpSub || in.Op == trace.OpDiv) {
					s.label = "r" + s.label // the invariant operand is the left one
				}
				break
			}
		}
	}
	if s.un == nil && s.bin == nil && s.sel == nil && s.scal == nil {
		return fmt.Errorf("kernels: cpu has no kernel for %s on %s", in.Op, opd)
	}
	if in.Op != trace.OpConvert && (!exactOn16(in.Op) || od.IsNarrow()) {
		// The narrow dtypes round after every op: neg of an fnuz zero
		// or an e8m0 value, abs of i4's −8, … leave their format.
		s.round = roundFn(od)
	}
	bb.b.steps = append(bb.b.steps, s)
	bb.locs[in] = out
	return nil
}

// movesOnly reports whether a body's members (in order) only move data:
// broadcasts, constants and bitcasts between dtypes of one width, over
// no iota. Such a body can carry its values as bits (rawDType).
func movesOnly(members map[*lower.Instr]bool, order []*lower.Instr) bool {
	changes := false
	for _, in := range order {
		changes = changes || rawDType(in.DType) != in.DType
		if !members[in] {
			if in.Op == trace.OpIota {
				return false
			}
			continue
		}
		switch in.Op {
		case trace.OpConst, trace.OpBroadcastInDim:
		case trace.OpBitcastConvert:
			d, a := rawDType(in.DType), rawDType(in.Args[0].DType)
			if d.Size() != a.Size() || d.IsNarrow() || a.IsNarrow() {
				return false // not a copy of standard dtypes' bits
			}
		default:
			return false
		}
	}
	return changes
}

// rawDType is the dtype that carries d's bits through a body that only
// moves data: the unsigned integer of its width for the floats computed
// in f32 (f16, bf16 and the 8-bit floats), whose widening quiets a
// signaling NaN; d itself otherwise.
func rawDType(d tensor.DType) tensor.DType {
	switch {
	case d == tensor.F16 || d == tensor.BF16:
		return tensor.U16
	case d.IsNarrow() && d.IsFloat() && d.Bits() == 8:
		return tensor.U8
	}
	return d
}

// dt is the dtype the body carries d as: rawDType(d) in a raw body.
func (bb *bodyBuilder) dt(d tensor.DType) tensor.DType {
	if bb.raw {
		return rawDType(d)
	}
	return d
}

// exactOn16 reports ops whose result on f16/bf16 values is already a value
// of that type, so rounding it again would be wasted work.
func exactOn16(op trace.Op) bool {
	switch op {
	case trace.OpNeg, trace.OpAbs, trace.OpSign, trace.OpMax, trace.OpMin, trace.OpSelect,
		trace.OpFloor, trace.OpCeil, trace.OpRound, trace.OpReal, trace.OpImag, trace.OpConj,
		trace.OpCopysign, trace.OpNextafter, trace.OpFmod, trace.OpBitcastConvert:
		return true
	}
	return false
}

// worker is one goroutine's scratch: its registers.
type worker struct {
	mem  []byte
	regs []unsafe.Pointer
	tmp  []byte // see temp
	// spanBuf holds a reduction's group partials while they are combined
	// into one partial (reduceKernel.spanPartial).
	spanBuf []byte
	subs    []*worker        // a multi-output loop's per-result registers, a mapped loop's per-region ones
	mslots  []unsafe.Pointer // a mapped loop region's leaf pointers (mapped.go)
	iotaMem [][]byte         // a mapped loop region's fused iota counts, per leaf (mapped.go)
	// vmTab and vmMem: a mapped region's program table and its scratch
	// and scalar slots (mapvm.go).
	vmTab []uintptr
	vmMem []byte
	// prepBody and prepStamp: the body prepareAt last prepared, and when.
	prepBody  *body
	prepStamp uint64
	// chk and chkSeq: in checked mode, the Run's failure record and the
	// number of the kernel the worker runs (check steps report there).
	chk    *checkRecord
	chkSeq int
	// bf16Conv: a bf16 convolution's GEMM call (conv_bf16.go), kept here
	// because the bf16 GEMM reads it through an interface (it would
	// escape, one allocation a block, if it were a local).
	bf16Conv *gemm.BF16Call
}

const regAlign = 64

// prepare sizes w's registers for b and fills the loop-invariant ones.
// prepareAt is prepare, skipped when w was last prepared by prepareAt for
// body b with the same stamp: the run state's count of parallel calls, so
// a worker taking several ranges of one parallel kernel fills its pinned
// registers once, not per range (Adam's three-body epilogue over 8 blocks
// took 15 µs on two workers, refilling its invariant registers for each
// block, against 9 µs on one). Stamp 0 prepares unconditionally (and
// records nothing): the run state counts its parallel calls from 1.
func (w *worker) prepareAt(b *body, srcs []unsafe.Pointer, stamp uint64) {
	if stamp != 0 && w.prepBody == b && w.prepStamp == stamp {
		return
	}
	w.prepare(b, srcs)
	if stamp != 0 {
		w.prepBody, w.prepStamp = b, stamp
	}
}

func (w *worker) prepare(b *body, srcs []unsafe.Pointer) {
	regBytes := b.block*16 + regAlign
	need := b.nregs * regBytes
	if cap(w.mem) < need {
		w.mem = make([]byte, need)
	}
	w.mem = w.mem[:need]
	w.regs = w.regs[:0]
	for r := range b.nregs {
		p := unsafe.Pointer(&w.mem[r*regBytes])
		off := (regAlign - int(uintptr(p)%regAlign)) % regAlign
		w.regs = append(w.regs, unsafe.Add(p, off))
	}
	fills := b.onceFills()
	for i := range b.once {
		w.run(&b.once[i], srcs, 0, fills[i])
	}
	w.prepBody = nil // prepared outside prepareAt: no stamp vouches for it
}

func (w *worker) ptr(l loc, srcs []unsafe.Pointer, lo int) unsafe.Pointer {
	switch l.kind {
	case locReg:
		return w.regs[l.idx]
	case locBuf:
		return unsafe.Add(srcs[l.idx], lo*l.size)
	case locPer:
		return unsafe.Add(w.regs[l.idx], lo%l.period*l.size)
	}
	return nil
}

func (w *worker) run(s *step, srcs []unsafe.Pointer, lo, n int) {
	d := w.ptr(s.dst, srcs, lo)
	switch s.kind {
	case stepUnary:
		s.un(d, w.ptr(s.args[0], srcs, lo), n)
	case stepBinary:
		s.bin(d, w.ptr(s.args[0], srcs, lo), w.ptr(s.args[1], srcs, lo), n)
	case stepSelect:
		s.sel(d, w.ptr(s.args[0], srcs, lo), w.ptr(s.args[1], srcs, lo), w.ptr(s.args[2], srcs, lo), n)
	case stepGather:
		s.gather(d, srcs[s.src], s.g, lo, n)
	case stepRow:
		w.runRow(s, d, srcs, lo, n)
	case stepCheck:
		w.runCheck(s, srcs, lo, n)
	case stepScalar:
		s.scal(d, w.ptr(s.args[0], srcs, lo), w.regs[s.args[1].idx], n)
	case stepAffine:
		s.aff(d, w.ptr(s.args[0], srcs, lo), w.regs[s.args[1].idx], w.regs[s.args[2].idx], n)
	}
	if s.round != nil {
		s.round(d, n)
	}
}

// runRow runs stepRow s for iteration elements [lo, lo+n) into d: its
// binary kernel once per row segment, the row operand read in place from
// the element's column on (the same op on the same values as after a
// gather, hence the same bits).
func (w *worker) runRow(s *step, d unsafe.Pointer, srcs []unsafe.Pointer, lo, n int) {
	last, size := s.g.shape[1], s.dt.Size()
	row := unsafe.Add(srcs[s.src], s.g.base*size)
	r := 0
	if s.args[0].kind == locRow {
		r = 1 // the block operand
	}
	a := w.ptr(s.args[r], srcs, lo)
	phase := lo % last
	for k := 0; k < n; {
		m := min(last-phase, n-k)
		x, y := unsafe.Add(a, k*s.asize), unsafe.Add(row, phase*size)
		if r == 0 {
			s.bin(unsafe.Add(d, k*s.dsize), x, y, m)
		} else {
			s.bin(unsafe.Add(d, k*s.dsize), y, x, m)
		}
		k += m
		phase = 0
	}
}

// eval computes the body for iteration elements [lo, lo+n), n ≤ block,
// and returns where the result is.
func (w *worker) eval(b *body, srcs []unsafe.Pointer, lo, n int) unsafe.Pointer {
	for i := range b.steps {
		w.run(&b.steps[i], srcs, lo, n)
	}
	return w.ptr(b.out, srcs, lo)
}
