package tensor

import (
	"fmt"
	"math"
	"strconv"
)

// Conversions follow docs/SPEC.md §3:
//   - int → int wraps (two's complement truncation);
//   - int → float rounds to nearest even, correctly (i64 → bf16 does not
//     go through f32);
//   - float → int truncates toward zero and saturates to the target's
//     range; NaN → 0 (XLA's choice);
//   - float → narrower float rounds to nearest even, correctly;
//   - complex → real keeps the real part (as NumPy, which warns);
//     real → complex has imaginary part 0;
//   - anything → bool is x != 0 (NaN → true); bool → number is 0 or 1.
//
// ConvertSlice runs in blocks through one exact intermediate per source
// kind (int64, uint64, float64 or complex128), each pass a typed loop.

const convBlock = 256

type signedInt interface{ int8 | int16 | int32 | int64 }
type unsignedInt interface {
	uint8 | uint16 | uint32 | uint64
}
type integer interface{ signedInt | unsignedInt }
type goFloat interface{ float32 | float64 }

// ConvertSlice converts src into dst, element by element. Both must be
// slices of the 30 storage types with the same length; dst may not alias
// src unless they are the same slice of the same type.
func ConvertSlice(dst, src any) error {
	dd, ok1 := sliceDType(dst)
	sd, ok2 := sliceDType(src)
	if !ok1 || !ok2 {
		return fmt.Errorf("tensor: ConvertSlice: %T → %T: not Kiln storage slices", src, dst)
	}
	n := sliceLen(src)
	if sliceLen(dst) != n {
		return fmt.Errorf("tensor: ConvertSlice: %s[%d] → %s[%d]: lengths differ", sd, n, dd, sliceLen(dst))
	}
	if dd == sd {
		copySlice(dst, src)
		return nil
	}
	var ib [convBlock]int64
	var ub [convBlock]uint64
	var fb [convBlock]float64
	var cb [convBlock]complex128
	for lo := 0; lo < n; lo += convBlock {
		hi := min(lo+convBlock, n)
		m := hi - lo
		switch readBlock(src, lo, hi, ib[:m], ub[:m], fb[:m], cb[:m]) {
		case viaInt:
			writeFromInt(dst, lo, ib[:m])
		case viaUint:
			writeFromUint(dst, lo, ub[:m])
		case viaFloat:
			writeFromFloat(dst, lo, fb[:m])
		case viaComplex:
			writeFromComplex(dst, lo, cb[:m])
		}
	}
	return nil
}

type via uint8

const (
	viaInt via = iota
	viaUint
	viaFloat
	viaComplex
)

func widenInts[T signedInt](out []int64, in []T) {
	for i, v := range in {
		out[i] = int64(v)
	}
}

func widenUints[T unsignedInt](out []uint64, in []T) {
	for i, v := range in {
		out[i] = uint64(v)
	}
}

func widenFloats[T goFloat](out []float64, in []T) {
	for i, v := range in {
		out[i] = float64(v)
	}
}

// readBlock widens src[lo:hi] exactly into the intermediate of its kind.
func readBlock(src any, lo, hi int, ib []int64, ub []uint64, fb []float64, cb []complex128) via {
	switch s := src.(type) {
	case []bool:
		for i, v := range s[lo:hi] {
			ub[i] = 0
			if v {
				ub[i] = 1
			}
		}
		return viaUint
	case []uint8:
		widenUints(ub, s[lo:hi])
		return viaUint
	case []uint16:
		widenUints(ub, s[lo:hi])
		return viaUint
	case []uint32:
		widenUints(ub, s[lo:hi])
		return viaUint
	case []uint64:
		widenUints(ub, s[lo:hi])
		return viaUint
	case []int8:
		widenInts(ib, s[lo:hi])
		return viaInt
	case []int16:
		widenInts(ib, s[lo:hi])
		return viaInt
	case []int32:
		widenInts(ib, s[lo:hi])
		return viaInt
	case []int64:
		widenInts(ib, s[lo:hi])
		return viaInt
	case []BFloat16:
		for i, v := range s[lo:hi] {
			fb[i] = float64(v.Float32())
		}
		return viaFloat
	case []Float16:
		for i, v := range s[lo:hi] {
			fb[i] = float64(v.Float32())
		}
		return viaFloat
	case []float32:
		widenFloats(fb, s[lo:hi])
		return viaFloat
	case []float64:
		copy(fb, s[lo:hi])
		return viaFloat
	case []complex64:
		for i, v := range s[lo:hi] {
			cb[i] = complex128(v)
		}
		return viaComplex
	case []complex128:
		copy(cb, s[lo:hi])
		return viaComplex
	}
	if b, d, ok := narrowBytes(src); ok {
		if d.IsFloat() {
			narrowToFloat64(d, fb, b[lo:hi])
			return viaFloat
		}
		for i, v := range b[lo:hi] {
			ib[i] = narrowIntValue(d, v)
		}
		return viaInt
	}
	panic("tensor: readBlock: unreachable")
}

