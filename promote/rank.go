package promote

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// Operand is an operand's type with its rank, for profiles where rank takes
// part in promotion (PyTorch's). A weak operand is a Python scalar whatever
// its rank; a strong operand of rank 0 is a 0-dim tensor.
type Operand struct {
	Type
	Rank int
}

// ResultTypeRanked is ResultType for operands whose ranks are known. Under
// a profile with RankCategory (torch) it follows PyTorch's ResultTypeState:
// tensors of rank ≥ 1, rank-0 tensors and Python scalars (weak operands, at
// torch's default dtype of their kind: i64, f32, c64) are each promoted
// among themselves by the table, then combined by combine_categories — a
// lower category counts only if it is of a higher kind (bool < int < float <
// complex), so u8 with an i8 0-dim tensor is u8, f32 with an f64 0-dim
// tensor is f32, and bf16 or f32 with a complex 0-dim tensor or scalar is
// c64. The result is weak only if every operand is. Under every other
// profile rank is ignored and this is ResultType.
func (c Config) ResultTypeRanked(operands ...Operand) (Type, error) {
	narrow := false
	for _, o := range operands {
		narrow = narrow || o.DType.IsNarrow()
	}
	if c.profile().Rank != RankCategory || narrow { // narrow dtypes: JAX's lattice (narrow.go)
		types := make([]Type, len(operands))
		for i, o := range operands {
			types[i] = o.Type
		}
		return c.ResultType(types...)
	}
	return c.categoryResult(operands)
}

// category is one of PyTorch's three result states: unset, or a dtype.
type category struct {
	d   tensor.DType
	set bool
}

func (c Config) categoryResult(operands []Operand) (Type, error) {
	r := c.RuleSet()
	types := make([]Type, len(operands))
	for i, o := range operands {
		types[i] = o.Type
	}
	if len(operands) == 0 {
		return Type{}, &PromotionError{Rules: r.name, Msg: "no operands to promote"}
	}
	var dim, zero, wrapped category
	allWeak := true
	for _, o := range operands {
		t := o.Type
		if !r.Has(t.DType) {
			return Type{}, &PromotionError{Rules: r.name, Operands: types, Msg: fmt.Sprintf("%s has no dtype %s", r.name, t.DType)}
		}
		weak := t.Weak && t.DType != tensor.Bool
		allWeak = allWeak && weak
		into := &dim
		switch {
		case weak:
			into = &wrapped
			t.DType = c.kindDefault(t.DType)
		case o.Rank == 0:
			into = &zero
		}
		if !into.set {
			*into = category{t.DType, true}
			continue
		}
		n, ok := r.Promote(DTypeNode(into.d), DTypeNode(t.DType), c.X32)
		if !ok {
			return Type{}, c.promotionError(types)
		}
		into.d = tensor.DType(n)
	}
	low, err := c.combineCategories(zero, wrapped, types)
	if err != nil {
		return Type{}, err
	}
	res, err := c.combineCategories(dim, low, types)
	if err != nil {
		return Type{}, err
	}
	return Type{DType: res.d, Weak: allWeak && res.d != tensor.Bool}, nil
}

// kindDefault is the dtype a Python scalar of d's kind has in the profile.
func (c Config) kindDefault(d tensor.DType) tensor.DType {
	switch d.Kind() {
	case tensor.KindUint, tensor.KindInt:
		return c.DefaultInt()
	case tensor.KindFloat:
		return c.DefaultFloat()
	case tensor.KindComplex:
		return c.DefaultComplex()
	}
	return d
}

// combineCategories is PyTorch's combine_categories(higher, lower).
func (c Config) combineCategories(higher, lower category, types []Type) (category, error) {
	switch {
	case !higher.set:
		return lower, nil
	case !lower.set:
		return higher, nil
	}
	h, l := higher.d, lower.d
	switch {
	case h.IsComplex():
		return higher, nil
	case l.IsComplex():
		if !h.IsFloat() {
			return lower, nil
		}
		// toComplexType: the complex of the float's width.
		switch h {
		case tensor.F16:
			return category{}, &PromotionError{Rules: c.RuleSet().name, Operands: types,
				Msg: "PyTorch gives complex32 for f16 with a complex 0-dim tensor or scalar, and Kiln has no complex32",
				Fix: "convert explicitly, e.g. astype(x, c64) for the f16 operand"}
		case tensor.F64:
			return category{tensor.C128, true}, nil
		}
		return category{tensor.C64, true}, nil
	case h.IsFloat():
		return higher, nil
	case h == tensor.Bool || l.IsFloat():
		n, ok := c.RuleSet().Promote(DTypeNode(h), DTypeNode(l), c.X32)
		if !ok {
			return category{}, c.promotionError(types)
		}
		return category{tensor.DType(n), true}, nil
	}
	return higher, nil
}
