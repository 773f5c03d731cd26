package promote

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestTorchProfileRefinesTable pins where the torch profile's ResultType
// (PyTorch's categories, every strong operand of rank ≥ 1) leaves the seed
// table: only Python scalar × Python scalar (torch.result_type(1.5, 2.5) is
// f32, not the table's f64; every weak × weak result is weak) and f16 with
// a complex scalar (PyTorch's complex32). TestTorchProfile in package kiln
// checks the profile against PyTorch itself.
func TestTorchProfileRefinesTable(t *testing.T) {
	c := Config{Rules: Torch}
	var differ []string
	for _, a := range Torch.Nodes() {
		for _, b := range Torch.Nodes() {
			want, ok := Torch.Promote(a, b, false)
			got, err := c.ResultType(c.nodeType(a), c.nodeType(b))
			switch {
			case !ok:
				if err == nil {
					t.Errorf("%s, %s: table has no promotion, profile gives %s", a, b, got)
				}
			case err != nil:
				differ = append(differ, fmt.Sprintf("%s,%s:error", a, b))
				var pe *PromotionError
				if !errors.As(err, &pe) {
					t.Errorf("%s, %s: %v is not a *PromotionError", a, b, err)
				}
			case a.IsWeak() && b.IsWeak():
				if !got.Weak {
					t.Errorf("%s, %s: scalar × scalar gave strong %s", a, b, got)
				}
				if DTypeNode(got.DType) != want {
					differ = append(differ, fmt.Sprintf("%s,%s:%s", a, b, got))
				}
			case got.Weak || DTypeNode(got.DType) != want:
				t.Errorf("%s, %s: table %s, profile %s", a, b, want, got)
			}
		}
	}
	wantDiffer := []string{"f16,c*:error", "f*,f*:f32*", "c*,f16:error", "c*,c*:c64*"}
	if !slices.Equal(differ, wantDiffer) {
		t.Errorf("torch profile leaves the table at %v, want %v", differ, wantDiffer)
	}
}

// TestTorchCategories checks PyTorch's category rules on cases from the
// issue and that the result does not depend on operand order.
func TestTorchCategories(t *testing.T) {
	c := Config{Rules: Torch}
	op := func(s string) Operand {
		rank := 1
		if s[len(s)-1] == ']' {
			s, rank = s[:len(s)-2], 0
		}
		ty, err := ParseType(s, false)
		if err != nil {
			t.Fatal(err)
		}
		return Operand{Type: ty, Rank: rank}
	}
	for _, k := range []struct {
		ops  []string
		want string
	}{
		{[]string{"u8", "i8[]"}, "u8"},
		{[]string{"f32", "f64[]"}, "f32"},
		{[]string{"c64", "f64[]"}, "c64"},
		{[]string{"bf16", "c128[]"}, "c64"},
		{[]string{"f64", "c64[]"}, "c128"},
		{[]string{"i32", "c64[]"}, "c64"},
		{[]string{"bool", "i8[]"}, "i8"},
		{[]string{"i8[]", "i16[]"}, "i16"},
		{[]string{"i8[]", "f*"}, "f32"},
		{[]string{"f16[]", "f*"}, "f16"},
		{[]string{"u8", "i16[]", "f*"}, "f32"},
		{[]string{"u8", "i16[]", "i*"}, "u8"},
		{[]string{"i8", "u8[]", "f64[]", "i*"}, "f64"},
		{[]string{"i*", "f*"}, "f32*"},
		{[]string{"bool", "bool[]"}, "bool"},
		{[]string{"u16", "i*"}, "error"},
	} {
		ops := make([]Operand, len(k.ops))
		for i, s := range k.ops {
			ops[i] = op(s)
		}
		// every rotation of the operands gives the same
		for r := range ops {
			rot := append(slices.Clone(ops[r:]), ops[:r]...)
			got, err := c.ResultTypeRanked(rot...)
			s := got.String()
			if err != nil {
				s = "error"
			}
			if s != k.want {
				t.Errorf("torch %v (rotated %d) = %s %v, want %s", k.ops, r, s, err, k.want)
			}
		}
	}
}

// TestResultTypeRankedIgnoresRank: every profile but torch ignores rank,
// and under torch operands of rank ≥ 1 are ResultType's.
func TestResultTypeRankedIgnoresRank(t *testing.T) {
	for _, name := range RuleNames() {
		r, _ := Lookup(name)
		c := Config{Rules: r}
		for _, a := range tensor.AllDTypes() {
			for _, b := range tensor.AllDTypes() {
				want, werr := c.ResultType(Strong(a), Strong(b))
				for _, rank := range []int{0, 1, 3} {
					if r == Torch && rank == 0 {
						continue
					}
					got, err := c.ResultTypeRanked(Operand{Strong(a), rank}, Operand{Strong(b), 1})
					if got != want || (err == nil) != (werr == nil) {
						t.Errorf("%s: %s (rank %d), %s = %v %v; ResultType %v %v", name, a, rank, b, got, err, want, werr)
					}
				}
			}
		}
	}
}

func TestIntLiteral(t *testing.T) {
	torch, jax := Config{Rules: Torch}, Config{}
	for _, c := range []struct {
		v    int64
		d    tensor.DType
		want int64
	}{
		{1000, tensor.U8, 232}, {-1, tensor.U8, 255}, {-1000, tensor.I8, 24}, {200, tensor.I8, -56},
		{100000, tensor.I16, -31072}, {5000000000, tensor.I32, 705032704}, {-3000000000, tensor.I32, 1294967296},
		{127, tensor.I8, 127}, {-1, tensor.U64, -1}, {1 << 40, tensor.I64, 1 << 40},
	} {
		got, err := torch.IntLiteral(c.v, c.d)
		if err != nil || got != c.want {
			t.Errorf("torch: %d at %s = %d %v, want %d", c.v, c.d, got, err, c.want)
		}
		_, err = jax.IntLiteral(c.v, c.d)
		if fits := CheckIntLiteral(c.v, c.d) == nil; fits != (err == nil) {
			t.Errorf("jax: %d at %s: error %v", c.v, c.d, err)
		}
	}
	if _, err := torch.IntLiteral(2, tensor.Bool); err == nil {
		t.Error("a bool target takes only 0 and 1, under every profile")
	}
}

// TestProfilesComplete: every rule set has a profile that cites its
// source, and the profiles the seeds say least about explain themselves.
func TestProfilesComplete(t *testing.T) {
	for _, name := range RuleNames() {
		r, _ := Lookup(name)
		for _, x32 := range []bool{false, true} {
			p := Config{Rules: r, X32: x32}.Profile()
			if p.Rules != r || p.X32 != x32 || p.Source == "" {
				t.Errorf("%s x32=%v: profile %+v", name, x32, p)
			}
			if (r == TensorFlow || r == Anvil) && len(p.Notes) < 2 {
				t.Errorf("%s: the choices Kiln made are not written down", name)
			}
			if x32 && (p.DefaultInt.Bits() > 32 || p.DefaultFloat.Bits() > 32) {
				t.Errorf("%s x32: defaults %s %s", name, p.DefaultInt, p.DefaultFloat)
			}
		}
	}
}
