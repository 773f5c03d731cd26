package stablehlo

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// StableHLO exports the module as a StableHLO program for XLA and IREE
// users: MLIR text holding one function, func.func public @main, whose
// arguments are the module's parameters and whose results are its outputs.
// Every instruction (the unfused list: fusions are a backend detail) becomes
// one SSA value named as in lower.Module.String (%7) — or, for an identity such
// as abs of an unsigned integer, a comment naming the value it is — computed
// by one StableHLO op or, where Kiln's semantics (kernels/doc.go) differ
// from the op's or the op leaves a case undefined, by a commented
// composition of ops whose helpers are named %t7_1, %t7_2, …:
//
//   - integer floordiv and rem have floor semantics, x // 0 = x % 0 = 0 and
//     MIN // −1 = MIN (stablehlo.divide and remainder truncate and leave
//     those cases to the implementation);
//   - float floordiv and rem are NumPy's npy_divmod, built on
//     stablehlo.remainder (C's fmod) and computed in f32 for f16 and bf16,
//     rounding once, as Kiln does;
//   - shifts by a count outside [0, width) give 0 (or the sign bit for an
//     arithmetic right shift); StableHLO does not define them;
//   - integer pow with a negative exponent is 0 except for bases 1 and −1;
//   - float → int converts saturate and map NaN to 0 (StableHLO leaves
//     out-of-range converts undefined); complex → real keeps the real part;
//     → bool is x != 0;
//   - complex exp2, log2 and log10 scale the parts (of z, or of log z) by
//     ln 2, log2(e) or log10(e) in complex<f64>, as Kiln, rather than
//     multiplying or dividing by a complex constant (0·∞ would make a NaN
//     part) in the operand's precision;
//   - sign(±0) is +0; abs(MIN) wraps to MIN; isnan is x != x; conj is
//     complex(real, −imag); sign of unsigned integers is min(x, 1);
//   - bool add and mul are or and and; bool dot_general is an f32 dot_general
//     compared with 0; f16 and bf16 dot_general accumulate in f32;
//   - a fill gather selects its fill value where a window does not fit, and
//     a scatter's indices are clamped (mode clip) or moved past the end
//     (mode drop) so that whole windows are dropped, as Kiln (and XLA) drop
//     them where stablehlo.scatter skips single elements (index.go);
//   - argmax and argmin are a two-operand (value, index) reduce over an iota
//     whose comparator is a total order (the first maximum wins, NaN is the
//     maximum, the first NaN wins), so the result does not depend on the
//     order in which the reduce combines elements.
//
// stablehlo.maximum and minimum map 1:1: the StableHLO spec defines them for
// floats as IEEE 754-2019 maximum and minimum (NaN propagates, −0 < +0),
// which is Kiln's definition. f16 and bf16 ops map 1:1 too: StableHLO
// computes them in their own type, and XLA CPU does so by computing in f32
// and rounding after every op — what Kiln does, with the same bits for the
// correctly rounded ops. What stays the implementation's: the bits of
// transcendental functions (as in Kiln, within the ulp bounds), the order in
// which reduce and dot_general add (Kiln's fixed pairwise tree is not
// expressible), integer overflow (StableHLO allows wrapping or saturating;
// XLA and IREE wrap, as Kiln) and the rounding of narrowing float converts
// (Kiln rounds once, to nearest even).
//
// Ops print in MLIR's generic form, readable by stablehlo-opt, IREE and
// upstream mlir-opt --allow-unregistered-dialect. An instruction that cannot
// be expressed (an ordering of complex numbers, an argmax over several axes)
// is an error naming it. The tests check the compositions against Kiln's
// reference evaluator by interpreting the export with every case StableHLO
// leaves undefined poisoned.
func Export(m *lower.Module) (string, error) {
	f, err := build(m)
	if err != nil {
		return "", err
	}
	return f.String(), nil
}

// shloFunc is the exported @main: its body (whose block arguments are the
// parameters) and its results.
type shloFunc struct {
	body *shloBlock
	outs []*shloVal
}

