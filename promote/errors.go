package promote

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// PromotionError reports operands that the selected rules will not promote
// implicitly. Its message names the operands and, where one exists, the
// explicit convert that would make the operation valid.
type PromotionError struct {
	Op       string // the operation, when known (filled in by the tracer)
	Operands []Type
	Rules    string
	Msg      string // why, when it is not simply "no implicit promotion"
	Fix      string // the explicit convert that would fix it, or ""
}

func (e *PromotionError) Error() string {
	var b strings.Builder
	b.WriteString("promote: ")
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else {
		fmt.Fprintf(&b, "%s rules allow no implicit promotion of %s", e.Rules, joinTypes(e.Operands, ", "))
	}
	if e.Fix != "" {
		b.WriteString("; " + e.Fix)
	}
	return b.String()
}

func joinTypes(ts []Type, sep string) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, sep)
}

// promotionError builds the error for operands the rules cannot promote,
// suggesting the dtype JAX's standard rules would have chosen.
func (c Config) promotionError(operands []Type) *PromotionError {
	r := c.RuleSet()
	e := &PromotionError{Rules: r.name, Operands: append([]Type(nil), operands...)}
	if r == Strict {
		e.Msg = "strict promotion forbids implicit " + joinTypes(operands, " with ")
	}
	std := Config{X32: c.X32}
	if target, err := std.ResultType(operands...); err == nil {
		var which []string
		for _, t := range operands {
			if t.DType != target.DType && !t.Weak {
				which = append(which, t.String())
			}
		}
		if len(which) > 0 {
			e.Fix = fmt.Sprintf("convert explicitly, e.g. astype(x, %s) for the %s operand", target.DType, strings.Join(dedupe(which), " and "))
		}
	}
	return e
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// OverflowError reports an integer literal that does not fit the dtype it is
// promoted to (JAX: jnp.int8(1) + 1000 raises OverflowError).
type OverflowError struct {
	Op     string
	Value  int64
	Target tensor.DType
}

func (e *OverflowError) Error() string {
	op := ""
	if e.Op != "" {
		op = e.Op + ": "
	}
	lo, hi := IntRange(e.Target)
	return fmt.Sprintf("promote: %sinteger literal %d overflows %s (range %s..%s); write astype(x, wider dtype) first or use a literal in range",
		op, e.Value, e.Target, lo, hi)
}

// IntRange returns the smallest and largest values of an integer dtype as
// decimal strings.
func IntRange(d tensor.DType) (lo, hi string) {
	switch {
	case d.IsUnsigned():
		return "0", fmt.Sprint(uint64(1)<<d.Bits() - 1)
	case d.IsSigned():
		return fmt.Sprint(-(int64(1) << (d.Bits() - 1))), fmt.Sprint(int64(uint64(1)<<(d.Bits()-1) - 1))
	case d == tensor.Bool:
		return "0", "1"
	}
	return "-inf", "inf"
}

// CheckIntLiteral reports whether the integer literal v can be materialized
// at dtype target. Integer targets must hold v exactly; float and complex
// targets accept every int64 (rounding to nearest, and a literal beyond
// f16's range becomes ±Inf, as in JAX); a bool target is never the result of
// promoting an int literal and accepts only 0 and 1.
func CheckIntLiteral(v int64, target tensor.DType) error {
	ok := true
	switch {
	case target.IsUnsigned():
		ok = v >= 0 && (target.Bits() == 64 || uint64(v) < uint64(1)<<target.Bits())
	case target.IsSigned():
		if target.Bits() < 64 {
			lim := int64(1) << (target.Bits() - 1)
			ok = v >= -lim && v < lim
		}
	case target == tensor.Bool:
		ok = v == 0 || v == 1
	}
	if !ok {
		return &OverflowError{Value: v, Target: target}
	}
	return nil
}
