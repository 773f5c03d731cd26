package promote

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// Promotion with the narrow dtypes (f8e4m3fn … f4e2m1fn, i4, u4, i2, u2)
// follows current JAX's lattice (jax/_src/dtypes.py) under every profile:
// no framework whose table Kiln reproduces has these dtypes in it (PyTorch's
// float8 types refuse implicit promotion too), so Kiln gives each profile
// JAX's edges for them — a narrow float is reached only from f* and a
// narrow integer only from i*, and neither has a successor. A narrow dtype
// therefore joins with itself, with bool, with a weak value of its kind
// and, for a narrow float, with any integer (they lie below f*); every
// other pair is a *PromotionError with JAX's own message. Under strict the
// strict lattice applies (only weak values promote), under lax only weak
// values and operands of the same dtype, as jax.lax; anvil has no narrow
// dtype and refuses them.

// hasNarrow reports whether any operand has a narrow dtype.
func hasNarrow(ts []Type) bool {
	for _, t := range ts {
		if t.DType.IsNarrow() {
			return true
		}
	}
	return false
}

// narrowResult is ResultType for operands of which one at least is narrow.
func (c Config) narrowResult(operands []Type) (Type, error) {
	r := c.RuleSet()
	if r.anvil != nil {
		for _, t := range operands {
			if t.DType.IsNarrow() {
				return Type{}, &PromotionError{Rules: r.name, Operands: operands, Msg: "anvil has no dtype " + t.DType.String()}
			}
		}
	}
	l := jaxLattice
	switch {
	case r == Strict:
		l = strictLattice
	case c.X32:
		l = jaxX32Lattice
	}
	if len(operands) == 1 {
		return operands[0], nil
	}
	sameDType, allWeak := true, true
	for _, t := range operands {
		sameDType = sameDType && t.DType == operands[0].DType
		allWeak = allWeak && t.Weak
	}
	if sameDType && !allWeak {
		return Strong(operands[0].DType), nil
	}
	if r == Lax {
		var strong tensor.DType
		seen := false
		for _, t := range operands {
			if t.Weak {
				continue
			}
			if seen && t.DType != strong {
				return Type{}, c.narrowError(operands)
			}
			strong, seen = t.DType, true
		}
	}
	acc := operands[0].node()
	if allWeak {
		acc = DTypeNode(operands[0].DType)
	}
	for _, t := range operands[1:] {
		n := t.node()
		if allWeak {
			n = DTypeNode(t.DType)
		}
		j, ok := l.Join(acc, n)
		if !ok {
			if r == Strict {
				return Type{}, c.promotionError(operands)
			}
			return Type{}, c.narrowError(operands)
		}
		acc = j
	}
	if allWeak && !acc.IsWeak() {
		return WeakOf(tensor.DType(acc)), nil
	}
	return c.nodeType(acc), nil
}

// jaxName is how JAX's error prints an operand: str() of its dtype, or of
// the Python type of a weak value.
func jaxName(t Type) string {
	if t.Weak && t.DType != tensor.Bool {
		switch t.DType.Kind() {
		case tensor.KindInt, tensor.KindUint:
			return "<class 'int'>"
		case tensor.KindFloat:
			return "<class 'float'>"
		case tensor.KindComplex:
			return "<class 'complex'>"
		}
	}
	return t.DType.LongName()
}

// narrowError is JAX's TypePromotionError for operands with no implicit
// promotion path, of which one at least is narrow, word for word
// (_least_upper_bound in jax/_src/dtypes.py): the 8-bit float message
// first, then the 6-bit and 4-bit float ones, then the sub-byte integers'.
func (c Config) narrowError(operands []Type) *PromotionError {
	names := make([]string, len(operands))
	for i, t := range operands {
		names[i] = "'" + jaxName(t) + "'"
		if strings.Contains(names[i][1:len(names[i])-1], "'") { // Python's repr of str
			names[i] = `"` + jaxName(t) + `"`
		}
	}
	tuple := "(" + strings.Join(names, ", ")
	if len(names) == 1 {
		tuple += ","
	}
	tuple += ")"
	has := func(bits int, float bool) bool {
		for _, t := range operands {
			if t.DType.IsNarrow() && t.DType.IsFloat() == float && (!float || t.DType.Bits() == bits) {
				return true
			}
		}
		return false
	}
	var msg string
	switch {
	case has(8, true):
		msg = "8-bit floats do not support implicit promotion. If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('float32')"
	case has(6, true):
		msg = "6-bit floats do not support implicit promotion. If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('float32')"
	case has(4, true):
		msg = "4-bit floats do not support implicit promotion. If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('float32')"
	default:
		msg = "1-bit, 2-bit and 4-bit integers do not support implicit promotion. If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('int32')"
	}
	return &PromotionError{Rules: c.RuleSet().name, Operands: append([]Type(nil), operands...),
		Msg: fmt.Sprintf("Input dtypes %s have no available implicit dtype promotion path. To avoid unintended promotion, %s", tuple, msg)}
}
