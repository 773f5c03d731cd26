package stablehlo

import (
	"math"

	"github.com/kiln-go/kiln/tensor"
)

// The interpreter's values.

// ival is a tensor's elements in a wide form: floats as float64 (already
// rounded to their type), complex as complex128 (parts rounded), signed
// integers as int64, unsigned as uint64, bool as bool — the slice of d's
// kind, row-major in shape.
type ival struct {
	d     tensor.DType
	shape []int
	f     []float64
	// fb, when not nil, are the floats' storage bits: kept through the ops
	// that only move elements, as float64 cannot hold a signaling NaN
	// (widening one quiets it) and bitcast_convert must see its bits.
	fb []uint64
	c  []complex128
	i  []int64
	u  []uint64
	b  []bool
}

func newIval(d tensor.DType, shape []int) ival {
	n := shapeSize(shape)
	v := ival{d: d, shape: shape}
	switch {
	case d.IsFloat():
		v.f = make([]float64, n)
	case d.IsComplex():
		v.c = make([]complex128, n)
	case d.IsSigned():
		v.i = make([]int64, n)
	case d.IsUnsigned():
		v.u = make([]uint64, n)
	default:
		v.b = make([]bool, n)
	}
	return v
}

func (v ival) size() int { return shapeSize(v.shape) }

// put sets element j of v to element k of src (of v's dtype).
func (v ival) put(j int, src ival, k int) {
	switch {
	case v.f != nil:
		v.f[j] = src.f[k]
		if v.fb != nil && src.fb != nil {
			v.fb[j] = src.fb[k]
		} else if v.fb != nil {
			v.fb[j] = floatBits(v.d, src.f[k])
		}
	case v.c != nil:
		v.c[j] = src.c[k]
	case v.i != nil:
		v.i[j] = src.i[k]
	case v.u != nil:
		v.u[j] = src.u[k]
	default:
		v.b[j] = src.b[k]
	}
}

// pick returns the elements of v at flat indices idx, as shape.
func (v ival) pick(idx []int, shape []int) ival {
	r := newIval(v.d, shape)
	if v.fb != nil {
		r.fb = make([]uint64, len(r.f))
	}
	for j, k := range idx {
		r.put(j, v, k)
	}
	return r
}

// scalar is element k of v as a rank-0 value.
func (v ival) scalar(k int) ival { return v.pick([]int{k}, nil) }

func fromArray(a *tensor.Array) ival {
	v := ival{d: a.DType(), shape: a.Shape()}
	switch d := a.DType(); {
	case d.IsFloat():
		v.f, _ = tensor.Data[float64](a.Astype(tensor.F64))
		v.fb = make([]uint64, len(v.f))
		for i := range v.fb {
			v.fb[i] = storageBits(tensor.Index(a.Data(), i))
		}
	case d.IsComplex():
		v.c, _ = tensor.Data[complex128](a.Astype(tensor.C128))
	case d.IsSigned():
		v.i, _ = tensor.Data[int64](a.Astype(tensor.I64))
	case d.IsUnsigned():
		v.u, _ = tensor.Data[uint64](a.Astype(tensor.U64))
	default:
		v.b, _ = tensor.Data[bool](a)
	}
	if v.f == nil && v.c == nil && v.i == nil && v.u == nil && v.b == nil {
		v = newIval(v.d, v.shape) // an empty array
	}
	return v
}

func storageBits(x any) uint64 {
	if _, b, ok := tensor.NarrowFloatBits(x); ok {
		return uint64(b)
	}
	switch v := x.(type) {
	case tensor.Float16:
		return uint64(v.Bits())
	case tensor.BFloat16:
		return uint64(v.Bits())
	case float32:
		return uint64(math.Float32bits(v))
	}
	return math.Float64bits(x.(float64))
}

// fromBits makes an array of float dtype d from storage bits.
func fromBits(d tensor.DType, shape []int, bits []uint64) (*tensor.Array, error) {
	if d.IsNarrow() {
		data, err := tensor.NarrowSlice(d, convertEach(bits, func(b uint64) byte { return byte(b) }))
		if err != nil {
			return nil, err
		}
		return tensor.New(d, shape, data)
	}
	switch d {
	case tensor.F16:
		return tensor.New(d, shape, convertEach(bits, func(b uint64) tensor.Float16 { return tensor.Float16FromBits(uint16(b)) }))
	case tensor.BF16:
		return tensor.New(d, shape, convertEach(bits, func(b uint64) tensor.BFloat16 { return tensor.BFloat16FromBits(uint16(b)) }))
	case tensor.F32:
		return tensor.New(d, shape, convertEach(bits, func(b uint64) float32 { return math.Float32frombits(uint32(b)) }))
	}
	return tensor.New(d, shape, convertEach(bits, math.Float64frombits))
}

func convertEach[T any](bits []uint64, f func(uint64) T) []T {
	out := make([]T, len(bits))
	for i, b := range bits {
		out[i] = f(b)
	}
	return out
}

func (v ival) array() (*tensor.Array, error) {
	var a *tensor.Array
	var err error
	shape := append([]int{}, v.shape...)
	switch {
	case v.fb != nil:
		return fromBits(v.d, shape, v.fb)
	case v.f != nil:
		a, err = tensor.New(tensor.F64, shape, v.f)
	case v.c != nil:
		a, err = tensor.New(tensor.C128, shape, v.c)
	case v.i != nil:
		a, err = tensor.New(tensor.I64, shape, v.i)
	case v.u != nil:
		a, err = tensor.New(tensor.U64, shape, v.u)
	default:
		a, err = tensor.New(tensor.Bool, shape, v.b)
	}
	if err != nil {
		return nil, err
	}
	return a.Astype(v.d), nil
}

// round rounds float64 values to dtype d once, to nearest even.
func round(d tensor.DType, xs []float64) []float64 {
	a, _ := tensor.FromSlice(xs)
	out, _ := tensor.Data[float64](a.Astype(d).Astype(tensor.F64))
	return out
}

func roundC(d tensor.DType, xs []complex128) []complex128 {
	a, _ := tensor.FromSlice(xs)
	out, _ := tensor.Data[complex128](a.Astype(d).Astype(tensor.C128))
	return out
}

// wrap reduces an integer to d's width (two's complement).
func wrap(d tensor.DType, x int64) int64 { s := 64 - d.Bits(); return x << s >> s }

func wrapU(d tensor.DType, x uint64) uint64 { return x << (64 - d.Bits()) >> (64 - d.Bits()) }
