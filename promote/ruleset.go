package promote

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// The promotion tables of the seed documents, as data. JAX's own table is
// here only to check the derived join against; the other systems are
// defined by their tables.
//
//go:embed tables/*.tsv
var tableFiles embed.FS

// RuleSet is a named system of promotion rules. JAX's standard and strict
// rules are lattices declared as edges; the other systems (NumPy, PyTorch,
// TensorFlow, jax.lax, anvil) are defined by their tables, which need not
// be lattices at all.
type RuleSet struct {
	name    string
	summary string
	lattice *Lattice // jax, strict: the join on this (x64) lattice
	x32     *Lattice // jax: the join on the x32 lattice
	table   *nodeTable
	anvil   *anvilRules
}

// nodeTable is a table over all lattice nodes; noNode is "-". The seed
// tables give the 18×18 standard part.
type nodeTable [NumNodes][NumNodes]Node

// Name is the rule set's name as accepted by Lookup.
func (r *RuleSet) Name() string { return r.name }

// Summary is a one-line description of the rule set.
func (r *RuleSet) Summary() string { return r.summary }

// IsDeclaredLattice reports whether the rules are a lattice declared as
// edges (jax, strict), as opposed to a table.
func (r *RuleSet) IsDeclaredLattice() bool { return r.lattice != nil }

// Promote returns the result of promoting node a with node b (a row, b a
// column of the rule set's table); ok is false where the rules allow no
// implicit promotion. For anvil the nodes are its 11 dtypes, both known.
func (r *RuleSet) Promote(a, b Node, x32 bool) (Node, bool) {
	switch {
	case r.lattice != nil:
		if x32 && r.x32 != nil {
			return r.x32.Join(a, b)
		}
		return r.lattice.Join(a, b)
	case r.table != nil:
		n := r.table[a][b]
		return n, n != noNode
	default:
		return r.anvil.promote(a, false, b, false)
	}
}

// Nodes returns the nodes the rule set's seed table ranges over, in table
// order: the 18 standard ones for the JAX-style systems, anvil's 11 dtypes
// for anvil. AllRuleNodes adds the narrow dtypes.
func (r *RuleSet) Nodes() []Node {
	if r.anvil != nil {
		return append([]Node(nil), r.anvil.nodes...)
	}
	return StandardNodes()
}

// AllRuleNodes returns every node the rule set promotes, in table order:
// all 33 for the JAX-style systems (the narrow dtypes promote by JAX's
// lattice edges in every one of them, docs/SPEC.md), anvil's 11 dtypes for
// anvil, which has no narrow dtype.
func (r *RuleSet) AllRuleNodes() []Node {
	if r.anvil != nil {
		return r.Nodes()
	}
	return AllNodes()
}

var ruleSets = map[string]*RuleSet{}

func register(r *RuleSet) *RuleSet {
	ruleSets[r.name] = r
	return r
}

// The rule sets, selectable by name.
var (
	JAX        = register(&RuleSet{name: "jax", summary: "jax.numpy, standard promotion (the default)", lattice: jaxLattice, x32: jaxX32Lattice})
	Strict     = register(&RuleSet{name: "strict", summary: "jax.numpy with numpy_dtype_promotion='strict': only weak values promote", lattice: strictLattice})
	NumPy      = register(&RuleSet{name: "numpy", summary: "NumPy, value-independent (NEP 50); not a lattice", table: mustNodeTable("numpy.tsv")})
	Torch      = register(&RuleSet{name: "torch", summary: "PyTorch", table: mustNodeTable("torch.tsv")})
	TensorFlow = register(&RuleSet{name: "tensorflow", summary: "TensorFlow: the right operand is coerced to the left's type", table: mustNodeTable("tensorflow.tsv")})
	Lax        = register(&RuleSet{name: "lax", summary: "jax.lax: no implicit promotion", table: mustNodeTable("jax_lax.tsv")})
	Anvil      = register(&RuleSet{name: "anvil", summary: "anvil (R): literals are ambiguous types", anvil: mustAnvil()})
)

// Lookup returns the rule set with the given name: jax, strict, numpy,
// torch, tensorflow, lax or anvil.
func Lookup(name string) (*RuleSet, error) {
	if name == "" {
		return JAX, nil
	}
	if r, ok := ruleSets[strings.ToLower(name)]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("promote: unknown rules %q (want one of %s)", name, strings.Join(RuleNames(), ", "))
}

