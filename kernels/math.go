package kernels

import (
	"math"
	"math/cmplx"

	"github.com/kiln-go/kiln/internal/xmath"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The math ops of trace/math.go on the CPU. Transcendental functions of f64
// are internal/xmath's double-double versions (correctly rounded but for
// rare arguments; package math is up to 25 ulps off for some); f32, f16
// and bf16 compute package math's float64 function and round, which is
// within ½ ulp plus a part in 2**28 of their precision, and ten to fifty
// times faster than double-double.

// mathFuncs32 and mathFuncs64 are the float64 functions the CPU backend
// computes the unary math ops with, for f32-computed dtypes and for f64.
var (
	mathFuncs32 = map[trace.Op]func(float64) float64{
		trace.OpAsin: math.Asin, trace.OpAcos: math.Acos, trace.OpAtan: math.Atan,
		trace.OpSinh: math.Sinh, trace.OpCosh: math.Cosh, trace.OpAsinh: math.Asinh,
		trace.OpAcosh: math.Acosh, trace.OpAtanh: math.Atanh, trace.OpExp2: math.Exp2,
		trace.OpLog2: math.Log2, trace.OpLog10: math.Log10, trace.OpCbrt: math.Cbrt,
		trace.OpErf: math.Erf, trace.OpErfc: math.Erfc, trace.OpErfInv: math.Erfinv,
	}
	mathFuncs64 = map[trace.Op]func(float64) float64{
		trace.OpAsin: xmath.Asin, trace.OpAcos: xmath.Acos, trace.OpAtan: xmath.Atan,
		trace.OpSinh: xmath.Sinh, trace.OpCosh: xmath.Cosh, trace.OpAsinh: xmath.Asinh,
		trace.OpAcosh: xmath.Acosh, trace.OpAtanh: xmath.Atanh, trace.OpExp2: xmath.Exp2,
		trace.OpLog2: xmath.Log2, trace.OpLog10: xmath.Log10, trace.OpCbrt: xmath.Cbrt,
		trace.OpErf: xmath.Erf, trace.OpErfc: xmath.Erfc, trace.OpErfInv: xmath.Erfinv,
	}
	// The binary transcendentals, by the same split.
	mathFuncs2 = map[trace.Op][2]func(x, y float64) float64{
		trace.OpAtan2: {math.Atan2, xmath.Atan2},
		trace.OpHypot: {math.Hypot, xmath.Hypot},
	}
)

// complexMath are the math ops on complex128 that math/cmplx has or
// composes.
var complexMath = map[trace.Op]func(complex128) complex128{
	trace.OpAsin: cmplx.Asin, trace.OpAcos: cmplx.Acos, trace.OpAtan: cmplx.Atan,
	trace.OpSinh: cmplx.Sinh, trace.OpCosh: cmplx.Cosh, trace.OpAsinh: cmplx.Asinh,
	trace.OpAcosh: cmplx.Acosh, trace.OpAtanh: cmplx.Atanh,
	trace.OpExp2: func(z complex128) complex128 { return cmplx.Exp(complex(real(z)*math.Ln2, imag(z)*math.Ln2)) },
	trace.OpLog2: func(z complex128) complex128 {
		w := cmplx.Log(z)
		return complex(math.Log2E*real(w), math.Log2E*imag(w))
	},
	trace.OpLog10: cmplx.Log10,
}

// mathFunc is the float64 function of a unary math op at dtype d.
func mathFunc(op trace.Op, d tensor.DType) (func(float64) float64, bool) {
	if d == tensor.F64 {
		f, ok := mathFuncs64[op]
		return f, ok
	}
	f, ok := mathFuncs32[op]
	return f, ok
}

func registerMath() {
	registerMathFloat[float32](tensor.F32)
	registerMathFloat[float32](tensor.F16)
	registerMathFloat[float32](tensor.BF16)
	registerMathFloat[float64](tensor.F64)
	registerMathInt[int8](tensor.I8)
	registerMathInt[int16](tensor.I16)
	registerMathInt[int32](tensor.I32)
	registerMathInt[int64](tensor.I64)
	registerMathInt[uint8](tensor.U8)
	registerMathInt[uint16](tensor.U16)
	registerMathInt[uint32](tensor.U32)
	registerMathInt[uint64](tensor.U64)
	registerMathComplex[complex64, float32](tensor.C64)
	registerMathComplex[complex128, float64](tensor.C128)
	for _, op := range []trace.Op{trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf} {
		put(&unaryTable[op][tensor.Bool], tierGeneric, un(falses[bool]))
	}
}

func registerMathFloat[T float](d tensor.DType) {
	for op := range mathFuncs32 {
		f, _ := mathFunc(op, d)
		put(&unaryTable[op][d], tierGeneric, un(mathUn[T](f)))
	}
	for op, fs := range mathFuncs2 {
		f := fs[0]
		if d == tensor.F64 {
			f = fs[1]
		}
		put(&binaryTable[op][d], tierGeneric, bin(mathBin[T](f)))
	}
	put(&binaryTable[trace.OpFmod][d], tierGeneric, bin(mathBin[T](math.Mod))) // exact: fmodf too
	put(&binaryTable[trace.OpCopysign][d], tierGeneric, bin(mathBin[T](math.Copysign)))
	switch d {
	case tensor.F16, tensor.BF16:
		put(&binaryTable[trace.OpNextafter][d], tierGeneric, bin(nextafterHalf(d)))
	default:
		put(&binaryTable[trace.OpNextafter][d], tierGeneric, bin(nextafterFloat[T]))
	}
	put(&unaryTable[trace.OpIsInf][d], tierGeneric, un(isInf[T](0)))
	put(&unaryTable[trace.OpIsPosInf][d], tierGeneric, un(isInf[T](1)))
	put(&unaryTable[trace.OpIsNegInf][d], tierGeneric, un(isInf[T](-1)))
}

func registerMathInt[T integer](d tensor.DType) {
	put(&binaryTable[trace.OpFmod][d], tierGeneric, bin(fmodInt[T]))
	for _, op := range []trace.Op{trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf} {
		put(&unaryTable[op][d], tierGeneric, un(falses[T]))
	}
}

func registerMathComplex[T cplx, F float](d tensor.DType) {
	for op, f := range complexMath {
		put(&unaryTable[op][d], tierGeneric, un(mapC(func(z T) T { return T(f(complex128(z))) })))
	}
	put(&unaryTable[trace.OpIsInf][d], tierGeneric, un(mapC(func(z T) bool {
		re, im := parts[T, F](z)
		return math.IsInf(float64(re), 0) || math.IsInf(float64(im), 0)
	})))
}

func mathBin[T float](f func(x, y float64) float64) func(d, a, b []T) {
	return func(d, a, b []T) {
		for i := range d {
			d[i] = T(f(float64(a[i]), float64(b[i])))
		}
	}
}

func isInf[T float](sign int) func(d []bool, a []T) {
	return func(d []bool, a []T) {
		for i := range d {
			d[i] = math.IsInf(float64(a[i]), sign)
		}
	}
}

// nextafterFloat is C99's (and NumPy's) nextafter: y when x == y, so
// nextafter(+0, −0) is −0 (Go's math.Nextafter returns x there).
func nextafterFloat[T float](d, a, b []T) {
	var zero T
	_, f32 := any(zero).(float32)
	for i := range d {
		x, y := a[i], b[i]
		switch {
		case x == y:
			d[i] = y
		case f32:
			d[i] = T(math.Nextafter32(float32(x), float32(y)))
		default:
			d[i] = T(math.Nextafter(float64(x), float64(y)))
		}
	}
}

// nextafterHalf steps f16 or bf16 values, held as float32 in the loop, in
// their own format: the result is exact in float32, so the rounding after
// the op leaves it as it is.
func nextafterHalf(d tensor.DType) func(dst, a, b []float32) {
	toBits, fromBits := func(x float32) uint16 { return uint16(tensor.Float32ToF16(x)) }, func(u uint16) float32 { return tensor.Float16FromBits(u).Float32() }
	if d == tensor.BF16 {
		toBits = func(x float32) uint16 { return tensor.BFloat16FromFloat32(x).Bits() }
		fromBits = func(u uint16) float32 { return tensor.BFloat16FromBits(u).Float32() }
	}
	return func(dst, a, b []float32) {
		for i := range dst {
			x, y := a[i], b[i]
			switch {
			case x != x || y != y:
				dst[i] = x + y
			case x == y:
				dst[i] = y
			case x == 0:
				dst[i] = fromBits(1 | toBits(y)&0x8000)
			case (x < y) == (x > 0):
				dst[i] = fromBits(toBits(x) + 1)
			default:
				dst[i] = fromBits(toBits(x) - 1)
			}
		}
	}
}

// fmodInt is C's % on integers (the sign of x), 0 for a zero divisor.
func fmodInt[T integer](d, a, b []T) {
	for i := range d {
		if b[i] == 0 {
			d[i] = 0
			continue
		}
		d[i] = a[i] % b[i]
	}
}
