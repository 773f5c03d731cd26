//go:build !race

package kernels

import (
	"runtime"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestStateSurvivesGC: an executable keeps its run state (scratch
// buffers, registers) across garbage collections, so a Run after a GC
// allocates nothing, as one without.
func TestStateSurvivesGC(t *testing.T) {
	const n = 1000 // below ParallelMin: no worker goroutines
	x := compileWith(t, NewCPU(CPUOptions{}), []tensor.DType{tensor.F64}, n, func(a []trace.Value) []trace.Value {
		v := a[0]
		return []trace.Value{v.Sub(v.Mean()).Mul(v)}
	})
	if len(x.m.Plan.Buffers) == 0 {
		t.Fatal("no buffers planned")
	}
	in := specialInput(tensor.F64, 1, n)
	outs, err := x.Run([]*tensor.Array{in})
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() {
		runtime.GC()
		runtime.GC() // a sync.Pool loses its contents in two
		if err := x.RunInto(outs, []*tensor.Array{in}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("RunInto after garbage collections made %v allocations, want 0", allocs)
	}
}
