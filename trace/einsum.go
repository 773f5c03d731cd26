package trace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Einsum evaluates a NumPy subscript spec over the operands
// (jnp.einsum("ij,jk->ik", a, b)): each operand's axes are named by
// letters; a letter in several operands and not in the output is summed
// over, one in the output is kept (in the output's order), and without
// "->" the output is the letters that appear once, in alphabetical order.
// Pairs are contracted with dot_general (batch letters as batch dims, no
// transposes materialised) after summing out the letters only one operand
// has; with three or more operands the next pair is the one whose result
// is smallest (JAX's opt_einsum "greedy" in spirit). Dtypes promote as
// dot_general's; a sum over an operand's own letters keeps its dtype
// (JAX's lax.reduce: an int8 einsum is int8, as in JAX and NumPy). An
// ellipsis ("...ij,jk->...ik") stands for an operand's dims its letters do
// not name; those of all operands broadcast together, right-aligned, and
// are kept — where "..." stands in the output, or first, before the
// sorted letters, without "->" (NumPy's rule). Not supported (a typed
// error): a letter repeated within one operand (a diagonal).
func Einsum(spec string, xs ...Value) Value { return einsum(spec, xs, dotOpts{}) }

// EinsumPreferred is jnp.einsum(spec, *xs, preferred_element_type=d), as
// JAX computes it: a sum over an operand's own letters runs in d when d
// is wider than that operand's dtype, each pairwise dot_general has
// preferred_element_type d, and the result is converted to d (strong).
// d is checked against the operands' common dtype as for DotGeneral
// (PreferredElementType), even with one operand (where JAX only casts).
func EinsumPreferred(spec string, d tensor.DType, xs ...Value) Value {
	return einsum(spec, xs, dotOptions([]DotOption{PreferredElementType(d)}))
}

