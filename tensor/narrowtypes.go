package tensor

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// The Go storage types of the narrow dtypes. Each holds one element in one
// byte: a narrow float its encoding (FloatFormat) in the low bits, the
// 6- and 4-bit formats with the high bits zero, as ml_dtypes holds them in
// memory; a sub-byte integer its value (Int4(-3) is −3, sign-extended
// into the byte, as ml_dtypes' intN and JAX on CPU hold it). This is an
// unpacked Array's storage; a packed sub-byte Array (FromPacked, Pack)
// holds several values a byte and has no []Int4 (Data[Int4] is an
// error): see the package documentation.
type (
	// Float8E4M3FN is an f8e4m3fn element: its encoding.
	Float8E4M3FN uint8
	// Float8E5M2 is an f8e5m2 element: its encoding.
	Float8E5M2 uint8
	// Float8E4M3FNUZ is an f8e4m3fnuz element: its encoding.
	Float8E4M3FNUZ uint8
	// Float8E5M2FNUZ is an f8e5m2fnuz element: its encoding.
	Float8E5M2FNUZ uint8
	// Float8E4M3B11FNUZ is an f8e4m3b11fnuz element: its encoding.
	Float8E4M3B11FNUZ uint8
	// Float8E3M4 is an f8e3m4 element: its encoding.
	Float8E3M4 uint8
	// Float8E4M3 is an f8e4m3 element: its encoding.
	Float8E4M3 uint8
	// Float8E8M0FNU is an f8e8m0fnu element: its encoding.
	Float8E8M0FNU uint8
	// Float6E2M3FN is an f6e2m3fn element: its encoding in the low 6 bits.
	Float6E2M3FN uint8
	// Float6E3M2FN is an f6e3m2fn element: its encoding in the low 6 bits.
	Float6E3M2FN uint8
	// Float4E2M1FN is an f4e2m1fn element: its encoding in the low 4 bits.
	Float4E2M1FN uint8
	// Int4 is an i4 element: its value, −8 … 7.
	Int4 int8
	// Uint4 is a u4 element: its value, 0 … 15.
	Uint4 uint8
	// Int2 is an i2 element: its value, −2 … 1.
	Int2 int8
	// Uint2 is a u2 element: its value, 0 … 3.
	Uint2 uint8
)

// NarrowFloat is the set of the narrow float storage types.
type NarrowFloat interface {
	Float8E4M3FN | Float8E5M2 | Float8E4M3FNUZ | Float8E5M2FNUZ | Float8E4M3B11FNUZ |
		Float8E3M4 | Float8E4M3 | Float8E8M0FNU | Float6E2M3FN | Float6E3M2FN | Float4E2M1FN
}

// NarrowInt is the set of the sub-byte integer storage types.
type NarrowInt interface{ Int4 | Uint4 | Int2 | Uint2 }

// narrowElem is every narrow storage type.
type narrowElem interface{ NarrowFloat | NarrowInt }

// NarrowFromFloat64 rounds x to the narrow float type T with its format's
// rules (FloatFormat.FromFloat64): tensor.NarrowFromFloat64[tensor.Float8E4M3FN](0.3)
// is the f8e4m3fn nearest 0.3.
func NarrowFromFloat64[T NarrowFloat](x float64) T {
	f, _ := DTypeOf[T]().FloatFormat()
	return T(f.FromFloat64(x))
}

