package kiln_test

import (
	"errors"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

type reviewNode[T kiln.Leaf] struct {
	W    T
	Next *reviewNode[T]
}

// TestReviewTreePointerCycle: a tree whose pointers form a cycle has no
// finite structure: a *TreeError (JAX's flatten would recurse forever; a
// Go library must not), not a stack overflow, at TreeFlatten, Jit's Run
// and inside a traced function.
func TestReviewTreePointerCycle(t *testing.T) {
	a := &reviewNode[*tensor.Array]{W: tv(1)}
	a.Next = &reviewNode[*tensor.Array]{W: tv(2), Next: a}
	_, _, err := kiln.TreeFlatten[*tensor.Array](a)
	var te *kiln.TreeError
	if !errors.As(err, &te) {
		t.Errorf("TreeFlatten of a cycle: err = %v, want a *TreeError", err)
	}
	f := kiln.Jit(func(n reviewNode[kiln.Value]) kiln.Value { return n.W })
	if _, err := f.Run(a); err == nil {
		t.Errorf("Run of a cycle: no error")
	}
	_, err = kiln.TreeLeaves[*tensor.Array](a)
	if !errors.As(err, &te) {
		t.Errorf("TreeLeaves of a cycle: err = %v, want a *TreeError", err)
	}
}

// TestReviewTreeNilVersusEmpty: a nil slice is an empty list, so nil and
// []T{} are one structure (one cache entry); a nil map is a *TreeError,
// an empty map is an empty dict.
func TestReviewTreeNilVersusEmpty(t *testing.T) {
	type p[T kiln.Leaf] struct {
		A  T
		Xs []T
		M  map[string]T
	}
	f := kiln.Jit(func(q p[kiln.Value]) kiln.Value {
		s := q.A
		for _, x := range q.Xs {
			s = s.Add(x)
		}
		for _, x := range q.M {
			s = s.Add(x)
		}
		return s
	})
	out, err := f.Run(p[*tensor.Array]{A: tv(1), Xs: nil, M: map[string]*tensor.Array{}})
	if err != nil || out.Data().([]float32)[0] != 1 {
		t.Fatalf("nil slice: %v %v", out, err)
	}
	if _, err := f.Run(p[*tensor.Array]{A: tv(1), Xs: []*tensor.Array{}, M: map[string]*tensor.Array{}}); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Misses != 1 {
		t.Errorf("nil and empty slices: %d misses, want 1 (one structure)", s.Misses)
	}
	_, err = f.Run(p[*tensor.Array]{A: tv(1)})
	var ae *kiln.ArgError
	var te *kiln.TreeError
	if !errors.As(err, &ae) && !errors.As(err, &te) {
		t.Errorf("nil map: err = %v, want an *ArgError or *TreeError", err)
	}
}

// TestReviewTreeMixedLeaves: a struct with a Value field beside a
// *tensor.Array field is not a tree of one leaf kind: a typed error at
// Jit (Func.Err) and from Run, at TreeFlatten of either kind, never a
// panic.
func TestReviewTreeMixedLeaves(t *testing.T) {
	type mixed struct {
		V kiln.Value
		A *tensor.Array
	}
	f := kiln.Jit(func(m mixed) kiln.Value { return m.V.Add(kiln.Const(m.A)) })
	var fe *kiln.FuncError
	if !errors.As(f.Err(), &fe) {
		t.Errorf("Jit of a function of a mixed struct: Err = %v, want a *FuncError", f.Err())
	}
	if _, err := f.Run(mixed{A: tv(1)}); err == nil {
		t.Errorf("Run: no error")
	}
	m := mixed{V: kiln.Int(1), A: tv(2)}
	var te *kiln.TreeError
	if _, _, err := kiln.TreeFlatten[kiln.Value](m); !errors.As(err, &te) {
		t.Errorf("TreeFlatten[Value]: err = %v, want a *TreeError", err)
	}
	if _, _, err := kiln.TreeFlatten[*tensor.Array](m); !errors.As(err, &te) {
		t.Errorf("TreeFlatten[*tensor.Array]: err = %v, want a *TreeError", err)
	}
}

// TestReviewTreeWrongStructure: Run given a tree of another type, a
// struct where a slice is wanted, too few arguments: typed errors.
func TestReviewTreeWrongStructure(t *testing.T) {
	f := kiln.Jit(func(n layer[kiln.Value], x kiln.Value) kiln.Value { return n.W.Mul(x).Add(n.B) })
	good := layer[*tensor.Array]{W: tv(2), B: tv(3)}
	if out, err := f.Run(good, tv(4)); err != nil || out.Data().([]float32)[0] != 11 {
		t.Fatalf("%v %v", out, err)
	}
	var ae *kiln.ArgError
	for name, args := range map[string][]any{
		"another struct type":    {reviewNode[*tensor.Array]{W: tv(1)}, tv(4)},
		"a slice":                {[]*tensor.Array{tv(2), tv(3)}, tv(4)},
		"an array for a tree":    {tv(2), tv(4)},
		"a tree for an array":    {good, good},
		"too few":                {good},
		"a nil leaf":             {layer[*tensor.Array]{W: tv(2)}, tv(4)},
		"a nil pointer":          {(*layer[*tensor.Array])(nil), tv(4)},
		"a map of the leaves":    {map[string]*tensor.Array{"W": tv(2), "B": tv(3)}, tv(4)},
		"Values on the Run side": {layer[kiln.Value]{W: kiln.Int(1), B: kiln.Int(2)}, tv(4)},
	} {
		_, err := f.Run(args...)
		if !errors.As(err, &ae) {
			t.Errorf("%s: err = %v, want an *ArgError", name, err)
		}
	}
}

type reviewKids[T kiln.Leaf] struct {
	W    T
	Kids []reviewKids[T]
}

type reviewDict[T kiln.Leaf] map[string]reviewDict[T]

// TestReviewTreeSliceAndMapCycles: cycles through a slice and through a
// map are *TreeErrors too; a subtree shared twice (a DAG, the same slice
// data reached by two paths, or a shorter slice of it) is not a cycle.
func TestReviewTreeSliceAndMapCycles(t *testing.T) {
	var te *kiln.TreeError
	s := make([]reviewKids[*tensor.Array], 1)
	s[0] = reviewKids[*tensor.Array]{W: tv(1), Kids: s}
	if _, err := kiln.TreeLeaves[*tensor.Array](s); !errors.As(err, &te) {
		t.Errorf("a slice containing itself: err = %v, want a *TreeError", err)
	}
	m := reviewDict[*tensor.Array]{}
	m["a"] = m
	if _, err := kiln.TreeLeaves[*tensor.Array](m); !errors.As(err, &te) {
		t.Errorf("a map containing itself: err = %v, want a *TreeError", err)
	}
	// A DAG: s2 = [a, b], b.Kids = s2[0:1] = [a]; a's subtree is seen twice.
	s2 := []reviewKids[*tensor.Array]{{W: tv(1)}, {W: tv(2)}}
	s2[1].Kids = s2[0:1]
	root := reviewKids[*tensor.Array]{W: tv(0), Kids: s2}
	leaves, err := kiln.TreeLeaves[*tensor.Array](root)
	if err != nil || len(leaves) != 4 {
		t.Errorf("a shared subtree: %d leaves, err = %v; want 4 leaves, no error", len(leaves), err)
	}
	// A pointer to a struct and a pointer to its first field share an
	// address: not a cycle.
	type inner[T kiln.Leaf] struct{ W T }
	type outer[T kiln.Leaf] struct {
		In inner[T]
		P  *inner[T]
	}
	o := &outer[*tensor.Array]{In: inner[*tensor.Array]{W: tv(1)}}
	o.P = &o.In
	if leaves, err := kiln.TreeLeaves[*tensor.Array](o); err != nil || len(leaves) != 2 {
		t.Errorf("a pointer to a struct's first field: %d leaves, err = %v; want 2, none", len(leaves), err)
	}
	// A Func that refused a cycle runs the next, acyclic, tree.
	f := kiln.Jit(func(k reviewKids[kiln.Value]) kiln.Value { return k.W })
	if _, err := f.Run(s[0]); err == nil {
		t.Errorf("Run of a cycle: no error")
	}
	if out, err := f.Run(root); err != nil || out.Data().([]float32)[0] != 0 {
		t.Errorf("Run after a cycle: %v %v", out, err)
	}
}
