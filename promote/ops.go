package promote

import "github.com/kiln-go/kiln/tensor"

// The per-op dtype rules of jax.numpy that sit on top of the join (docs/SPEC.md §2).
// The tracer promotes an op's operands with ResultType first, then applies
// one of these to the common type.

// Inexact maps a type to the floating type of jax.numpy's
// promote_args_inexact as Kiln defines it, whatever the profile: bool and integers of up to 32 bits
// give f32, 64-bit integers give f64; floats and complex are unchanged. The
// weak flag is kept, so a weak int literal gives a weak float.
//
// jax.numpy with x64 maps every integer to f64; Kiln follows docs/SPEC.md §2, which
// keeps narrow integers in f32 as PyTorch and JAX without x64 do.
func (c Config) Inexact(t Type) Type {
	d := t.DType
	if d.IsInexact() {
		return t
	}
	out := tensor.F32
	if d.Bits() == 64 {
		out = tensor.F64
	}
	return Type{DType: out, Weak: t.Weak && out != tensor.Bool}
}

// Numeric maps bool to the default int and leaves other types alone; ops
// that have no bool meaning (floor division, remainder, power) compute in
// it, as jax.numpy's promote_args_numeric does.
func (c Config) Numeric(t Type) Type {
	if t.DType == tensor.Bool {
		return Strong(c.DefaultInt())
	}
	return t
}

// IndexType is the dtype of argmax/argmin results: the default int.
func (c Config) IndexType() tensor.DType { return c.DefaultInt() }

// Category is a set of dtypes an op accepts once its operands are promoted.
type Category uint8

// The operand categories.
const (
	AnyDType    Category = iota // every dtype
	NoBool                      // every dtype but bool (subtract, negate, sign)
	Integral                    // bool and integers (logical and bitwise ops)
	IntegerOnly                 // integers, not bool (shifts)
	Ordered                     // everything but complex (ordering comparisons, floor, ceil)
	InexactOnly                 // floats and complex
)

// Accepts reports whether d is in the category.
func (cat Category) Accepts(d tensor.DType) bool {
	switch cat {
	case NoBool:
		return d != tensor.Bool
	case Integral:
		return d == tensor.Bool || d.IsInteger()
	case IntegerOnly:
		return d.IsInteger()
	case Ordered:
		return !d.IsComplex()
	case InexactOnly:
		return d.IsInexact()
	}
	return true
}

var categoryNames = [...]string{"any dtype", "a non-bool dtype", "bool or integer dtypes", "integer dtypes", "non-complex dtypes", "floating or complex dtypes"}

// String describes the category for error messages: "bool or integer dtypes".
func (cat Category) String() string { return categoryNames[cat] }