func narrowInts[T integer](out []T, in []int64) {
	for i, v := range in {
		out[i] = T(v)
	}
}

func narrowUints[T integer](out []T, in []uint64) {
	for i, v := range in {
		out[i] = T(v)
	}
}

func intsToFloats[T goFloat](out []T, in []int64) {
	for i, v := range in {
		out[i] = T(v) // Go rounds integer → float to nearest even, in one step
	}
}

func uintsToFloats[T goFloat](out []T, in []uint64) {
	for i, v := range in {
		out[i] = T(v)
	}
}

func writeFromInt(dst any, lo int, in []int64) {
	if b, d, ok := narrowBytes(dst); ok {
		writeNarrowFromInt(d, b[lo:], in)
		return
	}
	switch d := dst.(type) {
	case []bool:
		for i, v := range in {
			d[lo+i] = v != 0
		}
	case []uint8:
		narrowInts(d[lo:], in)
	case []uint16:
		narrowInts(d[lo:], in)
	case []uint32:
		narrowInts(d[lo:], in)
	case []uint64:
		narrowInts(d[lo:], in)
	case []int8:
		narrowInts(d[lo:], in)
	case []int16:
		narrowInts(d[lo:], in)
	case []int32:
		narrowInts(d[lo:], in)
	case []int64:
		copy(d[lo:], in)
	case []BFloat16:
		for i, v := range in {
			d[lo+i] = BFloat16(bf16Format.fromInt64(v))
		}
	case []Float16:
		for i, v := range in {
			d[lo+i] = Float16FromBits(f16Format.fromInt64(v))
		}
	case []float32:
		intsToFloats(d[lo:], in)
	case []float64:
		intsToFloats(d[lo:], in)
	case []complex64:
		for i, v := range in {
			d[lo+i] = complex(float32(v), 0)
		}
	case []complex128:
		for i, v := range in {
			d[lo+i] = complex(float64(v), 0)
		}
	}
}

func writeFromUint(dst any, lo int, in []uint64) {
	if b, d, ok := narrowBytes(dst); ok {
		writeNarrowFromUint(d, b[lo:], in)
		return
	}
	switch d := dst.(type) {
	case []bool:
		for i, v := range in {
			d[lo+i] = v != 0
		}
	case []uint8:
		narrowUints(d[lo:], in)
	case []uint16:
		narrowUints(d[lo:], in)
	case []uint32:
		narrowUints(d[lo:], in)
	case []uint64:
		copy(d[lo:], in)
	case []int8:
		narrowUints(d[lo:], in)
	case []int16:
		narrowUints(d[lo:], in)
	case []int32:
		narrowUints(d[lo:], in)
	case []int64:
		narrowUints(d[lo:], in)
	case []BFloat16:
		for i, v := range in {
			d[lo+i] = BFloat16(bf16Format.fromUint64(v))
		}
	case []Float16:
		for i, v := range in {
			d[lo+i] = Float16FromBits(f16Format.fromUint64(v))
		}
	case []float32:
		uintsToFloats(d[lo:], in)
	case []float64:
		uintsToFloats(d[lo:], in)
	case []complex64:
		for i, v := range in {
			d[lo+i] = complex(float32(v), 0)
		}
	case []complex128:
		for i, v := range in {
			d[lo+i] = complex(float64(v), 0)
		}
	}
}

// FloatToInt converts a float to an integer type as docs/SPEC.md §3 requires:
// truncate toward zero, saturate to the type's range, NaN → 0.
func FloatToInt[T integer](x float64) T {
	if x != x {
		return 0
	}
	b := bitsOf[T]()
	if isUnsigned[T]() {
		switch {
		case x <= 0:
			return 0
		case x >= math.Ldexp(1, b):
			return T(uint64(1)<<b - 1) // wraps to all ones for b = 64
		}
		return T(uint64(x))
	}
	limit := math.Ldexp(1, b-1)
	switch {
	case x <= -limit:
		return T(-int64(uint64(1) << (b - 1)))
	case x >= limit:
		return T(int64(uint64(1)<<(b-1) - 1))
	}
	return T(int64(x))
}

