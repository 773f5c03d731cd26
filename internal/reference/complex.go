package reference

import (
	"math"
	"math/cmplx"

	"github.com/kiln-go/kiln/trace"
)

// Complex ops, generic over the part type F (float32 for c64, float64 for
// c128). Arithmetic is written out part by part with every real operation
// rounded to F (see doc.go for why Go's complex operators are not used);
// the functions of math/cmplx run in complex128 on the exactly widened
// value and their parts are rounded to F.

func (z cpx[F]) c128() complex128 { return complex(float64(z.re), float64(z.im)) }

func fromC128[F float](z complex128) cpx[F] { return cpx[F]{F(real(z)), F(imag(z))} }

func cadd[F float](a, b cpx[F]) cpx[F] { return cpx[F]{F(a.re + b.re), F(a.im + b.im)} }

func csub[F float](a, b cpx[F]) cpx[F] { return cpx[F]{F(a.re - b.re), F(a.im - b.im)} }

// cmul is (ac − bd) + (ad + bc)i, each product rounded before the sum.
func cmul[F float](a, b cpx[F]) cpx[F] {
	return cpx[F]{
		F(F(a.re*b.re) - F(a.im*b.im)),
		F(F(a.re*b.im) + F(a.im*b.re)),
	}
}

// cdiv is NumPy's complex division: Smith's algorithm, dividing through by
// the larger part of the divisor and scaling by a reciprocal; a zero
// divisor gives the parts divided by +0 (Inf or NaN).
func cdiv[F float](a, b cpx[F]) cpx[F] {
	absRe, absIm := F(math.Abs(float64(b.re))), F(math.Abs(float64(b.im)))
	if absRe >= absIm {
		if absRe == 0 && absIm == 0 {
			return cpx[F]{F(a.re / absRe), F(a.im / absIm)}
		}
		rat := F(b.im / b.re)
		scl := F(1 / F(b.re+F(b.im*rat)))
		return cpx[F]{F(F(a.re+F(a.im*rat)) * scl), F(F(a.im-F(a.re*rat)) * scl)}
	}
	rat := F(b.re / b.im)
	scl := F(1 / F(b.im+F(b.re*rat)))
	return cpx[F]{F(F(F(a.re*rat)+a.im) * scl), F(F(F(a.im*rat)-a.re) * scl)}
}

// cabs is |z|: math.Hypot of the widened parts, rounded to F.
func cabs[F float](z cpx[F]) F { return F(math.Hypot(float64(z.re), float64(z.im))) }

// csign is z/|z| computed part by part, and 0 for 0 (a NaN |z| gives NaN
// parts).
func csign[F float](z cpx[F]) cpx[F] {
	a := cabs(z)
	if a == 0 {
		return cpx[F]{}
	}
	return cpx[F]{F(z.re / a), F(z.im / a)}
}

// c128div is cdiv on complex128 values, for the functions below that
// divide.
func c128div(a, b complex128) complex128 {
	return cdiv(cpx[float64]{real(a), imag(a)}, cpx[float64]{real(b), imag(b)}).c128()
}

// cmplxFuncs are the transcendental ops (and sqrt) on complex128; the
// ones math/cmplx lacks are composed from it.
var cmplxFuncs = map[trace.Op]func(complex128) complex128{
	trace.OpExp:      cmplx.Exp,
	trace.OpLog:      cmplx.Log,
	trace.OpLog1p:    func(z complex128) complex128 { return cmplx.Log(1 + z) },
	trace.OpExpm1:    func(z complex128) complex128 { return cmplx.Exp(z) - 1 },
	trace.OpSqrt:     cmplx.Sqrt,
	trace.OpRsqrt:    func(z complex128) complex128 { return c128div(1, cmplx.Sqrt(z)) },
	trace.OpSin:      cmplx.Sin,
	trace.OpCos:      cmplx.Cos,
	trace.OpTan:      cmplx.Tan,
	trace.OpTanh:     cmplx.Tanh,
	trace.OpLogistic: func(z complex128) complex128 { return c128div(1, 1+cmplx.Exp(-z)) },
	trace.OpAsin:     cmplx.Asin,
	trace.OpAcos:     cmplx.Acos,
	trace.OpAtan:     cmplx.Atan,
	trace.OpSinh:     cmplx.Sinh,
	trace.OpCosh:     cmplx.Cosh,
	trace.OpAsinh:    cmplx.Asinh,
	trace.OpAcosh:    cmplx.Acosh,
	trace.OpAtanh:    cmplx.Atanh,
	trace.OpExp2:     func(z complex128) complex128 { return cmplx.Exp(complex(real(z)*math.Ln2, imag(z)*math.Ln2)) },
	trace.OpLog2: func(z complex128) complex128 {
		w := cmplx.Log(z)
		return complex(math.Log2E*real(w), math.Log2E*imag(w))
	},
	trace.OpLog10: cmplx.Log10,
}

