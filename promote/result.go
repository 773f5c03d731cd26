package promote

import (
	"github.com/kiln-go/kiln/tensor"
)

// Config selects the promotion rules and the default widths. The zero
// Config is JAX's standard rules with 64-bit defaults (JAX with x64 on).
type Config struct {
	// Rules is the rule set; nil means JAX's standard lattice.
	Rules *RuleSet
	// X32 selects 32-bit defaults (i32, u32, f32, c64) for weak values and
	// default-width results, and JAX's x32 lattice. Explicit dtypes are
	// never narrowed by it.
	X32 bool
}

// RuleSet returns the effective rule set (JAX when Rules is nil).
func (c Config) RuleSet() *RuleSet {
	if c.Rules == nil {
		return JAX
	}
	return c.Rules
}

// DefaultInt is the dtype of a weak int and of default-width integer
// results: the profile's (i64 for jax, numpy and torch; i32 for tensorflow
// and anvil), 32-bit with X32.
func (c Config) DefaultInt() tensor.DType { return c.profile().DefaultInt }

// DefaultUint is the default unsigned dtype: the profile's (u64; u32 for
// anvil), 32-bit with X32.
func (c Config) DefaultUint() tensor.DType { return c.profile().DefaultUint }

// DefaultFloat is the dtype of a weak float: the profile's (f64 for jax and
// numpy; f32 for torch, tensorflow and anvil), f32 with X32.
func (c Config) DefaultFloat() tensor.DType { return c.profile().DefaultFloat }

// DefaultComplex is the dtype of a weak complex: the profile's (c128; c64
// for torch), c64 with X32.
func (c Config) DefaultComplex() tensor.DType { return c.profile().DefaultComplex }

// kindNode is the lattice node a weak value of dtype d stands at: its weak
// kind. A weak bool is just bool.
func kindNode(d tensor.DType) Node {
	switch d.Kind() {
	case tensor.KindUint, tensor.KindInt:
		return IntWeak
	case tensor.KindFloat:
		return FloatWeak
	case tensor.KindComplex:
		return ComplexWeak
	}
	return DTypeNode(d)
}

// node is where t stands in a lattice: its kind node if weak, else its dtype.
func (t Type) node() Node {
	if t.Weak {
		return kindNode(t.DType)
	}
	return DTypeNode(t.DType)
}

// nodeType turns a result node back into a type: a weak kind takes the
// default width and stays weak; a dtype node is strong.
func (c Config) nodeType(n Node) Type {
	switch n {
	case IntWeak:
		return WeakOf(c.DefaultInt())
	case FloatWeak:
		return WeakOf(c.DefaultFloat())
	case ComplexWeak:
		return WeakOf(c.DefaultComplex())
	}
	return Strong(tensor.DType(n))
}

// ResultType is the type of an n-ary operation's result, and the type every
// operand is converted to, following JAX's lattice_result_type:
//   - one operand keeps its dtype and weak flag;
//   - several of one dtype, not all weak, give that dtype, strong;
//   - all weak give the join of their (strong) dtypes, weak;
//   - otherwise the join, with weak operands at their kind node (i*, f*,
//     c*); the result is weak iff it lands on a weak node, where it takes
//     the default width.
//
// Promotion never yields a weak bool. Table-defined rule sets fold their
// binary table from left to right, except torch, whose profile promotes by
// PyTorch's categories (ResultTypeRanked, every strong operand of rank ≥ 1); anvil treats weak operands as its
// ambiguous ones and always gives a strong result.
func (c Config) ResultType(operands ...Type) (Type, error) {
	r := c.RuleSet()
	if len(operands) == 0 {
		return Type{}, &PromotionError{Rules: r.name, Msg: "no operands to promote"}
	}
	operands = append([]Type(nil), operands...) // never write the caller's slice
	for i, t := range operands {
		if t.DType == tensor.Bool {
			operands[i].Weak = false
		}
	}
	if hasNarrow(operands) {
		return c.narrowResult(operands)
	}
	if r.anvil != nil {
		return c.anvilResult(operands)
	}
	if c.profile().Rank == RankCategory { // torch: strong operands as tensors of rank ≥ 1
		ranked := make([]Operand, len(operands))
		for i, t := range operands {
			ranked[i] = Operand{Type: t, Rank: 1}
		}
		return c.categoryResult(ranked)
	}
	if len(operands) == 1 {
		return operands[0], nil
	}
	sameDType, allWeak := true, true
	for _, t := range operands {
		sameDType = sameDType && t.DType == operands[0].DType
		allWeak = allWeak && t.Weak
	}
	switch {
	case sameDType && !allWeak:
		return Strong(operands[0].DType), nil
	case allWeak && r != Strict && r.lattice != nil:
		acc := DTypeNode(operands[0].DType)
		for _, t := range operands[1:] {
			n, ok := r.Promote(acc, DTypeNode(t.DType), c.X32)
			if !ok {
				return Type{}, c.promotionError(operands)
			}
			acc = n
		}
		if acc.IsWeak() { // u64* with i64*: no integer holds both, a weak float
			return c.nodeType(acc), nil
		}
		return WeakOf(tensor.DType(acc)), nil
	}
	acc := operands[0].node()
	for _, t := range operands[1:] {
		n, ok := r.Promote(acc, t.node(), c.X32)
		if !ok {
			return Type{}, c.promotionError(operands)
		}
		acc = n
	}
	return c.nodeType(acc), nil
}

func (c Config) anvilResult(operands []Type) (Type, error) {
	a := Anvil.anvil
	for _, t := range operands {
		if !a.supports(t.DType) {
			return Type{}, &PromotionError{Rules: Anvil.name, Operands: operands,
				Msg: "anvil has no dtype " + t.DType.String()}
		}
	}
	acc, accAmb := DTypeNode(operands[0].DType), operands[0].Weak
	for _, t := range operands[1:] {
		n, ok := a.promote(acc, accAmb, DTypeNode(t.DType), t.Weak)
		if !ok {
			return Type{}, c.promotionError(operands)
		}
		// Ambiguity is not propagated through an operation, but two
		// ambiguous operands stay ambiguous while folding.
		acc, accAmb = n, accAmb && t.Weak
	}
	return Strong(tensor.DType(acc)), nil
}
