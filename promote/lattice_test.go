package promote

import (
	"errors"
	"os"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestJAXTableDerivedFromLattice checks the join derived from the declared
// edges against the golden 18×18 table of seeds/004, cell by cell.
func TestJAXTableDerivedFromLattice(t *testing.T) {
	want, err := os.ReadFile("tables/jax_numpy.tsv")
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := ReadTable(string(want))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := ReadTable(string(want))
	for _, row := range rows {
		a, err := ParseNode(row[0])
		if err != nil {
			t.Fatal(err)
		}
		for j, cell := range row[1:] {
			b, _ := ParseNode(header[j])
			got, ok := jaxLattice.Join(a, b)
			if !ok || got.String() != cell {
				t.Errorf("join(%s, %s) = %s, table says %s", a, b, got, cell)
			}
		}
	}
}

func TestTablesMatchSeeds(t *testing.T) {
	cases := []struct {
		rules, file string
		weakRows    bool
	}{
		{"jax", "jax_numpy.tsv", false},
		{"numpy", "numpy.tsv", false},
		{"torch", "torch.tsv", false},
		{"tensorflow", "tensorflow.tsv", false},
		{"lax", "jax_lax.tsv", false},
		{"anvil", "anvil_known.tsv", false},
		{"anvil", "anvil_ambiguous.tsv", true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r, err := Lookup(c.rules)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile("tables/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			got := FormatTSV(Table(r, false, c.weakRows))
			if got != string(want) {
				t.Errorf("table --rules %s differs from %s:\n%s", c.rules, c.file, got)
			}
		})
	}
}

func TestX32Lattice(t *testing.T) {
	// The only change: u32 with a signed int stays within 32 bits.
	for _, c := range []struct {
		a, b, want Node
	}{
		{u4, i1, i4}, {u4, i4, i4}, {u4, i8, i8}, {u1, i1, i2}, {u8, i1, fw}, {u4, u8, u8},
	} {
		if got, _ := jaxX32Lattice.Join(c.a, c.b); got != c.want {
			t.Errorf("x32 join(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	if got, _ := jaxLattice.Join(u4, i4); got != i8 {
		t.Errorf("x64 join(u32, i32) = %s, want i64", got)
	}
}

func TestStrictLattice(t *testing.T) {
	for _, c := range []struct {
		a, b Node
		want Node // noNode: no promotion
	}{
		{i1, f2, noNode}, {i1, i2, noNode}, {u1, i1, noNode}, {b1, i1, noNode},
		{i1, iw, i1}, {f2, fw, f2}, {f2, iw, f2}, {c8, fw, c8}, {iw, fw, fw}, {fw, cw, cw},
		{i1, fw, noNode}, {f4, cw, noNode}, {b1, iw, noNode}, {cw, c16, c16},
	} {
		got, ok := strictLattice.Join(c.a, c.b)
		if !ok {
			got = noNode
		}
		if got != c.want {
			t.Errorf("strict join(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestNewLatticeRejectsNonLattices(t *testing.T) {
	// Two incomparable upper bounds: a → c, a → d, b → c, b → d.
	_, err := NewLattice("diamond-less", Edges{b1: {f2, bf}, u1: {f2, bf}})
	var le *LatticeError
	if !errors.As(err, &le) {
		t.Fatalf("want *LatticeError, got %v", err)
	}
	if len(le.Bounds) != 2 {
		t.Errorf("minimal bounds = %v, want bf16 and f16", le.Bounds)
	}
	if _, err := NewLattice("cycle", Edges{b1: {u1}, u1: {b1}}); !errors.As(err, &le) {
		t.Fatalf("cycle: want *LatticeError, got %v", err)
	}
}

func TestCheckVerdicts(t *testing.T) {
	for _, c := range []struct {
		rules       string
		lattice     bool
		total       bool
		commutative bool
	}{
		{"jax", true, true, true},
		{"strict", true, false, true},
		{"numpy", false, false, true},
		{"torch", false, false, true},
		{"tensorflow", false, false, false},
		{"lax", false, false, true},
		{"anvil", true, true, true},
	} {
		t.Run(c.rules, func(t *testing.T) {
			r, _ := Lookup(c.rules)
			rep := Check(r, false)
			if rep.IsLattice() != c.lattice || rep.Total != c.total || rep.Commutative != c.commutative {
				t.Errorf("Check(%s): lattice=%v total=%v commutative=%v, want %v %v %v\n%s",
					c.rules, rep.IsLattice(), rep.Total, rep.Commutative, c.lattice, c.total, c.commutative, rep)
			}
		})
	}
	if rep := Check(JAX, true); !rep.IsLattice() || !rep.Total {
		t.Errorf("x32 JAX lattice is not a lattice:\n%s", rep)
	}
}

func TestCheckFindsDesignNoteTriple(t *testing.T) {
	rep := Check(NumPy, false)
	if len(rep.NonAssociative) == 0 {
		t.Fatal("numpy reported associative")
	}
	first := rep.NonAssociative[0]
	want := Triple{A: i1, B: u1, C: f2, Left: f4, Right: f2}
	if first != want {
		t.Errorf("first counterexample = %+v, want (i8 ∨ u8) ∨ f16 = f32 vs i8 ∨ (u8 ∨ f16) = f16", first)
	}
}

func TestNodeNames(t *testing.T) {
	for _, n := range AllNodes() {
		back, err := ParseNode(n.String())
		if err != nil || back != n {
			t.Errorf("ParseNode(%q) = %v, %v", n, back, err)
		}
	}
	if d, ok := FloatWeak.DType(); ok {
		t.Errorf("f*.DType() = %v, true", d)
	}
	if d, _ := DTypeNode(tensor.F16).DType(); d != tensor.F16 {
		t.Errorf("node round trip = %v", d)
	}
}
