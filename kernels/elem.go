package kernels

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/xmath"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Element kernels work on "compute" slices: f16 and bf16 are computed in
// f32 (and rounded back after every op by the executor); every other dtype
// in its own Go type. Each op is written once, generic over the element
// type, and registered per dtype in the dispatch tables below, so the
// executor makes one type switch per block, never one per element.

// computeDType is the dtype a value of dtype d is held in while computing:
// f32 for f16, bf16 and the narrow floats, i8 for i4 and i2, u8 for u4
// and u2.
func computeDType(d tensor.DType) tensor.DType {
	switch {
	case d == tensor.F16 || d == tensor.BF16:
		return tensor.F32
	case d.IsNarrow() && d.IsFloat():
		return tensor.F32
	case d.IsNarrow() && d.IsSigned():
		return tensor.I8
	case d.IsNarrow():
		return tensor.U8
	}
	return d
}

// Block kernels take raw pointers to n elements (compute form): the executor
// keeps every buffer and register as a pointer, so calling a kernel on a
// block allocates nothing and converts no interface.
type (
	unaryFn  func(dst, a unsafe.Pointer, n int)
	binaryFn func(dst, a, b unsafe.Pointer, n int)
	selectFn func(dst, c, a, b unsafe.Pointer, n int)
)

// The dispatch tables, indexed by op and by the dtype of the operands (for
// comparisons, abs, real and imag the result dtype differs).
var (
	unaryTable  [trace.NumOps][tensor.NumDTypes]unaryFn
	binaryTable [trace.NumOps][tensor.NumDTypes]binaryFn
	selectTable [tensor.NumDTypes]selectFn
)

type signed interface{ int8 | int16 | int32 | int64 }
type unsigned interface {
	uint8 | uint16 | uint32 | uint64
}
type integer interface{ signed | unsigned }
type float interface{ float32 | float64 }
type cplx interface{ complex64 | complex128 }
type ordered interface{ integer | float }
type number interface{ integer | float | cplx }

// view is the slice of n elements of type T at p.
func view[T any](p unsafe.Pointer, n int) []T { return unsafe.Slice((*T)(p), n) }

func un[T, U any](f func(d []U, a []T)) unaryFn {
	return func(d, a unsafe.Pointer, n int) { f(view[U](d, n), view[T](a, n)) }
}

func bin[T, U any](f func(d []U, a, b []T)) binaryFn {
	return func(d, a, b unsafe.Pointer, n int) { f(view[U](d, n), view[T](a, n), view[T](b, n)) }
}

// Arithmetic shared by all numbers.

func add[T number](d, a, b []T) {
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func sub[T number](d, a, b []T) {
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func mul[T number](d, a, b []T) {
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

func div[T float | cplx](d, a, b []T) {
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

func neg[T number](d, a []T) {
	for i := range d {
		d[i] = -a[i]
	}
}

func eq[T comparable](d []bool, a, b []T) {
	for i := range d {
		d[i] = a[i] == b[i]
	}
}

func ne[T comparable](d []bool, a, b []T) {
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func lt[T ordered](d []bool, a, b []T) {
	for i := range d {
		d[i] = a[i] < b[i]
	}
}

func le[T ordered](d []bool, a, b []T) {
	for i := range d {
		d[i] = a[i] <= b[i]
	}
}

func gt[T ordered](d []bool, a, b []T) {
	for i := range d {
		d[i] = a[i] > b[i]
	}
}

func ge[T ordered](d []bool, a, b []T) {
	for i := range d {
		d[i] = a[i] >= b[i]
	}
}

func sel[T any](d []T, c []bool, a, b []T) {
	for i := range d {
		if c[i] {
			d[i] = a[i]
		} else {
			d[i] = b[i]
		}
	}
}

func identity[T any](d, a []T) { copy(d, a) }

func zeros[T any](d, _ []T) { clear(d) }

// Integers: wraparound, floor division, XLA shifts.

func floorDivInt[T integer](d, a, b []T) {
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
			continue
		}
		q := x / y // Go wraps MinInt / −1 to MinInt, as two's complement does
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q--
		}
		d[i] = q
	}
}

func remInt[T integer](d, a, b []T) {
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
			continue
		}
		r := x % y
		if r != 0 && ((r < 0) != (y < 0)) {
			r += y
		}
		d[i] = r
	}
}

func powInt[T integer](d, a, b []T) {
	for i := range d {
		base, e := a[i], b[i]
		var zero T
		if e < zero { // only reachable for signed T
			switch {
			case base == 1:
				d[i] = 1
			case base == zero-1:
				if e%2 == 0 {
					d[i] = 1
				} else {
					d[i] = base
				}
			default:
				d[i] = 0
			}
			continue
		}
		r := T(1)
		for e > 0 {
			if e&1 == 1 {
				r *= base
			}
			base *= base
			e >>= 1
		}
		d[i] = r
	}
}

func absInt[T signed](d, a []T) {
	for i := range d {
		if a[i] < 0 {
			d[i] = -a[i]
		} else {
			d[i] = a[i]
		}
	}
}

func signInt[T signed](d, a []T) {
	for i := range d {
		switch {
		case a[i] > 0:
			d[i] = 1
		case a[i] < 0:
			d[i] = -1
		default:
			d[i] = 0
		}
	}
}

