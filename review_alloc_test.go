//go:build !race

// The race detector makes sync.Pool drop items at random (alloc_test.go).

package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewTreeRunTreeIntoAllocs: RunTreeInto with a nested struct of
// parameters passed by pointer allocates nothing per call (the package
// doc's claim), for a struct holding a Go array of structs.
func TestReviewTreeRunTreeIntoAllocs(t *testing.T) {
	type params[T kiln.Leaf] struct {
		L [2]layer[T]
		S T
	}
	f := kiln.Jit(func(p params[kiln.Value], x kiln.Value) params[kiln.Value] {
		return kiln.TreeMap(p, func(v kiln.Value) kiln.Value { return v.Mul(x) })
	})
	in := params[*tensor.Array]{L: [2]layer[*tensor.Array]{{tv(1, 2), tv(3, 4)}, {tv(5, 6), tv(7, 8)}}, S: tv(9, 10)}
	var out params[*tensor.Array]
	x := tv(2, 3)
	if err := f.RunTree([]any{&out}, &in, x); err != nil {
		t.Fatal(err)
	}
	if got := out.L[1].B.Data().([]float32); got[0] != 14 || got[1] != 24 {
		t.Fatalf("got %v", got)
	}
	outs, args := []any{&out}, []any{&in, x}
	allocs := testing.AllocsPerRun(20, func() {
		if err := f.RunTreeInto(outs, args...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("RunTreeInto allocates %.1f times per call", allocs)
	}
}