func build(m *lower.Module) (*shloFunc, error) {
	body := &shloBlock{}
	params := make([]*shloVal, len(m.Params))
	for i, p := range m.Params {
		params[i] = &shloVal{name: p.Name(), typ: typeOf(p)}
		body.args = append(body.args, params[i])
	}
	outs, err := lowerModule(m, body, params, "")
	if err != nil {
		return nil, err
	}
	return &shloFunc{body: body, outs: outs}, nil
}

// lowerModule lowers m's instructions into body, its parameters bound to
// params, and returns its outputs. A module nested in a while or case
// region has its names prefixed (SSA names may not shadow the enclosing
// function's).
func lowerModule(m *lower.Module, body *shloBlock, params []*shloVal, prefix string) ([]*shloVal, error) {
	vals := map[*lower.Instr]*shloVal{}
	for i, p := range m.Params {
		vals[p] = params[i]
	}
	results := map[*lower.Instr][]*shloVal{} // a while's or cond's results
	for _, in := range m.Instrs {
		if in.Op == trace.OpParam {
			continue
		}
		args := make([]*shloVal, len(in.Args))
		for i, a := range in.Args {
			if args[i] = vals[a]; args[i] == nil {
				return nil, fmt.Errorf("stablehlo: %s reads %s before it is defined", in.Name(), a.Name())
			}
		}
		b := &shloBuilder{blk: body, prefix: fmt.Sprintf("%st%d", prefix, in.ID)}
		x := &shloInstr{shloBuilder: b, in: in, t: typeOf(in)}
		start := b.mark()
		var v *shloVal
		var err error
		switch in.Op {
		case trace.OpWhile, trace.OpCond:
			var rs []*shloVal
			if rs, err = x.control(args, prefix); err == nil {
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
		if err == nil && !sameType(v.typ, x.t) {
			err = fmt.Errorf("internal error: the export computed %s", v.typ)
		}
		if err != nil {
			instr := fmt.Sprintf("%s = %s %s", in.Name(), in.TypeString(), in.Op)
			var ue *UnsupportedError
			if errors.As(err, &ue) {
				return nil, &UnsupportedError{Instr: instr, Msg: ue.Msg}
			}
			return nil, fmt.Errorf("stablehlo: %s: %w", instr, err)
		}
		added := body.ops[start:]
		defined := v.def != nil && slices.Contains(added, v.def)
		if defined {
			v.def.name = "%" + prefix + strings.TrimPrefix(in.Name(), "%")
		}
		if len(x.notes) > 0 {
			note := fmt.Sprintf("%s = %s %s: %s", in.Name(), in.TypeString(), in.Op, strings.Join(x.notes, "; "))
			if !defined {
				note += fmt.Sprintf(" (%s is %s)", in.Name(), v.ref())
				body.ops = append(body.ops, &shloOp{}) // a comment line
			}
			body.ops[start].comment = note
		}
		vals[in] = v
	}
	body.instrs = vals
	var outs []*shloVal
	for i, o := range m.Outputs {
		v := vals[o]
		if v == nil {
			return nil, fmt.Errorf("stablehlo: output %d (%s) is not computed by the module", i, o.Name())
		}
		outs = append(outs, v)
	}
	return outs, nil
}

// String prints the function in a module, after a header comment.
func (f *shloFunc) String() string {
	var b strings.Builder
	b.WriteString("// A Kiln module as StableHLO, in MLIR's generic op syntax (stablehlo.Export).\n")
	b.WriteString("// Where a StableHLO op differs from Kiln's numerics the instruction is a commented\n")
	b.WriteString("// composition. f16/bf16 ops map 1:1 (XLA CPU computes them in f32 and rounds after\n")
	b.WriteString("// every op, as Kiln does); integer arithmetic is assumed to wrap; reductions and\n")
	b.WriteString("// dot_general add in the implementation's order, not Kiln's fixed pairwise tree.\n")
	b.WriteString("module @kiln {\n")
	params := make([]string, len(f.body.args))
	for i, a := range f.body.args {
		params[i] = a.name + ": " + a.typ.String()
	}
	outs := make([]string, len(f.outs))
	types := make([]string, len(f.outs))
	for i, v := range f.outs {
		outs[i], types[i] = v.ref(), v.typ.String()
	}
	fmt.Fprintf(&b, "  func.func public @main(%s) -> (%s) {\n", strings.Join(params, ", "), strings.Join(types, ", "))
	f.body.print(&b, "    ")
	if len(outs) > 0 {
		fmt.Fprintf(&b, "    func.return %s : %s\n", strings.Join(outs, ", "), strings.Join(types, ", "))
	} else {
		b.WriteString("    func.return\n")
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

func typeOf(in *lower.Instr) shloType { return shloType{in.DType, in.Shape} }

func sameType(a, b shloType) bool { return a.dt == b.dt && trace.ShapeEqual(a.shape, b.shape) }

// shloInstr lowers one instruction; notes collect what its comment says.
type shloInstr struct {
	*shloBuilder
	in    *lower.Instr
	t     shloType // the instruction's result type
	notes []string
}

func (x *shloInstr) note(s string) { x.notes = append(x.notes, s) }

var errNoOrder = &UnsupportedError{Msg: "complex numbers have no order"}

// UnsupportedError reports an instruction that StableHLO cannot express
// with Kiln's semantics (an ordering of complex numbers, an argmax over
// several axes, an op with no lowering for its dtype). Other errors of
// Export are bugs.
type UnsupportedError struct {
	Instr string // the instruction as printed: "%7 = c64[3] max"
	Msg   string
}

func (e *UnsupportedError) Error() string { return "stablehlo: " + e.Instr + ": " + e.Msg }

// unsupported makes an *UnsupportedError for the instruction being lowered.
func unsupported(format string, args ...any) error {
	return &UnsupportedError{Msg: fmt.Sprintf(format, args...)}
}

// shloDirect are the ops that map 1:1 onto a StableHLO op for float and
// complex operands, and for integers where the op is defined on them (add,
// sub, mul, neg; pow of unsigned integers — signed ones are composed).
var shloDirect = map[trace.Op]string{
	trace.OpNeg: "negate", trace.OpExp: "exponential", trace.OpLog: "log", trace.OpLog1p: "log_plus_one",
	trace.OpExpm1: "exponential_minus_one", trace.OpSqrt: "sqrt", trace.OpRsqrt: "rsqrt",
	trace.OpSin: "sine", trace.OpCos: "cosine", trace.OpTan: "tan", trace.OpTanh: "tanh",
	trace.OpLogistic: "logistic", trace.OpAdd: "add", trace.OpSub: "subtract",
	trace.OpMul: "multiply", trace.OpDiv: "divide", trace.OpPow: "power",
}

// shloReal are the float-only ops that are the identity on integers and
// bool (the tracer keeps those away, but the module may hold them).
var shloReal = map[trace.Op]string{trace.OpFloor: "floor", trace.OpCeil: "ceil", trace.OpRound: "round_nearest_even"}

// shloIntegral are the ops that map 1:1 for bool and integer operands.
var shloIntegral = map[trace.Op]string{trace.OpNot: "not", trace.OpAnd: "and", trace.OpOr: "or", trace.OpXor: "xor"}

var shloCompare = map[trace.Op]string{
	trace.OpEq: "EQ", trace.OpNe: "NE", trace.OpLt: "LT", trace.OpLe: "LE", trace.OpGt: "GT", trace.OpGe: "GE",
}

func (x *shloInstr) lower(args []*shloVal) (*shloVal, error) {
	in := x.in
	p := in.Params
	if n := in.Op.Info().Arity; n >= 0 && len(args) != n {
		return nil, fmt.Errorf("%d operands, want %d", len(args), n)
	}
	var a, c *shloVal
	var d tensor.DType // the first operand's dtype
	if len(args) > 0 {
		a, d = args[0], args[0].typ.dt
	}
	if len(args) > 1 {
		c = args[1]
	}
	inexact := d.IsFloat() || d.IsComplex()
	switch op := in.Op; {
	case op == trace.OpConst:
		return x.constant(x.t, p.Value), nil
	case op == trace.OpConvert:
		return x.convert(a, in.DType), nil
	case op == trace.OpSelect:
		return x.op("select", x.t, args...), nil
	case shloIntegral[op] != "" && !inexact:
		return x.op(shloIntegral[op], x.t, args...), nil
	case shloCompare[op] != "":
		if d.IsComplex() && op != trace.OpEq && op != trace.OpNe {
			return nil, errNoOrder
		}
		return x.cmp(shloCompare[op], a, c), nil
	case op == trace.OpAdd && d == tensor.Bool:
		x.note("bool + is or")
		return x.op("or", x.t, a, c), nil
	case op == trace.OpMul && d == tensor.Bool:
		x.note("bool * is and")
		return x.op("and", x.t, a, c), nil
	case op == trace.OpMax || op == trace.OpMin:
		return x.maxMin(op, a, c)
	case op == trace.OpFloorDiv || op == trace.OpRem:
		switch {
		case d.IsInteger():
			return x.intDivMod(op, a, c), nil
		case d.IsFloat():
			return x.floatDivMod(op, a, c), nil
		}
	case isMath(op):
		return x.math(op, args)
	case op == trace.OpIota || op == trace.OpBitcastConvert || op == trace.OpThreefry2x32:
		return x.prng(op, args)
	case op == trace.OpPow && d.IsSigned():
		return x.intPow(a, c), nil
	case op == trace.OpShl || op == trace.OpShr:
		if d.IsInteger() {
			return x.shift(op, a, c), nil
		}
	case shloDirect[op] != "" && (inexact || d.IsInteger() && !op.Info().Inexact):
		return x.op(shloDirect[op], x.t, args...), nil
	case shloReal[op] != "":
		if d.IsComplex() {
			return nil, errNoOrder
		}
		if !d.IsFloat() {
			x.note(op.String() + " of an integer or bool is the identity")
			return a, nil
		}
		return x.op(shloReal[op], x.t, a), nil
	case op.Info().Class == trace.ClassUnary:
		return x.unary(op, a)
	case op == trace.OpBroadcastInDim:
		return x.opA("broadcast_in_dim", x.t, []string{"broadcast_dimensions = " + i64s(p.Dims)}, a), nil
	case op == trace.OpReshape:
		return x.op("reshape", x.t, a), nil
	case op == trace.OpTranspose:
		return x.opA("transpose", x.t, []string{"permutation = " + i64s(p.Perm)}, a), nil
	case op == trace.OpSlice:
		return x.opA("slice", x.t, []string{"start_indices = " + i64s(p.Start), "limit_indices = " + i64s(p.Limit), "strides = " + i64s(p.Stride)}, a), nil
	case op == trace.OpConcat:
		return x.opA("concatenate", x.t, []string{fmt.Sprintf("dimension = %d : i64", p.Axis)}, args...), nil
	case op == trace.OpReduceSum || op == trace.OpReduceProd || op == trace.OpReduceMax || op == trace.OpReduceMin:
		return x.reduce(op, a)
	case op == trace.OpArgMax || op == trace.OpArgMin:
		return x.argReduce(op, a)
	case op == trace.OpDot:
		return x.dot(a, c), nil
	case op == trace.OpSort:
		return x.sort(args)
	case op == trace.OpConv:
		if d.IsComplex() || d == tensor.Bool {
			return nil, unsupported("no StableHLO lowering for conv_general_dilated on %s", d)
		}
		return x.convolution(a, c), nil
	case op == trace.OpRev || op.Info().Class == trace.ClassIndex:
		return x.lowerIndex(args)
	}
	return nil, unsupported("no StableHLO lowering for %s on %s", in.Op, d)
}
