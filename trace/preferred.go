package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// DotOption configures DotGeneral, MatMul and EinsumWith.
type DotOption func(*dotOpts)

type dotOpts struct {
	preferred tensor.DType
	set       bool
}

// PreferredElementType is JAX's preferred_element_type (lax.dot_general,
// jnp.matmul, jnp.einsum): the product's dtype is d, computed as the dot
// of both operands converted to d. Products of bf16, f16 and 8- or 16-bit
// integers are exact in a wider d, so a wider d is "accumulate wide, do not
// round back": bf16 × bf16 with d = f32 is the f32 sum unrounded, i8 × i8
// with d = i32 is the exact i32 sum where the i8 result would wrap. The
// result of DotGeneral is weak only when both operands are (lax's
// standard weak-type rule); of MatMul, Dot, Tensordot and EinsumPreferred
// it is strong (jax.numpy's output_weak_type = False).
//
// The operands are first promoted to their common dtype as without the
// option, and d is checked against that dtype c by JAX's rule
// (_validate_preferred_element_type): d must not be narrower than c (in
// bytes); an integer c takes an integer or a floating d (a signed c only a
// signed integer d); a floating c a floating d; a complex c a complex d; a
// bool c any d. Anything else is a *DTypeError naming the op, both operand
// dtypes, d and the caller's file:line.
func PreferredElementType(d tensor.DType) DotOption {
	return func(o *dotOpts) { o.preferred, o.set = d, true }
}

func dotOptions(opts []DotOption) dotOpts {
	var o dotOpts
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// PreferredRefusal says why JAX refuses preferred_element_type pref for a
// dot of operands of dtype in, or returns "" when it allows it
// (PreferredElementType documents the rule).
func PreferredRefusal(in, pref tensor.DType) string {
	if !in.Valid() || !pref.Valid() {
		return fmt.Sprintf("preferred_element_type=%s for operands of dtype %s: not a dtype", pref, in)
	}
	if in == pref {
		return ""
	}
	ik, pk := in.Kind(), pref.Kind()
	integer := func(k tensor.Kind) bool { return k == tensor.KindInt || k == tensor.KindUint }
	switch {
	case integer(ik) && pk == tensor.KindFloat:
		// JAX's special case: integer operands may accumulate in a float
		// of either signedness.
	case integer(ik) && !integer(pk), ik == tensor.KindFloat && pk != tensor.KindFloat, ik == tensor.KindComplex && pk != tensor.KindComplex:
		return fmt.Sprintf("preferred_element_type=%s is incompatible with %s operands: the allowed kinds are (integer, integer), (integer, floating), (floating, floating) and (complex, complex)", pref, in)
	case ik == tensor.KindInt && pk != tensor.KindInt:
		return fmt.Sprintf("preferred_element_type=%s must have the signedness of the %s operands", pref, in)
	}
	if pref.Size() < in.Size() {
		return fmt.Sprintf("preferred_element_type=%s must not be narrower than the %s operands", pref, in)
	}
	return ""
}

// dotResult is the result type of a dot of operands promoted to common
// under the options, and the params carrying the preferred type; a
// non-empty message when the preferred type is refused.
func dotResult(common promote.Type, dims DotDims, o dotOpts) (promote.Type, Params, string) {
	p := Params{Dot: dims}
	if !o.set {
		return common, p, ""
	}
	if msg := PreferredRefusal(common.DType, o.preferred); msg != "" {
		return common, p, msg
	}
	p.Preferred, p.HasPreferred = o.preferred, true
	return preferredType(common, o.preferred), p, ""
}

// preferredType is the result type of a dot_general of operands of type
// common with preferred_element_type d: d, weak when the operands are
// (lax.dot_general's standard weak-type rule; bool is never weak).
func preferredType(common promote.Type, d tensor.DType) promote.Type {
	return promote.Type{DType: d, Weak: common.Weak && d != tensor.Bool}
}

// jnpResult makes a jax.numpy contraction's result strong when a preferred
// type was given (jnp.matmul, dot, tensordot and einsum convert to it with
// weak_type=False; lax.dot_general keeps its operands' weak flag).
func jnpResult(v Value, o dotOpts) Value {
	if !o.set || v.b == nil || v.b.err != nil || !v.Type().Weak {
		return v
	}
	return ConvertTo(v, promote.Strong(o.preferred), "jax.numpy's preferred_element_type result is strong")
}

// preferredErr records the *DTypeError of a refused preferred type: the
// operands' types x and y promoted to common.
func (b *builder) preferredErr(op, msg string, x, y, common promote.Type) Value {
	if x != common || y != common {
		msg += fmt.Sprintf(" (operands %s and %s promote to %s)", x, y, common)
	}
	return b.dtypeErr(op, msg, x, y)
}

// checkPreferred is the typing rule of a dot_general or convolution's
// result: the operands' type, or with a preferred_element_type (which
// JAX's rule must allow for them) that dtype with their weak flag.
func checkPreferred(operands, result promote.Type, p *Params) error {
	want := operands
	if p.HasPreferred {
		if msg := PreferredRefusal(operands.DType, p.Preferred); msg != "" {
			return fault(CheckParams, "%s", msg)
		}
		want = preferredType(operands, p.Preferred)
	}
	return sameType("the result", result, want)
}
