package promote

import (
	"fmt"
	"strings"
)

// Report is the verdict of Check on a rule set's binary promotion.
type Report struct {
	Rules string
	Nodes int // how many nodes the table ranges over
	// Total is false when some pairs have no implicit promotion ("-").
	Total          bool
	Commutative    bool
	Associative    bool
	Idempotent     bool
	NonCommuting   []Pair   // a, b with a∨b ≠ b∨a (both sides compared as printed, "-" included)
	NonAssociative []Triple // (a∨b)∨c ≠ a∨(b∨c), smallest first
	NonIdempotent  []Node
}

// Pair is two operands.
type Pair struct{ A, B Node }

// Triple is three operands with both groupings' results.
type Triple struct {
	A, B, C     Node
	Left, Right Node // (a∨b)∨c and a∨(b∨c); "-" where undefined
}

// IsLattice reports whether the binary promotion is a join: commutative,
// associative and idempotent (where defined, for a partial table).
func (r Report) IsLattice() bool { return r.Commutative && r.Associative && r.Idempotent }

// Check examines a rule set's binary table (with x32 for the x32 variant
// of JAX's lattice) and reports whether it is commutative, associative and
// idempotent, with counterexamples. For a partial table, a grouping that is
// undefined on one side only counts as non-associative. Counterexamples are
// sorted smallest first: by the operands' total byte width, then table
// order — for NumPy the first is (i8 ∨ u8) ∨ f16 = f32 ≠ i8 ∨ (u8 ∨ f16) =
// f16, the triple of the JAX design note.
func Check(r *RuleSet, x32 bool) Report { return CheckOver(r, r.Nodes(), x32) }

// CheckOver is Check over the given nodes: r.AllRuleNodes() includes the
// narrow dtypes (JAX's lattice with them is a partial lattice: a narrow
// dtype does not promote with a float or complex of another width).
func CheckOver(r *RuleSet, nodes []Node, x32 bool) Report {
	rep := Report{Rules: r.Name(), Nodes: len(nodes), Total: true, Commutative: true, Associative: true, Idempotent: true}
	join := func(a, b Node) Node {
		n, ok := r.Promote(a, b, x32)
		if !ok {
			return noNode
		}
		return n
	}
	for _, a := range nodes {
		if join(a, a) != a {
			rep.Idempotent = false
			rep.NonIdempotent = append(rep.NonIdempotent, a)
		}
		for _, b := range nodes {
			if join(a, b) == noNode {
				rep.Total = false
			}
			if a < b && join(a, b) != join(b, a) {
				rep.Commutative = false
				rep.NonCommuting = append(rep.NonCommuting, Pair{a, b})
			}
		}
	}
	for _, a := range nodes {
		for _, b := range nodes {
			for _, c := range nodes {
				ab, bc := join(a, b), join(b, c)
				left, right := noNode, noNode
				if ab != noNode {
					left = join(ab, c)
				}
				if bc != noNode {
					right = join(a, bc)
				}
				if left != right {
					rep.Associative = false
					rep.NonAssociative = append(rep.NonAssociative, Triple{a, b, c, left, right})
				}
			}
		}
	}
	sortTriples(rep.NonAssociative)
	return rep
}

func width(n Node) int {
	if d, ok := n.DType(); ok {
		return d.Size()
	}
	return 8 // a weak kind stands for a Python scalar
}

// numpyOrder ranks nodes as NumPy's type codes do (?bBhHiIlLqQefdFD):
// signed before unsigned at each width. It breaks ties between equally
// small counterexamples so the report is stable and reads like NumPy's docs.
var numpyOrder = [NumNodes]int{
	b1: 0, i1: 1, u1: 2, i2: 3, u2: 4, i4: 5, u4: 6, i8: 7, u8: 8,
	f2: 9, bf: 10, f4: 11, f8: 12, c8: 13, c16: 14, iw: 15, fw: 16, cw: 17,
}

func sortTriples(ts []Triple) {
	less := func(x, y Triple) bool {
		wx, wy := width(x.A)+width(x.B)+width(x.C), width(y.A)+width(y.B)+width(y.C)
		if wx != wy {
			return wx < wy
		}
		for _, p := range [][2]Node{{x.A, y.A}, {x.B, y.B}, {x.C, y.C}} {
			if p[0] != p[1] {
				return numpyOrder[p[0]] < numpyOrder[p[1]]
			}
		}
		return false
	}
	// Insertion sort keeps this dependency-free and the lists are small.
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && less(ts[j], ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// String prints the verdict and the first counterexamples.
func (r Report) String() string {
	var b strings.Builder
	switch {
	case r.IsLattice() && r.Total:
		fmt.Fprintf(&b, "%s: a lattice — promotion is commutative, associative and idempotent over all %d types\n", r.Rules, r.Nodes)
	case r.IsLattice():
		fmt.Fprintf(&b, "%s: a partial lattice — where promotion is defined it is commutative, associative and idempotent; some pairs do not promote\n", r.Rules)
	default:
		fmt.Fprintf(&b, "%s: not a lattice\n", r.Rules)
	}
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(&b, "  commutative: %s\n", yes(r.Commutative))
	for i, p := range r.NonCommuting {
		if i == 3 {
			fmt.Fprintf(&b, "    … %d more pairs\n", len(r.NonCommuting)-3)
			break
		}
		fmt.Fprintf(&b, "    %s ∨ %s ≠ %s ∨ %s\n", p.A, p.B, p.B, p.A)
	}
	fmt.Fprintf(&b, "  associative: %s\n", yes(r.Associative))
	for i, t := range r.NonAssociative {
		if i == 3 {
			fmt.Fprintf(&b, "    … %d more triples\n", len(r.NonAssociative)-3)
			break
		}
		fmt.Fprintf(&b, "    (%s ∨ %s) ∨ %s = %s, but %s ∨ (%s ∨ %s) = %s\n", t.A, t.B, t.C, t.Left, t.A, t.B, t.C, t.Right)
	}
	fmt.Fprintf(&b, "  idempotent: %s\n", yes(r.Idempotent))
	for _, n := range r.NonIdempotent {
		fmt.Fprintf(&b, "    %s ∨ %s ≠ %s\n", n, n, n)
	}
	fmt.Fprintf(&b, "  total: %s\n", yes(r.Total))
	return b.String()
}
