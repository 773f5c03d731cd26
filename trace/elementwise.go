package trace

import (
	"fmt"
	"sync"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// BroadcastShapes returns the NumPy broadcast of shapes, or ok=false.
func BroadcastShapes(shapes ...[]int) ([]int, bool) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			switch {
			case out[off+i] == d || d == 1:
			case out[off+i] == 1:
				out[off+i] = d
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// elementwise applies an elementwise op to operands, NumPy-broadcast and
// promoted per the op table and docs/SPEC.md §2.
func elementwise(op Op, xs ...Value) Value {
	name := op.String()
	if v, bad := zeroOperand(name, xs...); bad {
		return v
	}
	b, ok := builderOf(name, xs...)
	if b == nil {
		return freeOp(func(b *builder) Value { return elementwise(op, attachAll(b, name, xs)...) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xs = attachAll(b, name, xs)
	types := make([]promote.Type, len(xs))
	shapes := make([][]int, len(xs))
	for i, x := range xs {
		if b.err != nil || (x.v == nil && x.lit == nil) {
			return Value{b: b}
		}
		types[i], shapes[i] = b.typeOf(x), shapeOf(x)
	}
	shape, ok := BroadcastShapes(shapes...)
	if !ok {
		return b.shapeErr(name, "shapes "+joinShapes(shapes)+" do not broadcast", shapes...)
	}
	var cond Value
	if op == OpSelect {
		cond, xs, types, shapes = xs[0], xs[1:], types[1:], shapes[1:]
		if b.cfg.WhereStrongScalars() {
			types = append([]promote.Type(nil), types...)
			for i := range types {
				types[i].Weak = false
			}
		}
	}
	common, err := b.rankedType(types, shapes)
	if err != nil {
		return b.opErr(name, err)
	}
	compute, why := common, "promote "+b.joinOperands(types, shapes)+" -> "+common.String()+" ("+b.cfg.RuleSet().Name()+")"
	if len(types) == 1 {
		why = ""
	}
	info := op.Info()
	switch {
	case info.Inexact:
		if op == OpDiv {
			compute, err = b.cfg.TrueDivType(common)
		} else {
			compute, err = b.cfg.FloatFuncTypeOf(name, common, types...)
		}
		if err != nil {
			return b.opErr(name, err)
		}
		if compute != common {
			why = name + " computes in " + compute.String()
		}
	case info.Domain == DomainNonComplexNumeric:
		if common.DType.IsComplex() {
			return b.dtypeErr(name, name+" is not defined for complex "+common.String(), types...)
		}
		compute = b.cfg.Numeric(common)
		if compute != common {
			why = name + " of bool computes in " + compute.String()
		}
	}
	if msg := domainError(op, compute.DType); msg != "" {
		return b.dtypeErr(name, msg, types...)
	}
	args := make([]*Var, 0, 3)
	if op == OpSelect {
		c := b.to(cond, promote.Strong(tensor.Bool), name, "")
		if c == nil {
			return Value{b: b}
		}
		args = append(args, c)
	}
	for _, x := range xs {
		v := b.to(x, compute, name, why)
		if v == nil {
			return Value{b: b}
		}
		args = append(args, v)
	}
	return b.emit(op, args, info.resultType(compute), shape, Params{}, "")
}

// resultType is the type of an elementwise op computing in type compute:
// bool for comparisons, the real part for RealResult ops, else compute.
func (info *OpInfo) resultType(compute promote.Type) promote.Type {
	switch {
	case info.Compare:
		return promote.Strong(tensor.Bool)
	case info.RealResult:
		compute.DType = compute.DType.RealPart()
	}
	return compute
}

// Elementwise applies an elementwise op of the op table to xs, as its
// method does (x.Exp() is Elementwise(OpExp, x)): operands broadcast and
// promote per the op's rules. For code that walks the op table — program
// generators, translators — rather than naming ops. An op that is not
// elementwise, or the wrong number of operands, is an *OpError.
func Elementwise(op Op, xs ...Value) Value {
	info := op.Info()
	if !op.Elementwise() || op == OpConvert || op == OpBitcastConvert || len(xs) != info.Arity {
		err := fmt.Errorf("%s is not an elementwise op of %d operands", op, len(xs))
		if b, _ := builderOf(op.String(), xs...); b != nil {
			return b.opErr(op.String(), err)
		}
		return freeOp(func(b *builder) Value { return b.opErr(op.String(), err) })
	}
	switch op {
	case OpSelect:
		return Where(xs[0], xs[1], xs[2])
	case OpFloor, OpCeil, OpRound:
		return roundingOp(op, xs[0])
	}
	return elementwise(op, xs...)
}

// domainError says why op rejects dtype d, or "" if it accepts it.
func domainError(op Op, d tensor.DType) string {
	info := op.Info()
	switch info.Domain {
	case DomainNoBool:
		if d == tensor.Bool {
			switch op {
			case OpSub:
				return "numpy boolean subtract is not supported; use xor (^) or logical ops instead"
			case OpNeg:
				return "numpy boolean negative is not supported; use not (~) instead"
			}
			return op.String() + " is not defined for bool; convert with astype first"
		}
	case DomainIntegral:
		if !(d == tensor.Bool || d.IsInteger()) || (info.NoBool && d == tensor.Bool) {
			want := "bool or integer"
			if info.NoBool {
				want = "integer"
			}
			return fmt.Sprintf("%s needs %s operands, not %s", op, want, d)
		}
	case DomainOrdered:
		if d.IsComplex() {
			return fmt.Sprintf("%s: complex numbers (%s) have no order; compare real/imag parts or abs instead", op, d)
		}
	case DomainReal:
		if d.IsComplex() {
			return fmt.Sprintf("%s does not support complex-valued inputs (%s)", op, d)
		}
	}
	if op == OpThreefry2x32 && d != tensor.U64 {
		return fmt.Sprintf("threefry2x32 takes u64 key and counter words (two u32 each, high word first), not %s", d)
	}
	if (op == OpMax || op == OpMin) && d.IsComplex() {
		return fmt.Sprintf("%s: complex numbers (%s) have no order", op, d)
	}
	return ""
}

func attachAll(b *builder, op string, xs []Value) []Value {
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = b.attach(x, op)
	}
	return out
}

// freeOp records an op between free values, replayed on first use in a
// trace. The replay is remembered for the last trace that used it, so a
// free value used many times in one trace (a DAG built from constants,
// say x = f(x, g(x)) in a loop) is replayed once there, not once per path
// to it — which grew exponentially with the depth of the sharing. The
// memo holds that trace until the free value itself is dropped. The
// replay's equations and errors name the user's line that built the value
// (replayAt).
func freeOp(replay func(b *builder) Value) Value {
	var (
		mu   sync.Mutex
		memo *builder
		last Value
	)
	pos := callerPos()
	return Value{replay: func(b *builder) Value {
		mu.Lock()
		if b != nil && memo == b {
			v := last
			mu.Unlock()
			return v
		}
		mu.Unlock()
		v := b.replayAt(pos, replay)
		mu.Lock()
		memo, last = b, v
		mu.Unlock()
		return v
	}}
}

func joinShapes(shapes [][]int) string {
	s := ""
	for i, sh := range shapes {
		if i > 0 {
			s += " and "
		}
		s += shapeString(sh)
	}
	return s
}

// joinOperands is joinTypes, marking strong rank-0 operands "[]" where the
// profile promotes them as their own category (torch: "u8, i8[]").
func (b *builder) joinOperands(ts []promote.Type, shapes [][]int) string {
	if !b.cfg.UsesRank() {
		return joinTypes(ts)
	}
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.String()
		if !t.Weak && len(shapes[i]) == 0 {
			s += "[]"
		}
	}
	return s
}

func joinTypes(ts []promote.Type) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.String()
	}
	return s
}

// Add returns x + y (or for bool).
func (x Value) Add(y Value) Value { return elementwise(OpAdd, x, y) }

// Sub returns x − y; bool operands are an error, as in NumPy.
func (x Value) Sub(y Value) Value { return elementwise(OpSub, x, y) }

// Mul returns x × y (and for bool).
func (x Value) Mul(y Value) Value { return elementwise(OpMul, x, y) }

// Div returns the true quotient x / y, in an inexact dtype.
func (x Value) Div(y Value) Value { return elementwise(OpDiv, x, y) }

// FloorDiv returns x // y with floor semantics (integer division by zero gives 0).
func (x Value) FloorDiv(y Value) Value { return elementwise(OpFloorDiv, x, y) }

// Rem returns x % y with the sign of y, as Python and NumPy.
func (x Value) Rem(y Value) Value { return elementwise(OpRem, x, y) }

// Pow returns x ** y. An integer literal exponent is JAX's integer_pow:
// binary exponentiation with multiplications in x's dtype (x ** 2 is
// exactly x * x; a negative exponent takes the reciprocal, and is an error
// for integers; x ** 0 is ones). Any other exponent is an elementwise pow.
func (x Value) Pow(y Value) Value {
	if y.lit != nil && y.lit.kind == tensor.KindInt {
		return integerPow(x, y.lit.i)
	}
	return elementwise(OpPow, x, y)
}

func integerPow(x Value, n int64) Value {
	t := x.Type()
	if t.DType == tensor.Bool {
		return elementwise(OpPow, x, Int(n)) // the domain check reports it
	}
	if n < 0 && (t.DType.IsInteger() || x.lit != nil && x.lit.kind == tensor.KindInt) {
		b, _ := builderOf("pow", x)
		if b == nil {
			return freeOp(func(b *builder) Value { return integerPow(b.attach(x, "pow"), n) })
		}
		return b.dtypeErr("pow", fmt.Sprintf("integers cannot be raised to a negative integer power (%d); convert to a float first", n), t)
	}
	if n == 0 {
		return Where(Bool(true), Int(1), x.Sub(x)) // ones of x's type and shape
	}
	e := n
	if e < 0 {
		e = -e
	}
	var acc Value
	have := false
	for e > 0 {
		if e&1 == 1 {
			if have {
				acc = acc.Mul(x)
			} else {
				acc, have = x, true
			}
		}
		e >>= 1
		if e > 0 {
			x = x.Mul(x)
		}
	}
	if n < 0 {
		return Int(1).Div(acc)
	}
	return acc
}

// Maximum returns the elementwise maximum, propagating NaN (numpy.maximum).
func (x Value) Maximum(y Value) Value { return elementwise(OpMax, x, y) }

// Minimum returns the elementwise minimum, propagating NaN (numpy.minimum).
func (x Value) Minimum(y Value) Value { return elementwise(OpMin, x, y) }

// And returns x & y: logical for bool, bitwise for integers.
func (x Value) And(y Value) Value { return elementwise(OpAnd, x, y) }

// Or returns x | y.
func (x Value) Or(y Value) Value { return elementwise(OpOr, x, y) }

// Xor returns x ^ y.
func (x Value) Xor(y Value) Value { return elementwise(OpXor, x, y) }

// Shl returns x << y for integers (shifts of the width or more give 0).
func (x Value) Shl(y Value) Value { return elementwise(OpShl, x, y) }

// Shr returns x >> y for integers: arithmetic for signed, logical for unsigned.
func (x Value) Shr(y Value) Value { return elementwise(OpShr, x, y) }

// Eq returns x == y as bool.
func (x Value) Eq(y Value) Value { return elementwise(OpEq, x, y) }

// Ne returns x != y as bool.
func (x Value) Ne(y Value) Value { return elementwise(OpNe, x, y) }

// Lt returns x < y as bool.
func (x Value) Lt(y Value) Value { return elementwise(OpLt, x, y) }

// Le returns x <= y as bool.
func (x Value) Le(y Value) Value { return elementwise(OpLe, x, y) }

// Gt returns x > y as bool.
func (x Value) Gt(y Value) Value { return elementwise(OpGt, x, y) }

// Ge returns x >= y as bool.
func (x Value) Ge(y Value) Value { return elementwise(OpGe, x, y) }

// Neg returns −x.
func (x Value) Neg() Value { return elementwise(OpNeg, x) }

// Abs returns |x|; complex gives its real-part dtype.
func (x Value) Abs() Value { return elementwise(OpAbs, x) }

// Sign returns −1, 0 or 1 (NaN stays NaN); for complex, x/|x|.
func (x Value) Sign() Value { return elementwise(OpSign, x) }

// Exp returns eˣ.
func (x Value) Exp() Value { return elementwise(OpExp, x) }

// Log returns the natural logarithm.
func (x Value) Log() Value { return elementwise(OpLog, x) }

// Log1p returns log(1 + x).
func (x Value) Log1p() Value { return elementwise(OpLog1p, x) }

// Expm1 returns eˣ − 1.
func (x Value) Expm1() Value { return elementwise(OpExpm1, x) }

// Sqrt returns √x.
func (x Value) Sqrt() Value { return elementwise(OpSqrt, x) }

// Rsqrt returns 1/√x.
func (x Value) Rsqrt() Value { return elementwise(OpRsqrt, x) }

// Sin returns sin x.
func (x Value) Sin() Value { return elementwise(OpSin, x) }

// Cos returns cos x.
func (x Value) Cos() Value { return elementwise(OpCos, x) }

// Tan returns tan x.
func (x Value) Tan() Value { return elementwise(OpTan, x) }

// Tanh returns tanh x.
func (x Value) Tanh() Value { return elementwise(OpTanh, x) }

// Logistic returns 1/(1 + e⁻ˣ).
func (x Value) Logistic() Value { return elementwise(OpLogistic, x) }

// Floor rounds toward −∞; integers and bools are returned unchanged (JAX).
func (x Value) Floor() Value { return roundingOp(OpFloor, x) }

// Ceil rounds toward +∞; integers and bools are returned unchanged.
func (x Value) Ceil() Value { return roundingOp(OpCeil, x) }

// Round rounds half to even, as NumPy; integers and bools are unchanged.
func (x Value) Round() Value { return roundingOp(OpRound, x) }

func roundingOp(op Op, x Value) Value {
	if t := x.Type(); t.DType == tensor.Bool || t.DType.IsInteger() {
		return x
	}
	return elementwise(op, x)
}

// IsNaN reports which elements are NaN (false for integers).
func (x Value) IsNaN() Value { return elementwise(OpIsNaN, x) }

// IsFinite reports which elements are finite (true for integers).
func (x Value) IsFinite() Value { return elementwise(OpIsFinite, x) }

// Real returns the real part (x itself for real dtypes).
func (x Value) Real() Value { return elementwise(OpReal, x) }

// Imag returns the imaginary part (zeros for real dtypes).
func (x Value) Imag() Value { return elementwise(OpImag, x) }

// Conj returns the complex conjugate (x itself for real dtypes).
func (x Value) Conj() Value { return elementwise(OpConj, x) }

// Not returns ~x: logical not for bool, bitwise not for integers.
func (x Value) Not() Value { return elementwise(OpNot, x) }

// Where returns cond ? a : b elementwise. A non-bool cond means cond != 0,
// as in jax.numpy.where; a and b are promoted together.
func Where(cond, a, b Value) Value {
	if t := cond.Type(); (cond.v != nil || cond.lit != nil || cond.konst != nil) && t.DType != tensor.Bool {
		cond = cond.Ne(Int(0))
	}
	return elementwise(OpSelect, cond, a, b)
}

// Astype converts x to dtype d. The result is strong, as jax.numpy's astype.
func (x Value) Astype(d tensor.DType) Value {
	if v, bad := zeroOperand("convert", x); bad {
		return v
	}
	b, _ := builderOf("convert", x)
	if b == nil {
		return freeOp(func(b *builder) Value { return b.attach(x, "convert").Astype(d) })
	}
	x = b.attach(x, "convert")
	if b.err != nil {
		return Value{b: b}
	}
	if !d.Valid() {
		return b.dtypeErr("convert", fmt.Sprintf("invalid dtype %v", d))
	}
	v := b.materialize(x, "convert")
	if v == nil {
		return Value{b: b}
	}
	t := promote.Strong(d)
	if v.Type == t {
		return Value{b: b, v: v}
	}
	return b.emit(OpConvert, []*Var{v}, t, v.Shape, Params{DType: d}, "astype")
}

// truth is x as bool: x itself for bool, x != 0 otherwise (NaN is true).
func truth(x Value) Value {
	if x.Type().DType == tensor.Bool {
		return x
	}
	return x.Ne(Int(0))
}

// LogicalAnd is numpy.logical_and: the truth values of x and y, anded; the
// result is bool whatever the operand dtypes.
func LogicalAnd(x, y Value) Value { return truth(x).And(truth(y)) }

// LogicalOr is numpy.logical_or.
func LogicalOr(x, y Value) Value { return truth(x).Or(truth(y)) }

// LogicalXor is numpy.logical_xor.
func LogicalXor(x, y Value) Value { return truth(x).Xor(truth(y)) }

// LogicalNot is numpy.logical_not.
func LogicalNot(x Value) Value { return truth(x).Not() }