// formatNarrow prints encoding b of f as the shortest decimal that reads
// back to it.
func formatNarrow(f FloatFormat, b uint8) string {
	x := f.ToFloat64(b)
	if x != x || math.IsInf(x, 0) {
		return formatFloat(x, 64)
	}
	for prec := 1; prec < 17; prec++ {
		s := strconv.FormatFloat(x, 'g', prec, 64)
		if p, err := strconv.ParseFloat(s, 64); err == nil && f.FromFloat64(p) == b {
			return strconv.FormatFloat(p, 'g', -1, 64) // Go's shortest style: 450, not 4.5e+02
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Float32 returns the value of v.
func (v Float8E4M3FN) Float32() float32 { return FormatF8E4M3FN.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E5M2) Float32() float32 { return FormatF8E5M2.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E4M3FNUZ) Float32() float32 { return FormatF8E4M3FNUZ.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E5M2FNUZ) Float32() float32 { return FormatF8E5M2FNUZ.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E4M3B11FNUZ) Float32() float32 { return FormatF8E4M3B11FNUZ.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E3M4) Float32() float32 { return FormatF8E3M4.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E4M3) Float32() float32 { return FormatF8E4M3.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float8E8M0FNU) Float32() float32 { return FormatF8E8M0FNU.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float6E2M3FN) Float32() float32 { return FormatF6E2M3FN.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float6E3M2FN) Float32() float32 { return FormatF6E3M2FN.ToFloat32(uint8(v)) }

// Float32 returns the value of v.
func (v Float4E2M1FN) Float32() float32 { return FormatF4E2M1FN.ToFloat32(uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E4M3FN) String() string { return formatNarrow(FormatF8E4M3FN, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E5M2) String() string { return formatNarrow(FormatF8E5M2, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E4M3FNUZ) String() string { return formatNarrow(FormatF8E4M3FNUZ, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E5M2FNUZ) String() string { return formatNarrow(FormatF8E5M2FNUZ, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E4M3B11FNUZ) String() string { return formatNarrow(FormatF8E4M3B11FNUZ, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E3M4) String() string { return formatNarrow(FormatF8E3M4, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E4M3) String() string { return formatNarrow(FormatF8E4M3, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float8E8M0FNU) String() string { return formatNarrow(FormatF8E8M0FNU, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float6E2M3FN) String() string { return formatNarrow(FormatF6E2M3FN, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float6E3M2FN) String() string { return formatNarrow(FormatF6E3M2FN, uint8(v)) }

// String prints v as the shortest decimal that reads back to it.
func (v Float4E2M1FN) String() string { return formatNarrow(FormatF4E2M1FN, uint8(v)) }

// narrowType is what the package needs of one narrow storage type.
type narrowType struct {
	make  func(n int) any
	bytes func(s any) ([]byte, bool) // the slice's bytes, if s is of this type
	elem  func(b byte) any           // the element whose byte is b
	view  func(b []byte) any         // b as a slice of this type, not copied
}

func narrowTypeOf[T narrowElem]() narrowType {
	return narrowType{
		make: func(n int) any { return make([]T, n) },
		bytes: func(s any) ([]byte, bool) {
			v, ok := s.([]T)
			if !ok {
				return nil, false
			}
			if len(v) == 0 {
				return []byte{}, true
			}
			return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
		},
		elem: func(b byte) any { return T(b) },
		view: func(b []byte) any {
			if len(b) == 0 {
				return []T{}
			}
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
		},
	}
}

var narrowTypes = [NumDTypes - NumStandardDTypes]narrowType{
	narrowTypeOf[Float8E4M3FN](), narrowTypeOf[Float8E5M2](), narrowTypeOf[Float8E4M3FNUZ](),
	narrowTypeOf[Float8E5M2FNUZ](), narrowTypeOf[Float8E4M3B11FNUZ](), narrowTypeOf[Float8E3M4](),
	narrowTypeOf[Float8E4M3](), narrowTypeOf[Float8E8M0FNU](), narrowTypeOf[Float6E2M3FN](),
	narrowTypeOf[Float6E3M2FN](), narrowTypeOf[Float4E2M1FN](),
	narrowTypeOf[Int4](), narrowTypeOf[Uint4](), narrowTypeOf[Int2](), narrowTypeOf[Uint2](),
}

// narrowBytes returns the bytes of a slice of a narrow storage type and
// its dtype; ok is false for any other value.
func narrowBytes(s any) (b []byte, d DType, ok bool) {
	for i := range narrowTypes {
		if b, ok := narrowTypes[i].bytes(s); ok {
			return b, DType(NumStandardDTypes + i), true
		}
	}
	return nil, 0, false
}

// NarrowBytes returns the bytes of a slice of one of the narrow storage
// types ([]Float8E4M3FN, []Int4, …) without copying, and its dtype; ok is
// false for any other value. Each element is one byte: a float's encoding,
// an integer's value (two's complement, sign-extended).
func NarrowBytes(s any) (b []byte, d DType, ok bool) { return narrowBytes(s) }

// validNarrow checks that every byte of a narrow slice of dtype d is an
// element of d: a narrow float's unused high bits are zero, a sub-byte
// integer is in its range.
func validNarrow(op string, d DType, b []byte) error {
	if f, ok := d.FloatFormat(); ok {
		m := f.mask()
		for i, v := range b {
			if v&^m != 0 {
				return fmt.Errorf("tensor: %s: element %d of the %s data is 0x%02x: a %d-bit encoding must leave the high bits zero", op, i, d, v, f.Bits())
			}
		}
		return nil
	}
	f, _ := d.IntFormat()
	for i, v := range b {
		x := int64(v)
		if f.Signed() {
			x = int64(int8(v))
		}
		if x < f.Min() || x > f.Max() {
			return fmt.Errorf("tensor: %s: element %d of the %s data is %d, outside %d … %d", op, i, d, x, f.Min(), f.Max())
		}
	}
	return nil
}

// narrowToFloat64 decodes narrow bytes of dtype d exactly.
func narrowToFloat64(d DType, out []float64, in []byte) {
	f, _ := d.FloatFormat()
	for i, v := range in {
		out[i] = f.ToFloat64(v)
	}
}

// narrowIntValue is the value of a sub-byte integer element's byte.
func narrowIntValue(d DType, v byte) int64 {
	f, _ := d.IntFormat()
	return f.Int64(v)
}

// narrowIntByte is the in-memory byte of the sub-byte integer value whose
// field (low bits) is b.
func narrowIntByte(f IntFormat, b uint8) byte { return byte(f.Int64(b)) }

// FromInt64 rounds the integer v to the format once, to nearest with ties
// to even, with FromFloat64's overflow rules (no double rounding through
// float64 for |v| ≥ 2⁵³).
func (f FloatFormat) FromInt64(v int64) uint8 {
	if v < 0 {
		return f.fromMagnitude(true, uint64(-v)) // -MinInt64 wraps to 2^63 as uint64: still right
	}
	return f.fromMagnitude(false, uint64(v))
}

// FromUint64 rounds the integer v to the format as FromInt64.
func (f FloatFormat) FromUint64(v uint64) uint8 { return f.fromMagnitude(false, v) }

func (f FloatFormat) fromMagnitude(neg bool, m uint64) uint8 {
	if m < 1<<53 {
		return f.FromFloat64(float64(m) * sign(neg)) // exact in float64
	}
	in := f.info()
	if in.nan == NaNE8M0 {
		if neg {
			return 0xFF
		}
		return e8m0Round(m, 0)
	}
	return in.round(neg, m, 0)
}

func sign(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// writeNarrowFromInt stores integers into narrow bytes of dtype d.
func writeNarrowFromInt(d DType, out []byte, in []int64) {
	if f, ok := d.FloatFormat(); ok {
		for i, v := range in {
			out[i] = f.FromInt64(v)
		}
		return
	}
	f, _ := d.IntFormat()
	for i, v := range in {
		out[i] = narrowIntByte(f, f.FromInt64(v))
	}
}

func writeNarrowFromUint(d DType, out []byte, in []uint64) {
	if f, ok := d.FloatFormat(); ok {
		for i, v := range in {
			out[i] = f.FromUint64(v)
		}
		return
	}
	f, _ := d.IntFormat()
	for i, v := range in {
		out[i] = narrowIntByte(f, f.FromUint64(v))
	}
}

func writeNarrowFromFloat(d DType, out []byte, in []float64) {
	if f, ok := d.FloatFormat(); ok {
		for i, v := range in {
			out[i] = f.FromFloat64(v)
		}
		return
	}
	f, _ := d.IntFormat()
	for i, v := range in {
		out[i] = narrowIntByte(f, f.FromFloat64(v))
	}
}

// NextAfter is the encoding of the value of format f next after x in the
// direction of y, as C's nextafter in the format itself: a NaN operand
// gives x (if NaN) or y, equal values give y, and otherwise the nearest
// value of the format beyond x toward y (an infinity included; a step to
// zero keeps x's sign where the format has −0). Where the format has no
// value beyond x (f8e8m0fnu's smallest, toward zero) the result is y
// rounded to the format.
func (f FloatFormat) NextAfter(x, y uint8) uint8 {
	fx, fy := f.ToFloat32(x), f.ToFloat32(y)
	switch {
	case fx != fx:
		return x
	case fy != fy, fx == fy:
		return y
	}
	up := fy > fx
	best, found := uint8(0), false
	for b := range 1 << f.Bits() {
		v := f.ToFloat32(uint8(b))
		if v != v || (up && v <= fx) || (!up && v >= fx) {
			continue
		}
		if !found || (up && v < f.ToFloat32(best)) || (!up && v > f.ToFloat32(best)) {
			best, found = uint8(b), true
		}
	}
	if !found {
		return f.FromFloat32(fy)
	}
	if f.ToFloat32(best) == 0 && math.Signbit(float64(fx)) && f.info().nan != NaNFNUZ {
		return f.info().signBit() // −0
	}
	if f.ToFloat32(best) == 0 {
		return 0
	}
	return best
}

// NarrowSlice returns b as a slice of narrow dtype d's storage type
// ([]Float8E4M3FN, []Int4, …), without copying, after checking that every
// byte is an element of d (see FromSlice).
func NarrowSlice(d DType, b []byte) (any, error) {
	if !d.IsNarrow() {
		return nil, fmt.Errorf("tensor: NarrowSlice: %s is not a narrow dtype", d)
	}
	if err := validNarrow("NarrowSlice", d, b); err != nil {
		return nil, err
	}
	return narrowTypes[d-NumStandardDTypes].view(b), nil
}

// NarrowFloatBits returns the format and encoding of v when v is an
// element of a narrow float type (Float8E4M3FN, …, Float4E2M1FN); ok is
// false for any other value.
func NarrowFloatBits(v any) (f FloatFormat, bits uint8, ok bool) {
	switch x := v.(type) {
	case Float8E4M3FN:
		return FormatF8E4M3FN, uint8(x), true
	case Float8E5M2:
		return FormatF8E5M2, uint8(x), true
	case Float8E4M3FNUZ:
		return FormatF8E4M3FNUZ, uint8(x), true
	case Float8E5M2FNUZ:
		return FormatF8E5M2FNUZ, uint8(x), true
	case Float8E4M3B11FNUZ:
		return FormatF8E4M3B11FNUZ, uint8(x), true
	case Float8E3M4:
		return FormatF8E3M4, uint8(x), true
	case Float8E4M3:
		return FormatF8E4M3, uint8(x), true
	case Float8E8M0FNU:
		return FormatF8E8M0FNU, uint8(x), true
	case Float6E2M3FN:
		return FormatF6E2M3FN, uint8(x), true
	case Float6E3M2FN:
		return FormatF6E3M2FN, uint8(x), true
	case Float4E2M1FN:
		return FormatF4E2M1FN, uint8(x), true
	}
	return 0, 0, false
}
