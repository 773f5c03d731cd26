package lower

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// foldLimit bounds the size of constants folding may create, so a
// broadcast of a literal to a large shape stays a broadcast.
const foldLimit = 1 << 10

// Simplify runs the rewrites that never change a result: common
// subexpression elimination, constant folding (when fold is set), and these
// exact algebraic rules:
//   - reshape(reshape(x)) → reshape(x); a reshape to the same shape → x;
//     a reshape of a constant → the constant, reshaped;
//   - transpose(transpose(x)) → one transpose with the composed permutation;
//   - broadcast_in_dim(broadcast_in_dim(x)) → one broadcast;
//   - convert(convert(x, A), B) → convert(x, B) when A holds every value of
//     x's dtype exactly (i8 → i32 → f64 ≡ i8 → f64), never otherwise
//     (f64 → f32 → f64 rounds);
//   - select(c, x, x) → x;
//   - bitcast_convert_type(bitcast_convert_type(x, A), B) → one bitcast,
//     and a bitcast to x's own dtype → x: bits pass through exactly, even
//     a signaling NaN the f32 registers of an f16/bf16 value would quiet;
//   - with folding, a unary elementwise op or convert of a broadcast of a
//     one-element constant → a broadcast of the folded scalar (the op on
//     the same value, once), and a reshape of a broadcast of a scalar → a
//     broadcast of it: the gradient of a mean, −1/n broadcast over a
//     batch, stays a scalar that fusions hold in a register, not an array
//     computed by a kernel of its own;
//   - reshape(dot_general(reshape(x), …)) whose reshapes only add and
//     drop unit free dimensions of the product (vmap's batched
//     vector-matrix product) → dot_general(x, …) (see squeezeDots);
//   - a take along one axis with constant in-bounds indices (folded
//     through take's normalization when fold is set) → a concatenate of
//     slices, one per run of indices (see staticGathers): the same
//     elements moved, as data movement that fuses;
//   - add(M(a), M(b)) with M the same reshapes and unit-stride slices over
//     concatenates or adds a and b nothing else reads → M(add(a, b)) (see
//     sinkMovement): each element adds the same two elements, and a
//     max_pool gradient's nine zero-padded shares and their adds become
//     one loop fusion.
//
// Float identities such as x + 0 → x are deliberately absent: −0 + 0 is +0.
func Simplify(m *Module, fold func(*Instr, []*tensor.Array) (*tensor.Array, error)) error {
	seen := map[string]*Instr{}
	replace := map[*Instr]*Instr{}
	resolve := func(in *Instr) *Instr {
		for replace[in] != nil {
			in = replace[in]
		}
		return in
	}
	instrs := make([]*Instr, 0, len(m.Instrs))
	nextID := len(m.Instrs) // IDs of new instructions until the renumbering below
	for _, in := range m.Instrs {
		for i, a := range in.Args {
			in.Args[i] = resolve(a)
		}
		instrs = append(instrs, in)
		if r := rewrite(in); r != nil {
			replace[in] = r
			continue
		}
		if c, err := sinkBroadcast(in, fold); err != nil {
			return err
		} else if c != nil {
			if prev, ok := seen[cseKey(c)]; ok {
				c = prev
			} else {
				c.ID, nextID = nextID, nextID+1
				seen[cseKey(c)] = c
				instrs = append(instrs[:len(instrs)-1], c, in)
			}
			in.Op, in.Args, in.Params = trace.OpBroadcastInDim, []*Instr{c}, trace.Params{Shape: slices.Clone(in.Shape), Dims: []int{}}
		}
		// A broadcast of a constant stays a broadcast: fusions read it as a
		// scalar instead of a materialized array.
		if in.Op.Info().Class == trace.ClassControl {
			continue // its sub-programs are not in the CSE key; it is never folded
		}
		if fold != nil && in.Op != trace.OpConst && in.Op != trace.OpParam && in.Op != trace.OpBroadcastInDim &&
			in.Size() <= foldLimit && allConst(in.Args) {
			args := make([]*tensor.Array, len(in.Args))
			for i, a := range in.Args {
				args[i] = a.Params.Value
			}
			v, err := fold(in, args)
			if err != nil {
				return fmt.Errorf("lower: folding %s: %w", in.Op, err)
			}
			if v != nil { // nil: the evaluator declined
				in.Op, in.Args, in.Params = trace.OpConst, nil, trace.Params{Value: v}
			}
		}
		if in.Op == trace.OpParam {
			continue
		}
		key := cseKey(in)
		if prev, ok := seen[key]; ok {
			replace[in] = prev
			continue
		}
		seen[key] = in
	}
	for i, o := range m.Outputs {
		m.Outputs[i] = resolve(o)
	}
	for i, in := range instrs {
		in.ID = i
	}
	m.Instrs = instrs
	squeezeDots(m)
	foldTransposedOperands(m)
	staticGathers(m, fold)
	sinkMovement(m)
	return nil
}

