package opencl

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// ctype says how one Kiln dtype lives in OpenCL C: its storage type (the
// bytes of the Go slice, so buffers are copied without conversion) and its
// compute type (what a kernel's private variables hold).
type ctype struct {
	store   string // element type of a __global buffer
	compute string // private value type: f16/bf16 compute as float
	uns     string // integers: the unsigned type of the same width
	wide    string // integers: the unsigned type arithmetic is done in (no C promotion surprises)
	sfx     string // helper-name suffix: the dtype's short name
	bits    int
	signed  bool
}

var ctypes = [tensor.NumDTypes]ctype{
	tensor.Bool: {store: "uchar", compute: "uchar", sfx: "bool", bits: 8},
	tensor.U8:   {store: "uchar", compute: "uchar", uns: "uchar", wide: "uint", sfx: "u8", bits: 8},
	tensor.U16:  {store: "ushort", compute: "ushort", uns: "ushort", wide: "uint", sfx: "u16", bits: 16},
	tensor.U32:  {store: "uint", compute: "uint", uns: "uint", wide: "uint", sfx: "u32", bits: 32},
	tensor.U64:  {store: "ulong", compute: "ulong", uns: "ulong", wide: "ulong", sfx: "u64", bits: 64},
	tensor.I8:   {store: "char", compute: "char", uns: "uchar", wide: "uint", sfx: "i8", bits: 8, signed: true},
	tensor.I16:  {store: "short", compute: "short", uns: "ushort", wide: "uint", sfx: "i16", bits: 16, signed: true},
	tensor.I32:  {store: "int", compute: "int", uns: "uint", wide: "uint", sfx: "i32", bits: 32, signed: true},
	tensor.I64:  {store: "long", compute: "long", uns: "ulong", wide: "ulong", sfx: "i64", bits: 64, signed: true},
	tensor.BF16: {store: "ushort", compute: "float", sfx: "bf16", bits: 16},
	tensor.F16:  {store: "ushort", compute: "float", sfx: "f16", bits: 16},
	tensor.F32:  {store: "float", compute: "float", sfx: "f32", bits: 32},
	tensor.F64:  {store: "double", compute: "double", sfx: "f64", bits: 64},
	tensor.C64:  {store: "float2", compute: "float2", sfx: "c64", bits: 32},
	tensor.C128: {store: "double2", compute: "double2", sfx: "c128", bits: 64},
}

func ct(d tensor.DType) *ctype { return &ctypes[d] }

// narrow reports whether d is stored in 16 bits and computed in float.
func narrow(d tensor.DType) bool { return d == tensor.F16 || d == tensor.BF16 }

// partType is the real dtype of one part of a complex dtype (or d itself).
func partType(d tensor.DType) tensor.DType {
	switch d {
	case tensor.C64:
		return tensor.F32
	case tensor.C128:
		return tensor.F64
	}
	return d
}

// load reads element idx of buffer buf (of dtype d) as a compute value.
func (g *gen) load(d tensor.DType, buf, idx string) string {
	x := buf + "[" + idx + "]"
	switch d {
	case tensor.F16:
		return "vload_half(" + idx + ", (__global const half*)" + buf + ")"
	case tensor.BF16:
		return g.call("bf16_to_float", x)
	}
	return x
}

// round rounds a float accumulator to d's precision (f16, bf16), once.
func (g *gen) round(d tensor.DType, v string) string {
	if narrow(d) {
		return g.call("rnd_"+ct(d).sfx, v)
	}
	return v
}

// store writes compute value v (already rounded) to buf[idx].
func (g *gen) store(d tensor.DType, buf, idx, v string) string {
	switch d {
	case tensor.F16:
		v = g.call("f16_bits", v)
	case tensor.BF16:
		v = g.call("float_to_bf16", v)
	}
	return buf + "[" + idx + "] = " + v + ";"
}

// literal renders element i of a constant array as an exact OpenCL C
// expression of the dtype's compute type.
func literal(a *tensor.Array, i int) string {
	d := a.DType()
	switch v := tensor.Index(a.Data(), i).(type) {
	case bool:
		if v {
			return "(uchar)1"
		}
		return "(uchar)0"
	case uint8, uint16, uint32:
		return fmt.Sprintf("(%s)%dU", ct(d).compute, v)
	case uint64:
		return fmt.Sprintf("%dUL", v)
	case int8, int16, int32:
		return fmt.Sprintf("(%s)%d", ct(d).compute, v)
	case int64:
		if v == math.MinInt64 {
			return "(long)0x8000000000000000UL"
		}
		return fmt.Sprintf("%dL", v)
	case tensor.Float16:
		return floatLit(float64(v.Float32()), 32)
	case tensor.BFloat16:
		return floatLit(float64(v.Float32()), 32)
	case float32:
		return floatLit(float64(v), 32)
	case float64:
		return floatLit(v, 64)
	case complex64:
		return fmt.Sprintf("(float2)(%s, %s)", floatLit(float64(real(v)), 32), floatLit(float64(imag(v)), 32))
	case complex128:
		return fmt.Sprintf("(double2)(%s, %s)", floatLit(real(v), 64), floatLit(imag(v), 64))
	}
	panic("opencl: literal of unknown element type") // unreachable: Index returns the 15 storage types
}

// floatLit prints x exactly: the shortest decimal that reads back to the
// same float (OpenCL C compilers round decimal literals correctly), NaN by
// its bits.
func floatLit(x float64, bits int) string {
	if bits == 32 {
		f := float32(x)
		switch {
		case f != f:
			return fmt.Sprintf("as_float(0x%08xU)", math.Float32bits(f))
		case math.IsInf(x, 1):
			return "INFINITY"
		case math.IsInf(x, -1):
			return "(-INFINITY)"
		}
		return withPoint(strconv.FormatFloat(float64(f), 'g', -1, 32)) + "f"
	}
	switch {
	case x != x:
		return fmt.Sprintf("as_double(0x%016xUL)", math.Float64bits(x))
	case math.IsInf(x, 1):
		return "(double)INFINITY"
	case math.IsInf(x, -1):
		return "(-(double)INFINITY)"
	}
	return withPoint(strconv.FormatFloat(x, 'g', -1, 64))
}

// withPoint makes a Go float string a C floating literal ("2" → "2.0").
func withPoint(s string) string {
	if strings.ContainsAny(s, ".eEn") {
		return s
	}
	return s + ".0"
}
