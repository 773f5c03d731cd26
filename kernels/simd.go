package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The hot dtypes run on internal/simd's kernels (AVX-512 or AVX2 when the
// CPU has them, pure Go otherwise), registered at tierSIMD over the generic
// loops (tier.go). Each gives exactly the bits of the generic loop it
// replaces — that package's twin tests hold it to it, and the conformance
// suite runs both — so the tables only swap speed. These adapt package
// simd's slice kernels to the tables' pointer-and-length form.

func simd2[T any](f func(d, a, b []T)) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[T](d, n), view[T](a, n), view[T](b, n)) }
}

func simd1[T, U any](f func(d []U, a []T)) unaryFn {
	return func(d, a unsafe.Pointer, n int) { f(view[U](d, n), view[T](a, n)) }
}

func simdCmp[T any](f func(d []bool, a, b []T, p simd.Pred), p simd.Pred) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[bool](d, n), view[T](a, n), view[T](b, n), p) }
}

func simdSel[T any](f func(d []T, c []bool, a, b []T)) selectFn {
	return func(d, c, a, b unsafe.Pointer, n int) {
		f(view[T](d, n), view[bool](c, n), view[T](a, n), view[T](b, n))
	}
}

// scalarFn computes dst = a op s (or s op a) with s read from *s.
type scalarFn func(dst, a, s unsafe.Pointer, n int)

// scalarTable[op][d][rev]: binary ops with one loop-invariant operand;
// rev means the invariant operand is the left one.
var scalarTable [trace.NumOps][tensor.NumDTypes][2]scalarFn

// widenOpTable[op][d]: a wrapping byte op whose result is widened to f32
// in the same pass (see fuseIntWiden).
var widenOpTable [trace.NumOps][tensor.NumDTypes]binaryFn

func simdWiden[T any](f func(d []float32, a, b []T)) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[float32](d, n), view[T](a, n), view[T](b, n)) }
}

func simdScalar[T any](f func(d, a []T, s T)) scalarFn {
	return func(d, a, s unsafe.Pointer, n int) { f(view[T](d, n), view[T](a, n), *(*T)(s)) }
}

// simdRound adapts an in-place rounding kernel.
func simdRound(f func(x []float32)) func(p unsafe.Pointer, n int) {
	return func(p unsafe.Pointer, n int) { f(view[float32](p, n)) }
}

// registerSIMDByHand registers the kernels of package simd that do not
// fill one table slot each (registerSIMD, generated, does those): one
// comparison kernel serves six predicates, and the selects go by the size
// of the compute dtype.
func registerSIMDByHand() {
	preds := map[trace.Op]simd.Pred{trace.OpEq: simd.Eq, trace.OpNe: simd.Ne, trace.OpLt: simd.Lt, trace.OpLe: simd.Le, trace.OpGt: simd.Gt, trace.OpGe: simd.Ge}
	for op, p := range preds {
		for _, d := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
			put(&binaryTable[op][d], tierSIMD, simdCmp(simd.CmpF32, p))
		}
		put(&binaryTable[op][tensor.F64], tierSIMD, simdCmp(simd.CmpF64, p))
	}
	for _, d := range tensor.AllDTypes() {
		switch computeDType(d).Size() {
		case 1:
			put(&selectTable[d], tierSIMD, simdSel(simd.Select8))
		case 2:
			put(&selectTable[d], tierSIMD, simdSel(simd.Select16))
		case 4:
			put(&selectTable[d], tierSIMD, simdSel(simd.Select32))
		case 8:
			put(&selectTable[d], tierSIMD, simdSel(simd.Select64))
		}
	}
}
