package kernels

import (
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/internal/xmath"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func init() {
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
	binaryTable[trace.OpEq][d] = bin(eq[T])
	binaryTable[trace.OpNe][d] = bin(ne[T])
	selectTable[d] = func(dst, c, a, b unsafe.Pointer, n int) {
		sel(view[T](dst, n), view[bool](c, n), view[T](a, n), view[T](b, n))
	}
	unaryTable[trace.OpReal][d] = un(identity[T])
	unaryTable[trace.OpConj][d] = un(identity[T])
	unaryTable[trace.OpImag][d] = un(zeros[T])
}

func registerInteger[T integer](d tensor.DType) {
	registerCommon[T](d)
	for op, f := range map[trace.Op]func(d, a, b []T){
		trace.OpAdd: add[T], trace.OpSub: sub[T], trace.OpMul: mul[T],
		trace.OpFloorDiv: floorDivInt[T], trace.OpRem: remInt[T], trace.OpPow: powInt[T],
		trace.OpMax: maxOrd[T], trace.OpMin: minOrd[T],
		trace.OpAnd: and[T], trace.OpOr: or[T], trace.OpXor: xor[T], trace.OpShl: shl[T], trace.OpShr: shr[T],
	} {
		binaryTable[op][d] = bin(f)
	}
	for op, f := range map[trace.Op]func(d []bool, a, b []T){
		trace.OpLt: lt[T], trace.OpLe: le[T], trace.OpGt: gt[T], trace.OpGe: ge[T],
	} {
		binaryTable[op][d] = bin(f)
	}
	unaryTable[trace.OpNeg][d] = un(neg[T])
	unaryTable[trace.OpNot][d] = un(not[T])
	unaryTable[trace.OpIsNaN][d] = un(falses[T])
	unaryTable[trace.OpIsFinite][d] = un(trues[T])
}

func registerSigned[T signed](d tensor.DType) {
	registerInteger[T](d)
	unaryTable[trace.OpAbs][d] = un(absInt[T])
	unaryTable[trace.OpSign][d] = un(signInt[T])
}

func registerUnsigned[T unsigned](d tensor.DType) {
	registerInteger[T](d)
	unaryTable[trace.OpAbs][d] = un(identity[T])
	unaryTable[trace.OpSign][d] = un(signUint[T])
}

func registerFloat[T float](d tensor.DType) {
	registerCommon[T](d)
	for op, f := range map[trace.Op]func(d, a, b []T){
		trace.OpAdd: add[T], trace.OpSub: sub[T], trace.OpMul: mul[T], trace.OpDiv: div[T],
		trace.OpFloorDiv: floorDivFloat[T], trace.OpRem: remFloat[T], trace.OpPow: powFloat[T],
		trace.OpMax: maxFloat[T], trace.OpMin: minFloat[T],
	} {
		binaryTable[op][d] = bin(f)
	}
	for op, f := range map[trace.Op]func(d []bool, a, b []T){
		trace.OpLt: lt[T], trace.OpLe: le[T], trace.OpGt: gt[T], trace.OpGe: ge[T],
	} {
		binaryTable[op][d] = bin(f)
	}
	unaryTable[trace.OpNeg][d] = un(neg[T])
	for op, f := range map[trace.Op]func(float64) float64{
		trace.OpAbs: math.Abs, trace.OpSign: signFloat, trace.OpSqrt: math.Sqrt,
		trace.OpFloor: math.Floor, trace.OpCeil: math.Ceil, trace.OpRound: math.RoundToEven,
	} {
		unaryTable[op][d] = un(mathUn[T](f))
	}
	for op, f := range scalarMath {
		unaryTable[op][d] = un(mathUn[T](f))
	}
	unaryTable[trace.OpIsNaN][d] = un(isNaN[T])
	unaryTable[trace.OpIsFinite][d] = un(isFinite[T])
}

func registerBool() {
	d := tensor.Bool
	registerCommon[bool](d)
	binaryTable[trace.OpAdd][d] = bin(orBool)
	binaryTable[trace.OpMul][d] = bin(andBool)
	binaryTable[trace.OpMax][d] = bin(orBool)
	binaryTable[trace.OpMin][d] = bin(andBool)
	binaryTable[trace.OpAnd][d] = bin(andBool)
	binaryTable[trace.OpOr][d] = bin(orBool)
	binaryTable[trace.OpXor][d] = bin(xorBool)
	binaryTable[trace.OpLt][d] = bin(ltBool)
	binaryTable[trace.OpLe][d] = bin(leBool)
	binaryTable[trace.OpGt][d] = bin(gtBool)
	binaryTable[trace.OpGe][d] = bin(geBool)
	unaryTable[trace.OpNot][d] = un(notBool)
	unaryTable[trace.OpAbs][d] = un(identity[bool])
	unaryTable[trace.OpIsNaN][d] = un(falses[bool])
	unaryTable[trace.OpIsFinite][d] = un(trues[bool])
}

// scalarMath holds the float64 functions the CPU backend evaluates
// transcendental ops with, element by element (f32, f16 and bf16 compute
// them in float64 and round). Those with vectorized kernels (vectorMath)
// are overridden by them. log1p is package math's fdlibm port, within 1
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
	if fs, ok := vectorMath[op]; ok {
		if d == tensor.F64 {
			var out [1]float64
			fs.f64(out[:], []float64{x})
			return out[0]
		}
		var out [1]float32
		fs.f32(out[:], []float32{float32(x)})
		return float64(out[0])
	}
	if f, ok := scalarMath[op]; ok {
		return f(x)
	}
	return math.NaN()
}