// sinkMovement rewrites add(M(a), M(b)), where M is the same chain of
// reshapes and unit-stride slices over a and b of one shape and dtype, as
// M(add(a, b)), when a and b are concatenates or adds that nothing else
// reads and the slices keep at least half of the elements. A strided
// slice's cotangent is built as zeros concatenated around it, reshaped to
// interleave them and cut by slices (trace's unsliceStrided); a max_pool's
// gradient adds nine of those. Moved below the reshapes, the adds meet the
// concatenates in one shape, so the nine concatenates and the eight adds
// form one loop fusion instead of nine buffers written and read back.
// Every element is the add of the same two elements as before, so no bit
// changes; the elements the slices drop are computed and not read.
// Chains nothing else reads are left for DCE.
func sinkMovement(m *Module) {
	users := m.users()
	outputs := map[*Instr]bool{}
	for _, o := range m.Outputs {
		for outputs[o] = true; o.Op == trace.OpReshape; o = o.Args[0] {
			outputs[o.Args[0]] = true
		}
	}
	single := func(x *Instr) bool { return len(users[x]) == 1 && !outputs[x] }
	// chain is the reshapes and unit-stride slices from x down, and the
	// value under them.
	chain := func(x *Instr) ([]*Instr, *Instr) {
		var c []*Instr
		for (x.Op == trace.OpReshape || x.Op == trace.OpSlice && allOnes(x.Params.Stride)) && single(x) {
			c = append(c, x)
			x = x.Args[0]
		}
		return c, x
	}
	same := func(x, y *Instr) bool {
		if x == y || x.Op != y.Op || x.DType != y.DType || !trace.ShapeEqual(x.Shape, y.Shape) {
			return false
		}
		return x.Op == trace.OpReshape || slices.Equal(x.Params.Start, y.Params.Start) && slices.Equal(x.Params.Limit, y.Params.Limit)
	}
	var out []*Instr
	changed := false
	for _, in := range m.Instrs {
		if in.Op != trace.OpAdd || len(in.Args) != 2 {
			out = append(out, in)
			continue
		}
		ca, a := chain(in.Args[0])
		cb, b := chain(in.Args[1])
		ok := len(ca) > 0 && len(ca) == len(cb) && a != b && a.DType == b.DType && trace.ShapeEqual(a.Shape, b.Shape) &&
			(a.Op == trace.OpConcat || a.Op == trace.OpAdd) && (b.Op == trace.OpConcat || b.Op == trace.OpAdd) &&
			single(a) && single(b) && 2*in.Size() >= a.Size()
		for i := 0; ok && i < len(ca); i++ {
			ok = same(ca[i], cb[i])
		}
		if !ok {
			out = append(out, in)
			continue
		}
		// add(a, b), then the chain's copies up to in, which becomes the
		// chain's top.
		s := &Instr{Op: trace.OpAdd, DType: in.DType, Shape: slices.Clone(a.Shape), Args: []*Instr{a, b}, Params: in.Params, Pos: in.Pos}
		out = append(out, s)
		users[a], users[b] = []*Instr{s}, []*Instr{s}
		below := s
		for i := len(ca) - 1; i >= 1; i-- {
			c := &Instr{Op: ca[i].Op, DType: ca[i].DType, Shape: slices.Clone(ca[i].Shape), Args: []*Instr{below}, Params: ca[i].Params, Pos: ca[i].Pos}
			users[below] = []*Instr{c}
			out = append(out, c)
			below = c
		}
		in.Op, in.Args, in.Params = ca[0].Op, []*Instr{below}, ca[0].Params
		users[below] = []*Instr{in}
		out = append(out, in)
		changed = true
	}
	if !changed {
		return
	}
	for i, in := range out {
		in.ID = i
	}
	m.Instrs = out
}

