package reference

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The compute form of a value (see doc.go): f16 and bf16 widen exactly to
// float32, complex splits into parts, everything else is its own Go type.
// Ops are written once per kind over the compute form.

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}
type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}
type integer interface{ signed | unsigned }
type float interface{ ~float32 | ~float64 }

// cpx is a complex number as its two parts, so that one generic function
// over the part type serves c64 (float32 parts) and c128 (float64 parts):
// Go's real, imag and complex builtins do not accept type parameters.
type cpx[F float] struct{ re, im F }

// widen returns a's data in compute form. Data already in compute form is
// returned as is, not copied: callers only read it.
func widen(a *tensor.Array) any {
	switch x := a.Data().(type) {
	case []tensor.Float16:
		out := make([]float32, len(x))
		for i, v := range x {
			out[i] = v.Float32() // exact
		}
		return out
	case []tensor.BFloat16:
		out := make([]float32, len(x))
		for i, v := range x {
			out[i] = v.Float32() // exact
		}
		return out
	case []complex64:
		out := make([]cpx[float32], len(x))
		for i, v := range x {
			out[i] = cpx[float32]{real(v), imag(v)}
		}
		return out
	case []complex128:
		out := make([]cpx[float64], len(x))
		for i, v := range x {
			out[i] = cpx[float64]{real(v), imag(v)}
		}
		return out
	}
	if b, d, ok := tensor.NarrowBytes(a.Data()); ok {
		// A narrow float widens exactly to float32; a sub-byte integer
		// is its value as an int8 or uint8.
		if f, ok := d.FloatFormat(); ok {
			out := make([]float32, len(b))
			for i, v := range b {
				out[i] = f.ToFloat32(v)
			}
			return out
		}
		if d.IsSigned() {
			out := make([]int8, len(b))
			for i, v := range b {
				out[i] = int8(v)
			}
			return out
		}
		return append([]uint8(nil), b...)
	}
	return a.Data()
}

// narrowTo stores a compute-form result of a narrow dtype d: float32
// values rounded with d's format's rules, int8 or uint8 values wrapped
// into d's bits.
func narrowTo(x any, d tensor.DType, shape []int) (*tensor.Array, error) {
	var b []byte
	switch v := x.(type) {
	case []float32:
		f, ok := d.FloatFormat()
		if !ok {
			return nil, fmt.Errorf("the result is computed as %T, the program wants %s", x, d)
		}
		b = make([]byte, len(v))
		for i, x := range v {
			b[i] = f.FromFloat32(x)
		}
	case []int8:
		b = make([]byte, len(v))
		for i, x := range v {
			b[i] = uint8(x)
		}
	case []uint8:
		b = append([]byte(nil), v...)
	default:
		return nil, fmt.Errorf("the result is computed as %T, the program wants %s", x, d)
	}
	if f, ok := d.IntFormat(); ok {
		for i, v := range b {
			b[i] = byte(f.Int64(v)) // the low bits, sign-extended: wraps
		}
	}
	data, err := tensor.NarrowSlice(d, b)
	if err != nil {
		return nil, err
	}
	return tensor.New(d, shape, data)
}

// narrow stores a compute-form result as an array of dtype d: float32
// results for f16 and bf16 are rounded to nearest even, parts are joined.
func narrow(x any, d tensor.DType, shape []int) (*tensor.Array, error) {
	if d.IsNarrow() {
		return narrowTo(x, d, shape)
	}
	switch v := x.(type) {
	case []float32:
		switch d {
		case tensor.F16:
			out := make([]tensor.Float16, len(v))
			for i, f := range v {
				out[i] = tensor.Float32ToF16(f)
			}
			x = out
		case tensor.BF16:
			out := make([]tensor.BFloat16, len(v))
			for i, f := range v {
				out[i] = tensor.BFloat16FromFloat32(f)
			}
			x = out
		}
	case []cpx[float32]:
		out := make([]complex64, len(v))
		for i, z := range v {
			out[i] = complex(z.re, z.im)
		}
		x = out
	case []cpx[float64]:
		out := make([]complex128, len(v))
		for i, z := range v {
			out[i] = complex(z.re, z.im)
		}
		x = out
	}
	a, err := tensor.New(d, shape, x)
	if err != nil {
		return nil, fmt.Errorf("the result is computed as %T, the program wants %s: %v", x, d, err)
	}
	return a, nil
}

// computeDType is the dtype of the compute form of d: F32 for f16, bf16
// and the narrow floats, I8 for i4 and i2, U8 for u4 and u2, d otherwise.
// It is what Options.Transcendental receives.
func computeDType(d tensor.DType) tensor.DType {
	switch {
	case d == tensor.F16 || d == tensor.BF16, d.IsNarrow() && d.IsFloat():
		return tensor.F32
	case d.IsNarrow() && d.IsSigned():
		return tensor.I8
	case d.IsNarrow():
		return tensor.U8
	}
	return d
}

// errNotDefined is the error of an op applied to a dtype outside its domain.
func errNotDefined(op trace.Op, d string) error {
	return fmt.Errorf("%s is not defined for %s", op, d)
}

