package promote

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

func types(t *testing.T, x32 bool, names ...string) []Type {
	t.Helper()
	out := make([]Type, len(names))
	for i, n := range names {
		ty, err := ParseType(n, x32)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = ty
	}
	return out
}

func TestResultType(t *testing.T) {
	cases := []struct {
		rules    string
		x32      bool
		operands string
		want     string // "" → error
	}{
		// One operand keeps its dtype and weak flag.
		{"jax", false, "i8", "i8"},
		{"jax", false, "f64*", "f64*"},
		{"jax", false, "i16*", "i16*"},
		// Literals yield to arrays of their kind.
		{"jax", false, "i8 i*", "i8"},
		{"jax", false, "u8 i*", "u8"},
		{"jax", false, "f16 f*", "f16"},
		{"jax", false, "bf16 i*", "bf16"},
		{"jax", false, "i8 f*", "f64*"},
		{"jax", false, "f32 c*", "c64"},
		{"jax", false, "bool i*", "i64*"},
		{"jax", false, "bool f*", "f64*"},
		// Strong joins.
		{"jax", false, "i8 u8", "i16"},
		{"jax", false, "u64 i8", "f64*"},
		{"jax", false, "bf16 f16", "f32"},
		{"jax", false, "i8 f16", "f16"},
		{"jax", false, "u32 i32", "i64"},
		{"jax", false, "bool bool", "bool"},
		// Same dtype, not all weak: strong.
		{"jax", false, "i64 i64*", "i64"},
		{"jax", false, "f16 f16 f16", "f16"},
		// All weak: join of the strong dtypes, weak.
		{"jax", false, "i* f*", "f64*"},
		{"jax", false, "i* i*", "i64*"},
		{"jax", false, "i16* i8*", "i16*"},
		{"jax", false, "f* c*", "c128*"},
		// A weak value of a narrow dtype still stands at its kind node.
		{"jax", false, "i16* u8", "u8"},
		// n-ary.
		{"jax", false, "i8 u8 f16", "f16"},
		{"jax", false, "i8 i* f*", "f64*"},
		{"jax", false, "u8 i8 f*", "f64*"},
		// x32: 32-bit defaults and the x32 lattice.
		{"jax", true, "i*", "i32*"},
		{"jax", true, "i8 f*", "f32*"},
		{"jax", true, "u32 i32", "i32"},
		{"jax", true, "u32 i*", "u32"},
		{"jax", true, "u64 i8", "f32*"},
		{"jax", true, "i64 i*", "i64"}, // explicit dtypes are never narrowed
		{"jax", true, "f64 f*", "f64"},
		// strict: only weak values promote.
		{"strict", false, "i8 i*", "i8"},
		{"strict", false, "f16 f*", "f16"},
		{"strict", false, "f16 i*", "f16"},
		{"strict", false, "i* f*", "f64*"},
		{"strict", false, "i8 f16", ""},
		{"strict", false, "i8 i16", ""},
		{"strict", false, "i8 f*", ""},
		// Table-defined systems.
		{"numpy", false, "i8 u8", "i16"},
		{"numpy", false, "u64 i8", "f64"},
		{"lax", false, "i8 i8", "i8"},
		{"lax", false, "i8 i16", ""},
		{"lax", false, "f32 f*", ""},
		{"lax", false, "i* i64", "i64"},
		{"torch", false, "u8 i8", "i16"},
		{"tensorflow", false, "i8 i*", "i8"},
		// anvil: weak operands are ambiguous; results are known.
		{"anvil", false, "i8 i32", "i32"},
		{"anvil", false, "i8 i32*", "i8"},
		{"anvil", false, "f32 f64*", "f32"},
		{"anvil", false, "bool i32*", "i32"},
		{"anvil", false, "i32* f32", "f32"},
		{"anvil", false, "f16 f32", ""},
	}
	for _, c := range cases {
		name := c.rules + " " + c.operands
		if c.x32 {
			name += " x32"
		}
		t.Run(name, func(t *testing.T) {
			r, err := Lookup(c.rules)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Rules: r, X32: c.x32}
			ops := types(t, c.x32, strings.Fields(c.operands)...)
			before := append([]Type(nil), ops...)
			got, err := cfg.ResultType(ops...)
			for i := range ops {
				if ops[i] != before[i] {
					t.Fatalf("ResultType modified its operands: %v → %v", before, ops)
				}
			}
			if c.want == "" {
				var pe *PromotionError
				if !errors.As(err, &pe) {
					t.Fatalf("got %v, %v; want a *PromotionError", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got.String() != c.want {
				t.Errorf("ResultType(%s) = %s, want %s", c.operands, got, c.want)
			}
		})
	}
}

func TestPromotionErrorSaysHowToFix(t *testing.T) {
	cfg := Config{Rules: Strict}
	_, err := cfg.ResultType(Strong(tensor.I8), Strong(tensor.F16))
	msg := err.Error()
	for _, want := range []string{"promote:", "strict", "i8", "f16", "astype(x, f16)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
	_, err = Config{Rules: Lax}.ResultType(Strong(tensor.I8), Strong(tensor.U8))
	if !strings.Contains(err.Error(), "astype(x, i16)") || !strings.Contains(err.Error(), "i8 and u8") {
		t.Errorf("lax i8+u8 message %q should suggest i16 for both operands", err)
	}
	if _, err := (Config{}).ResultType(); err == nil {
		t.Error("ResultType() with no operands: want an error")
	}
}

func TestCheckIntLiteral(t *testing.T) {
	cases := []struct {
		v    int64
		d    tensor.DType
		fits bool
	}{
		{127, tensor.I8, true}, {128, tensor.I8, false}, {-128, tensor.I8, true}, {-129, tensor.I8, false},
		{1000, tensor.I8, false}, {1000, tensor.I16, true},
		{255, tensor.U8, true}, {256, tensor.U8, false}, {-1, tensor.U8, false},
		{-1, tensor.U64, false}, {math.MaxInt64, tensor.U64, true}, {math.MaxInt64, tensor.I64, true},
		{math.MinInt64, tensor.I64, true}, {1 << 31, tensor.I32, false}, {1<<32 - 1, tensor.U32, true},
		{100000, tensor.F16, true}, {math.MaxInt64, tensor.BF16, true}, {2, tensor.C64, true},
		{1, tensor.Bool, true}, {2, tensor.Bool, false},
	}
	for _, c := range cases {
		err := CheckIntLiteral(c.v, c.d)
		if (err == nil) != c.fits {
			t.Errorf("CheckIntLiteral(%d, %s) = %v, want fits=%v", c.v, c.d, err, c.fits)
		}
		var oe *OverflowError
		if err != nil && !errors.As(err, &oe) {
			t.Errorf("CheckIntLiteral(%d, %s): %T is not *OverflowError", c.v, c.d, err)
		}
	}
	err := CheckIntLiteral(1000, tensor.I8)
	if want := "integer literal 1000 overflows i8 (range -128..127)"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
}

func TestOpRules(t *testing.T) {
	c64, c32 := Config{}, Config{X32: true}
	for _, c := range []struct {
		name string
		got  Type
		want string
	}{
		{"inexact i8", c64.Inexact(Strong(tensor.I8)), "f32"},
		{"inexact i32", c64.Inexact(Strong(tensor.I32)), "f32"},
		{"inexact u64", c64.Inexact(Strong(tensor.U64)), "f64"},
		{"inexact bool", c64.Inexact(Strong(tensor.Bool)), "f32"},
		{"inexact weak i64", c64.Inexact(WeakOf(tensor.I64)), "f64*"},
		{"inexact weak i32 x32", c32.Inexact(WeakOf(tensor.I32)), "f32*"},
		{"inexact f16", c64.Inexact(Strong(tensor.F16)), "f16"},
		{"inexact c64", c64.Inexact(Strong(tensor.C64)), "c64"},
		{"sum bool", c64.SumType(Strong(tensor.Bool)), "i64"},
		{"sum i8", c64.SumType(Strong(tensor.I8)), "i64"},
		{"sum u8", c64.SumType(Strong(tensor.U8)), "u64"},
		{"sum u8 x32", c32.SumType(Strong(tensor.U8)), "u32"},
		{"sum i64 x32", c32.SumType(Strong(tensor.I64)), "i64"},
		{"sum f16", c64.SumType(Strong(tensor.F16)), "f16"},
		{"sum weak i16", c64.SumType(WeakOf(tensor.I16)), "i64*"},
		{"prod i16", c64.ProdType(Strong(tensor.I16)), "i64"},
		{"mean i8", must(c64.MeanType(Strong(tensor.I8))), "f32"},
		{"mean i64", must(c64.MeanType(Strong(tensor.I64))), "f64"},
		{"numeric bool", c64.Numeric(Strong(tensor.Bool)), "i64"},
		{"numeric u8", c64.Numeric(Strong(tensor.U8)), "u8"},
	} {
		if c.got.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if c32.IndexType() != tensor.I32 || c64.IndexType() != tensor.I64 {
		t.Error("IndexType is not the default int")
	}
	for _, c := range []struct {
		cat  Category
		d    tensor.DType
		want bool
	}{
		{Integral, tensor.Bool, true}, {Integral, tensor.U16, true}, {Integral, tensor.F32, false},
		{IntegerOnly, tensor.Bool, false}, {Ordered, tensor.C64, false}, {Ordered, tensor.BF16, true},
		{NoBool, tensor.Bool, false}, {InexactOnly, tensor.I8, false}, {AnyDType, tensor.C128, true},
	} {
		if c.cat.Accepts(c.d) != c.want {
			t.Errorf("%s accepts %s = %v", c.cat, c.d, !c.want)
		}
	}
}

func TestParseType(t *testing.T) {
	for _, c := range []struct {
		in   string
		x32  bool
		want string
	}{
		{"f16", false, "f16"}, {"float16", false, "f16"}, {"i*", false, "i64*"}, {"i*", true, "i32*"},
		{"f*", true, "f32*"}, {"c*", false, "c128*"}, {"i16*", false, "i16*"}, {"bfloat16", false, "bf16"},
	} {
		got, err := ParseType(c.in, c.x32)
		if err != nil || got.String() != c.want {
			t.Errorf("ParseType(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "f17", "bool*", "**"} {
		if _, err := ParseType(bad, false); err == nil {
			t.Errorf("ParseType(%q): want an error", bad)
		}
	}
}

// Weak operands whose join is a weak node give that node's weak default:
// a weak u64 and a weak int fit no integer, so the result is a weak float.
func TestAllWeakJoinOnAWeakNode(t *testing.T) {
	got, err := Config{}.ResultType(WeakOf(tensor.U64), WeakOf(tensor.I64))
	if err != nil || got != WeakOf(tensor.F64) {
		t.Errorf("u64* with i64* = %v, %v; want f64*", got, err)
	}
}

// must is the type of a rule that cannot fail here.
func must(t Type, err error) Type {
	if err != nil {
		panic(err)
	}
	return t
}
