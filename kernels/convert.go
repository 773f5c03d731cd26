package kernels

import (
	"math/bits"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
)

// Converts between compute blocks. f16 and bf16 are held as f32, so a
// convert to them is a convert to f32 followed by rounding — which is exact
// in one step only when the source value is exact in f32 (or, for f16, when
// f32 rounding cannot change which f16 the value rounds to: every integer
// beyond 2^24 overflows f16 anyway). The other sources (f64, complex128 and
// wide integers into bf16) go through tensor.ConvertSlice, which rounds
// from the exact value once.

// convertTable[from][to] converts compute blocks; from and to are compute
// dtypes (never f16 or bf16).
var convertTable [tensor.NumDTypes][tensor.NumDTypes]unaryFn

type realNum interface{ integer | float }

func cvtReal[S, D realNum](d []D, s []S) {
	for i, v := range s {
		d[i] = D(v)
	}
}

func cvtFloatToInt[S float, D integer](d []D, s []S) {
	for i, v := range s {
		d[i] = tensor.FloatToInt[D](float64(v))
	}
}

func cvtToBool[S number](d []bool, s []S) {
	for i, v := range s {
		d[i] = v != 0
	}
}

func cvtFromBool[D number](d []D, s []bool) {
	for i, v := range s {
		var x D
		if v {
			x = 1
		}
		d[i] = x
	}
}

func cvtRealToComplex[S realNum, D cplx, R float](d []D, s []S) {
	for i, v := range s {
		d[i] = D(complex(float64(R(v)), 0)) // one rounding, to R; widening R is exact
	}
}

func cvtComplex[S, D cplx](d []D, s []S) {
	for i, v := range s {
		d[i] = D(v)
	}
}

// registerConvertFrom registers conversions from real type S: to
// integers by wraparound from integers (registerIntToInt) or truncation
// and saturation from floats (registerFloatToInt), registered by the
// caller, and to the other types here.
func registerConvertFrom[S realNum](from tensor.DType) {
	t := &convertTable[from]
	put(&t[tensor.F32], tierGeneric, un(cvtReal[S, float32]))
	put(&t[tensor.F64], tierGeneric, un(cvtReal[S, float64]))
	put(&t[tensor.C64], tierGeneric, un(cvtRealToComplex[S, complex64, float32]))
	put(&t[tensor.C128], tierGeneric, un(cvtRealToComplex[S, complex128, float64]))
	put(&t[tensor.Bool], tierGeneric, un(cvtToBool[S]))
}

// registerIntToInt registers integer S's wrapping conversions to every
// integer type.
func registerIntToInt[S integer](from tensor.DType) {
	t := &convertTable[from]
	put(&t[tensor.U8], tierGeneric, un(cvtReal[S, uint8]))
	put(&t[tensor.U16], tierGeneric, un(cvtReal[S, uint16]))
	put(&t[tensor.U32], tierGeneric, un(cvtReal[S, uint32]))
	put(&t[tensor.U64], tierGeneric, un(cvtReal[S, uint64]))
	put(&t[tensor.I8], tierGeneric, un(cvtReal[S, int8]))
	put(&t[tensor.I16], tierGeneric, un(cvtReal[S, int16]))
	put(&t[tensor.I32], tierGeneric, un(cvtReal[S, int32]))
	put(&t[tensor.I64], tierGeneric, un(cvtReal[S, int64]))
}

// registerFloatToInt registers float S's truncating, saturating
// conversions to every integer type.
func registerFloatToInt[S float](from tensor.DType) {
	t := &convertTable[from]
	put(&t[tensor.U8], tierGeneric, un(cvtFloatToInt[S, uint8]))
	put(&t[tensor.U16], tierGeneric, un(cvtFloatToInt[S, uint16]))
	put(&t[tensor.U32], tierGeneric, un(cvtFloatToInt[S, uint32]))
	put(&t[tensor.U64], tierGeneric, un(cvtFloatToInt[S, uint64]))
	put(&t[tensor.I8], tierGeneric, un(cvtFloatToInt[S, int8]))
	put(&t[tensor.I16], tierGeneric, un(cvtFloatToInt[S, int16]))
	put(&t[tensor.I32], tierGeneric, un(cvtFloatToInt[S, int32]))
	put(&t[tensor.I64], tierGeneric, un(cvtFloatToInt[S, int64]))
}

