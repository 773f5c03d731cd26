package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// layer and net are test trees of every kind: fields, a Go array, a
// slice, a map, a pointer, an unexported and an ignored field.
type layer[T kiln.Leaf] struct {
	W, B T
}

type net[T kiln.Leaf] struct {
	In     layer[T]
	Hidden []layer[T]
	Extra  map[string]T
	Pair   [2]T
	Out    *layer[T]
	note   string //nolint:unused // unexported: not part of the tree
	Config int    `kiln:"-"`
}

func tv(v ...float32) *tensor.Array { return tensor.Must(tensor.FromSlice(v)) }

func testNet() net[*tensor.Array] {
	return net[*tensor.Array]{
		In:     layer[*tensor.Array]{W: tv(1), B: tv(2)},
		Hidden: []layer[*tensor.Array]{{W: tv(3), B: tv(4)}, {W: tv(5), B: tv(6)}},
		Extra:  map[string]*tensor.Array{"z": tv(9), "a": tv(7), "m": tv(8)},
		Pair:   [2]*tensor.Array{tv(10), tv(11)},
		Out:    &layer[*tensor.Array]{W: tv(12), B: tv(13)},
		note:   "x", Config: 3,
	}
}

// Flattening orders leaves as JAX does — fields as declared, elements by
// index, map values by sorted key — and unflattening into another type
// of the same structure (the Value side) and back gives the tree again.
func TestTreeRoundTrip(t *testing.T) {
	n := testNet()
	leaves, def, err := kiln.TreeFlatten[*tensor.Array](&n)
	if err != nil {
		t.Fatal(err)
	}
	var got []float32
	for _, l := range leaves {
		d, _ := tensor.Data[float32](l)
		got = append(got, d...)
	}
	want := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	if !equalF32(got, want) || def.NumLeaves() != 13 {
		t.Fatalf("leaves %v (%d), want %v", got, def.NumLeaves(), want)
	}
	if s := def.String(); s != `{In:{W:*, B:*}, Hidden:[{W:*, B:*}, {W:*, B:*}], Extra:{"a":*, "m":*, "z":*}, Pair:[*, *], Out:{W:*, B:*}}` {
		t.Errorf("String: %s", s)
	}
	back, err := kiln.TreeUnflatten[net[*tensor.Array]](def, leaves)
	if err != nil {
		t.Fatal(err)
	}
	again, def2, err := kiln.TreeFlatten[*tensor.Array](back)
	if err != nil || !def2.Equal(def) || len(again) != len(leaves) {
		t.Fatalf("round trip: %v %s", err, def2)
	}
	for i := range again {
		if again[i] != leaves[i] {
			t.Errorf("leaf %d differs after the round trip", i)
		}
	}
	if back.Config != 0 || back.note != "" {
		t.Errorf("fields outside the tree were set: %+v", back)
	}
	// The Value side's type has the same structure.
	vals := make([]kiln.Value, len(leaves))
	for i, l := range leaves {
		vals[i] = kiln.Const(l)
	}
	vn, err := kiln.TreeUnflatten[net[kiln.Value]](def, vals)
	if err != nil || len(vn.Hidden) != 2 || len(vn.Extra) != 3 || vn.Out == nil {
		t.Fatalf("value tree: %v %+v", err, vn)
	}
	// A map with integer keys sorts them as numbers.
	m := map[int]*tensor.Array{10: tv(2), 9: tv(1), -1: tv(0)}
	ml, md, err := kiln.TreeFlatten[*tensor.Array](m)
	if err != nil || md.String() != `{"-1":*, "9":*, "10":*}` || tensor.Index(ml[0].Data(), 0) != float32(0) {
		t.Errorf("int keys: %v %s", err, md)
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Trees that cannot be walked are *TreeErrors naming the op, the
// caller's line and where in the tree.
func TestTreeErrors(t *testing.T) {
	type bad struct {
		W  kiln.Value
		LR float64
	}
	n := testNet()
	n.Extra = nil
	var nilLayer *layer[*tensor.Array]
	cases := []struct {
		name, want string
		err        func() error
	}{
		{"non-leaf field", "field kiln_test.bad.LR: float64 is not a kiln.Value", func() error {
			_, err := kiln.TreeLeaves[kiln.Value](bad{})
			return err
		}},
		{"nil map", ".Extra: nil map[string]*tensor.Array", func() error {
			_, err := kiln.TreeLeaves[*tensor.Array](&n)
			return err
		}},
		{"nil pointer", "nil *kiln_test.layer[*github.com/kiln-go/kiln/tensor.Array]", func() error {
			_, err := kiln.TreeLeaves[*tensor.Array](nilLayer)
			return err
		}},
		{"leaf kind", ".W: a *tensor.Array leaf where a kiln.Value is wanted", func() error {
			_, err := kiln.TreeLeaves[kiln.Value](layer[*tensor.Array]{W: tv(1), B: tv(2)})
			return err
		}},
		{"leaf count", "1 leaves for a structure of 2", func() error {
			_, def, _ := kiln.TreeFlatten[*tensor.Array](layer[*tensor.Array]{W: tv(1), B: tv(2)})
			_, err := kiln.TreeUnflatten[layer[kiln.Value]](def, []kiln.Value{kiln.Int(1)})
			return err
		}},
		{"other structure", "has another structure", func() error {
			_, def, _ := kiln.TreeFlatten[*tensor.Array](layer[*tensor.Array]{W: tv(1), B: tv(2)})
			_, err := kiln.TreeUnflatten[[2]kiln.Value](def, []kiln.Value{kiln.Int(1), kiln.Int(2)})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			var te *kiln.TreeError
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a *TreeError", err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(te.Pos.File, "tree_test.go") {
				t.Errorf("got %q (at %s), want it to contain %q at tree_test.go", err, te.Pos, c.want)
			}
		})
	}
}

// TreeMap2 of trees of different structures fails the trace that uses
// its result with a *TreeError at the caller's line.
func TestTreeMapMismatch(t *testing.T) {
	f := kiln.Jit(func(x kiln.Value) kiln.Value {
		a := []kiln.Value{x, x}
		b := []kiln.Value{x}
		s := kiln.TreeMap2(a, b, func(p, q kiln.Value) kiln.Value { return p.Add(q) })
		return s[0]
	})
	_, err := f.Run(tv(1))
	var te *kiln.TreeError
	if !errors.As(err, &te) || te.Op != "tree_map" || !strings.Contains(te.Pos.File, "tree_test.go") || !strings.Contains(err.Error(), "tree 1 has structure [*], tree 0 [*, *]") {
		t.Fatalf("got %v", err)
	}
	// TreeMap over a tree applies f to each leaf and keeps the structure.
	g := kiln.Jit(func(p layer[kiln.Value]) layer[kiln.Value] {
		return kiln.TreeMap(p, func(v kiln.Value) kiln.Value { return v.Mul(kiln.Int(10)) })
	})
	var out layer[*tensor.Array]
	if err := g.RunTree([]any{&out}, &layer[*tensor.Array]{W: tv(1, 2), B: tv(3)}); err != nil {
		t.Fatal(err)
	}
	if out.W.String() != "f32[2] [10 20]" || out.B.String() != "f32[1] [30]" {
		t.Errorf("TreeMap: %v %v", out.W, out.B)
	}
}

// node is a recursive tree type.
type node[T kiln.Leaf] struct {
	V    T
	Kids []node[T]
}

// Recursive types are trees too: flattened depth first, rebuilt as the
// other leaf kind, with their structure in the TreeDef.
func TestTreeRecursive(t *testing.T) {
	n := node[*tensor.Array]{V: tv(1), Kids: []node[*tensor.Array]{{V: tv(2)}, {V: tv(3), Kids: []node[*tensor.Array]{{V: tv(4)}}}}}
	leaves, def, err := kiln.TreeFlatten[*tensor.Array](&n)
	if err != nil || len(leaves) != 4 || def.String() != "{V:*, Kids:[{V:*, Kids:[]}, {V:*, Kids:[{V:*, Kids:[]}]}]}" {
		t.Fatalf("%v %s", err, def)
	}
	vals := []kiln.Value{kiln.Int(1), kiln.Int(2), kiln.Int(3), kiln.Int(4)}
	v, err := kiln.TreeUnflatten[node[kiln.Value]](def, vals)
	if err != nil || len(v.Kids) != 2 || len(v.Kids[1].Kids) != 1 || len(v.Kids[0].Kids) != 0 {
		t.Fatalf("%v %+v", err, v)
	}
	f := kiln.Jit(func(n node[kiln.Value]) kiln.Value {
		var sum func(n node[kiln.Value]) kiln.Value
		sum = func(n node[kiln.Value]) kiln.Value {
			s := n.V
			for _, k := range n.Kids {
				s = s.Add(sum(k).Mul(kiln.Int(10)))
			}
			return s
		}
		return sum(n)
	})
	out, err := f.Run(&n)
	if err != nil || out.String() != "f32[1] [451]" { // 1 + 10·2 + 10·(3 + 10·4)
		t.Errorf("%v %v", out, err)
	}
}

// Tree functions run concurrently, the type descriptions being built
// once and shared.
func TestTreeConcurrent(t *testing.T) {
	type p3[T kiln.Leaf] struct {
		A T
		B [2]T
		C map[int]T
	}
	f := kiln.Jit(func(p p3[kiln.Value]) kiln.Value { return p.A.Add(p.B[0]).Add(p.B[1]).Add(p.C[7]) })
	done := make(chan error)
	for range 4 {
		go func() {
			for range 20 {
				in := p3[*tensor.Array]{A: tv(1), B: [2]*tensor.Array{tv(2), tv(3)}, C: map[int]*tensor.Array{7: tv(4)}}
				out, err := f.Run(&in)
				if err == nil && out.String() != "f32[1] [10]" {
					err = errors.New(out.String())
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// CondTree's branches must return trees of one structure.
func TestCondTreeMismatch(t *testing.T) {
	f := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.CondTree(x.Gt(kiln.Int(0)),
			func(o kiln.Value) []kiln.Value { return []kiln.Value{o} },
			func(o kiln.Value) []kiln.Value { return []kiln.Value{o, o} }, x)[0]
	})
	_, err := f.Run(tensor.Scalar(float32(1)))
	var te *kiln.TreeError
	if !errors.As(err, &te) || te.Op != "cond" || !strings.Contains(err.Error(), "the branches return trees of structures [*, *] and [*]") {
		t.Errorf("got %v", err)
	}
}
