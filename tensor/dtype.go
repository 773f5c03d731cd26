package tensor

import (
	"fmt"
	"strings"
)

// DType is one of Kiln's 30 concrete element types: the 15 standard ones
// (bool … c128), whose order is the order of the rows and columns of the
// promotion tables of the seed documents and is relied upon by packages
// that index tables by DType, followed by JAX's 15 narrow dtypes (the 11
// narrow float formats of FloatFormat and the 4 sub-byte integers of
// IntFormat; see the package documentation for their storage).
type DType uint8

// The concrete dtypes, in table order.
const (
	Bool DType = iota
	U8
	U16
	U32
	U64
	I8
	I16
	I32
	I64
	BF16
	F16
	F32
	F64
	C64
	C128
	// The narrow dtypes, in the order of JAX's dtypes.py (FloatFormat's
	// order, then IntFormat's).
	F8E4M3FN
	F8E5M2
	F8E4M3FNUZ
	F8E5M2FNUZ
	F8E4M3B11FNUZ
	F8E3M4
	F8E4M3
	F8E8M0FNU
	F6E2M3FN
	F6E3M2FN
	F4E2M1FN
	I4
	U4
	I2
	U2
)

// NumDTypes is the number of concrete dtypes; DType values are 0..NumDTypes-1.
const NumDTypes = 30

// NumStandardDTypes is the number of standard dtypes, bool … c128: the
// rows and columns of the seed documents' promotion tables. The narrow
// dtypes are DType(NumStandardDTypes) … DType(NumDTypes-1).
const NumStandardDTypes = 15

// Kind classifies a dtype: bool, unsigned integer, signed integer, floating
// point or complex.
type Kind uint8

// The kinds, in promotion order.
const (
	KindBool Kind = iota
	KindUint
	KindInt
	KindFloat
	KindComplex
)

var kindNames = [...]string{"bool", "uint", "int", "float", "complex"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// dtypeInfo is the table of per-dtype properties; everything about a dtype
// that is not behaviour is read from here.
type dtypeInfo struct {
	short, long string
	size        int // bytes per element
	kind        Kind
	bits        int // bits of the value (mantissa+exponent+sign for floats; of one part for complex)
}

var dtypes = [NumDTypes]dtypeInfo{
	Bool: {"bool", "bool", 1, KindBool, 1},
	U8:   {"u8", "uint8", 1, KindUint, 8},
	U16:  {"u16", "uint16", 2, KindUint, 16},
	U32:  {"u32", "uint32", 4, KindUint, 32},
	U64:  {"u64", "uint64", 8, KindUint, 64},
	I8:   {"i8", "int8", 1, KindInt, 8},
	I16:  {"i16", "int16", 2, KindInt, 16},
	I32:  {"i32", "int32", 4, KindInt, 32},
	I64:  {"i64", "int64", 8, KindInt, 64},
	BF16: {"bf16", "bfloat16", 2, KindFloat, 16},
	F16:  {"f16", "float16", 2, KindFloat, 16},
	F32:  {"f32", "float32", 4, KindFloat, 32},
	F64:  {"f64", "float64", 8, KindFloat, 64},
	C64:  {"c64", "complex64", 8, KindComplex, 32},
	C128: {"c128", "complex128", 16, KindComplex, 64},
	// Narrow dtypes: one element per byte in memory (see IsNarrow).
	F8E4M3FN:      {"f8e4m3fn", "float8_e4m3fn", 1, KindFloat, 8},
	F8E5M2:        {"f8e5m2", "float8_e5m2", 1, KindFloat, 8},
	F8E4M3FNUZ:    {"f8e4m3fnuz", "float8_e4m3fnuz", 1, KindFloat, 8},
	F8E5M2FNUZ:    {"f8e5m2fnuz", "float8_e5m2fnuz", 1, KindFloat, 8},
	F8E4M3B11FNUZ: {"f8e4m3b11fnuz", "float8_e4m3b11fnuz", 1, KindFloat, 8},
	F8E3M4:        {"f8e3m4", "float8_e3m4", 1, KindFloat, 8},
	F8E4M3:        {"f8e4m3", "float8_e4m3", 1, KindFloat, 8},
	F8E8M0FNU:     {"f8e8m0fnu", "float8_e8m0fnu", 1, KindFloat, 8},
	F6E2M3FN:      {"f6e2m3fn", "float6_e2m3fn", 1, KindFloat, 6},
	F6E3M2FN:      {"f6e3m2fn", "float6_e3m2fn", 1, KindFloat, 6},
	F4E2M1FN:      {"f4e2m1fn", "float4_e2m1fn", 1, KindFloat, 4},
	I4:            {"i4", "int4", 1, KindInt, 4},
	U4:            {"u4", "uint4", 1, KindUint, 4},
	I2:            {"i2", "int2", 1, KindInt, 2},
	U2:            {"u2", "uint2", 1, KindUint, 2},
}

// Valid reports whether d is one of the 30 concrete dtypes.
func (d DType) Valid() bool { return d < NumDTypes }

// String returns the short name: bool, u8 … i64, bf16, f16, f32, f64, c64,
// c128, f8e4m3fn … f4e2m1fn, i4, u4, i2, u2.
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypes[d].short
}

// LongName returns the NumPy-style (for the narrow dtypes, JAX's) name:
// bool, uint8 … int64, bfloat16, float16, float32, float64, complex64,
// complex128, float8_e4m3fn … float4_e2m1fn, int4, uint4, int2, uint2.
func (d DType) LongName() string {
	if !d.Valid() {
		return d.String()
	}
	return dtypes[d].long
}

