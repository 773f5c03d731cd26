package opencl

import (
	"fmt"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// exactOnNarrow lists the ops whose f16/bf16 result needs no rounding: it
// is one of the operands (or exactly derived from one), already rounded.
var exactOnNarrow = map[trace.Op]bool{
	trace.OpNeg: true, trace.OpAbs: true, trace.OpSign: true, trace.OpMax: true, trace.OpMin: true,
	trace.OpFloor: true, trace.OpCeil: true, trace.OpRound: true, trace.OpSelect: true,
	trace.OpReal: true, trace.OpImag: true, trace.OpConj: true, trace.OpConvert: true,
}

// mathNames maps transcendental ops to OpenCL C builtins.
var mathNames = map[trace.Op]string{
	trace.OpExp: "exp", trace.OpLog: "log", trace.OpLog1p: "log1p", trace.OpExpm1: "expm1",
	trace.OpSin: "sin", trace.OpCos: "cos", trace.OpTan: "tan", trace.OpTanh: "tanh",
}

// elemExpr returns the OpenCL C expression computing elementwise
// instruction in from its operands' compute values.
func (g *gen) elemExpr(in *lower.Instr, a []string) string {
	e := g.elemRaw(in, a)
	if narrow(in.DType) && !exactOnNarrow[in.Op] {
		e = g.call("rnd_"+ct(in.DType).sfx, stripParens(e))
	}
	return e
}

// stripParens removes one pair of parentheses enclosing all of e.
func stripParens(e string) string {
	if len(e) < 2 || e[0] != '(' || e[len(e)-1] != ')' {
		return e
	}
	depth := 0
	for i, c := range e {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(e)-1 {
				return e // the first parenthesis closes before the end
			}
		}
	}
	return e[1 : len(e)-1]
}

func (g *gen) elemRaw(in *lower.Instr, a []string) string {
	d := in.Args[0].DType // operand dtype (result dtype differs for compares, abs/real/imag of complex)
	if in.Op == trace.OpSelect {
		d = in.Args[1].DType
	}
	c := ct(d)
	h := func(name string, args ...string) string { return g.call(name+"_"+c.sfx, args...) }
	fh := func(name string, args ...string) string { // float helper: f16/bf16 use f32's
		if narrow(d) {
			return g.call(name+"_f32", args...)
		}
		return h(name, args...)
	}
	isInt, isFloat, isBool, isCplx := d.IsInteger(), d.IsFloat(), d == tensor.Bool, d.IsComplex()
	bin := func(sym string) string { return "(" + a[0] + " " + sym + " " + a[1] + ")" }
	cast := func(x string) string { return "(" + c.compute + ")(" + x + ")" }
	cmp := func(sym string) string { return "(uchar)(" + a[0] + " " + sym + " " + a[1] + ")" }

	switch in.Op {
	case trace.OpConvert:
		return g.convertExpr(in.DType, d, a[0])
	case trace.OpSelect:
		return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")"
	case trace.OpNeg:
		if isInt {
			return h("neg", a[0])
		}
		return "(-" + a[0] + ")"
	case trace.OpAbs:
		switch {
		case isCplx:
			return h("cabs", a[0])
		case isFloat:
			return "fabs(" + a[0] + ")"
		case isInt && c.signed:
			return h("abs", a[0])
		}
		return a[0]
	case trace.OpSign:
		switch {
		case isCplx:
			return h("csign", a[0])
		case isFloat:
			return fh("sign", a[0])
		case isInt && c.signed:
			return h("sign", a[0])
		}
		return cast(a[0] + " != 0")
	case trace.OpExp, trace.OpLog, trace.OpLog1p, trace.OpExpm1, trace.OpSin, trace.OpCos, trace.OpTan, trace.OpTanh,
		trace.OpRsqrt, trace.OpLogistic:
		if isCplx {
			return h("c"+in.Op.String(), a[0])
		}
		return g.transcendental(in.Op, d, a)
	case trace.OpSqrt:
		if isCplx {
			return h("csqrt", a[0])
		}
		if d == tensor.F64 {
			return "sqrt(" + a[0] + ")"
		}
		g.needDivSqrt()
		if g.emulateDivSqrt {
			return "(float)sqrt((double)" + a[0] + ")"
		}
		return "sqrt(" + a[0] + ")"
	case trace.OpFloor, trace.OpCeil, trace.OpRound:
		if !isFloat {
			return a[0]
		}
		return map[trace.Op]string{trace.OpFloor: "floor", trace.OpCeil: "ceil", trace.OpRound: "rint"}[in.Op] + "(" + a[0] + ")"
	case trace.OpIsNaN:
		switch {
		case isCplx:
			return "(uchar)(isnan(" + a[0] + ".x) || isnan(" + a[0] + ".y))"
		case isFloat:
			return "(uchar)isnan(" + a[0] + ")"
		}
		return "(uchar)0"
	case trace.OpIsFinite:
		switch {
		case isCplx:
			return "(uchar)(isfinite(" + a[0] + ".x) && isfinite(" + a[0] + ".y))"
		case isFloat:
			return "(uchar)isfinite(" + a[0] + ")"
		}
		return "(uchar)1"
	case trace.OpReal:
		if isCplx {
			return a[0] + ".x"
		}
		return a[0]
	case trace.OpImag:
		if isCplx {
			return a[0] + ".y"
		}
		return "(" + c.compute + ")0"
	case trace.OpConj:
		if isCplx {
			return "(" + c.compute + ")(" + a[0] + ".x, -" + a[0] + ".y)"
		}
		return a[0]
	case trace.OpNot:
		if isBool {
			return "(uchar)(!" + a[0] + ")"
		}
		return cast("~" + a[0])

	case trace.OpAdd:
		switch {
		case isBool:
			return cast(a[0] + " | " + a[1])
		case isInt:
			return h("add", a...)
		}
		return bin("+")
	case trace.OpSub:
		if isInt {
			return h("sub", a...)
		}
		return bin("-")
	case trace.OpMul:
		switch {
		case isBool:
			return cast(a[0] + " & " + a[1])
		case isInt:
			return h("mul", a...)
		case isCplx:
			return h("cmul", a...)
		}
		return bin("*")
	case trace.OpDiv:
		switch {
		case isCplx:
			return h("cdiv", a...)
		case d == tensor.F64:
			return bin("/")
		}
		g.needDivSqrt()
		if g.emulateDivSqrt {
			return "(float)((double)" + a[0] + " / (double)" + a[1] + ")"
		}
		return bin("/")
	case trace.OpFloorDiv:
		return fh("floordiv", a...)
	case trace.OpRem:
		return fh("rem", a...)
	case trace.OpPow:
		switch {
		case isInt:
			return h("pow", a...)
		case isCplx:
			return h("cpow", a...)
		}
		return g.transcendental(in.Op, d, a)
	case trace.OpMax, trace.OpMin:
		max := in.Op == trace.OpMax
		switch {
		case isBool && max:
			return cast(a[0] + " | " + a[1])
		case isBool:
			return cast(a[0] + " & " + a[1])
		case isInt && max:
			return "max(" + a[0] + ", " + a[1] + ")"
		case isInt:
			return "min(" + a[0] + ", " + a[1] + ")"
		case max:
			return fh("maximum", a...)
		}
		return fh("minimum", a...)
	case trace.OpAnd:
		return cast(a[0] + " & " + a[1])
	case trace.OpOr:
		return cast(a[0] + " | " + a[1])
	case trace.OpXor:
		return cast(a[0] + " ^ " + a[1])
	case trace.OpShl:
		return h("shl", a...)
	case trace.OpShr:
		return h("shr", a...)
	case trace.OpEq:
		if isCplx {
			return "(uchar)(" + a[0] + ".x == " + a[1] + ".x && " + a[0] + ".y == " + a[1] + ".y)"
		}
		return cmp("==")
	case trace.OpNe:
		if isCplx {
			return "(uchar)(" + a[0] + ".x != " + a[1] + ".x || " + a[0] + ".y != " + a[1] + ".y)"
		}
		return cmp("!=")
	case trace.OpLt:
		return cmp("<")
	case trace.OpLe:
		return cmp("<=")
	case trace.OpGt:
		return cmp(">")
	case trace.OpGe:
		return cmp(">=")
	}
	if e, ok := g.mathExpr(in, d, a); ok {
		return e
	}
	if e, ok := g.prngExpr(in, d, a); ok {
		return e
	}
	g.fail(&Error{Kind: KindUnsupported, Msg: fmt.Sprintf("no OpenCL kernel for %s on %s", in.Op, d)})
	return "0"
}

