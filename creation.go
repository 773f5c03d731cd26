package kiln

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jax.numpy's array constructors (see package trace for their dtype and
// weak-type rules). Their values are built in the program from iota, so
// they fuse into what uses them.

// Zeros is jnp.zeros: the default float unless dtype.
func Zeros(shape []int, dtype ...tensor.DType) Value { return trace.Zeros(shape, dtype...) }

// Ones is jnp.ones: the default float unless dtype.
func Ones(shape []int, dtype ...tensor.DType) Value { return trace.Ones(shape, dtype...) }

// Full is jnp.full: fill's type (weak for a weak literal) unless dtype.
func Full(shape []int, fill Value, dtype ...tensor.DType) Value {
	return trace.Full(shape, fill, dtype...)
}

// ZerosLike is jnp.zeros_like: x's dtype and weak flag unless dtype.
func ZerosLike(x Value, dtype ...tensor.DType) Value { return trace.ZerosLike(x, dtype...) }

// OnesLike is jnp.ones_like.
func OnesLike(x Value, dtype ...tensor.DType) Value { return trace.OnesLike(x, dtype...) }

// FullLike is jnp.full_like.
func FullLike(x, fill Value, dtype ...tensor.DType) Value { return trace.FullLike(x, fill, dtype...) }

// Arange is jnp.arange(start, stop, step) with integer arguments: the
// default int unless dtype.
func Arange(start, stop, step int, dtype ...tensor.DType) Value {
	return trace.Arange(start, stop, step, dtype...)
}

// ArangeFloat is jnp.arange(start, stop, step) with float arguments,
// NumPy's values bit for bit (see trace.ArangeFloat), in the default float
// dtype unless dtype.
func ArangeFloat(start, stop, step float64, dtype ...tensor.DType) Value {
	return trace.ArangeFloat(start, stop, step, dtype...)
}

// Eye is jnp.eye(n, m, k): the default float unless dtype.
func Eye(n, m, k int, dtype ...tensor.DType) Value { return trace.Eye(n, m, k, dtype...) }

// Tri is the bool mask of jnp.tri(n, m, k).
func Tri(n, m, k int) Value { return trace.Tri(n, m, k) }

// Tril is jnp.tril(x, k): x with the elements above diagonal k zeroed.
func Tril(x Value, k int) Value { return trace.Tril(x, k) }

// Triu is jnp.triu(x, k): x with the elements below diagonal k zeroed.
func Triu(x Value, k int) Value { return trace.Triu(x, k) }

// Stack is jnp.stack: arrays of one shape joined along a new axis.
func Stack(axis int, xs ...Value) Value { return trace.Stack(axis, xs...) }

// Pad is jnp.pad with static widths, one (before, after) pair per axis
// (one pair pads every axis alike), in a PadMode; value is PadConstant's
// fill, converted to x's type (the zero Value means 0).
func Pad(x Value, widths [][2]int, mode PadMode, value Value) Value {
	return trace.Pad(x, widths, mode, value)
}

// Einsum is jnp.einsum with a subscript spec (see trace.Einsum).
func Einsum(spec string, xs ...Value) Value { return trace.Einsum(spec, xs...) }
