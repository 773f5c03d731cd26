package kiln_test

import (
	"errors"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

type reviewEmpty[T kiln.Leaf] struct {
	Xs []T
}

// TestReviewVmapTreeEdges: a map of leaves batched on axis 1, a tree
// argument with no leaves beside a batched one (JAX: an empty pytree
// needs no axis), a result tree with no leaves, and a leafless argument
// alone (no batch size: a *VmapError without AxisSize, n examples with).
func TestReviewVmapTreeEdges(t *testing.T) {
	f := func(m map[string]kiln.Value, e reviewEmpty[kiln.Value], x kiln.Value) (map[string]kiln.Value, reviewEmpty[kiln.Value]) {
		return map[string]kiln.Value{"s": m["a"].Add(m["b"]).Mul(x), "t": x}, e
	}
	a := rf32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	b := rf32([]int{2, 3}, 10, 20, 30, 40, 50, 60)
	x := rf32([]int{3}, 1, 2, 3)
	g := kiln.Jit(kiln.VmapTree(f, kiln.InAxes(1, 0, 0)))
	var outM map[string]*tensor.Array
	var outE reviewEmpty[*tensor.Array]
	err := g.RunTree([]any{&outM, &outE}, map[string]*tensor.Array{"a": a, "b": b}, reviewEmpty[*tensor.Array]{}, x)
	if err != nil {
		t.Fatal(err)
	}
	// s[i, j] = (a[j, i] + b[j, i]) · x[i]
	s := outM["s"].Data().([]float32)
	want := []float32{11, 44, 44, 110, 99, 198}
	if len(s) != 6 || outM["s"].Dim(0) != 3 {
		t.Fatalf("s: %v", outM["s"])
	}
	for i := range want {
		if s[i] != want[i] {
			t.Errorf("s: %v, want %v", s, want)
			break
		}
	}
	if len(outE.Xs) != 0 {
		t.Errorf("leafless result: %+v", outE)
	}
	// Only a leafless argument: no batch size.
	h := func(e reviewEmpty[kiln.Value]) kiln.Value { return kiln.Const(tensor.Scalar(float32(1))) }
	_, err = kiln.Jit(kiln.VmapTree(h)).Run(reviewEmpty[*tensor.Array]{})
	var ve *kiln.VmapError
	if !errors.As(err, &ve) {
		t.Errorf("no leaf to batch, no AxisSize: err = %v, want a *VmapError", err)
	}
	out, err := kiln.Jit(kiln.VmapTree(h, kiln.AxisSize(4))).Run(reviewEmpty[*tensor.Array]{})
	if err != nil || out.Dim(0) != 4 {
		t.Errorf("AxisSize 4: %v %v", out, err)
	}
}
