package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The narrow dtypes (docs/SPEC.md, "Narrow dtypes") are computed in a wider
// form and brought back to their own values after every op, as f16 and
// bf16 are: a narrow float in f32 (rounded with its format's rules), a
// sub-byte integer in i8 or u8 (wrapped into its bits, as JAX's int4
// arithmetic wraps modulo 16). Their element kernels are the compute
// dtype's (kernelDType); these functions move blocks between the forms.

// narrowForms are the block conversions of one narrow dtype.
type narrowForms struct {
	widen, narrow unaryFn
	round         func(p unsafe.Pointer, n int)
}

var narrowFormTable = func() (t [tensor.NumDTypes]narrowForms) {
	for _, d := range tensor.NarrowDTypes() {
		if f, ok := d.FloatFormat(); ok {
			t[d] = narrowForms{
				widen: func(dst, src unsafe.Pointer, n int) {
					out, in := view[float32](dst, n), view[uint8](src, n)
					for i, b := range in {
						out[i] = f.ToFloat32(b)
					}
				},
				narrow: func(dst, src unsafe.Pointer, n int) {
					out, in := view[uint8](dst, n), view[float32](src, n)
					for i, v := range in {
						out[i] = f.FromFloat32(v)
					}
				},
				round: func(p unsafe.Pointer, n int) {
					v := view[float32](p, n)
					for i, x := range v {
						v[i] = f.ToFloat32(f.FromFloat32(x))
					}
				},
			}
			continue
		}
		f, _ := d.IntFormat()
		shift := uint(8 - f.Bits())
		wrap := func(v uint8) uint8 { return v << shift >> shift }
		if f.Signed() {
			wrap = func(v uint8) uint8 { return uint8(int8(v<<shift) >> shift) }
		}
		store := func(dst, src unsafe.Pointer, n int) {
			out, in := view[uint8](dst, n), view[uint8](src, n)
			for i, v := range in {
				out[i] = wrap(v)
			}
		}
		t[d] = narrowForms{
			// Sub-byte integers are stored as their i8/u8 compute form:
			// loading is a copy, storing and rounding wrap.
			widen:  store,
			narrow: store,
			round:  func(p unsafe.Pointer, n int) { store(p, p, n) },
		}
	}
	return t
}()

// kernelDType is the dtype whose element kernels compute dtype d: its
// compute dtype for the narrow dtypes (their tables' rows are empty), d
// itself otherwise (f16 and bf16 have rows of their own).
func kernelDType(d tensor.DType) tensor.DType {
	if d.IsNarrow() {
		return computeDType(d)
	}
	return d
}

// narrowNextafter is nextafter on a narrow float's f32 compute form,
// stepping in the format itself (rounding an f32 step would undo it).
func narrowNextafter(d tensor.DType) binaryFn {
	f, _ := d.FloatFormat()
	return func(dst, a, b unsafe.Pointer, n int) {
		out, x, y := view[float32](dst, n), view[float32](a, n), view[float32](b, n)
		for i := range out {
			out[i] = f.ToFloat32(f.NextAfter(f.FromFloat32(x[i]), f.FromFloat32(y[i])))
		}
	}
}

// narrowBinary is the binary kernel of op on narrow dtype d: the compute
// dtype's, but nextafter steps in d's format.
func narrowBinary(op trace.Op, d tensor.DType) binaryFn {
	if op == trace.OpNextafter && d.IsFloat() {
		return narrowNextafter(d)
	}
	return binaryTable[op][computeDType(d)]
}
