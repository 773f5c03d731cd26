package kernels

import (
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/internal/xmath"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// registerGeneric fills the element-wise tables with the generic Go loops
// of every dtype, at tierGeneric.
func registerGeneric() {
	registerSigned[int8](tensor.I8)
	registerSigned[int16](tensor.I16)
	registerSigned[int32](tensor.I32)
	registerSigned[int64](tensor.I64)
	registerUnsigned[uint8](tensor.U8)
	registerUnsigned[uint16](tensor.U16)
	registerUnsigned[uint32](tensor.U32)
	registerUnsigned[uint64](tensor.U64)
	registerFloat[float32](tensor.F32)
	registerFloat[float32](tensor.F16) // computed in f32, rounded by the executor
	registerFloat[float32](tensor.BF16)
	registerFloat[float64](tensor.F64)
	registerComplex[complex64, float32](tensor.C64)
	registerComplex[complex128, float64](tensor.C128)
	registerBool()
}

func registerCommon[T comparable](d tensor.DType) {
	put(&binaryTable[trace.OpEq][d], tierGeneric, bin(eq[T]))
	put(&binaryTable[trace.OpNe][d], tierGeneric, bin(ne[T]))
	put(&selectTable[d], tierGeneric, func(dst, c, a, b unsafe.Pointer, n int) {
		sel(view[T](dst, n), view[bool](c, n), view[T](a, n), view[T](b, n))
	})
}

// registerRealParts: a real number is its own real part and conjugate.
func registerRealParts[T comparable](d tensor.DType) {
	put(&unaryTable[trace.OpReal][d], tierGeneric, un(identity[T]))
	put(&unaryTable[trace.OpConj][d], tierGeneric, un(identity[T]))
	put(&unaryTable[trace.OpImag][d], tierGeneric, un(zeros[T]))
}

// opFunc pairs an op with its kernel in the registration lists below:
// slices of pairs, not map literals, whose construction in every
// instantiation (eight integer types, two float) took 34 KB of code.
type opFunc[F any] struct {
	op trace.Op
	f  F
}

func registerInteger[T integer](d tensor.DType) {
	registerCommon[T](d)
	registerRealParts[T](d)
	for _, e := range []opFunc[func(d, a, b []T)]{
		{trace.OpAdd, add[T]}, {trace.OpSub, sub[T]}, {trace.OpMul, mul[T]},
		{trace.OpFloorDiv, floorDivInt[T]}, {trace.OpRem, remInt[T]}, {trace.OpPow, powInt[T]},
		{trace.OpMax, maxOrd[T]}, {trace.OpMin, minOrd[T]}, {trace.OpAnd, and[T]}, {trace.OpOr, or[T]},
		{trace.OpXor, xor[T]}, {trace.OpShl, shl[T]}, {trace.OpShr, shr[T]},
	} {
		put(&binaryTable[e.op][d], tierGeneric, bin(e.f))
	}
	for _, e := range []opFunc[func(d []bool, a, b []T)]{
		{trace.OpLt, lt[T]}, {trace.OpLe, le[T]}, {trace.OpGt, gt[T]}, {trace.OpGe, ge[T]},
	} {
		put(&binaryTable[e.op][d], tierGeneric, bin(e.f))
	}
	put(&unaryTable[trace.OpNeg][d], tierGeneric, un(neg[T]))
	put(&unaryTable[trace.OpNot][d], tierGeneric, un(not[T]))
	put(&unaryTable[trace.OpIsNaN][d], tierGeneric, un(falses[T]))
	put(&unaryTable[trace.OpIsFinite][d], tierGeneric, un(trues[T]))
}

func registerSigned[T signed](d tensor.DType) {
	registerInteger[T](d)
	put(&unaryTable[trace.OpAbs][d], tierGeneric, un(absInt[T]))
	put(&unaryTable[trace.OpSign][d], tierGeneric, un(signInt[T]))
}

func registerUnsigned[T unsigned](d tensor.DType) {
	registerInteger[T](d)
	put(&unaryTable[trace.OpAbs][d], tierGeneric, un(identity[T]))
	put(&unaryTable[trace.OpSign][d], tierGeneric, un(signUint[T]))
}

func registerFloat[T float](d tensor.DType) {
	registerCommon[T](d)
	registerRealParts[T](d)
	for _, e := range []opFunc[func(d, a, b []T)]{
		{trace.OpAdd, add[T]}, {trace.OpSub, sub[T]}, {trace.OpMul, mul[T]}, {trace.OpDiv, div[T]},
		{trace.OpFloorDiv, floorDivFloat[T]}, {trace.OpRem, remFloat[T]}, {trace.OpPow, powFloat[T]},
		{trace.OpMax, maxFloat[T]}, {trace.OpMin, minFloat[T]},
	} {
		put(&binaryTable[e.op][d], tierGeneric, bin(e.f))
	}
	for _, e := range []opFunc[func(d []bool, a, b []T)]{
		{trace.OpLt, lt[T]}, {trace.OpLe, le[T]}, {trace.OpGt, gt[T]}, {trace.OpGe, ge[T]},
	} {
		put(&binaryTable[e.op][d], tierGeneric, bin(e.f))
	}
	put(&unaryTable[trace.OpNeg][d], tierGeneric, un(neg[T]))
	for _, e := range []opFunc[func(float64) float64]{
		{trace.OpAbs, math.Abs}, {trace.OpSign, signFloat}, {trace.OpSqrt, math.Sqrt},
		{trace.OpFloor, math.Floor}, {trace.OpCeil, math.Ceil}, {trace.OpRound, math.RoundToEven},
	} {
		put(&unaryTable[e.op][d], tierGeneric, un(mathUn[T](e.f)))
	}
	for op, f := range scalarMath {
		put(&unaryTable[op][d], tierGeneric, un(mathUn[T](f)))
	}
	put(&unaryTable[trace.OpIsNaN][d], tierGeneric, un(isNaN[T]))
	put(&unaryTable[trace.OpIsFinite][d], tierGeneric, un(isFinite[T]))
}

func registerBool() {
	d := tensor.Bool
	registerCommon[bool](d)
	registerRealParts[bool](d)
	put(&binaryTable[trace.OpAdd][d], tierGeneric, bin(orBool))
	put(&binaryTable[trace.OpMul][d], tierGeneric, bin(andBool))
	put(&binaryTable[trace.OpMax][d], tierGeneric, bin(orBool))
	put(&binaryTable[trace.OpMin][d], tierGeneric, bin(andBool))
	put(&binaryTable[trace.OpAnd][d], tierGeneric, bin(andBool))
	put(&binaryTable[trace.OpOr][d], tierGeneric, bin(orBool))
	put(&binaryTable[trace.OpXor][d], tierGeneric, bin(xorBool))
	put(&binaryTable[trace.OpLt][d], tierGeneric, bin(ltBool))
	put(&binaryTable[trace.OpLe][d], tierGeneric, bin(leBool))
	put(&binaryTable[trace.OpGt][d], tierGeneric, bin(gtBool))
	put(&binaryTable[trace.OpGe][d], tierGeneric, bin(geBool))
	put(&unaryTable[trace.OpNot][d], tierGeneric, un(notBool))
	put(&unaryTable[trace.OpAbs][d], tierGeneric, un(identity[bool]))
	put(&unaryTable[trace.OpIsNaN][d], tierGeneric, un(falses[bool]))
	put(&unaryTable[trace.OpIsFinite][d], tierGeneric, un(trues[bool]))
}

// scalarMath holds the float64 functions the CPU backend evaluates
// transcendental ops with, element by element (f32, f16 and bf16 compute
// them in float64 and round). Those with vectorized kernels (exp, log,
// tanh, logistic, sin, cos: registerSIMD) are overridden by them. The f64
// kernels are also more accurate than Go's math on amd64, whose Exp
// overflows early and whose Log is wrong on subnormals. log1p is package math's fdlibm port, within 1
// ulp; tan, rsqrt, expm1 (and pow, powFloat) are internal/xmath's, as
// math.Tan (2 ulps, thousands at huge arguments), 1/math.Sqrt (1.4) and
// math.Pow (many, and all accuracy for some subnormal bases) are not
// within 1 ulp, nor math.Expm1 at one argument (it overflows a double
// early).
var scalarMath = map[trace.Op]func(float64) float64{
	trace.OpExp: math.Exp, trace.OpLog: math.Log, trace.OpLog1p: math.Log1p, trace.OpExpm1: xmath.Expm1,
	trace.OpRsqrt: xmath.Rsqrt, trace.OpSin: math.Sin, trace.OpCos: math.Cos, trace.OpTan: xmath.Tan,
	trace.OpTanh: math.Tanh, trace.OpLogistic: logistic,
}

// Transcendental computes one element of a transcendental op (exp, log,
// sin, …, pow) exactly as the CPU backend does for real dtype d (f32 or
// f64; f16 and bf16 compute in f32): the result, rounded to d, is the
// backend's bits. The reference evaluator of the tests takes it so that
// fused kernels can be checked bit for bit; accuracy against the correctly
// rounded result is tested separately (docs/SPEC.md §3 ulp bounds).
func Transcendental(op trace.Op, d tensor.DType, x, y float64) float64 {
	if op == trace.OpPow {
		return xmath.Pow(x, y)
	}
	if slotTiers[unsafe.Pointer(&unaryTable[op][tensor.F64])] == tierSIMD { // a vector kernel
		if d == tensor.F64 {
			out := [1]float64{}
			unaryTable[op][d](unsafe.Pointer(&out), unsafe.Pointer(&x), 1)
			return out[0]
		}
		in, out := [1]float32{float32(x)}, [1]float32{}
		unaryTable[op][tensor.F32](unsafe.Pointer(&out), unsafe.Pointer(&in), 1)
		return float64(out[0])
	}
	if f, ok := scalarMath[op]; ok {
		return f(x)
	}
	if f, ok := mathFunc(op, d); ok {
		return f(x)
	}
	if fs, ok := mathFuncs2[op]; ok {
		if d == tensor.F64 {
			return fs[1](x, y)
		}
		return fs[0](x, y)
	}
	return math.NaN()
}
