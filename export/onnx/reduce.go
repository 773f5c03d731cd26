package onnx

import (
	"math"
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// reduce translates reduce_sum, _prod, _max and _min.
func (x *instr) reduce(op trace.Op, a string, d tensor.DType) (string, error) {
	p := x.in.Params
	if len(p.Axes) == 0 {
		return x.op1("Identity", a), nil
	}
	keep := int64(0)
	if p.KeepDims {
		keep = 1
	}
	axes := x.ints(i64s(p.Axes)...)
	red := func(name, v string) string { return x.op2(name, v, axes, aInt("keepdims", keep)) }
	if d == tensor.Bool { // sum and max are any, prod and min all
		name := "ReduceMax"
		if op == trace.OpReduceProd || op == trace.OpReduceMin {
			name = "ReduceMin"
		}
		return x.cast(red(name, x.cast(a, tensor.I32)), tensor.Bool), nil
	}
	c := arith(d)
	switch op {
	case trace.OpReduceSum, trace.OpReduceProd:
		name := "ReduceSum"
		if op == trace.OpReduceProd {
			name = "ReduceProd"
		}
		r := red(name, x.widen(a, d))
		if d.IsFloat() && op == trace.OpReduceSum {
			r = x.op2("Add", r, x.scalarF(c, 0)) // a sum starts from +0: −0 only sums to +0
		}
		return x.castIf(r, c, d), nil
	}
	name := "ReduceMax"
	if op == trace.OpReduceMin {
		name = "ReduceMin"
	}
	if !d.IsFloat() {
		if d == tensor.U64 {
			k := red(name, x.orderKey(a, d))
			return x.cast(x.op2("BitwiseXor", k, x.scalarI(tensor.I64, math.MinInt64)), d), nil
		}
		return x.castIf(red(name, x.widen(a, d)), c, d), nil
	}
	// IEEE maximum/minimum: any NaN gives NaN; a zero result is −0 or +0
	// by the zeros present (ONNX leaves both to the implementation).
	w := x.widen(a, d)
	any := func(b string) string { return x.op2("Greater", red("ReduceMax", x.cast(b, tensor.I32)), x.scalarI(tensor.I32, 0)) }
	r := red(name, w)
	zero := x.scalarF(c, 0)
	isZero := x.op2("Equal", w, zero)
	recip := x.op2("Div", x.scalarF(c, 1), w) // ±inf for ±0
	if op == trace.OpReduceMax {
		anyPos := any(x.op2("And", isZero, x.op2("Greater", recip, zero)))
		r = x.where(x.op2("Equal", r, zero), x.where(anyPos, zero, x.scalarF(c, math.Copysign(0, -1)), c), r, c)
	} else {
		anyNeg := any(x.op2("And", isZero, x.op2("Less", recip, zero)))
		r = x.where(x.op2("Equal", r, zero), x.where(anyNeg, x.scalarF(c, math.Copysign(0, -1)), zero, c), r, c)
	}
	r = x.where(any(x.op1("IsNaN", w)), x.scalarF(c, math.NaN()), r, c)
	return x.castIf(r, c, d), nil
}

// argReduce is argmax/argmin over one axis: the first extreme wins (ONNX
// select_last_index = 0) and, for floats, the first NaN wins.
func (x *instr) argReduce(op trace.Op, a string, d tensor.DType) (string, error) {
	p := x.in.Params
	if len(p.Axes) != 1 {
		return "", refuse("ONNX's ArgMax and ArgMin take one axis, this reduces %d", len(p.Axes))
	}
	keep := int64(0)
	if p.KeepDims {
		keep = 1
	}
	name := "ArgMax"
	if op == trace.OpArgMin {
		name = "ArgMin"
	}
	arg := func(name, v string) string {
		return x.op1(name, v, aInt("axis", int64(p.Axes[0])), aInt("keepdims", keep), aInt("select_last_index", 0))
	}
	var r string
	switch {
	case d == tensor.Bool:
		r = arg(name, x.cast(a, tensor.I32))
	case d.IsFloat():
		w := x.widen(a, d)
		nan := x.cast(x.op1("IsNaN", w), tensor.I32)
		k := x.ints(int64(p.Axes[0]))
		anyNaN := x.op2("Greater", x.op2("ReduceMax", nan, k, aInt("keepdims", keep)), x.scalarI(tensor.I32, 0))
		r = x.where(anyNaN, arg("ArgMax", nan), arg(name, w), tensor.I64)
	default:
		r = arg(name, x.orderKey(a, d))
	}
	return x.castIf(r, tensor.I64, x.in.DType), nil
}

// dot is dot_general as one batched MatMul: each operand transposed to
// (batch, free, contracting) or (batch, contracting, free) and reshaped
// to rank 3; the product reshaped to (batch…, lhs free…, rhs free…).
// f16 and bf16 multiply in f32 and round once (Kiln accumulates them in
// f32); bool is an f32 product compared with 0.
func (x *instr) dot(a, c string) (string, error) {
	in := x.in
	dd := in.Params.Dot
	ls, rs := in.Args[0].Shape, in.Args[1].Shape
	ld, rd := in.Args[0].DType, in.Args[1].DType
	free := func(rank int, batch, contract []int) []int {
		var f []int
		for i := range rank {
			if !slices.Contains(batch, i) && !slices.Contains(contract, i) {
				f = append(f, i)
			}
		}
		return f
	}
	prod := func(shape, dims []int) int {
		n := 1
		for _, i := range dims {
			n *= shape[i]
		}
		return n
	}
	lf, rf := free(len(ls), dd.LhsBatch, dd.LhsContract), free(len(rs), dd.RhsBatch, dd.RhsContract)
	B, M, K, N := prod(ls, dd.LhsBatch), prod(ls, lf), prod(ls, dd.LhsContract), prod(rs, rf)
	cd := arith(ld)
	switch {
	case ld == tensor.Bool:
		cd = tensor.F32
	case in.DType.IsFloat() && ld.IsFloat():
		cd = arith(in.DType)
	}
	prep := func(v string, d tensor.DType, perm []int, shape []int) string {
		v = x.castIf(v, d, cd)
		if !isIdentity(perm) {
			v = x.op1("Transpose", v, aInts("perm", i64s(perm)))
		}
		return x.reshape(v, shape)
	}
	lv := prep(a, ld, concat(dd.LhsBatch, lf, dd.LhsContract), []int{B, M, K})
	rv := prep(c, rd, concat(dd.RhsBatch, dd.RhsContract, rf), []int{B, K, N})
	r := x.reshape(x.op2("MatMul", lv, rv), in.Shape)
	if in.DType == tensor.Bool {
		return x.op2("Greater", r, x.scalarF(cd, 0)), nil
	}
	return x.castIf(r, cd, in.DType), nil
}

func concat(xs ...[]int) []int {
	var out []int
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}

// lowerMore is the rest: ops with no translation yet are refused.
func (x *instr) lowerMore(args []string) (string, error) {
	switch x.in.Op {
	case trace.OpBitcastConvert:
		return "", refuse("ONNX has no bitcast")
	case trace.OpThreefry2x32:
		return "", refuse("threefry2x32 is not translated (it would need 32-bit rotations on u32, which ONNX Runtime's integer kernels lack)")
	}
	return "", refuse("%s is not translated by this exporter", x.in.Op)
}

// control translates while and cond (not yet: refused).
func (x *instr) control(args []string) ([]string, error) {
	d := x.in.DType
	return nil, &UnsupportedError{Op: x.in.Op, DType: d, Instr: x.in.Name() + " = " + x.in.Op.String(), Pos: x.in.Pos,
		Msg: x.in.Op.String() + " is not translated by this exporter"}
}
