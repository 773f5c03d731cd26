package kiln

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// DotOption configures MatMul, DotGeneral and EinsumPreferred (see
// trace.DotOption).
type DotOption = trace.DotOption

// PreferredElementType is JAX's preferred_element_type: the product's
// dtype is d, computed as the dot of both operands converted to d (bf16
// with d = f32 accumulates in f32 and is not rounded back; i8 with d = i32
// does not wrap at 8 bits). trace.PreferredElementType has the rule of
// which d JAX allows.
func PreferredElementType(d tensor.DType) DotOption { return trace.PreferredElementType(d) }

// MatMul is jnp.matmul(x, y, preferred_element_type=…): x.MatMul(y) with
// options.
func MatMul(x, y Value, opts ...DotOption) Value { return trace.MatMul(x, y, opts...) }

// DotGeneral is lax.dot_general with its dimension numbers and options.
func DotGeneral(x, y Value, dims DotDims, opts ...DotOption) Value {
	return trace.DotGeneral(x, y, dims, opts...)
}

// EinsumPreferred is jnp.einsum(spec, *xs, preferred_element_type=d).
func EinsumPreferred(spec string, d tensor.DType, xs ...Value) Value {
	return trace.EinsumPreferred(spec, d, xs...)
}

// Dot is jnp.dot(x, y, preferred_element_type=…) (see trace.Dot).
func Dot(x, y Value, opts ...DotOption) Value { return trace.Dot(x, y, opts...) }

// Tensordot is jnp.tensordot(x, y, axes=(xAxes, yAxes)) (see trace.Tensordot).
func Tensordot(x, y Value, xAxes, yAxes []int, opts ...DotOption) Value {
	return trace.Tensordot(x, y, xAxes, yAxes, opts...)
}

// TensordotN is jnp.tensordot(x, y, axes=n).
func TensordotN(x, y Value, n int, opts ...DotOption) Value {
	return trace.TensordotN(x, y, n, opts...)
}