func signUint[T unsigned](d, a []T) {
	for i := range d {
		if a[i] > 0 {
			d[i] = 1
		} else {
			d[i] = 0
		}
	}
}

func maxOrd[T integer](d, a, b []T) {
	for i := range d {
		d[i] = max(a[i], b[i])
	}
}

func minOrd[T integer](d, a, b []T) {
	for i := range d {
		d[i] = min(a[i], b[i])
	}
}

func and[T integer](d, a, b []T) {
	for i := range d {
		d[i] = a[i] & b[i]
	}
}

func or[T integer](d, a, b []T) {
	for i := range d {
		d[i] = a[i] | b[i]
	}
}

func xor[T integer](d, a, b []T) {
	for i := range d {
		d[i] = a[i] ^ b[i]
	}
}

func not[T integer](d, a []T) {
	for i := range d {
		d[i] = ^a[i]
	}
}

// widthOf is the bit width of T.
func widthOf[T integer]() uint64 {
	var z T
	z--
	if z > 0 {
		return uint64(bits.Len64(uint64(z)))
	}
	var one T = 1
	n := uint64(1)
	for one<<n != 0 && n < 64 {
		n++
	}
	return n
}

// shl: a shift by the width or more, or by a negative amount, gives 0.
func shl[T integer](d, a, b []T) {
	w := widthOf[T]()
	for i := range d {
		s := uint64(b[i])
		var zero T
		if b[i] < zero || s >= w {
			d[i] = 0
			continue
		}
		d[i] = a[i] << s
	}
}

// shr is arithmetic for signed and logical for unsigned types; a shift by
// the width or more (or a negative amount) fills with the sign bit.
func shr[T integer](d, a, b []T) {
	w := widthOf[T]()
	for i := range d {
		s := uint64(b[i])
		var zero T
		if b[i] < zero || s >= w {
			s = w - 1
			if a[i] >= zero {
				d[i] = 0
				continue
			}
		}
		d[i] = a[i] >> s
	}
}

func falses[T any](d []bool, _ []T) { clear(d) }

func trues[T any](d []bool, _ []T) {
	for i := range d {
		d[i] = true
	}
}

// Bools: add is or, mul is and.

func orBool(d, a, b []bool) {
	for i := range d {
		d[i] = a[i] || b[i]
	}
}

func andBool(d, a, b []bool) {
	for i := range d {
		d[i] = a[i] && b[i]
	}
}

func xorBool(d, a, b []bool) {
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func notBool(d, a []bool) {
	for i := range d {
		d[i] = !a[i]
	}
}

func ltBool(d []bool, a, b []bool) {
	for i := range d {
		d[i] = !a[i] && b[i]
	}
}

func leBool(d []bool, a, b []bool) {
	for i := range d {
		d[i] = !a[i] || b[i]
	}
}

func gtBool(d []bool, a, b []bool) { ltBool(d, b, a) }
func geBool(d []bool, a, b []bool) { leBool(d, b, a) }

// Floats: NumPy's divmod, NaN-propagating max/min, scalar math in float64
// rounded to T (correctly rounded for sqrt; the transcendental definition of
// docs/SPEC.md §3).

func floorDivFloat[T float](d, a, b []T) {
	for i := range d {
		d[i], _ = divmod(a[i], b[i])
	}
}

func remFloat[T float](d, a, b []T) {
	for i := range d {
		_, d[i] = divmod(a[i], b[i])
	}
}

// divmod is NumPy's npy_divmod: floor division and Python's modulus.
func divmod[T float](a, b T) (T, T) {
	mod := T(math.Mod(float64(a), float64(b)))
	if b == 0 {
		return a / b, mod
	}
	div := (a - mod) / b
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod += b
			div -= 1
		}
	} else {
		mod = T(math.Copysign(0, float64(b)))
	}
	var floordiv T
	if div != 0 {
		floordiv = T(math.Floor(float64(div)))
		if div-floordiv > 0.5 {
			floordiv += 1
		}
	} else {
		floordiv = T(math.Copysign(0, float64(a/b)))
	}
	return floordiv, mod
}

// maxFloat and minFloat are IEEE 754-2019 maximum and minimum.
func maxFloat[T float](d, a, b []T) {
	for i := range d {
		d[i] = numerics.Maximum(a[i], b[i])
	}
}

func minFloat[T float](d, a, b []T) {
	for i := range d {
		d[i] = numerics.Minimum(a[i], b[i])
	}
}

func mathUn[T float](f func(float64) float64) func(d, a []T) {
	return func(d, a []T) {
		for i := range d {
			d[i] = T(f(float64(a[i])))
		}
	}
}

func powFloat[T float](d, a, b []T) {
	for i := range d {
		d[i] = T(xmath.Pow(float64(a[i]), float64(b[i])))
	}
}

// signFloat follows NumPy: −1, 0 or 1, +0 for ±0, NaN stays NaN.
func signFloat(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func isNaN[T float](d []bool, a []T) {
	for i := range d {
		d[i] = a[i] != a[i]
	}
}

func isFinite[T float](d []bool, a []T) {
	for i := range d {
		d[i] = !math.IsInf(float64(a[i]), 0) && a[i] == a[i]
	}
}