func cvtComplexTo[S cplx, D integer](d []D, s []S) {
	for i, v := range s {
		d[i] = tensor.FloatToInt[D](real(complex128(v)))
	}
}

func cvtComplexToFloat[S cplx, D float](d []D, s []S) {
	for i, v := range s {
		d[i] = D(real(complex128(v)))
	}
}

func registerConvertFromComplex[S cplx](from tensor.DType) {
	t := &convertTable[from]
	put(&t[tensor.U8], tierGeneric, un(cvtComplexTo[S, uint8]))
	put(&t[tensor.U16], tierGeneric, un(cvtComplexTo[S, uint16]))
	put(&t[tensor.U32], tierGeneric, un(cvtComplexTo[S, uint32]))
	put(&t[tensor.U64], tierGeneric, un(cvtComplexTo[S, uint64]))
	put(&t[tensor.I8], tierGeneric, un(cvtComplexTo[S, int8]))
	put(&t[tensor.I16], tierGeneric, un(cvtComplexTo[S, int16]))
	put(&t[tensor.I32], tierGeneric, un(cvtComplexTo[S, int32]))
	put(&t[tensor.I64], tierGeneric, un(cvtComplexTo[S, int64]))
	put(&t[tensor.F32], tierGeneric, un(cvtComplexToFloat[S, float32]))
	put(&t[tensor.F64], tierGeneric, un(cvtComplexToFloat[S, float64]))
	put(&t[tensor.C64], tierGeneric, un(cvtComplex[S, complex64]))
	put(&t[tensor.C128], tierGeneric, un(cvtComplex[S, complex128]))
	put(&t[tensor.Bool], tierGeneric, un(cvtToBool[S]))
}

func registerConvertFromBool() {
	t := &convertTable[tensor.Bool]
	put(&t[tensor.U8], tierGeneric, un(cvtFromBool[uint8]))
	put(&t[tensor.U16], tierGeneric, un(cvtFromBool[uint16]))
	put(&t[tensor.U32], tierGeneric, un(cvtFromBool[uint32]))
	put(&t[tensor.U64], tierGeneric, un(cvtFromBool[uint64]))
	put(&t[tensor.I8], tierGeneric, un(cvtFromBool[int8]))
	put(&t[tensor.I16], tierGeneric, un(cvtFromBool[int16]))
	put(&t[tensor.I32], tierGeneric, un(cvtFromBool[int32]))
	put(&t[tensor.I64], tierGeneric, un(cvtFromBool[int64]))
	put(&t[tensor.F32], tierGeneric, un(cvtFromBool[float32]))
	put(&t[tensor.F64], tierGeneric, un(cvtFromBool[float64]))
	put(&t[tensor.C64], tierGeneric, un(cvtFromBool[complex64]))
	put(&t[tensor.C128], tierGeneric, un(cvtFromBool[complex128]))
	put(&t[tensor.Bool], tierGeneric, un(identity[bool]))
}

// registerConversions fills convertTable with the generic Go loops, at
// tierGeneric.
func registerConversions() {
	registerConvertFrom[uint8](tensor.U8)
	registerConvertFrom[uint16](tensor.U16)
	registerConvertFrom[uint32](tensor.U32)
	registerConvertFrom[uint64](tensor.U64)
	registerConvertFrom[int8](tensor.I8)
	registerConvertFrom[int16](tensor.I16)
	registerConvertFrom[int32](tensor.I32)
	registerConvertFrom[int64](tensor.I64)
	registerConvertFrom[float32](tensor.F32)
	registerConvertFrom[float64](tensor.F64)
	registerIntToInt[uint8](tensor.U8)
	registerIntToInt[uint16](tensor.U16)
	registerIntToInt[uint32](tensor.U32)
	registerIntToInt[uint64](tensor.U64)
	registerIntToInt[int8](tensor.I8)
	registerIntToInt[int16](tensor.I16)
	registerIntToInt[int32](tensor.I32)
	registerIntToInt[int64](tensor.I64)
	registerFloatToInt[float32](tensor.F32)
	registerFloatToInt[float64](tensor.F64)
	registerConvertFromComplex[complex64](tensor.C64)
	registerConvertFromComplex[complex128](tensor.C128)
	registerConvertFromBool()
}