func bitsOf[T integer]() int {
	var z T
	switch any(z).(type) {
	case int8, uint8:
		return 8
	case int16, uint16:
		return 16
	case int32, uint32:
		return 32
	}
	return 64
}

func isUnsigned[T integer]() bool {
	var minusOne T
	minusOne--
	return minusOne > 0
}

func floatsToInts[T integer](out []T, in []float64) {
	for i, v := range in {
		out[i] = FloatToInt[T](v)
	}
}

func writeFromFloat(dst any, lo int, in []float64) {
	if b, d, ok := narrowBytes(dst); ok {
		writeNarrowFromFloat(d, b[lo:], in)
		return
	}
	switch d := dst.(type) {
	case []bool:
		for i, v := range in {
			d[lo+i] = v != 0
		}
	case []uint8:
		floatsToInts(d[lo:], in)
	case []uint16:
		floatsToInts(d[lo:], in)
	case []uint32:
		floatsToInts(d[lo:], in)
	case []uint64:
		floatsToInts(d[lo:], in)
	case []int8:
		floatsToInts(d[lo:], in)
	case []int16:
		floatsToInts(d[lo:], in)
	case []int32:
		floatsToInts(d[lo:], in)
	case []int64:
		floatsToInts(d[lo:], in)
	case []BFloat16:
		for i, v := range in {
			d[lo+i] = Float64ToBF16(v)
		}
	case []Float16:
		for i, v := range in {
			d[lo+i] = Float64ToF16(v)
		}
	case []float32:
		for i, v := range in {
			d[lo+i] = float32(v)
		}
	case []float64:
		copy(d[lo:], in)
	case []complex64:
		for i, v := range in {
			d[lo+i] = complex(float32(v), 0)
		}
	case []complex128:
		for i, v := range in {
			d[lo+i] = complex(v, 0)
		}
	}
}

func writeFromComplex(dst any, lo int, in []complex128) {
	switch d := dst.(type) {
	case []bool:
		for i, v := range in {
			d[lo+i] = v != 0
		}
	case []complex64:
		for i, v := range in {
			d[lo+i] = complex64(v)
		}
	case []complex128:
		copy(d[lo:], in)
	default:
		re := make([]float64, len(in))
		for i, v := range in {
			re[i] = real(v)
		}
		writeFromFloat(dst, lo, re)
	}
}

// copySlice copies between two slices of the same storage type.
func copySlice(dst, src any) {
	if b, _, ok := narrowBytes(dst); ok {
		s, _, _ := narrowBytes(src)
		copy(b, s)
		return
	}
	switch d := dst.(type) {
	case []bool:
		copy(d, src.([]bool))
	case []uint8:
		copy(d, src.([]uint8))
	case []uint16:
		copy(d, src.([]uint16))
	case []uint32:
		copy(d, src.([]uint32))
	case []uint64:
		copy(d, src.([]uint64))
	case []int8:
		copy(d, src.([]int8))
	case []int16:
		copy(d, src.([]int16))
	case []int32:
		copy(d, src.([]int32))
	case []int64:
		copy(d, src.([]int64))
	case []BFloat16:
		copy(d, src.([]BFloat16))
	case []Float16:
		copy(d, src.([]Float16))
	case []float32:
		copy(d, src.([]float32))
	case []float64:
		copy(d, src.([]float64))
	case []complex64:
		copy(d, src.([]complex64))
	case []complex128:
		copy(d, src.([]complex128))
	}
}

// Astype returns a new array of dtype d holding a's values converted as
// docs/SPEC.md §3 says. It never modifies a; converting to a's own dtype copies.
//
// A packed a (IsPacked) converts from its values; the result is unpacked
// (one element a slot), whatever d is: Pack it for packed storage.
func (a *Array) Astype(d DType) *Array {
	out := &Array{dtype: d, shape: a.Shape(), data: MakeSlice(d, a.Size())}
	if a.packed != nil {
		if d == a.dtype {
			f, _ := d.IntFormat()
			b, _, _ := narrowBytes(out.data)
			UnpackStorage(f, b, a.packed)
			return out
		}
		a = a.Unpack()
	}
	if err := ConvertSlice(out.data, a.data); err != nil {
		panic(err) // unreachable: both are storage slices of one length
	}
	return out
}

func formatFloat(x float64, bitSize int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, bitSize)
}