// Size is the number of bytes one element occupies in Go memory: 1 for
// every narrow dtype (the 6- and 4-bit floats and the sub-byte integers
// are stored one per byte, as ml_dtypes and JAX on CPU hold them).
func (d DType) Size() int { return dtypes[d].size }

// Bits is the width of the value in bits (of each part, for complex
// dtypes): 8, 6 or 4 for the narrow floats, 4 or 2 for the sub-byte
// integers.
func (d DType) Bits() int { return dtypes[d].bits }

// Kind returns the kind of d.
func (d DType) Kind() Kind { return dtypes[d].kind }

// IsBool reports whether d is bool.
func (d DType) IsBool() bool { return d == Bool }

// IsUnsigned reports whether d is an unsigned integer dtype.
func (d DType) IsUnsigned() bool { return d.Kind() == KindUint }

// IsSigned reports whether d is a signed integer dtype.
func (d DType) IsSigned() bool { return d.Kind() == KindInt }

// IsInteger reports whether d is a signed or unsigned integer dtype (not bool).
func (d DType) IsInteger() bool { k := d.Kind(); return k == KindUint || k == KindInt }

// IsFloat reports whether d is a real floating-point dtype.
func (d DType) IsFloat() bool { return d.Kind() == KindFloat }

// IsComplex reports whether d is a complex dtype.
func (d DType) IsComplex() bool { return d.Kind() == KindComplex }

// IsInexact reports whether d is a floating-point or complex dtype.
func (d DType) IsInexact() bool { k := d.Kind(); return k == KindFloat || k == KindComplex }

// RealPart returns the dtype of the real and imaginary parts of a complex
// dtype (f32 for c64, f64 for c128) and d itself otherwise.
func (d DType) RealPart() DType {
	switch d {
	case C64:
		return F32
	case C128:
		return F64
	}
	return d
}

// ComplexOf returns the complex dtype whose parts are d: c64 for f32 and
// narrower floats, c128 for f64. Complex dtypes map to themselves.
func (d DType) ComplexOf() DType {
	switch d {
	case F64, C128:
		return C128
	}
	return C64
}

// AllDTypes returns the 30 dtypes in table order: the 15 standard ones,
// then the 15 narrow ones.
func AllDTypes() []DType {
	out := make([]DType, NumDTypes)
	for i := range out {
		out[i] = DType(i)
	}
	return out
}

// StandardDTypes returns the 15 standard dtypes, bool … c128, in the order
// of the seed documents' promotion tables.
func StandardDTypes() []DType { return AllDTypes()[:NumStandardDTypes] }

// NarrowDTypes returns the 15 narrow dtypes: the 11 narrow floats in
// FloatFormat's order, then i4, u4, i2, u2.
func NarrowDTypes() []DType { return AllDTypes()[NumStandardDTypes:] }

// IsNarrow reports whether d is one of JAX's narrow dtypes: a narrow float
// (FloatFormat) or a sub-byte integer (IntFormat). They are computed in a
// wider form (f32; i8 or u8) and rounded or wrapped back after every op.
func (d DType) IsNarrow() bool { return d >= NumStandardDTypes && d < NumDTypes }

// FloatFormat returns the narrow float format of d; ok is false unless d
// is a narrow float dtype (f8e4m3fn … f4e2m1fn).
func (d DType) FloatFormat() (f FloatFormat, ok bool) {
	if d >= F8E4M3FN && d <= F4E2M1FN {
		return FloatFormat(d - F8E4M3FN), true
	}
	return 0, false
}

// IntFormat returns the sub-byte integer format of d; ok is false unless d
// is i4, u4, i2 or u2.
func (d DType) IntFormat() (f IntFormat, ok bool) {
	if d >= I4 && d <= U2 {
		return IntFormat(d - I4), true
	}
	return 0, false
}

// DType returns the narrow float dtype stored in format f.
func (f FloatFormat) DType() DType { f.info(); return F8E4M3FN + DType(f) }

// DType returns the sub-byte integer dtype stored in format f.
func (f IntFormat) DType() DType { f.bits(); return I4 + DType(f) }

// aliases are accepted by ParseDType besides the short and long names.
var aliases = map[string]DType{
	"b1": Bool, "bool_": Bool,
	"u1":  U8,
	"i1":  I8,
	"int": I64, "float": F64, "complex": C128,
	"bf": BF16, "f2": F16, "f4": F32, "f8": F64,
	"c8": C64, "c16": C128,
	"half": F16, "double": F64, "single": F32,
}

// ParseDType parses a short name (f16, f8e4m3fn, i4), a long name (float16,
// JAX's float8_e4m3fn, int4) or a NumPy character alias (f2). Case is
// ignored. The NumPy aliases i2, i4, u2 and u4 (int16 … uint32) are not
// accepted: those names are Kiln's short names of the sub-byte integers.
func ParseDType(s string) (DType, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for d := range dtypes {
		if dtypes[d].short == name || dtypes[d].long == name {
			return DType(d), nil
		}
	}
	if d, ok := aliases[name]; ok {
		return d, nil
	}
	return 0, fmt.Errorf("tensor: unknown dtype %q (want one of bool u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz f8e3m4 f8e4m3 f8e8m0fnu f6e2m3fn f6e3m2fn f4e2m1fn i4 u4 i2 u2, or JAX's long names)", s)
}