// transcendental computes exp, log, …, pow of real floats. By default f32
// (and f16/bf16, computed in f32) goes through double where the device has
// it, as the CPU backend does, so results stay within docs/SPEC.md §3's 2 ulp
// (OpenCL only promises 3–4 ulp for float exp, sin, …, and 16 for pow);
// Options.FastTranscendentals uses the float builtins instead.
func (g *gen) transcendental(op trace.Op, d tensor.DType, a []string) string {
	wide := d == tensor.F64 || g.doubleTranscendentals
	x := a[0]
	one := "1.0f"
	if wide {
		one = "1.0"
		if d != tensor.F64 {
			x = "(double)" + x
		}
	}
	var e string
	switch op {
	case trace.OpRsqrt:
		e = one + " / sqrt(" + x + ")"
	case trace.OpLogistic:
		e = one + " / (" + one + " + exp(-" + x + "))"
	case trace.OpPow:
		y := a[1]
		if wide && d != tensor.F64 {
			y = "(double)" + y
		}
		e = "pow(" + x + ", " + y + ")"
	case trace.OpLog1p:
		// log1p(x) = x below 2^-54 (Go's Log1p): device versions may flush
		// subnormal arguments to 0.
		e = "(fabs(" + x + ") < 0x1p-54 ? " + x + " : log1p(" + x + "))"
	case trace.OpSin, trace.OpCos:
		if wide {
			g.helpers.use("kiln_sincos") // the CPU backend's algorithm, and bits
			e = "kiln_" + mathNames[op] + "(" + x + ")"
		} else {
			e = mathNames[op] + "(" + x + ")"
		}
	case trace.OpTan:
		if wide {
			e = g.call("kiln_tan", x) // the CPU backend's algorithm, and bits
		} else {
			e = mathNames[op] + "(" + x + ")"
		}
	default:
		e = mathNames[op] + "(" + x + ")"
	}
	if wide && d != tensor.F64 {
		return "(float)(" + e + ")"
	}
	return e
}