func allOnes(xs []int) bool {
	for _, x := range xs {
		if x != 1 {
			return false
		}
	}
	return true
}

// squeezeDots rewrites reshape(dot_general(a, b)) that only drops unit
// free dimensions of the product, where the product has no other reader
// and each operand with a dropped dimension is itself a reshape inserting
// exactly those unit dimensions into a value x, as one dot_general of the
// x's with the reshape's shape. That is the shape vmap gives a batched
// vector-matrix product (x f32[64] · w: a reshape to [256,1,64], the
// product [256,1,128], a reshape to [256,128]); without the reshapes the
// product's reader can take it as an epilogue (FuseEpilogues), one pass
// instead of two. The dot's sums are the same elements in the same order
// (a unit free dimension indexes nothing), so no bit changes. The dot and
// operand reshapes it no longer reads are left for DCE.
func squeezeDots(m *Module) {
	var users map[*Instr][]*Instr
	outputs := map[*Instr]bool{}
	for _, o := range m.Outputs {
		outputs[o] = true
	}
	for _, r := range m.Instrs {
		if r.Op != trace.OpReshape || r.Args[0].Op != trace.OpDot || outputs[r.Args[0]] {
			continue
		}
		if users == nil {
			users = m.users()
		}
		d := r.Args[0]
		if len(users[d]) != 1 {
			continue
		}
		if lhs, rhs, dims, ok := squeezedDot(d, r.Shape); ok {
			r.Op, r.Args, r.Pos = trace.OpDot, []*Instr{lhs, rhs}, d.Pos
			r.Params = d.Params
			r.Params.Dot = dims
			r.Params.Shape = nil
		}
	}
}

// foldTransposedOperands makes each dot_general that reads a transpose
// read the transpose's operand instead, its dimension numbers renamed
// through the permutation, as XLA's transpose folding does: x.T @ y (the
// NumPy spelling of a weight gradient) otherwise copies xᵀ first, and
// the kernels read a transposed operand in place or pack it (a 256×64
// f32 x: 77 µs with the copy on one core, 32 without). Only a transpose
// that leaves the operand's batch dimensions where they are and its free
// dimensions in their order qualifies, so the product's shape and
// dimension order are unchanged; its contracting dimensions keep their
// pairing and order, so every element sums the same products in the
// same order and no bit changes. A transpose nothing else reads is left
// for DCE.
func foldTransposedOperands(m *Module) {
	for _, d := range m.Instrs {
		if d.Op != trace.OpDot {
			continue
		}
		dd := d.Params.Dot
		for side := range 2 {
			batch, contract := dd.LhsBatch, dd.LhsContract
			if side == 1 {
				batch, contract = dd.RhsBatch, dd.RhsContract
			}
			t := d.Args[side]
			if t.Op != trace.OpTranspose {
				continue
			}
			perm := t.Params.Perm
			ok, last := true, -1
			for i, p := range perm {
				switch {
				case slices.Contains(batch, i):
					ok = ok && p == i
				case !slices.Contains(contract, i): // a free dimension
					ok = ok && p > last
					last = p
				}
			}
			if !ok {
				continue
			}
			renamed := make([]int, len(contract))
			for k, c := range contract {
				renamed[k] = perm[c]
			}
			d.Args[side] = t.Args[0]
			if side == 0 {
				dd.LhsContract = renamed
			} else {
				dd.RhsContract = renamed
			}
		}
		d.Params.Dot = dd
	}
}

