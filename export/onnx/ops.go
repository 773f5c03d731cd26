package onnx

import (
	"errors"
	"fmt"
	"math"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// module emits m's instructions, its parameters bound to params, and
// returns the names of its outputs.
func (b *builder) module(m *lower.Module, params []string) ([]string, error) {
	vals := map[*lower.Instr]string{}
	for i, p := range m.Params {
		vals[p] = params[i]
	}
	results := map[*lower.Instr][]string{} // a while's or cond's results
	for _, in := range m.Instrs {
		if in.Op == trace.OpParam {
			continue
		}
		for _, a := range append([]*lower.Instr{in}, in.Args...) {
			if a.DType.IsNarrow() {
				return nil, &UnsupportedError{Op: in.Op, DType: a.DType, Instr: fmt.Sprintf("%s = %s %s", in.Name(), in.TypeString(), in.Op), Pos: in.Pos, Msg: fmt.Sprintf(narrowRefusal, a.DType)}
			}
		}
		args := make([]string, len(in.Args))
		for i, a := range in.Args {
			if args[i] = vals[a]; args[i] == "" {
				return nil, fmt.Errorf("onnx: %s reads %s before it is defined", in.Name(), a.Name())
			}
		}
		x := &instr{builder: b, in: in}
		var v string
		var err error
		switch in.Op {
		case trace.OpWhile, trace.OpCond:
			var rs []string
			if rs, err = x.control(args); err == nil {
				results[in], v = rs, rs[0]
			}
		case trace.OpResult:
			if rs := results[in.Args[0]]; in.Params.Control.Index < len(rs) {
				v = rs[in.Params.Control.Index]
			} else {
				err = fmt.Errorf("result %d of %s, which has %d", in.Params.Control.Index, in.Args[0].Name(), len(rs))
			}
		default:
			v, err = x.lower(args)
		}
		if err != nil {
			desc := fmt.Sprintf("%s = %s %s", in.Name(), in.TypeString(), in.Op)
			var ue *UnsupportedError
			if errors.As(err, &ue) {
				if ue.Instr != "" { // from a sub-module: already named
					return nil, ue
				}
				d := in.DType
				if len(in.Args) > 0 {
					d = in.Args[0].DType
				}
				return nil, &UnsupportedError{Op: in.Op, DType: d, Instr: desc, Pos: in.Pos, Msg: ue.Msg}
			}
			return nil, fmt.Errorf("onnx: %s: %w", desc, err)
		}
		vals[in] = v
	}
	outs := make([]string, len(m.Outputs))
	for i, o := range m.Outputs {
		if outs[i] = vals[o]; outs[i] == "" {
			return nil, fmt.Errorf("onnx: output %d (%s) is not computed by the module", i, o.Name())
		}
	}
	return outs, nil
}

// instr translates one instruction.
type instr struct {
	*builder
	in *lower.Instr
}

// arith is the dtype ONNX Runtime's CPU kernels compute dtype d's
// arithmetic in: f16 and bf16 in f32 (rounded back after every op, which
// is Kiln's rule), integers narrower than 32 bits in i32 and u32 in i64
// (exact, and wrapping once cast back), u64 in i64 (two's complement: the
// same bits for +, −, ×, negation and the bitwise ops; orderings use
// orderKey).
func arith(d tensor.DType) tensor.DType {
	switch d {
	case tensor.F16, tensor.BF16:
		return tensor.F32
	case tensor.I8, tensor.I16, tensor.U8, tensor.U16:
		return tensor.I32
	case tensor.U32, tensor.U64:
		return tensor.I64
	}
	return d
}

// widen casts x of dtype d to arith(d).
func (b *builder) widen(x string, d tensor.DType) string { return b.castIf(x, d, arith(d)) }

// orderKey maps x of integer dtype d to a value whose signed order in
// arith(d) is d's order: u64 (as i64) has its sign bit flipped.
func (b *builder) orderKey(x string, d tensor.DType) string {
	w := b.widen(x, d)
	if d == tensor.U64 {
		return b.op2("BitwiseXor", w, b.scalarI(tensor.I64, math.MinInt64))
	}
	return w
}

// unaryFloat are the float ops ONNX has with Kiln's meaning, and whether
// ONNX Runtime's CPU kernel takes f64.
var unaryFloat = map[trace.Op]struct {
	name string
	f64  bool
}{
	trace.OpExp: {"Exp", true}, trace.OpLog: {"Log", true}, trace.OpSqrt: {"Sqrt", true},
	trace.OpSin: {"Sin", true}, trace.OpCos: {"Cos", false}, trace.OpTan: {"Tan", false},
	trace.OpFloor: {"Floor", true}, trace.OpCeil: {"Ceil", true}, trace.OpRound: {"Round", true},
	trace.OpAsin: {"Asin", false}, trace.OpAcos: {"Acos", false}, trace.OpAtan: {"Atan", false},
	trace.OpSinh: {"Sinh", false}, trace.OpCosh: {"Cosh", false}, trace.OpAsinh: {"Asinh", false},
	trace.OpAcosh: {"Acosh", false}, trace.OpAtanh: {"Atanh", false}, trace.OpErf: {"Erf", false},
}

// refusals are the ops ONNX cannot express with Kiln's semantics, and why.
var refusals = map[trace.Op]string{
	trace.OpAtan2:          "ONNX has no atan2, and atan(y/x) with quadrant fixes misses the signs of zeros and the ulp bound",
	trace.OpCopysign:       "ONNX cannot read a sign bit (of −0 or of a NaN) without a bitcast",
	trace.OpNextafter:      "ONNX cannot step a float's bits without a bitcast",
	trace.OpErfc:           "ONNX has no erfc, and 1 − erf(x) loses all precision for large x",
	trace.OpErfInv:         "ONNX has no inverse error function",
	trace.OpBitcastConvert: "ONNX has no bitcast",
	trace.OpThreefry2x32:   "threefry2x32 is not translated by this exporter yet (it is expressible with u64 BitShift and BitwiseAnd)",
}

var compareOps = map[trace.Op]string{
	trace.OpEq: "Equal", trace.OpLt: "Less", trace.OpLe: "LessOrEqual", trace.OpGt: "Greater", trace.OpGe: "GreaterOrEqual",
}

func (x *instr) lower(args []string) (string, error) {
	in := x.in
	p := in.Params
	if n := in.Op.Info().Arity; n >= 0 && len(args) != n {
		return "", fmt.Errorf("%d operands, want %d", len(args), n)
	}
	var d tensor.DType // the first operand's dtype
	if len(in.Args) > 0 {
		d = in.Args[0].DType
	}
	if d.IsComplex() || in.DType.IsComplex() {
		return "", refuse("complex numbers: ONNX Runtime has no complex kernels")
	}
	op := in.Op
	if why, ok := refusals[op]; ok {
		return "", refuse("%s", why)
	}
	switch {
	case op == trace.OpConst:
		return x.constant(p.Value)
	case op == trace.OpConvert:
		return x.convert(args[0], d, in.DType)
	case op == trace.OpSelect:
		return x.where(args[0], args[1], args[2], in.DType), nil
	case op == trace.OpStopGradient || (op == trace.OpReal || op == trace.OpConj):
		return args[0], nil
	case op == trace.OpImag:
		return x.zeros(in.DType, in.Shape), nil
	case compareOps[op] != "" || op == trace.OpNe:
		return x.compare(op, args[0], args[1], d), nil
	case d.IsFloat() && (op.Info().Class == trace.ClassUnary || op.Info().Class == trace.ClassBinary):
		return x.floatOp(op, args, d)
	case op.Info().Class == trace.ClassUnary || op.Info().Class == trace.ClassBinary:
		return x.intOp(op, args, d)
	case op == trace.OpBroadcastInDim:
		return x.broadcast(args[0], in.Args[0].Shape, p.Dims, p.Shape), nil
	case op == trace.OpReshape:
		return x.reshape(args[0], p.Shape), nil
	case op == trace.OpTranspose:
		return x.op1("Transpose", args[0], aInts("perm", i64s(p.Perm))), nil
	case op == trace.OpSlice:
		axes := make([]int64, len(p.Start))
		for i := range axes {
			axes[i] = int64(i)
		}
		if len(axes) == 0 {
			return x.op1("Identity", args[0]), nil
		}
		return x.add("Slice", []string{args[0], x.ints(i64s(p.Start)...), x.ints(i64s(p.Limit)...), x.ints(axes...), x.ints(i64s(p.Stride)...)}), nil
	case op == trace.OpConcat:
		return x.add("Concat", args, aInt("axis", int64(p.Axis))), nil
	case op == trace.OpRev:
		return x.rev(args[0], p.Axes), nil
	case op == trace.OpReduceSum || op == trace.OpReduceProd || op == trace.OpReduceMax || op == trace.OpReduceMin:
		return x.reduce(op, args[0], d)
	case op == trace.OpArgMax || op == trace.OpArgMin:
		return x.argReduce(op, args[0], d)
	case op == trace.OpDot:
		return x.dot(args[0], args[1])
	case op == trace.OpIota:
		return x.iota(), nil
	}
	return x.lowerMore(args)
}

// zeros is a constant 0 of dtype d broadcast to shape.
func (b *builder) zeros(d tensor.DType, shape []int) string {
	return b.expand(b.scalarI(d, 0), d, shape)
}

// expand is ONNX's Expand, which has no bf16 kernel in ONNX Runtime:
// bf16 goes through f32 (exact both ways; a NaN's payload may be quieted).
func (b *builder) expand(x string, d tensor.DType, shape []int) string {
	if d == tensor.BF16 {
		return b.cast(b.op2("Expand", b.cast(x, tensor.F32), b.ints(i64s(shape)...)), d)
	}
	return b.op2("Expand", x, b.ints(i64s(shape)...))
}

func (b *builder) reshape(x string, shape []int) string {
	return b.op2("Reshape", x, b.ints(i64s(shape)...), aInt("allowzero", 1))
}

// where is Kiln's select; ONNX Runtime's Where has kernels for a few
// dtypes, so the others go through arith's dtype (exact both ways).
func (b *builder) where(c, t, f string, d tensor.DType) string {
	switch d {
	case tensor.F32, tensor.F64, tensor.I32, tensor.I64, tensor.U8:
		return b.add("Where", []string{c, t, f})
	case tensor.Bool:
		return b.op2("Or", b.op2("And", c, t), b.op2("And", b.op1("Not", c), f))
	}
	w := arith(d)
	return b.cast(b.add("Where", []string{c, b.cast(t, w), b.cast(f, w)}), d)
}

func (x *instr) compare(op trace.Op, a, c string, d tensor.DType) string {
	switch {
	case d.IsFloat():
		a, c = x.widen(a, d), x.widen(c, d)
	case d == tensor.Bool:
		a, c = x.cast(a, tensor.I32), x.cast(c, tensor.I32)
	default:
		a, c = x.orderKey(a, d), x.orderKey(c, d)
	}
	if op == trace.OpNe {
		return x.op1("Not", x.op2("Equal", a, c))
	}
	return x.op2(compareOps[op], a, c)
}

// convert is Kiln's convert (tensor.ConvertSlice).
func (x *instr) convert(a string, from, to tensor.DType) (string, error) {
	switch {
	case from == to:
		return x.op1("Identity", a), nil
	case to == tensor.Bool:
		// x != 0; NaN is true.
		return x.op1("Not", x.op2("Equal", x.widen(a, from), x.scalarI(arith(from), 0))), nil
	case from.IsFloat() && to.IsInteger():
		return x.floatToInt(a, from, to), nil
	case from == tensor.F64 && (to == tensor.F16 || to == tensor.BF16):
		return "", refuse("ONNX Runtime's Cast f64 → %s rounds twice (through f32); Kiln rounds once", to)
	}
	return x.cast(a, to), nil
}

// floatToInt truncates toward zero and saturates, NaN → 0. The bounds
// are powers of two, exact in every float type (or ±inf where they
// overflow it, which still compares right); the Cast is selected only
// where it is in range.
func (x *instr) floatToInt(a string, from, to tensor.DType) string {
	w := x.widen(a, from) // f16/bf16 → f32, exactly
	wd := arith(from)
	bits := to.Bits()
	var lo, hi string
	var loBound float64
	if to.IsUnsigned() {
		hi, lo = x.scalarU(to, math.MaxUint64>>(64-bits)), x.scalarI(to, 0)
		loBound = 0
	} else {
		hi, lo = x.scalarI(to, math.MaxInt64>>(64-bits)), x.scalarI(to, math.MinInt64>>(64-bits))
		loBound = -math.Ldexp(1, bits-1)
	}
	hiBound := math.Ldexp(1, bits)
	if to.IsSigned() {
		hiBound = math.Ldexp(1, bits-1)
	}
	// The Cast reads a clipped copy, so it never sees a value out of its
	// range (C's cast of one is undefined behaviour).
	safe := x.where(x.op1("IsNaN", w), x.scalarF(wd, 0), w, wd)
	safe = x.where(x.op2("GreaterOrEqual", safe, x.scalarF(wd, hiBound)), x.scalarF(wd, 0), safe, wd)
	safe = x.where(x.op2("Less", safe, x.scalarF(wd, loBound)), x.scalarF(wd, 0), safe, wd)
	r := x.cast(safe, to)
	r = x.where(x.op2("GreaterOrEqual", w, x.scalarF(wd, hiBound)), hi, r, to)
	if to.IsSigned() {
		r = x.where(x.op2("Less", w, x.scalarF(wd, loBound)), lo, r, to)
	} else {
		r = x.where(x.op2("Less", w, x.scalarF(wd, 0)), lo, r, to)
	}
	return r
}

// floatOp translates a float elementwise op computed in arith(d) and
// rounded back to d.
func (x *instr) floatOp(op trace.Op, args []string, d tensor.DType) (string, error) {
	c := arith(d)
	w := make([]string, len(args))
	for i, a := range args {
		w[i] = x.widen(a, d)
	}
	r, err := x.floatOpIn(op, w, c)
	if err != nil {
		return "", err
	}
	if x.in.DType == tensor.Bool { // isnan, isinf, …
		return r, nil
	}
	return x.castIf(r, c, d), nil
}

func (x *instr) floatOpIn(op trace.Op, a []string, c tensor.DType) (string, error) {
	if op == trace.OpHypot || op == trace.OpCbrt {
		return x.viaF64(op, a, c)
	}
	if u, ok := unaryFloat[op]; ok {
		if c == tensor.F64 && !u.f64 {
			if op == trace.OpCos {
				return "", refuse("ONNX Runtime's f64 Cos loses hundreds of ulps on large arguments (Kiln's bound is 1 ulp)")
			}
			return "", refuse("ONNX Runtime's %s kernel is f32 only (computing f64 in f32 would lose Kiln's precision)", u.name)
		}
		return x.op1(u.name, a[0]), nil
	}
	isNaN := func(v string) string { return x.op1("IsNaN", v) }
	switch op {
	case trace.OpNeg:
		return x.op1("Neg", a[0]), nil
	case trace.OpAbs:
		return x.op1("Abs", a[0]), nil
	case trace.OpSign: // sign(±0) = +0, sign(NaN) = NaN
		return x.where(isNaN(a[0]), a[0], x.op1("Sign", a[0]), c), nil
	case trace.OpLogistic:
		// 1/(1+e^−x): ONNX Runtime's Sigmoid is a rational approximation
		// off by far more than Kiln's ulp bound where it is small.
		// For x < 0 it is e^x/(1+e^x), so a tiny result is not lost to
		// an overflowed e^−x.
		one := x.scalarF(c, 1)
		pos := x.op2("Div", one, x.op2("Add", one, x.op1("Exp", x.op1("Neg", a[0]))))
		e := x.op1("Exp", a[0])
		neg := x.op2("Div", e, x.op2("Add", one, e))
		return x.where(x.op2("Less", a[0], x.scalarF(c, 0)), neg, pos, c), nil
	case trace.OpTanh:
		// ONNX Runtime's Tanh loses subnormals; tanh(x) rounds to x below
		// 2^-12 (f32) or 2^-27 (f64).
		small := math.Ldexp(1, -12)
		if c == tensor.F64 {
			small = math.Ldexp(1, -27)
		}
		return x.where(x.op2("Less", x.op1("Abs", a[0]), x.scalarF(c, small)), a[0], x.op1("Tanh", a[0]), c), nil
	case trace.OpRsqrt:
		return x.op1("Reciprocal", x.op1("Sqrt", a[0])), nil
	case trace.OpIsNaN:
		return isNaN(a[0]), nil
	case trace.OpIsInf:
		return x.op1("IsInf", a[0]), nil
	case trace.OpIsPosInf:
		return x.op1("IsInf", a[0], aInt("detect_negative", 0)), nil
	case trace.OpIsNegInf:
		return x.op1("IsInf", a[0], aInt("detect_positive", 0)), nil
	case trace.OpIsFinite:
		return x.op1("Not", x.op2("Or", isNaN(a[0]), x.op1("IsInf", a[0]))), nil
	case trace.OpExp2:
		return x.op2("Pow", x.scalarF(c, 2), a[0]), nil
	case trace.OpLog2:
		return x.op2("Div", x.op1("Log", a[0]), x.scalarF(c, math.Ln2)), nil
	case trace.OpLog10:
		return x.op2("Div", x.op1("Log", a[0]), x.scalarF(c, math.Ln10)), nil
	case trace.OpLog1p:
		// Goldberg: u = 1+x; u == 1 ? x : log(u)·x/(u−1), accurate to a
		// few ulps (the plain log(1+x) loses everything for tiny x).
		one := x.scalarF(c, 1)
		u := x.op2("Add", one, a[0])
		q := x.op2("Div", x.op2("Mul", x.op1("Log", u), a[0]), x.op2("Sub", u, one))
		q = x.where(x.op2("Equal", u, x.scalarF(c, math.Inf(1))), u, q, c)
		return x.where(x.op2("Equal", u, one), a[0], q, c), nil
	case trace.OpExpm1:
		// Kahan: u = e^x; u == 1 ? x : u−1 == −1 ? −1 : (u−1)·x/log(u).
		one := x.scalarF(c, 1)
		u := x.op1("Exp", a[0])
		um := x.op2("Sub", u, one)
		q := x.op2("Div", x.op2("Mul", um, a[0]), x.op1("Log", u))
		q = x.where(x.op1("IsInf", u), u, q, c)
		q = x.where(x.op2("Equal", um, x.scalarF(c, -1)), um, q, c)
		return x.where(x.op2("Equal", u, one), a[0], q, c), nil
	case trace.OpAdd:
		return x.op2("Add", a[0], a[1]), nil
	case trace.OpSub:
		return x.op2("Sub", a[0], a[1]), nil
	case trace.OpMul:
		return x.op2("Mul", a[0], a[1]), nil
	case trace.OpDiv:
		return x.op2("Div", a[0], a[1]), nil
	case trace.OpPow:
		return x.op2("Pow", a[0], a[1]), nil
	case trace.OpFmod: // C's fmod
		return x.op2("Mod", a[0], a[1], aInt("fmod", 1)), nil
	case trace.OpFloorDiv, trace.OpRem:
		return x.npyDivmod(op, a[0], a[1], c), nil
	case trace.OpMax, trace.OpMin:
		// IEEE 754-2019 maximum/minimum: NaN propagates and −0 < +0;
		// ONNX leaves both to the implementation. For equal zeros, max
		// is a+b (+0 unless both are −0) and min is −(−a + −b).
		name := "Max"
		if op == trace.OpMin {
			name = "Min"
		}
		m := x.op2(name, a[0], a[1])
		z := x.op2("And", x.op2("Equal", a[0], a[1]), x.op2("Equal", a[0], x.scalarF(c, 0)))
		var zs string
		if op == trace.OpMax {
			zs = x.op2("Add", a[0], a[1])
		} else {
			zs = x.op1("Neg", x.op2("Add", x.op1("Neg", a[0]), x.op1("Neg", a[1])))
		}
		m = x.where(z, zs, m, c)
		m = x.where(isNaN(a[1]), a[1], m, c)
		return x.where(isNaN(a[0]), a[0], m, c), nil
	}
	return "", refuse("no exact ONNX translation of %s on floats", op)
}

// intOp translates an integer or bool elementwise op.
func (x *instr) intOp(op trace.Op, args []string, d tensor.DType) (string, error) {
	if d == tensor.Bool {
		switch op {
		case trace.OpNot:
			return x.op1("Not", args[0]), nil
		case trace.OpAnd, trace.OpMul, trace.OpMin:
			return x.op2("And", args[0], args[1]), nil
		case trace.OpOr, trace.OpAdd, trace.OpMax:
			return x.op2("Or", args[0], args[1]), nil
		case trace.OpXor:
			return x.op2("Xor", args[0], args[1]), nil
		case trace.OpAbs, trace.OpFloor, trace.OpCeil, trace.OpRound:
			return x.op1("Identity", args[0]), nil
		case trace.OpIsNaN, trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf:
			return x.falses(), nil
		case trace.OpIsFinite:
			return x.op1("Not", x.falses()), nil
		}
		return "", refuse("no ONNX translation of %s on bool", op)
	}
	c := arith(d)
	w := make([]string, len(args))
	for i, a := range args {
		w[i] = x.widen(a, d)
	}
	back := func(r string) string { return x.castIf(r, c, d) }
	switch op {
	case trace.OpIsNaN, trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf:
		return x.falses(), nil
	case trace.OpIsFinite:
		return x.op1("Not", x.falses()), nil
	case trace.OpFloor, trace.OpCeil, trace.OpRound:
		return x.op1("Identity", args[0]), nil
	case trace.OpNeg:
		return back(x.op1("Neg", w[0])), nil
	case trace.OpAbs:
		if d.IsUnsigned() {
			return x.op1("Identity", args[0]), nil
		}
		return back(x.op1("Abs", w[0])), nil
	case trace.OpSign:
		if d.IsUnsigned() {
			return x.cast(x.op1("Not", x.op2("Equal", w[0], x.scalarI(c, 0))), d), nil
		}
		return back(x.op1("Sign", w[0])), nil
	case trace.OpNot:
		return back(x.op1("BitwiseNot", w[0])), nil
	case trace.OpAdd:
		return back(x.op2("Add", w[0], w[1])), nil
	case trace.OpSub:
		return back(x.op2("Sub", w[0], w[1])), nil
	case trace.OpMul:
		return back(x.op2("Mul", w[0], w[1])), nil
	case trace.OpAnd:
		return back(x.op2("BitwiseAnd", w[0], w[1])), nil
	case trace.OpOr:
		return back(x.op2("BitwiseOr", w[0], w[1])), nil
	case trace.OpXor:
		return back(x.op2("BitwiseXor", w[0], w[1])), nil
	case trace.OpMax, trace.OpMin:
		ka, kc := x.orderKey(args[0], d), x.orderKey(args[1], d)
		cmp := "Greater"
		if op == trace.OpMin {
			cmp = "Less"
		}
		return x.where(x.op2(cmp, ka, kc), args[0], args[1], d), nil
	case trace.OpPow:
		return back(x.intPow(w[0], w[1], d, c)), nil
	case trace.OpFloorDiv, trace.OpRem, trace.OpFmod:
		if d == tensor.U64 {
			// Unsigned: floor and truncation agree; only a zero divisor
			// (0) needs care. Div and Mod read it replaced by 1.
			zero, one := x.scalarU(d, 0), x.scalarU(d, 1)
			isZero := x.op2("Equal", args[1], zero)
			safe := x.where(isZero, one, args[1], d)
			var r string
			if op == trace.OpFloorDiv {
				r = x.op2("Div", args[0], safe)
			} else {
				r = x.op2("Mod", args[0], safe)
			}
			return x.where(isZero, zero, r, d), nil
		}
		return back(x.intDivMod(op, w[0], w[1], c)), nil
	case trace.OpShl, trace.OpShr:
		return x.shift(op, args[0], args[1], d), nil
	}
	return "", refuse("no exact ONNX translation of %s on %s", op, d)
}

// falses is a bool array of the instruction's shape, all false.
func (x *instr) falses() string { return x.zeros(tensor.Bool, x.in.Shape) }

// intDivMod is Kiln's integer floordiv, rem (floor semantics) and fmod
// (truncated) in c (i32 or i64): a zero divisor gives 0 and MIN // −1
// wraps to MIN. ONNX Runtime's Div and Mod are C's (a zero divisor or
// MIN / −1 traps), so they read a divisor with 0 and −1 replaced by 1.
func (x *instr) intDivMod(op trace.Op, a, c string, dt tensor.DType) string {
	zero, one, mone := x.scalarI(dt, 0), x.scalarI(dt, 1), x.scalarI(dt, -1)
	isZero := x.op2("Equal", c, zero)
	isMone := x.op2("Equal", c, mone)
	safe := x.where(x.op2("Or", isZero, isMone), one, c, dt)
	rem := x.op2("Mod", a, safe, aInt("fmod", 1)) // truncated: sign of a
	var r string
	switch op {
	case trace.OpFmod:
		r = x.where(isMone, zero, rem, dt)
	case trace.OpRem:
		// floor semantics: a nonzero remainder takes the divisor's sign.
		fix := x.op2("And", x.op1("Not", x.op2("Equal", rem, zero)),
			x.op1("Not", x.op2("Equal", x.op2("Less", rem, zero), x.op2("Less", safe, zero))))
		r = x.where(fix, x.op2("Add", rem, safe), rem, dt)
		r = x.where(isMone, zero, r, dt)
	default:
		q := x.op2("Div", a, safe) // truncated
		fix := x.op2("And", x.op1("Not", x.op2("Equal", rem, zero)),
			x.op1("Not", x.op2("Equal", x.op2("Less", rem, zero), x.op2("Less", safe, zero))))
		q = x.where(fix, x.op2("Sub", q, one), q, dt)
		r = x.where(isMone, x.op1("Neg", a), q, dt)
	}
	return x.where(isZero, zero, r, dt)
}

// unsignedOf is the unsigned dtype of d's width.
func unsignedOf(d tensor.DType) tensor.DType {
	switch d.Bits() {
	case 8:
		return tensor.U8
	case 16, 32: // ONNX Runtime's BitShift has no u16 kernel
		return tensor.U32
	}
	return tensor.U64
}

// shift is Kiln's shl and shr: a count outside [0, width) gives 0, or the
// sign bit for shr of a signed integer; shr is arithmetic for signed
// dtypes. ONNX's BitShift is logical and unsigned only: signed values are
// shifted as their unsigned bits, and an arithmetic shift of a negative
// value is ~(~x >> n).
func (x *instr) shift(op trace.Op, a, n string, d tensor.DType) string {
	u := unsignedOf(d)
	bits := int64(d.Bits())
	kn := x.orderKey(n, d) // the count, comparable in arith(d)
	cd := arith(d)
	var inRange string
	if d == tensor.U64 {
		inRange = x.op2("Less", kn, x.scalarI(tensor.I64, math.MinInt64+bits))
	} else {
		inRange = x.op2("And", x.op2("GreaterOrEqual", kn, x.scalarI(cd, 0)), x.op2("Less", kn, x.scalarI(cd, bits)))
	}
	// The count BitShift reads: in range, else 0 (then selected away) or,
	// for an arithmetic shift, width−1.
	fallback := int64(0)
	if op == trace.OpShr && d.IsSigned() {
		fallback = bits - 1
	}
	cnt := x.where(inRange, x.castIf(n, d, u), x.scalarI(u, fallback), u)
	ua := x.castIf(a, d, u)
	if op == trace.OpShl {
		r := x.castIf(x.op2("BitShift", ua, cnt, aStr("direction", "LEFT")), u, d)
		return x.where(inRange, r, x.scalarI(d, 0), d)
	}
	if !d.IsSigned() {
		r := x.op2("BitShift", ua, cnt, aStr("direction", "RIGHT"))
		return x.where(inRange, r, x.scalarI(d, 0), d)
	}
	neg := x.op2("Less", x.widen(a, d), x.scalarI(cd, 0))
	notA := x.castIf(x.op1("BitwiseNot", x.widen(a, d)), cd, d)
	pos := x.castIf(x.op2("BitShift", ua, cnt, aStr("direction", "RIGHT")), u, d)
	negR := x.castIf(x.op1("BitwiseNot", x.widen(x.castIf(x.op2("BitShift", x.castIf(notA, d, u), cnt, aStr("direction", "RIGHT")), u, d), d)), cd, d)
	return x.where(neg, negR, pos, d)
}

// broadcast is broadcast_in_dim: the operand reshaped to the result's
// rank (its dims moved to dims, size-1 dims elsewhere), then Expand.
func (x *instr) broadcast(a string, from, dims, shape []int) string {
	sorted := true
	for i := 1; i < len(dims); i++ {
		if dims[i] < dims[i-1] {
			sorted = false
		}
	}
	if !sorted { // transpose the operand so its dims are in result order
		perm := make([]int64, len(dims))
		order := make([]int, len(dims))
		for i := range order {
			order[i] = i
		}
		for i := range order {
			for j := i + 1; j < len(order); j++ {
				if dims[order[j]] < dims[order[i]] {
					order[i], order[j] = order[j], order[i]
				}
			}
		}
		nf := make([]int, len(from))
		nd := make([]int, len(dims))
		for i, o := range order {
			perm[i] = int64(o)
			nf[i], nd[i] = from[o], dims[o]
		}
		a = x.op1("Transpose", a, aInts("perm", perm))
		from, dims = nf, nd
	}
	mid := make([]int, len(shape))
	for i := range mid {
		mid[i] = 1
	}
	for i, dd := range dims {
		mid[dd] = from[i]
	}
	if len(from) != len(shape) {
		a = x.reshape(a, mid)
	}
	return x.expand(a, x.in.DType, shape)
}

// rev reverses axes with Slice's negative steps.
func (x *instr) rev(a string, axes []int) string {
	if len(axes) == 0 {
		return x.op1("Identity", a)
	}
	n := len(axes)
	starts, ends, steps := make([]int64, n), make([]int64, n), make([]int64, n)
	for i := range axes {
		starts[i], ends[i], steps[i] = -1, math.MinInt64, -1
	}
	return x.add("Slice", []string{a, x.ints(starts...), x.ints(ends...), x.ints(i64s(axes)...), x.ints(steps...)})
}

// iota is a Range along the axis, reshaped and expanded.
func (x *instr) iota() string {
	p := x.in.Params
	shape := x.in.Shape
	n := shape[p.Axis]
	d := x.in.DType
	r := x.add("Range", []string{x.scalarI(tensor.I64, 0), x.scalarI(tensor.I64, int64(n)), x.scalarI(tensor.I64, 1)})
	r = x.cast(r, d)
	mid := make([]int, len(shape))
	for i := range mid {
		mid[i] = 1
	}
	mid[p.Axis] = n
	return x.expand(x.reshape(r, mid), d, shape)
}

// npyDivmod is NumPy's npy_divmod (internal/reference), op for op in c:
// fmod (exact), the quotient of a − fmod, fmod moved to the divisor's
// sign, the quotient snapped to an integer, zeros signed as NumPy signs
// them, and a/b and fmod's NaN for a zero divisor.
func (x *instr) npyDivmod(op trace.Op, a, b string, c tensor.DType) string {
	zero, one := x.scalarF(c, 0), x.scalarF(c, 1)
	negZero := x.scalarF(c, math.Copysign(0, -1))
	mod := x.op2("Mod", a, b, aInt("fmod", 1))
	bNeg := x.op2("Less", b, zero)
	modZero := x.op2("Equal", mod, zero)
	div := x.op2("Div", x.op2("Sub", a, mod), b)
	fix := x.op2("And", x.op1("Not", modZero), x.op1("Not", x.op2("Equal", bNeg, x.op2("Less", mod, zero))))
	bZero := x.op2("Equal", b, zero)
	if op == trace.OpRem {
		m := x.where(fix, x.op2("Add", mod, b), mod, c)
		m = x.where(modZero, x.where(bNeg, negZero, zero, c), m, c)
		return x.where(bZero, mod, m, c)
	}
	div = x.where(fix, x.op2("Sub", div, one), div, c)
	fl := x.op1("Floor", div)
	fl = x.where(x.op2("Greater", x.op2("Sub", div, fl), x.scalarF(c, 0.5)), x.op2("Add", fl, one), fl, c)
	q := x.op2("Div", a, b)
	qNeg := x.op2("Or", x.op2("Less", q, zero), x.op2("Less", x.op2("Div", one, q), zero)) // −0 too
	fl = x.where(x.op2("Equal", div, zero), x.where(qNeg, negZero, zero, c), fl, c)
	return x.where(bZero, q, fl, c)
}

// intPow is Kiln's integer pow in c (i32 or i64, wrapping as d):
// exponentiation by squaring over the exponent's bits, and for a
// negative exponent 0, except 1 for base 1 and ±1 for base −1.
func (x *instr) intPow(base, e string, d, c tensor.DType) string {
	one := x.scalarI(c, 1)
	zero := x.scalarI(c, 0)
	r := x.expand(one, c, x.in.Shape)
	sq := base
	bits := d.Bits()
	for i := range bits {
		mask := x.scalarI(c, int64(uint64(1)<<i))
		if c == tensor.I32 && i == 31 {
			mask = x.scalarI(c, math.MinInt32)
		}
		bit := x.op1("Not", x.op2("Equal", x.op2("BitwiseAnd", e, mask), zero))
		r = x.where(bit, x.op2("Mul", r, sq), r, c)
		if i+1 < bits {
			sq = x.op2("Mul", sq, sq)
		}
	}
	if !d.IsSigned() {
		return r
	}
	odd := x.op1("Not", x.op2("Equal", x.op2("BitwiseAnd", e, one), zero))
	mone := x.scalarI(c, -1)
	neg := x.where(x.op2("Equal", base, one), one, zero, c)
	neg = x.where(x.op2("Equal", base, mone), x.where(odd, mone, one, c), neg, c)
	return x.where(x.op2("Less", e, zero), neg, r, c)
}

// viaF64 computes hypot and cbrt of f32 (and f16, bf16) values in f64,
// where √(x²+y²) cannot overflow or underflow and Pow(|x|, 1/3) is within
// a few f64 ulps, so the f32 result is within Kiln's ulp bound; f64 has
// no wider type and is refused.
func (x *instr) viaF64(op trace.Op, a []string, c tensor.DType) (string, error) {
	if c == tensor.F64 {
		if op == trace.OpHypot {
			return "", refuse("ONNX has no hypot, and √(x²+y²) in f64 overflows and underflows where hypot does not")
		}
		return "", refuse("ONNX has no cube root, and Pow(x, 1/3) in f64 misses the ulp bound (1/3 is inexact)")
	}
	w := make([]string, len(a))
	for i, v := range a {
		w[i] = x.cast(v, tensor.F64)
	}
	inf := x.scalarF(tensor.F64, math.Inf(1))
	var r string
	if op == trace.OpHypot {
		r = x.op1("Sqrt", x.op2("Add", x.op2("Mul", w[0], w[0]), x.op2("Mul", w[1], w[1])))
		anyInf := x.op2("Or", x.op1("IsInf", w[0]), x.op1("IsInf", w[1]))
		r = x.where(anyInf, inf, r, tensor.F64) // hypot(±inf, NaN) = +inf
	} else {
		p := x.op2("Pow", x.op1("Abs", w[0]), x.scalarF(tensor.F64, 1.0/3))
		r = x.where(x.op2("Less", w[0], x.scalarF(tensor.F64, 0)), x.op1("Neg", p), p, tensor.F64)
		r = x.where(x.op2("Equal", w[0], x.scalarF(tensor.F64, 0)), w[0], r, tensor.F64) // ±0
	}
	return x.cast(r, c), nil
}
