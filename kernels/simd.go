package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The hot dtypes run on internal/simd's kernels (AVX-512 or AVX2 when the
// CPU has them, pure Go otherwise). Each gives exactly the bits of the
// generic loop it replaces — that package's twin tests hold it to it, and
// the conformance suite runs both — so the tables below only swap speed.

func simd2[T any](f func(d, a, b []T)) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[T](d, n), view[T](a, n), view[T](b, n)) }
}

func simd1[T, U any](f func(d []U, a []T)) unaryFn {
	return func(d, a unsafe.Pointer, n int) { f(view[U](d, n), view[T](a, n)) }
}

func simdCmp[T any](f func(d []bool, a, b []T, p simd.Pred), p simd.Pred) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[bool](d, n), view[T](a, n), view[T](b, n), p) }
}

func simdSel[T any](f func(d []T, c []bool, a, b []T)) selectFn {
	return func(d, c, a, b unsafe.Pointer, n int) {
		f(view[T](d, n), view[bool](c, n), view[T](a, n), view[T](b, n))
	}
}

// scalarFn computes dst = a op s (or s op a) with s read from *s.
type scalarFn func(dst, a, s unsafe.Pointer, n int)

// scalarTable[op][d][rev]: binary ops with one loop-invariant operand;
// rev means the invariant operand is the left one.
var scalarTable [trace.NumOps][tensor.NumDTypes][2]scalarFn

// widenOpTable[op][d]: a wrapping byte op whose result is widened to f32
// in the same pass (see fuseIntWiden).
var widenOpTable [trace.NumOps][tensor.NumDTypes]binaryFn

func simdWiden[T any](f func(d []float32, a, b []T)) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[float32](d, n), view[T](a, n), view[T](b, n)) }
}

func simdScalar[T any](f func(d, a []T, s T)) scalarFn {
	return func(d, a, s unsafe.Pointer, n int) { f(view[T](d, n), view[T](a, n), *(*T)(s)) }
}

func init() {
	for _, d := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
		registerSIMDFloat(d, simd.AddF32, simd.SubF32, simd.MulF32, simd.DivF32, simd.MaxF32, simd.MinF32, simd.SqrtF32, simd.CmpF32)
		registerSIMDScalar(d, simd.AddScalarF32, simd.SubScalarF32, simd.SubScalarRevF32, simd.MulScalarF32, simd.DivScalarF32, simd.DivScalarRevF32)
	}
	registerSIMDFloat(tensor.F64, simd.AddF64, simd.SubF64, simd.MulF64, simd.DivF64, simd.MaxF64, simd.MinF64, simd.SqrtF64, simd.CmpF64)
	registerSIMDScalar(tensor.F64, simd.AddScalarF64, simd.SubScalarF64, simd.SubScalarRevF64, simd.MulScalarF64, simd.DivScalarF64, simd.DivScalarRevF64)

	// Wrapping integer arithmetic is the same bits for signed and unsigned.
	registerSIMDInt[int8](simd.AddI8, simd.SubI8, simd.MulI8, tensor.I8, tensor.U8)
	registerSIMDInt[int16](simd.AddI16, simd.SubI16, simd.MulI16, tensor.I16, tensor.U16)
	registerSIMDInt[int32](simd.AddI32, simd.SubI32, simd.MulI32, tensor.I32, tensor.U32)
	registerSIMDInt[int64](simd.AddI64, simd.SubI64, simd.MulI64, tensor.I64, tensor.U64)

	for _, d := range tensor.AllDTypes() {
		switch computeDType(d).Size() {
		case 1:
			selectTable[d] = simdSel(simd.Select8)
		case 2:
			selectTable[d] = simdSel(simd.Select16)
		case 4:
			selectTable[d] = simdSel(simd.Select32)
		case 8:
			selectTable[d] = simdSel(simd.Select64)
		}
	}

	for op, fs := range vectorMath {
		for _, d := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
			unaryTable[op][d] = simd1(fs.f32)
		}
		unaryTable[op][tensor.F64] = simd1(fs.f64)
	}

	for op, fs := range map[trace.Op][2]binaryFn{
		trace.OpAdd: {simdWiden(simd.AddI8ToF32), simdWiden(simd.AddU8ToF32)},
		trace.OpSub: {simdWiden(simd.SubI8ToF32), simdWiden(simd.SubU8ToF32)},
		trace.OpMul: {simdWiden(simd.MulI8ToF32), simdWiden(simd.MulU8ToF32)},
	} {
		widenOpTable[op][tensor.I8], widenOpTable[op][tensor.U8] = fs[0], fs[1]
	}

	convertTable[tensor.I8][tensor.F32] = simd1(simd.I8ToF32)
	convertTable[tensor.U8][tensor.F32] = simd1(simd.U8ToF32)
	convertTable[tensor.I16][tensor.F32] = simd1(simd.I16ToF32)
	convertTable[tensor.U16][tensor.F32] = simd1(simd.U16ToF32)
	convertTable[tensor.I32][tensor.F32] = simd1(simd.I32ToF32)
	convertTable[tensor.I32][tensor.F64] = simd1(simd.I32ToF64)
	convertTable[tensor.F32][tensor.F64] = simd1(simd.F32ToF64)
	convertTable[tensor.F64][tensor.F32] = simd1(simd.F64ToF32)
}