// squeezedDot returns the operands and dimension numbers of dot d with
// the unit free dimensions that a reshape of it to shape drops taken out
// (see squeezeDots), or false.
func squeezedDot(d *Instr, shape []int) (lhs, rhs *Instr, dims trace.DotDims, ok bool) {
	dd := d.Params.Dot
	// The product's dimensions: batch, then lhs free, then rhs free; from
	// is the operand dimension each comes from (side 0 lhs, 1 rhs).
	type origin struct{ side, dim int }
	var from []origin
	for _, b := range dd.LhsBatch {
		from = append(from, origin{-1, b}) // never dropped
	}
	free := func(side, rank int, batch, contract []int) {
		for i := range rank {
			if !slices.Contains(batch, i) && !slices.Contains(contract, i) {
				from = append(from, origin{side, i})
			}
		}
	}
	free(0, len(d.Args[0].Shape), dd.LhsBatch, dd.LhsContract)
	free(1, len(d.Args[1].Shape), dd.RhsBatch, dd.RhsContract)
	if len(from) != len(d.Shape) || len(shape) >= len(d.Shape) {
		return nil, nil, dims, false
	}
	// Match shape against the product's dimensions, dropping unit ones.
	drop := [2][]bool{make([]bool, len(d.Args[0].Shape)), make([]bool, len(d.Args[1].Shape))}
	j := 0
	for i, n := range d.Shape {
		if j < len(shape) && shape[j] == n {
			j++
			continue
		}
		if n != 1 || from[i].side < 0 {
			return nil, nil, dims, false
		}
		drop[from[i].side][from[i].dim] = true
	}
	if j != len(shape) {
		return nil, nil, dims, false
	}
	args := [2]*Instr{d.Args[0], d.Args[1]}
	for side, a := range args {
		if !slices.Contains(drop[side], true) {
			continue
		}
		// a must be reshape(x) with x's shape a's less the dropped ones.
		if a.Op != trace.OpReshape {
			return nil, nil, dims, false
		}
		x := a.Args[0]
		var kept []int
		for i, n := range a.Shape {
			if !drop[side][i] {
				kept = append(kept, n)
			}
		}
		if !trace.ShapeEqual(x.Shape, kept) {
			return nil, nil, dims, false
		}
		args[side] = x
	}
	renumber := func(side int, ds []int) []int {
		out := make([]int, len(ds))
		for k, dim := range ds {
			out[k] = dim
			for i := range dim {
				if drop[side][i] {
					out[k]--
				}
			}
		}
		return out
	}
	dims = trace.DotDims{LhsBatch: renumber(0, dd.LhsBatch), RhsBatch: renumber(1, dd.RhsBatch),
		LhsContract: renumber(0, dd.LhsContract), RhsContract: renumber(1, dd.RhsContract)}
	return args[0], args[1], dims, true
}

// sinkBroadcast returns, for a unary elementwise op or convert in of a
// broadcast of a one-element constant, the op folded on that element as a
// scalar constant (which in becomes a broadcast of), or nil.
func sinkBroadcast(in *Instr, fold func(*Instr, []*tensor.Array) (*tensor.Array, error)) (*Instr, error) {
	if fold == nil || len(in.Args) != 1 || (in.Op.Info().Class != trace.ClassUnary && in.Op != trace.OpConvert) {
		return nil, nil
	}
	if in.Op == trace.OpBitcastConvert && (in.DType == tensor.F16 || in.DType == tensor.BF16) {
		// Its bits, a signaling NaN's too, reach the output exactly from
		// the loop computing it; a broadcast f16/bf16 scalar is read
		// through its f32 compute form, which would quiet them.
		return nil, nil
	}
	b := in.Args[0]
	if b.Op != trace.OpBroadcastInDim || b.Args[0].Op != trace.OpConst || b.Args[0].Size() != 1 {
		return nil, nil
	}
	v, err := b.Args[0].Params.Value.Reshape()
	if err != nil {
		return nil, nil
	}
	op := &Instr{Op: in.Op, DType: in.DType, Shape: []int{}, Args: []*Instr{{Op: trace.OpConst, DType: v.DType(), Shape: []int{}, Params: trace.Params{Value: v}}},
		Params: in.Params, Pos: in.Pos}
	r, err := fold(op, []*tensor.Array{v})
	if err != nil {
		return nil, fmt.Errorf("lower: folding %s: %w", in.Op, err)
	}
	if r == nil {
		return nil, nil // the evaluator declined
	}
	if r.Size() != 1 || r.DType() != in.DType {
		return nil, fmt.Errorf("lower: folding %s gave %s%v, want one %s", in.Op, r.DType(), r.Shape(), in.DType)
	}
	if r, err = r.Reshape(); err != nil {
		return nil, fmt.Errorf("lower: folding %s: %w", in.Op, err)
	}
	return &Instr{Op: trace.OpConst, DType: in.DType, Shape: []int{}, Params: trace.Params{Value: r}, Pos: in.Pos}, nil
}

