package tensor

import (
	"fmt"
	"strings"
)

// DType is one of Kiln's 15 concrete element types. The order of the
// constants is the order of the rows and columns of the promotion tables in
// ../shared/tables and is relied upon by packages that index tables by DType.
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
)

// NumDTypes is the number of concrete dtypes; DType values are 0..NumDTypes-1.
const NumDTypes = 15

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
}

// Valid reports whether d is one of the 15 concrete dtypes.
func (d DType) Valid() bool { return d < NumDTypes }

// String returns the short name: bool, u8 … i64, bf16, f16, f32, f64, c64, c128.
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypes[d].short
}

// LongName returns the NumPy-style name: bool, uint8 … int64, bfloat16,
// float16, float32, float64, complex64, complex128.
func (d DType) LongName() string {
	if !d.Valid() {
		return d.String()
	}
	return dtypes[d].long
}

// Size is the number of bytes one element occupies in Go memory.
func (d DType) Size() int { return dtypes[d].size }

// Bits is the width of the value in bits (of each part, for complex dtypes).
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

// AllDTypes returns the 15 dtypes in table order.
func AllDTypes() []DType {
	out := make([]DType, NumDTypes)
	for i := range out {
		out[i] = DType(i)
	}
	return out
}

// aliases are accepted by ParseDType besides the short and long names.
var aliases = map[string]DType{
	"b1": Bool, "bool_": Bool,
	"u1": U8, "u2": U16, "u4": U32,
	"i1": I8, "i2": I16, "i4": I32,
	"int": I64, "float": F64, "complex": C128,
	"bf": BF16, "f2": F16, "f4": F32, "f8": F64,
	"c8": C64, "c16": C128,
	"half": F16, "double": F64, "single": F32,
}

// ParseDType parses a short name (f16), a long name (float16) or a NumPy
// character alias (f2). Case is ignored.
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
	return 0, fmt.Errorf("tensor: unknown dtype %q (want one of bool u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128)", s)
}