// RuleNames lists the names Lookup accepts, the default first.
func RuleNames() []string {
	names := []string{"jax"}
	var rest []string
	for n := range ruleSets {
		if n != "jax" {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// ReadTable parses a promotion table in the TSV layout of shared/tables:
// the first row and column name the operands, "-" is no promotion.
func ReadTable(text string) (header []string, rows [][]string, err error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) < 2 {
		return nil, nil, fmt.Errorf("promote: table has %d lines", len(lines))
	}
	header = strings.Split(strings.TrimRight(lines[0], "\r"), "\t")[1:]
	for i, line := range lines[1:] {
		cells := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if len(cells) != len(header)+1 {
			return nil, nil, fmt.Errorf("promote: table row %d has %d cells, want %d", i+1, len(cells), len(header)+1)
		}
		rows = append(rows, cells)
	}
	return header, rows, nil
}

// embeddedTable returns the raw text of one of the embedded seed tables.
func embeddedTable(file string) string {
	b, err := tableFiles.ReadFile("tables/" + file)
	if err != nil {
		panic("promote: missing embedded table " + file)
	}
	return string(b)
}

func mustNodeTable(file string) *nodeTable {
	header, rows, err := ReadTable(embeddedTable(file))
	if err != nil {
		panic(err)
	}
	var t nodeTable
	for a := range t {
		for b := range t[a] {
			t[a][b] = noNode
			if Node(a).IsNarrow() || Node(b).IsNarrow() {
				t[a][b], _ = jaxLattice.Join(Node(a), Node(b))
			}
		}
	}
	parse := func(s string) Node {
		if s == "-" {
			return noNode
		}
		n, err := ParseNode(s)
		if err != nil {
			panic(fmt.Sprintf("promote: %s: %v", file, err))
		}
		return n
	}
	if len(header) != NumStandardNodes || len(rows) != NumStandardNodes {
		panic("promote: " + file + " is not 18x18")
	}
	for _, row := range rows {
		a := parse(row[0])
		for j, cell := range row[1:] {
			t[a][parse(header[j])] = parse(cell)
		}
	}
	return &t
}

// anvilRules are anvil's two tables over its 11 dtypes: known × known and
// ambiguous (row) × known (column). Kiln's weak operands are anvil's
// ambiguous ones. Two ambiguous operands promote as two known ones ("the
// result is generally the same as if both were known"), and anvil does not
// propagate ambiguity: every result is known (strong).
type anvilRules struct {
	nodes     []Node
	known     nodeTable
	ambiguous nodeTable
}

func mustAnvil() *anvilRules {
	a := &anvilRules{}
	for i := range a.known {
		for j := range a.known[i] {
			a.known[i][j], a.ambiguous[i][j] = noNode, noNode
		}
	}
	for _, f := range []struct {
		file string
		t    *nodeTable
	}{{"anvil_known.tsv", &a.known}, {"anvil_ambiguous.tsv", &a.ambiguous}} {
		header, rows, err := ReadTable(embeddedTable(f.file))
		if err != nil {
			panic(err)
		}
		a.nodes = a.nodes[:0]
		for _, h := range header {
			n, err := ParseNode(h)
			if err != nil {
				panic(err)
			}
			a.nodes = append(a.nodes, n)
		}
		for _, row := range rows {
			r, err := ParseNode(row[0])
			if err != nil {
				panic(err)
			}
			for j, cell := range row[1:] {
				c, err := ParseNode(cell)
				if err != nil {
					panic(err)
				}
				f.t[r][a.nodes[j]] = c
			}
		}
	}
	return a
}

// promote applies anvil's rules to a (ambiguous if aWeak) and b.
func (a *anvilRules) promote(x Node, xAmb bool, y Node, yAmb bool) (Node, bool) {
	var n Node
	switch {
	case xAmb && !yAmb:
		n = a.ambiguous[x][y]
	case !xAmb && yAmb:
		n = a.ambiguous[y][x]
	default:
		n = a.known[x][y]
	}
	return n, n != noNode
}

// supports reports whether anvil has the dtype at all.
func (a *anvilRules) supports(d tensor.DType) bool {
	for _, n := range a.nodes {
		if n == DTypeNode(d) {
			return true
		}
	}
	return false
}