// exactInF32 reports whether every value of d is exactly a float32.
func exactInF32(d tensor.DType) bool {
	if d.IsNarrow() {
		return true
	}
	switch d {
	case tensor.Bool, tensor.U8, tensor.U16, tensor.I8, tensor.I16, tensor.F16, tensor.BF16, tensor.F32, tensor.C64:
		return true
	}
	return false
}

// convertFn returns the block convert from dtype from to dtype to, both
// given as storage dtypes, operating on compute blocks.
func convertFn(from, to tensor.DType) unaryFn {
	if to.IsNarrow() {
		return convertToNarrow(from, to)
	}
	cf, ct := computeDType(from), computeDType(to)
	if to != tensor.F16 && to != tensor.BF16 {
		if cf == ct {
			return copyFn(cf)
		}
		return convertTable[cf][ct]
	}
	if from == tensor.Bool || from == tensor.U8 || from == tensor.I8 {
		// Exact in f16 and bf16 too: nothing to round.
		return convertTable[cf][tensor.F32]
	}
	if exactInF32(from) || (to == tensor.F16 && from.IsInteger()) {
		toF32 := copyFn(tensor.F32)
		if cf != tensor.F32 {
			toF32 = convertTable[cf][tensor.F32]
		}
		round := roundFn(to)
		return func(d, s unsafe.Pointer, n int) {
			toF32(d, s, n)
			round(d, n)
		}
	}
	// One correctly rounded step from the exact source value: float64 holds
	// every f64, f32, 32-bit integer and complex real part exactly.
	narrow := func(x float64) float32 { return tensor.Float64ToF16(x).Float32() }
	if to == tensor.BF16 {
		narrow = func(x float64) float32 { return tensor.Float64ToBF16(x).Float32() }
	}
	switch cf {
	case tensor.F64:
		return halfFrom(narrow, func(v float64) float64 { return v })
	case tensor.I32:
		return halfFrom(narrow, func(v int32) float64 { return float64(v) })
	case tensor.U32:
		return halfFrom(narrow, func(v uint32) float64 { return float64(v) })
	case tensor.C64:
		return halfFrom(narrow, func(v complex64) float64 { return float64(real(v)) })
	case tensor.C128:
		return halfFrom(narrow, func(v complex128) float64 { return real(v) })
	}
	// 64-bit integers beyond 2**53 would round twice through float64; to
	// f16 they are exact in f32 or overflow (handled above), to bf16 they
	// are rounded once on the integer.
	switch cf {
	case tensor.I64:
		return mapTo(i64ToBF16)
	case tensor.U64:
		return mapTo(u64ToBF16)
	}
	panic("kernels: no conversion from " + from.String() + " to " + to.String())
}

// u64ToBF16 is u rounded once to bf16 (8 significant bits, ties to even),
// as an f32.
func u64ToBF16(u uint64) float32 {
	if u < 1<<24 {
		return tensor.Float64ToBF16(float64(u)).Float32() // exact in float64
	}
	shift := bits.Len64(u) - 8
	m, rest, half := u>>shift, u&(1<<shift-1), uint64(1)<<(shift-1)
	if rest > half || rest == half && m&1 == 1 {
		m++ // may carry to 2**8: still exact below
	}
	return float32(m) * float32(uint64(1)<<shift) // exact: both are short in float32
}

// i64ToBF16 is v rounded once to bf16, as an f32.
func i64ToBF16(v int64) float32 {
	if v < 0 {
		return -u64ToBF16(uint64(-v)) // uint64(−MinInt64) is 2**63
	}
	return u64ToBF16(uint64(v))
}

