package promote

import "github.com/kiln-go/kiln/tensor"

// The per-op dtype rules of jax.numpy that sit on top of the join (docs/SPEC.md §2).
// The tracer promotes an op's operands with ResultType first, then applies
// one of these to the common type.

// Inexact maps a type to the floating type an inexact op (true division,
// sqrt, exp, log, sin, …) computes in: bool and integers of up to 32 bits
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

// SumType is the result type of sum: bool and signed integers narrower than
// the default int give the default int, unsigned integers narrower than the
// default uint give the default uint; other types are unchanged (f16 and
// bf16 sums accumulate in f32 but return f16/bf16 — the tracer inserts the
// converts). The weak flag is kept.
func (c Config) SumType(t Type) Type {
	d := t.DType
	switch {
	case d == tensor.Bool || (d.IsSigned() && d.Bits() < c.DefaultInt().Bits()):
		return Type{DType: c.DefaultInt(), Weak: t.Weak && d != tensor.Bool}
	case d.IsUnsigned() && d.Bits() < c.DefaultUint().Bits():
		return Type{DType: c.DefaultUint(), Weak: t.Weak}
	}
	return t
}

// ProdType is the result type of prod: the same rule as SumType.
func (c Config) ProdType(t Type) Type { return c.SumType(t) }

// MeanType is the result type of mean: Inexact of the operand (f16 and bf16
// means accumulate in f32 and round once; the tracer inserts the converts).
func (c Config) MeanType(t Type) Type { return c.Inexact(t) }

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