func allConst(xs []*Instr) bool {
	for _, x := range xs {
		if x.Op != trace.OpConst {
			return false
		}
	}
	return len(xs) > 0
}

// exactIn reports whether every value of dtype from is exactly
// representable in dtype to.
func exactIn(from, to tensor.DType) bool {
	if from == to {
		return true
	}
	switch {
	case from == tensor.Bool:
		// false and true are 0 and 1: every dtype holds them but
		// f8e8m0fnu, which has no zero (0 converts to its NaN).
		return to != tensor.F8E8M0FNU
	case to == tensor.Bool:
		return false
	case to.IsComplex():
		return exactIn(from, to.RealPart())
	case from.IsComplex():
		return false
	case from.IsInteger() && to.IsInteger():
		if from.IsUnsigned() {
			return to.IsUnsigned() && to.Bits() >= from.Bits() || to.IsSigned() && to.Bits() > from.Bits()
		}
		return to.IsSigned() && to.Bits() >= from.Bits()
	case from.IsInteger() && to.IsFloat():
		mant := map[tensor.DType]int{tensor.F16: 11, tensor.BF16: 8, tensor.F32: 24, tensor.F64: 53}[to]
		bits := from.Bits()
		if from.IsSigned() {
			bits--
		}
		return bits <= mant
	case from.IsFloat() && to.IsFloat():
		switch from {
		case tensor.F16, tensor.BF16:
			return to == tensor.F32 || to == tensor.F64
		case tensor.F32:
			return to == tensor.F64
		}
	}
	return false
}

// sameConversion reports whether converting from → to gives the same value
// as from → via → to for every value of from (which via holds exactly):
// not when an integer passes through a float or complex on its way to an
// integer, because float → int saturates where int → int wraps.
func sameConversion(from, via, to tensor.DType) bool {
	return !(from.IsInteger() && via.IsInexact() && to.IsInteger())
}

// rewrite returns an existing instruction that in can be replaced with, or
// nil; it may also rewrite in in place.
func rewrite(in *Instr) *Instr {
	switch in.Op {
	case trace.OpReshape:
		x := in.Args[0]
		if trace.ShapeEqual(x.Shape, in.Shape) {
			return x
		}
		if x.Op == trace.OpBroadcastInDim && len(x.Args[0].Shape) == 0 {
			// A scalar broadcast to any shape is one value everywhere;
			// to a scalar, it is the scalar itself (a broadcast to its
			// operand's own shape must not stay: a loop fusion reads a
			// broadcast's operand from a buffer, not from a member
			// computing it).
			if len(in.Shape) == 0 {
				return x.Args[0]
			}
			in.Op, in.Args, in.Params = trace.OpBroadcastInDim, x.Args, trace.Params{Shape: slices.Clone(in.Shape), Dims: []int{}}
			return nil
		}
		if x.Op == trace.OpConst {
			v, err := x.Params.Value.Reshape(in.Shape...)
			if err == nil {
				in.Op, in.Args, in.Params = trace.OpConst, nil, trace.Params{Value: v}
			}
			return nil
		}
		if x.Op == trace.OpReshape {
			in.Args[0] = x.Args[0]
			if trace.ShapeEqual(in.Args[0].Shape, in.Shape) {
				return in.Args[0]
			}
		}
	case trace.OpTranspose:
		x := in.Args[0]
		if x.Op == trace.OpTranspose {
			perm := make([]int, len(in.Params.Perm))
			for i, p := range in.Params.Perm {
				perm[i] = x.Params.Perm[p]
			}
			in.Args[0], in.Params.Perm = x.Args[0], perm
			if isIdentity(perm) {
				return in.Args[0]
			}
		}
	case trace.OpBroadcastInDim:
		x := in.Args[0]
		if trace.ShapeEqual(x.Shape, in.Shape) && isIdentity(in.Params.Dims) {
			return x
		}
		if x.Op == trace.OpBroadcastInDim {
			dims := make([]int, len(x.Params.Dims))
			for i, d := range x.Params.Dims {
				dims[i] = in.Params.Dims[d]
			}
			in.Args[0], in.Params.Dims = x.Args[0], dims
			if trace.ShapeEqual(in.Args[0].Shape, in.Shape) && isIdentity(dims) {
				return in.Args[0]
			}
		}
	case trace.OpConvert:
		x := in.Args[0]
		if x.DType == in.DType {
			return x
		}
		if x.Op == trace.OpConvert && exactIn(x.Args[0].DType, x.DType) && sameConversion(x.Args[0].DType, x.DType, in.DType) {
			in.Args[0] = x.Args[0]
			if in.Args[0].DType == in.DType {
				return in.Args[0]
			}
		}
	case trace.OpSelect:
		if in.Args[1] == in.Args[2] {
			return in.Args[1]
		}
	case trace.OpBitcastConvert:
		x := in.Args[0]
		if x.Op == trace.OpBitcastConvert {
			in.Args[0] = x.Args[0]
			x = x.Args[0]
		}
		if x.DType == in.DType {
			return x
		}
	}
	return nil
}

