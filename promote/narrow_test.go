package promote

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// narrowWant is what JAX's lattice gives for a narrow dtype n with
// operand t (t strong unless weak): written from the rule, not from the
// lattice code — n with itself, bool, a weak value of its kind, and (a
// narrow float) any strong or weak integer gives n; everything else has no
// promotion path.
func narrowWant(n tensor.DType, t Type) (tensor.DType, bool) {
	switch {
	case t.DType == n && !t.Weak, t.DType == tensor.Bool:
		return n, true
	case n.IsFloat() && (t.DType.IsInteger() && !t.DType.IsNarrow() || t.Weak && t.DType.IsInteger()):
		return n, true
	case t.Weak && t.DType.Kind() == n.Kind():
		return n, true
	case n.IsInteger() && t.Weak && t.DType.IsInteger():
		return n, true // i* stands for both signed and unsigned
	}
	return 0, false
}

func narrowMessage(ts ...Type) string {
	for _, bits := range []int{8, 6, 4} {
		for _, t := range ts {
			if t.DType.IsNarrow() && t.DType.IsFloat() && t.DType.Bits() == bits {
				return map[int]string{8: "8-bit", 6: "6-bit", 4: "4-bit"}[bits] + " floats do not support implicit promotion"
			}
		}
	}
	return "1-bit, 2-bit and 4-bit integers do not support implicit promotion"
}

// Every pair of a narrow dtype with any dtype, strong or weak, in both
// orders, under jax (x64 and x32) and every table profile: the narrow
// dtype where JAX's lattice has a path, otherwise a *PromotionError with
// JAX's wording.
func TestNarrowPromotion(t *testing.T) {
	var others []Type
	for _, d := range tensor.AllDTypes() {
		others = append(others, Strong(d))
		if !d.IsNarrow() && d != tensor.Bool {
			others = append(others, WeakOf(d))
		}
	}
	for _, rules := range []*RuleSet{JAX, NumPy, Torch, TensorFlow} {
		for _, x32 := range []bool{false, true} {
			c := Config{Rules: rules, X32: x32}
			for _, n := range tensor.NarrowDTypes() {
				for _, o := range others {
					want, ok := narrowWant(n, o)
					for _, ops := range [][]Type{{Strong(n), o}, {o, Strong(n)}} {
						got, err := c.ResultType(ops...)
						if ok {
							if err != nil || got != Strong(want) {
								t.Errorf("%s x32=%v: %v → %v, %v; want %s", rules.Name(), x32, ops, got, err, want)
							}
							continue
						}
						var pe *PromotionError
						msg := narrowMessage(ops...)
						if !errors.As(err, &pe) || !strings.Contains(err.Error(), msg) ||
							!strings.Contains(err.Error(), "have no available implicit dtype promotion path. To avoid unintended promotion, ") {
							t.Errorf("%s x32=%v: %v → %v, %v; want JAX's error %q", rules.Name(), x32, ops, got, err, msg)
						}
					}
				}
			}
		}
	}
}

func TestNarrowPromotionMessage(t *testing.T) {
	_, err := Config{}.ResultType(Strong(tensor.F8E4M3FN), Strong(tensor.F32))
	want := "promote: Input dtypes ('float8_e4m3fn', 'float32') have no available implicit dtype promotion path. " +
		"To avoid unintended promotion, 8-bit floats do not support implicit promotion. " +
		"If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('float32')"
	if err == nil || err.Error() != want {
		t.Errorf("f8e4m3fn + f32: %v\nwant %s", err, want)
	}
	_, err = Config{}.ResultType(Strong(tensor.I4), WeakOf(tensor.F64))
	want = "promote: Input dtypes ('int4', \"<class 'float'>\") have no available implicit dtype promotion path. " +
		"To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not support implicit promotion. " +
		"If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('int32')"
	if err == nil || err.Error() != want {
		t.Errorf("i4 + weak float: %v\nwant %s", err, want)
	}
	_, err = Config{}.ResultType(Strong(tensor.F4E2M1FN), Strong(tensor.F6E2M3FN))
	if err == nil || !strings.Contains(err.Error(), "6-bit floats do not support") {
		t.Errorf("f4 + f6: %v", err)
	}
}

// Under strict only weak values promote to a narrow dtype; under lax only
// weak values and the same dtype; anvil has none.
func TestNarrowPromotionOtherRules(t *testing.T) {
	for _, c := range []struct {
		rules *RuleSet
		ops   []Type
		want  Type
		err   string
	}{
		{Strict, []Type{Strong(tensor.F8E5M2), WeakOf(tensor.F64)}, Strong(tensor.F8E5M2), ""},
		{Strict, []Type{Strong(tensor.U4), WeakOf(tensor.I64)}, Strong(tensor.U4), ""},
		{Strict, []Type{Strong(tensor.F8E5M2), Strong(tensor.I32)}, Type{}, "strict promotion forbids"},
		{Lax, []Type{Strong(tensor.I2), WeakOf(tensor.I64)}, Strong(tensor.I2), ""},
		{Lax, []Type{Strong(tensor.I2), Strong(tensor.I2)}, Strong(tensor.I2), ""},
		{Lax, []Type{Strong(tensor.F8E4M3), Strong(tensor.I8)}, Type{}, "8-bit floats do not support"},
		{JAX, []Type{Strong(tensor.F8E4M3), Strong(tensor.I8)}, Strong(tensor.F8E4M3), ""},
		{Anvil, []Type{Strong(tensor.I4), Strong(tensor.I4)}, Type{}, "anvil has no dtype i4"},
		{Torch, []Type{Strong(tensor.F8E4M3FN), WeakOf(tensor.F64)}, Strong(tensor.F8E4M3FN), ""},
	} {
		got, err := Config{Rules: c.rules}.ResultType(c.ops...)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %v = %v, %v; want %v %q", c.rules.Name(), c.ops, got, err, c.want, c.err)
		}
	}
}

// JAX's lattice with the narrow nodes is still a lattice (a partial one:
// the narrow dtypes do not promote with most others), and the 18 nodes of
// the seed tables still promote as before (TestTablesMatchSeeds).
func TestNarrowLatticeCheck(t *testing.T) {
	for _, x32 := range []bool{false, true} {
		rep := CheckOver(JAX, JAX.AllRuleNodes(), x32)
		if !rep.IsLattice() || rep.Total || rep.Nodes != NumNodes {
			t.Errorf("x32=%v: %s", x32, rep)
		}
		if rep := Check(JAX, x32); !rep.IsLattice() || !rep.Total || rep.Nodes != NumStandardNodes {
			t.Errorf("standard nodes, x32=%v: %s", x32, rep)
		}
	}
	_, rows := TableOver(JAX, JAX.AllRuleNodes(), false, false)
	if len(rows) != NumNodes {
		t.Errorf("the full table has %d rows", len(rows))
	}
}
