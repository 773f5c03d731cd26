package kernels

import (
	"math"
	"math/cmplx"
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Complex arithmetic is NumPy's, in the precision of the parts (f32 for
// c64): × is (ac − bd) + (ad + bc)i with each product rounded before the
// sum, ÷ is Smith's algorithm as in NumPy's loops, |z| is hypot. Go's own
// complex64 operators compute in float64 and differ in the last bit, so
// they are not used. Transcendental functions run math/cmplx in complex128
// on the exactly widened value and round the parts.

func parts[T cplx, F float](z T) (F, F) {
	c := complex128(z)
	return F(real(c)), F(imag(c))
}

func mk[T cplx, F float](re, im F) T { return T(complex(float64(re), float64(im))) }

func cmul[T cplx, F float](a, b T) T {
	ar, ai := parts[T, F](a)
	br, bi := parts[T, F](b)
	return mk[T](F(F(ar*br)-F(ai*bi)), F(F(ar*bi)+F(ai*br)))
}

func cdiv[T cplx, F float](a, b T) T {
	ar, ai := parts[T, F](a)
	br, bi := parts[T, F](b)
	absR, absI := F(math.Abs(float64(br))), F(math.Abs(float64(bi)))
	if absR >= absI {
		if absR == 0 && absI == 0 {
			return mk[T](F(ar/absR), F(ai/absR))
		}
		rat := F(bi / br)
		scl := F(1 / F(br+F(bi*rat)))
		return mk[T](F(F(ar+F(ai*rat))*scl), F(F(ai-F(ar*rat))*scl))
	}
	rat := F(br / bi)
	scl := F(1 / F(bi+F(br*rat)))
	return mk[T](F(F(F(ar*rat)+ai)*scl), F(F(F(ai*rat)-ar)*scl))
}

func cabs[T cplx, F float](z T) F {
	re, im := parts[T, F](z)
	return F(math.Hypot(float64(re), float64(im)))
}

// csign is z/|z| part by part, 0 for 0.
func csign[T cplx, F float](z T) T {
	a := cabs[T, F](z)
	if a == 0 {
		return 0
	}
	re, im := parts[T, F](z)
	return mk[T](F(re/a), F(im/a))
}

// cpow is math/cmplx.Pow, except that 0 raised to a power whose real part
// is NaN is NaN (cmplx.Pow panics when the imaginary part is infinite).
func cpow(x, y complex128) complex128 {
	if x == 0 && real(y) != real(y) {
		return complex(math.NaN(), math.NaN())
	}
	return cmplx.Pow(x, y)
}

func c128div(a, b complex128) complex128 { return cdiv[complex128, float64](a, b) }

var complexFuncs = map[trace.Op]func(complex128) complex128{
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
}

func mapC[T cplx, U any](f func(T) U) func(d []U, a []T) {
	return func(d []U, a []T) {
		for i, z := range a[:len(d)] {
			d[i] = f(z)
		}
	}
}

func zipC[T cplx](f func(a, b T) T) func(d, a, b []T) {
	return func(d, a, b []T) {
		for i := range d {
			d[i] = f(a[i], b[i])
		}
	}
}

func registerComplex[T cplx, F float](d tensor.DType) {
	registerCommon[T](d)
	put(&binaryTable[trace.OpAdd][d], tierGeneric, bin(add[T])) // part by part: exact as written
	put(&binaryTable[trace.OpSub][d], tierGeneric, bin(sub[T]))
	put(&binaryTable[trace.OpMul][d], tierGeneric, bin(zipC(cmul[T, F])))
	put(&binaryTable[trace.OpDiv][d], tierGeneric, bin(zipC(cdiv[T, F])))
	put(&binaryTable[trace.OpPow][d], tierGeneric, bin(zipC(func(a, b T) T { return T(cpow(complex128(a), complex128(b))) })))
	put(&unaryTable[trace.OpNeg][d], tierGeneric, un(neg[T]))
	put(&unaryTable[trace.OpConj][d], tierGeneric, un(mapC(func(z T) T { re, im := parts[T, F](z); return mk[T](re, -im) })))
	put(&unaryTable[trace.OpSign][d], tierGeneric, un(mapC(csign[T, F])))
	for op, f := range complexFuncs {
		put(&unaryTable[op][d], tierGeneric, un(mapC(func(z T) T { return T(f(complex128(z))) })))
	}
	put(&unaryTable[trace.OpAbs][d], tierGeneric, un(mapC(cabs[T, F])))
	put(&unaryTable[trace.OpReal][d], tierGeneric, un(mapC(func(z T) F { re, _ := parts[T, F](z); return re })))
	put(&unaryTable[trace.OpImag][d], tierGeneric, un(mapC(func(z T) F { _, im := parts[T, F](z); return im })))
	put(&unaryTable[trace.OpIsNaN][d], tierGeneric, un(mapC(func(z T) bool { re, im := parts[T, F](z); return re != re || im != im })))
	put(&unaryTable[trace.OpIsFinite][d], tierGeneric, un(mapC(func(z T) bool {
		re, im := parts[T, F](z)
		return !math.IsInf(float64(re), 0) && re == re && !math.IsInf(float64(im), 0) && im == im
	})))
	reduceTable[trace.OpReduceSum][d] = treeReducer[T](false)
	reduceTable[trace.OpReduceProd][d] = complexProdReducer[T, F]()
}

// complexProdReducer is the fixed tree with NumPy's complex multiply.
func complexProdReducer[T cplx, F float]() *reducer { return treeReducerWith(cmul[T, F], 1) }

// gemmCJob runs pieces of one complex product on the workers.
type gemmCJob[F gemm.Float] struct {
	call  gemm.CCall[F]
	parts int
}

func (j *gemmCJob[F]) runRange(_ *runState, _ *worker, lo, hi int) {
	for p := lo; p < hi; p++ {
		j.call.RunPart(p, j.parts)
	}
}

// runGemmC runs a c64 (F float32) or c128 (F float64) product on
// internal/gemm's complex GEMM, each operand read through its strides:
// c[i,j] = Σ_l a[i,l]·b[l,j], l in order from 0, each product NumPy's
// complex multiply (cmul's roundings, no FMA) added part by part, the
// same bits on every tier and at any number of workers.
func runGemmC[F gemm.Float](x *cpuExec, rs *runState, k *dotKernel, c, a, b unsafe.Pointer, na, nb int) {
	j := slotJob[gemmCJob[F]](rs, k.slot)
	j.call = gemm.CCall[F]{Batch: k.b, M: k.m, N: k.n, K: k.kk,
		A: view[F](a, 2*na), B: view[F](b, 2*nb), C: view[F](c, 2*k.b*k.m*k.n), BatchC: k.m * k.n, LDC: k.n, Stop: rs.gemmStop()}
	j.call.BatchA, j.call.RowA, j.call.ColA = k.lhs.strides[0], k.lhs.strides[1], k.lhs.strides[2]
	j.call.BatchB, j.call.RowB, j.call.ColB = k.rhs.strides[0], k.rhs.strides[1], k.rhs.strides[2]
	workers := x.cpu.workers()
	if 4*k.b*k.m*k.n*k.kk < x.gemmParallelMin() { // a complex step is four real ones' work
		workers = 1
	}
	j.parts = j.call.Parts(workers)
	x.parallel(rs, j.parts, 4*k.b*k.m*k.n*max(k.kk, 1), j)
	j.call = gemm.CCall[F]{} // hold no caller's array between Runs
}
