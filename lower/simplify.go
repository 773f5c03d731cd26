package lower

import (
	"fmt"
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
//     a signaling NaN the f32 registers of an f16/bf16 value would quiet.
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
	for _, in := range m.Instrs {
		for i, a := range in.Args {
			in.Args[i] = resolve(a)
		}
		if r := rewrite(in); r != nil {
			replace[in] = r
			continue
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
	return nil
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
		return true
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
	if p.Value != nil {
		b = append(b, constKey(p.Value)...)
	}
	if in.Op.Info().Class == trace.ClassIndex {
		b = append(b, p.Index.String(in.Op)...)
	}
	if in.Op == trace.OpSort {
		b = append(b, p.Sort.String()...)
	}
	return string(b)
}

// constKey prints a constant's values: FormatElem round-trips at the
// value's own precision and keeps the sign of zero ("-0"); NaN payloads are
// merged.
func constKey(a *tensor.Array) string {
	if a.Size() > 64 {
		return fmt.Sprintf("%p", a) // large constants are never merged
	}
	var b strings.Builder
	for i := range a.Size() {
		b.WriteString(a.FormatElem(i))
		b.WriteByte(',')
	}
	fmt.Fprintf(&b, "%v", a.Shape())
	return b.String()
}