// mapUnary applies f to x read through the index map ix.
func mapUnary[T, U any](x []T, ix []int, f func(T) U) []U {
	out := make([]U, len(ix))
	for i, j := range ix {
		out[i] = f(x[j])
	}
	return out
}

// mapBinary applies f to a and b read through their index maps.
func mapBinary[T, U any](a, b []T, ia, ib []int, f func(T, T) U) []U {
	out := make([]U, len(ia))
	for i := range ia {
		out[i] = f(a[ia[i]], b[ib[i]])
	}
	return out
}

// elementwise evaluates a unary or binary op (not convert or select): it
// broadcasts the operands to a common shape, computes in compute form and
// stores the result at the op's own result dtype, which step then checks
// against the traced one.
func (ev *evaluator) elementwise(op trace.Op, args []*tensor.Array) (*tensor.Array, error) {
	d := args[0].DType()
	shape, err := broadcastShape(args)
	if err != nil {
		return nil, err
	}
	maps := make([][]int, len(args))
	xs := make([]any, len(args))
	for i, a := range args {
		if a.DType() != d {
			return nil, fmt.Errorf("operands are %s and %s; elementwise operands share one dtype", d, a.DType())
		}
		if maps[i], err = broadcastIndex(a.Shape(), shape); err != nil {
			return nil, err
		}
		xs[i] = widen(a)
	}
	if op == trace.OpNextafter && (d == tensor.F16 || d == tensor.BF16) {
		return nextafter16(d, args, maps, shape)
	}
	if f, ok := d.FloatFormat(); ok && op == trace.OpNextafter {
		a, b := widen(args[0]).([]float32), widen(args[1]).([]float32)
		out := mapBinary(a, b, maps[0], maps[1], func(x, y float32) float32 {
			return f.ToFloat32(f.NextAfter(f.FromFloat32(x), f.FromFloat32(y)))
		})
		return narrowTo(out, d, shape)
	}
	var res any
	if len(args) == 1 {
		res, err = ev.unary(op, d, xs[0], maps[0])
	} else {
		res, err = ev.binary(op, d, xs[0], xs[1], maps[0], maps[1])
	}
	if err != nil {
		return nil, err
	}
	return narrow(res, resultDType(op, d), shape)
}

// resultDType is the dtype of op's result on operands of dtype d:
// comparisons give bool, abs, real and imag the real-part dtype.
func resultDType(op trace.Op, d tensor.DType) tensor.DType {
	switch {
	case op.Info().Compare:
		return tensor.Bool
	case op == trace.OpAbs || op == trace.OpReal || op == trace.OpImag:
		return d.RealPart()
	}
	return d
}

func (ev *evaluator) unary(op trace.Op, d tensor.DType, x any, ix []int) (any, error) {
	switch x := x.(type) {
	case []bool:
		return boolUnary(op, x, ix)
	case []uint8:
		return intUnary(op, x, ix)
	case []uint16:
		return intUnary(op, x, ix)
	case []uint32:
		return intUnary(op, x, ix)
	case []uint64:
		return intUnary(op, x, ix)
	case []int8:
		return intUnary(op, x, ix)
	case []int16:
		return intUnary(op, x, ix)
	case []int32:
		return intUnary(op, x, ix)
	case []int64:
		return intUnary(op, x, ix)
	case []float32:
		return floatUnary(op, ev.transcendental(computeDType(d)), x, ix)
	case []float64:
		return floatUnary(op, ev.transcendental(d), x, ix)
	case []cpx[float32]:
		return complexUnary(op, x, ix)
	case []cpx[float64]:
		return complexUnary(op, x, ix)
	}
	return nil, errNotDefined(op, d.String())
}

func (ev *evaluator) binary(op trace.Op, d tensor.DType, a, b any, ia, ib []int) (any, error) {
	switch a := a.(type) {
	case []bool:
		return boolBinary(op, a, b.([]bool), ia, ib)
	case []uint8:
		return intBinary(op, a, b.([]uint8), ia, ib)
	case []uint16:
		return intBinary(op, a, b.([]uint16), ia, ib)
	case []uint32:
		return intBinary(op, a, b.([]uint32), ia, ib)
	case []uint64:
		return intBinary(op, a, b.([]uint64), ia, ib)
	case []int8:
		return intBinary(op, a, b.([]int8), ia, ib)
	case []int16:
		return intBinary(op, a, b.([]int16), ia, ib)
	case []int32:
		return intBinary(op, a, b.([]int32), ia, ib)
	case []int64:
		return intBinary(op, a, b.([]int64), ia, ib)
	case []float32:
		return floatBinary(op, ev.transcendental(computeDType(d)), a, b.([]float32), ia, ib)
	case []float64:
		return floatBinary(op, ev.transcendental(d), a, b.([]float64), ia, ib)
	case []cpx[float32]:
		return complexBinary(op, a, b.([]cpx[float32]), ia, ib)
	case []cpx[float64]:
		return complexBinary(op, a, b.([]cpx[float64]), ia, ib)
	}
	return nil, errNotDefined(op, d.String())
}