// mapTo applies f to a block of S, storing f32.
func mapTo[S any](f func(S) float32) unaryFn {
	return func(d, s unsafe.Pointer, n int) {
		src, out := view[S](s, n), view[float32](d, n)
		for i, v := range src {
			out[i] = f(v)
		}
	}
}

// halfFrom converts a block of S exactly to float64 (wide), rounds it once
// to f16 or bf16 and stores the result as f32, the compute form of those
// dtypes (narrow does both). It allocates nothing.
func halfFrom[S any](narrow func(float64) float32, wide func(S) float64) unaryFn {
	return mapTo(func(v S) float32 { return narrow(wide(v)) })
}

// copyFn copies a compute block of dtype d.
func copyFn(d tensor.DType) unaryFn {
	size := uintptr(computeDType(d).Size())
	return func(dst, src unsafe.Pointer, n int) {
		if dst != src {
			copy(view[byte](dst, n*int(size)), view[byte](src, n*int(size)))
		}
	}
}

// convertToNarrow is the block convert to a narrow dtype, in one correct
// step from the source value as tensor.ConvertSlice does: a narrow float
// is rounded once with its format's rules (from f32 when the source is
// exact there, else from float64 or from the integer itself); a sub-byte
// integer takes an integer's low bits (int → int wraps) and a float's
// truncation, saturated to its range (NaN → 0).
func convertToNarrow(from, to tensor.DType) unaryFn {
	cf, ct := computeDType(from), computeDType(to)
	if f, ok := to.FloatFormat(); ok {
		if exactInF32(from) {
			toF32 := copyFn(tensor.F32)
			if cf != tensor.F32 {
				toF32 = convertTable[cf][tensor.F32]
			}
			round := roundFn(to)
			return func(d, s unsafe.Pointer, n int) {
				toF32(d, s, n)
				round(d, n)
			}
		}
		r64 := func(x float64) float32 { return f.ToFloat32(f.FromFloat64(x)) }
		switch cf {
		case tensor.F64:
			return mapTo(r64)
		case tensor.I32:
			return mapTo(func(v int32) float32 { return r64(float64(v)) })
		case tensor.U32:
			return mapTo(func(v uint32) float32 { return r64(float64(v)) })
		case tensor.I64:
			return mapTo(func(v int64) float32 { return f.ToFloat32(f.FromInt64(v)) })
		case tensor.U64:
			return mapTo(func(v uint64) float32 { return f.ToFloat32(f.FromUint64(v)) })
		case tensor.C128:
			return mapTo(func(v complex128) float32 { return r64(real(v)) })
		}
		panic("kernels: no conversion from " + from.String() + " to " + to.String())
	}
	fi, _ := to.IntFormat()
	if from == tensor.Bool || from.IsInteger() {
		wide := copyFn(ct)
		if cf != ct {
			wide = convertTable[cf][ct]
		}
		round := roundFn(to)
		return func(d, s unsafe.Pointer, n int) {
			wide(d, s, n)
			round(d, n)
		}
	}
	sat := func(x float64) uint8 { return uint8(fi.Int64(fi.FromFloat64(x))) }
	switch cf {
	case tensor.F32:
		return mapToByte(func(v float32) uint8 { return sat(float64(v)) })
	case tensor.F64:
		return mapToByte(sat)
	case tensor.C64:
		return mapToByte(func(v complex64) uint8 { return sat(float64(real(v))) })
	case tensor.C128:
		return mapToByte(func(v complex128) uint8 { return sat(real(v)) })
	}
	panic("kernels: no conversion from " + from.String() + " to " + to.String())
}

// mapToByte applies f to a block of S, storing bytes (a sub-byte
// integer's i8/u8 compute form).
func mapToByte[S any](f func(S) uint8) unaryFn {
	return func(d, s unsafe.Pointer, n int) {
		src, out := view[S](s, n), view[uint8](d, n)
		for i, v := range src {
			out[i] = f(v)
		}
	}
}
