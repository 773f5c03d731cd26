package promote

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// Type is a dtype with JAX's weak flag. A weak value (an untyped literal, or
// a value computed only from literals) still has a concrete dtype — the
// default width of its kind — but in promotion it yields to a strong
// operand of the same kind instead of widening it.
type Type struct {
	DType tensor.DType
	Weak  bool
}

// Strong returns the strong type of d.
func Strong(d tensor.DType) Type { return Type{DType: d} }

// WeakOf returns the weak type of d. Bool is never weak: WeakOf(tensor.Bool)
// is the strong bool type.
func WeakOf(d tensor.DType) Type { return Type{DType: d, Weak: d != tensor.Bool} }

// String prints the dtype's short name with a trailing "*" when weak: f64*.
func (t Type) String() string {
	if t.Weak {
		return t.DType.String() + "*"
	}
	return t.DType.String()
}

// ParseType parses a dtype name (f16, float16), a weak kind at the default
// width (i*, f*, c*: i64/f64/c128, or i32/f32/c64 when x32 is set) or a
// dtype with a trailing star for a weak value of that dtype (i16*).
func ParseType(s string, x32 bool) (Type, error) {
	s = strings.TrimSpace(s)
	c := Config{X32: x32}
	switch s {
	case "i*":
		return WeakOf(c.DefaultInt()), nil
	case "f*":
		return WeakOf(c.DefaultFloat()), nil
	case "c*":
		return WeakOf(c.DefaultComplex()), nil
	}
	weak := strings.HasSuffix(s, "*")
	d, err := tensor.ParseDType(strings.TrimSuffix(s, "*"))
	if err != nil {
		return Type{}, fmt.Errorf("promote: bad operand %q: want a dtype (f16), a weak kind (i* f* c*) or a weak dtype (i16*)", s)
	}
	if weak && d == tensor.Bool {
		return Type{}, fmt.Errorf("promote: bad operand %q: bool is never weak", s)
	}
	return Type{DType: d, Weak: weak}, nil
}
