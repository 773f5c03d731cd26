//go:build !race

package kiln_test

import (
	"runtime/debug"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// A jitted loop allocates nothing per iteration: RunInto of a 10-step and
// of a 1,000-step fori_loop allocate the same (nothing, in steady use) —
// the carries live in buffers planned once and swapped.
func TestLoopDoesNotAllocatePerIteration(t *testing.T) {
	x := tensor.Must(tensor.Arange(tensor.F32, 4096))
	allocs := func(steps int) float64 {
		f := kiln.Jit(func(x kiln.Value) []kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(int64(steps)), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(c[1]), c[1].Add(kiln.Float(1))}
			}, x, x.Sum())
		})
		outs, err := f.RunAll(x)
		if err != nil {
			t.Fatal(err)
		}
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		return testing.AllocsPerRun(20, func() {
			if err := f.RunInto(outs, x); err != nil {
				t.Fatal(err)
			}
		})
	}
	a10, a1000 := allocs(10), allocs(1000)
	if a10 != a1000 {
		t.Errorf("RunInto allocates %.1f times with 10 steps, %.1f with 1000: a loop step allocates", a10, a1000)
	}
	if a1000 > 0 {
		t.Errorf("RunInto of a loop allocates %.1f times per call", a1000)
	}
}
