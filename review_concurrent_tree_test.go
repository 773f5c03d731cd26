package kiln_test

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewVmapTreeConcurrentTraces: one Jit(VmapTree(GradTree(loss)))
// run from 8 goroutines with 4 batch sizes — traces of several signatures
// at once — gives each goroutine the answer of a lone run (run with
// -race).
func TestReviewVmapTreeConcurrentTraces(t *testing.T) {
	loss := func(p layer[kiln.Value], xy ...kiln.Value) kiln.Value {
		return xy[0].MatMul(p.W).Add(p.B).Sub(xy[1]).Square().Sum()
	}
	f := kiln.Jit(kiln.VmapTree(kiln.GradTree(loss), kiln.InAxes(kiln.NoAxis, 0, 0)))
	r := rand.New(rand.NewSource(9))
	p := layer[*tensor.Array]{W: randF32(r, 1, 3, 2), B: randF32(r, 1, 2)}
	xs, ys := make([]*tensor.Array, 4), make([]*tensor.Array, 4)
	want := make([]layer[*tensor.Array], 4)
	for n := range 4 {
		xs[n], ys[n] = randF32(r, 1, n+1, 1, 3), randF32(r, 1, n+1, 1, 2)
		if err := kiln.Jit(kiln.VmapTree(kiln.GradTree(loss), kiln.InAxes(kiln.NoAxis, 0, 0))).RunTree([]any{&want[n]}, p, xs[n], ys[n]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	got := make([]layer[*tensor.Array], 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if errs[g] = f.RunTree([]any{&got[g]}, p, xs[g%4], ys[g%4]); errs[g] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range 8 {
		if errs[g] != nil {
			t.Fatal(errs[g])
		}
		equalArrays(t, "W", got[g].W, want[g%4].W)
		equalArrays(t, "B", got[g].B, want[g%4].B)
	}
}