func registerSIMDFloat[T any](d tensor.DType, add, sub, mul, div, mx, mn func(d, a, b []T), sqrt func(d, a []T), cmp func(d []bool, a, b []T, p simd.Pred)) {
	binaryTable[trace.OpAdd][d] = simd2(add)
	binaryTable[trace.OpSub][d] = simd2(sub)
	binaryTable[trace.OpMul][d] = simd2(mul)
	binaryTable[trace.OpDiv][d] = simd2(div)
	binaryTable[trace.OpMax][d] = simd2(mx)
	binaryTable[trace.OpMin][d] = simd2(mn)
	unaryTable[trace.OpSqrt][d] = simd1(sqrt)
	for op, p := range map[trace.Op]simd.Pred{trace.OpEq: simd.Eq, trace.OpNe: simd.Ne, trace.OpLt: simd.Lt, trace.OpLe: simd.Le, trace.OpGt: simd.Gt, trace.OpGe: simd.Ge} {
		binaryTable[op][d] = simdCmp(cmp, p)
	}
}

func registerSIMDScalar[T any](d tensor.DType, add, sub, subRev, mul, div, divRev func(d, a []T, s T)) {
	scalarTable[trace.OpAdd][d] = [2]scalarFn{simdScalar(add), simdScalar(add)}
	scalarTable[trace.OpMul][d] = [2]scalarFn{simdScalar(mul), simdScalar(mul)}
	scalarTable[trace.OpSub][d] = [2]scalarFn{simdScalar(sub), simdScalar(subRev)}
	scalarTable[trace.OpDiv][d] = [2]scalarFn{simdScalar(div), simdScalar(divRev)}
}

func registerSIMDInt[T any](add, sub, mul func(d, a, b []T), ds ...tensor.DType) {
	for _, d := range ds {
		binaryTable[trace.OpAdd][d] = simd2(add)
		binaryTable[trace.OpSub][d] = simd2(sub)
		binaryTable[trace.OpMul][d] = simd2(mul)
	}
}

func init() {
	// f16 and bf16 blocks move between storage and compute form, and round,
	// with the vector conversions (F16C on amd64).
	widenF16Fn = simd1(simd.F16ToF32)
	widenBF16Fn = simd1(simd.BF16ToF32)
	narrowF16Fn = simd1(simd.F32ToF16)
	narrowBF16Fn = simd1(simd.F32ToBF16)
	roundF16Fn = func(p unsafe.Pointer, n int) { simd.RoundF16(view[float32](p, n)) }
	roundBF16Fn = func(p unsafe.Pointer, n int) { simd.RoundBF16(view[float32](p, n)) }
}

// vectorMath are the transcendental functions with vectorized kernels
// (f16 and bf16 compute in f32); the others (log1p, expm1, tan, rsqrt,
// pow) evaluate scalarMath's float64 functions (package math, or
// internal/xmath where math misses docs/SPEC.md §3's 1 ulp). The f64 kernels are
// also more accurate than Go's math on amd64, whose Exp overflows early
// and whose Log is wrong on subnormals.
var vectorMath = map[trace.Op]struct {
	f32 func(d, x []float32)
	f64 func(d, x []float64)
}{
	trace.OpExp:      {simd.ExpF32, simd.ExpF64},
	trace.OpLog:      {simd.LogF32, simd.LogF64},
	trace.OpTanh:     {simd.TanhF32, simd.TanhF64},
	trace.OpLogistic: {simd.LogisticF32, simd.LogisticF64},
	trace.OpSin:      {simd.SinF32, simd.SinF64},
	trace.OpCos:      {simd.CosF32, simd.CosF64},
}