func einsum(spec string, xs []Value, o dotOpts) Value {
	pos := callerPos()
	fail := func(msg string, args ...any) Value {
		return Failure(&ShapeError{Op: "einsum", Pos: pos, Msg: fmt.Sprintf(msg, args...)})
	}
	spec = strings.ReplaceAll(spec, " ", "")
	if strings.Contains(spec, ".") {
		shapes := make([][]int, len(xs))
		for i, x := range xs {
			shapes[i] = x.Shape()
		}
		expanded, msg := expandEllipsis(spec, shapes)
		if msg != "" {
			return fail("%s", msg)
		}
		spec = expanded
	}
	lhs, out, explicit := strings.Cut(spec, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(xs) {
		return fail("spec %q names %d operands, got %d", spec, len(ins), len(xs))
	}
	count := map[rune]int{}
	size := map[rune]int{}
	for i, in := range ins {
		s := xs[i].Shape()
		if len([]rune(in)) != len(s) {
			return fail("operand %d has rank %d but its subscripts %q have %d letters", i, len(s), in, len([]rune(in)))
		}
		seen := map[rune]bool{}
		for j, c := range in {
			if c < 'A' || c > 'z' || c > 'Z' && c < 'a' {
				return fail("invalid subscript %q in %q", c, spec)
			}
			if seen[c] {
				return fail("the letter %q repeats in operand %d's subscripts %q (diagonals are not supported)", c, i, in)
			}
			seen[c] = true
			if n, ok := size[c]; ok && n != s[j] && n != 1 && s[j] != 1 {
				return fail("letter %q is %d in one operand and %d in another", c, n, s[j])
			}
			size[c] = max(size[c], s[j])
			count[c]++
		}
	}
	if !explicit {
		var once []rune
		for c, n := range count {
			if n == 1 {
				once = append(once, c)
			}
		}
		slices.Sort(once)
		out = string(once)
	}
	for _, c := range out {
		if count[c] == 0 {
			return fail("output letter %q is not in any operand", c)
		}
		if strings.Count(out, string(c)) > 1 {
			return fail("output letter %q repeats", c)
		}
	}
	var dotOpt []DotOption
	if o.set {
		if len(xs) == 0 {
			return fail("no operands")
		}
		types := make([]promote.Type, len(xs))
		for i, x := range xs {
			types[i] = x.Type()
		}
		cfg := promote.Config{}
		if b, _ := builderOf("einsum", xs...); b != nil {
			cfg = b.cfg
		}
		common, err := cfg.ResultType(types...)
		if err != nil {
			return Failure(&OpError{Op: "einsum", Pos: pos, Err: err})
		}
		if msg := PreferredRefusal(common.DType, o.preferred); msg != "" {
			if slices.ContainsFunc(types, func(t promote.Type) bool { return t != common }) {
				msg += " (the operands promote to " + common.String() + ")"
			}
			return Failure(&DTypeError{Op: "einsum", Pos: pos, Types: types, Msg: msg})
		}
		dotOpt = []DotOption{PreferredElementType(o.preferred)}
	}
	type term struct {
		x    Value
		subs []rune
	}
	terms := make([]term, len(xs))
	for i, x := range xs {
		subs := []rune(ins[i])
		// A dim of size 1 where another operand has n broadcasts to n
		// (NumPy's rule; the ellipsis's batch dims need it most).
		shape, grow := slices.Clone(x.Shape()), false
		for j, c := range subs {
			if shape[j] != size[c] {
				shape[j], grow = size[c], true
			}
		}
		if grow {
			x = x.BroadcastTo(shape...)
		}
		terms[i] = term{x, subs}
	}
	// needed reports whether letter c is used outside terms[skip...].
	needed := func(c rune, skip ...int) bool {
		if strings.ContainsRune(out, c) {
			return true
		}
		for i, t := range terms {
			if !slices.Contains(skip, i) && slices.Contains(t.subs, c) {
				return true
			}
		}
		return false
	}
	// sumOut sums the letters of term i no other term or the output uses.
	sumOut := func(i int) {
		t := terms[i]
		var axes []int
		var keep []rune
		for j, c := range t.subs {
			if needed(c, i) {
				keep = append(keep, c)
			} else {
				axes = append(axes, j)
			}
		}
		if len(axes) > 0 {
			// JAX's einsum sums with lax.reduce, in the operand's dtype
			// (widened to the preferred one first when that is wider):
			// Sum's wider integer accumulator converted back is the same
			// sum, wrapped, and of bool the logical or.
			x := t.x
			if o.set && widens(x, o.preferred) {
				x = x.Astype(o.preferred)
			}
			sum := x.Sum(axes...)
			if d := x.Type().DType; sum.Type().DType != d {
				sum = sum.Astype(d)
			}
			terms[i] = term{sum, keep}
		}
	}
	for i := range terms {
		sumOut(i)
	}
	for len(terms) > 1 {
		// The pair whose result is smallest.
		bi, bj, best := 0, 1, -1
		for i := range terms {
			for j := i + 1; j < len(terms); j++ {
				n := 1
				for _, c := range union(terms[i].subs, terms[j].subs) {
					if needed(c, i, j) {
						n *= size[c]
					}
				}
				if best < 0 || n < best {
					bi, bj, best = i, j, n
				}
			}
		}
		a, b := terms[bi], terms[bj]
		var dims DotDims
		var batch, af, bf []rune
		for ia, c := range a.subs {
			ib := slices.Index(b.subs, c)
			switch {
			case ib >= 0 && needed(c, bi, bj):
				dims.LhsBatch, dims.RhsBatch = append(dims.LhsBatch, ia), append(dims.RhsBatch, ib)
				batch = append(batch, c)
			case ib >= 0:
				dims.LhsContract, dims.RhsContract = append(dims.LhsContract, ia), append(dims.RhsContract, ib)
			default:
				af = append(af, c)
			}
		}
		for _, c := range b.subs {
			if !slices.Contains(a.subs, c) {
				bf = append(bf, c)
			}
		}
		r := term{DotGeneral(a.x, b.x, dims, dotOpt...), slices.Concat(batch, af, bf)}
		terms = slices.Delete(terms, bj, bj+1)
		terms[bi] = r
		sumOut(bi)
	}
	t := terms[0]
	if o.set {
		t.x = t.x.Astype(o.preferred) // strong, as JAX's output_weak_type=False
	}
	perm := make([]int, 0, len(t.subs))
	for _, c := range out {
		perm = append(perm, slices.Index(t.subs, c))
	}
	if slices.IsSorted(perm) {
		return t.x
	}
	return t.x.Transpose(perm...)
}

// widens reports whether promoting x with dtype d changes x's dtype
// (JAX's einsum casts an operand to preferred_element_type before a sum
// then).
func widens(x Value, d tensor.DType) bool {
	cfg := promote.Config{}
	if x.b != nil {
		cfg = x.b.cfg
	}
	t, err := cfg.ResultType(x.Type(), promote.Strong(d))
	return err == nil && t.DType != x.Type().DType
}

func union(a, b []rune) []rune {
	u := slices.Clone(a)
	for _, c := range b {
		if !slices.Contains(u, c) {
			u = append(u, c)
		}
	}
	return u
}

// expandEllipsis rewrites a spec with "..." into one without: the dims an
// ellipsis stands for get letters the spec does not use, the same letter
// for the same dim counted from the right in every operand; the output
// gets them where its "..." is, or (without "->") first, followed by the
// letters that appear once, sorted. It returns a message for a malformed
// spec.
func expandEllipsis(spec string, shapes [][]int) (string, string) {
	lhs, out, explicit := strings.Cut(spec, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(shapes) {
		return "", fmt.Sprintf("spec %q names %d operands, got %d", spec, len(ins), len(shapes))
	}
	for _, t := range append(slices.Clone(ins), out) {
		if strings.Count(t, "...") > 1 || strings.Count(strings.ReplaceAll(t, "...", ""), ".") > 0 {
			return "", fmt.Sprintf("%q: each term may have one ellipsis (\"...\") and no other dots", spec)
		}
	}
	rank := 0 // dims the ellipses stand for, all operands broadcast
	extra := make([]int, len(ins))
	for i, in := range ins {
		named := len([]rune(strings.ReplaceAll(in, "...", "")))
		if !strings.Contains(in, "...") {
			continue
		}
		if extra[i] = len(shapes[i]) - named; extra[i] < 0 {
			return "", fmt.Sprintf("operand %d has rank %d but its subscripts %q name %d dims", i, len(shapes[i]), in, named)
		}
		rank = max(rank, extra[i])
	}
	var fresh []rune
	for c := 'A'; len(fresh) < rank && c <= 'z'; c++ {
		if (c <= 'Z' || c >= 'a') && !strings.ContainsRune(spec, c) {
			fresh = append(fresh, c)
		}
	}
	if len(fresh) < rank {
		return "", fmt.Sprintf("%q: too many dims for the ellipsis (%d) beside the letters used", spec, rank)
	}
	for i, in := range ins {
		ins[i] = strings.Replace(in, "...", string(fresh[rank-extra[i]:]), 1)
	}
	if explicit {
		if !strings.Contains(out, "...") && rank > 0 {
			return "", fmt.Sprintf("%q: the output has no \"...\" for the %d dims the operands' ellipses stand for", spec, rank)
		}
		out = strings.Replace(out, "...", string(fresh), 1)
	} else {
		count := map[rune]int{}
		for _, in := range strings.Split(strings.ReplaceAll(lhs, "...", ""), ",") {
			for _, c := range in {
				count[c]++
			}
		}
		var once []rune
		for c, n := range count {
			if n == 1 {
				once = append(once, c)
			}
		}
		slices.Sort(once)
		out = string(fresh) + string(once)
	}
	return strings.Join(ins, ",") + "->" + out, ""
}
