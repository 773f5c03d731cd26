package progen

import (
	"math"
	"math/rand"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Smooth programs are for checking derivatives against central
// differences taken in float64 (Options.Smooth): the drawn equations stay
// where a difference quotient can see the derivative, and the data are
// ordinary values away from every special one.

// smoothEqn reports whether e may appear in a smooth program. Left out:
// values of a float type narrower than float64 (an int divided gives f32,
// whose rounding the differences would see); staircases (floor, ceil,
// round, floordiv, rem), whose steps can be finer than any difference
// step (x // 1e-40); ops of a value with itself that are constants by
// cancellation (x − x, x / x) or ties (maximum(x, x)); literals of
// extreme size, which absorb what the differences perturb (1e30 − cos(x)
// is 1e30); sign of a complex value, z/|z|, whose JAX derivative is
// zero; fmod and copysign, which jump; stop_gradient, whose derivative is
// 0 by definition, not the function's slope; nextafter, which has none;
// and the complex inverse trigonometric and hyperbolic functions, whose
// branch cuts lie on the axes where a complex value made from a real one
// sits, so which side a derivative takes is up to signed zeros.
func smoothEqn(e *trace.Eqn) bool {
	switch e.Out.Type.DType {
	case tensor.F32, tensor.C64, tensor.F16, tensor.BF16:
		return false
	}
	switch e.Op {
	case trace.OpFloor, trace.OpCeil, trace.OpRound, trace.OpFloorDiv, trace.OpRem,
		trace.OpFmod, trace.OpCopysign, trace.OpStopGradient, trace.OpNextafter,
		trace.OpBitcastConvert, trace.OpThreefry2x32: // bit reinterpretation: zero derivative, not smooth
		return false
	case trace.OpAsin, trace.OpAcos, trace.OpAtan, trace.OpAsinh, trace.OpAcosh, trace.OpAtanh:
		return !e.Args[0].Type.DType.IsComplex()
	case trace.OpSub, trace.OpDiv, trace.OpMax, trace.OpMin:
		return e.Args[0] != e.Args[1]
	case trace.OpSign:
		return !e.Args[0].Type.DType.IsComplex()
	case trace.OpConst:
		c := e.Params.Value.Astype(tensor.C128)
		for i := range c.Size() {
			z := tensor.Index(c.Data(), i).(complex128)
			if m := math.Hypot(real(z), imag(z)); m > 1e6 || m != 0 && m < 1e-6 || m != m {
				return false
			}
		}
	}
	return true
}

// smoothArray is an array of dtype d and shape with ordinary data: floats
// (and both parts of complex values) uniform in (−2, 2), integers in
// −3..3, fair bools.
func smoothArray(r *rand.Rand, d tensor.DType, shape []int) *tensor.Array {
	vals := make([]complex128, trace.ShapeSize(shape))
	for j := range vals {
		switch {
		case d.IsInexact():
			vals[j] = complex(4*r.Float64()-2, 4*r.Float64()-2)
		case d == tensor.Bool:
			vals[j] = complex(float64(r.Intn(2)), 0)
		default:
			vals[j] = complex(float64(r.Intn(7)-3), 0)
		}
	}
	a, err := tensor.FromSlice(vals)
	if err == nil {
		a, err = a.Reshape(shape...)
	}
	if err != nil {
		panic("progen: " + err.Error()) // unreachable: the values are made for the shape
	}
	if !d.IsComplex() {
		a = a.Astype(tensor.F64)
	}
	return a.Astype(d)
}