func isIdentity(p []int) bool {
	for i, x := range p {
		if x != i {
			return false
		}
	}
	return true
}

// cseKey identifies an instruction by everything that determines its value.
func cseKey(in *Instr) string {
	b := make([]byte, 0, 96)
	num := func(x int) { b = strconv.AppendInt(b, int64(x), 10); b = append(b, ',') }
	ints := func(xs []int) {
		for _, x := range xs {
			num(x)
		}
		b = append(b, '|')
	}
	p := in.Params
	num(int(in.Op))
	num(int(in.DType))
	ints(in.Shape)
	for _, a := range in.Args {
		num(a.ID)
	}
	b = append(b, '|')
	num(int(p.DType))
	for _, xs := range [][]int{p.Shape, p.Dims, p.Perm, p.Start, p.Limit, p.Stride, p.Axes,
		p.Dot.LhsBatch, p.Dot.RhsBatch, p.Dot.LhsContract, p.Dot.RhsContract} {
		ints(xs)
	}
	num(p.Axis)
	if p.KeepDims {
		b = append(b, 'k')
	}
	if p.Remat {
		b = append(b, 'r') // a checkpoint's recomputation is not its forward twin (trace.Params.Remat)
	}
	if p.Value != nil {
		b = append(b, constKey(p.Value)...)
	}
	if in.Op.Info().Class == trace.ClassIndex {
		b = append(b, p.Index.String(in.Op)...)
	}
	if in.Op == trace.OpSort {
		b = append(b, p.Sort.String()...)
	}
	if in.Op == trace.OpConv {
		b = append(b, p.Conv.String()...) // two layouts of one product are two values
	}
	if p.HasPreferred {
		b = append(b, 'p')
		num(int(p.Preferred))
	}
	return string(b)
}

// constKey prints a constant's values: floats by their bits, so that
// constants differing only in a NaN's sign or payload (which copysign and
// a bitcast can see) or in the sign of a zero stay apart; other values as
// FormatElem prints them.
func constKey(a *tensor.Array) string {
	if a.Size() > 64 {
		return fmt.Sprintf("%p", a) // large constants are never merged
	}
	var b strings.Builder
	for i := range a.Size() {
		switch v := tensor.Index(a.Data(), i).(type) {
		case tensor.Float16:
			fmt.Fprintf(&b, "%#x", uint16(v))
		case tensor.BFloat16:
			fmt.Fprintf(&b, "%#x", uint16(v))
		case float32:
			fmt.Fprintf(&b, "%#x", math.Float32bits(v))
		case float64:
			fmt.Fprintf(&b, "%#x", math.Float64bits(v))
		case complex64:
			fmt.Fprintf(&b, "%#x:%#x", math.Float32bits(real(v)), math.Float32bits(imag(v)))
		case complex128:
			fmt.Fprintf(&b, "%#x:%#x", math.Float64bits(real(v)), math.Float64bits(imag(v)))
		default:
			b.WriteString(a.FormatElem(i))
		}
		b.WriteByte(',')
	}
	fmt.Fprintf(&b, "%v", a.Shape())
	return b.String()
}