func complexUnary[F float](op trace.Op, x []cpx[F], ix []int) (any, error) {
	if f, ok := cmplxFuncs[op]; ok {
		return mapUnary(x, ix, func(z cpx[F]) cpx[F] { return fromC128[F](f(z.c128())) }), nil
	}
	switch op {
	case trace.OpNeg:
		return mapUnary(x, ix, func(z cpx[F]) cpx[F] { return cpx[F]{-z.re, -z.im} }), nil
	case trace.OpConj:
		return mapUnary(x, ix, func(z cpx[F]) cpx[F] { return cpx[F]{z.re, -z.im} }), nil
	case trace.OpSign:
		return mapUnary(x, ix, csign[F]), nil
	case trace.OpAbs:
		return mapUnary(x, ix, cabs[F]), nil
	case trace.OpReal:
		return mapUnary(x, ix, func(z cpx[F]) F { return z.re }), nil
	case trace.OpImag:
		return mapUnary(x, ix, func(z cpx[F]) F { return z.im }), nil
	case trace.OpIsNaN:
		return mapUnary(x, ix, func(z cpx[F]) bool { return z.re != z.re || z.im != z.im }), nil
	case trace.OpIsFinite:
		return mapUnary(x, ix, func(z cpx[F]) bool { return isFinite(z.re) && isFinite(z.im) }), nil
	case trace.OpIsInf:
		return mapUnary(x, ix, func(z cpx[F]) bool { return math.IsInf(float64(z.re), 0) || math.IsInf(float64(z.im), 0) }), nil
	case trace.OpStopGradient:
		return mapUnary(x, ix, func(z cpx[F]) cpx[F] { return z }), nil
	}
	return nil, errNotDefined(op, "complex numbers")
}

func isFinite[F float](v F) bool { return !math.IsInf(float64(v), 0) && v == v }

func complexBinary[F float](op trace.Op, a, b []cpx[F], ia, ib []int) (any, error) {
	switch op {
	case trace.OpAdd:
		return mapBinary(a, b, ia, ib, cadd[F]), nil
	case trace.OpSub:
		return mapBinary(a, b, ia, ib, csub[F]), nil
	case trace.OpMul:
		return mapBinary(a, b, ia, ib, cmul[F]), nil
	case trace.OpDiv:
		return mapBinary(a, b, ia, ib, cdiv[F]), nil
	case trace.OpPow:
		return mapBinary(a, b, ia, ib, func(x, y cpx[F]) cpx[F] { return fromC128[F](cpow(x.c128(), y.c128())) }), nil
	case trace.OpEq:
		return mapBinary(a, b, ia, ib, func(x, y cpx[F]) bool { return x.re == y.re && x.im == y.im }), nil
	case trace.OpNe:
		return mapBinary(a, b, ia, ib, func(x, y cpx[F]) bool { return x.re != y.re || x.im != y.im }), nil
	}
	return nil, errNotDefined(op, "complex numbers")
}

// cpow is math/cmplx.Pow with 0 raised to a power whose real part is NaN
// defined as NaN (cmplx.Pow panics there when the imaginary part is
// infinite).
func cpow(x, y complex128) complex128 {
	if x == 0 && real(y) != real(y) {
		return complex(math.NaN(), math.NaN())
	}
	return cmplx.Pow(x, y)
}
