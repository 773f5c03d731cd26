//go:build !race

package kiln_test

import (
	"runtime/debug"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewPackedRunIntoDoesNotAllocate: with packed inputs, a steady
// RunInto loop allocates nothing per call: the unpack scratch is kept
// (elementwise) and the GEMM reads the packed weight (int8 product).
func TestReviewPackedRunIntoDoesNotAllocate(t *testing.T) {
	w, _ := packedArg(t, tensor.I4, 64, 96, 5)
	x := reviewPackedI8(8, 64, 3)
	for name, fn := range map[string]any{
		"elementwise": func(x, w kiln.Value) kiln.Value { return w.Astype(tensor.F32).Mul(kiln.Float(0.5)).Sum(0) },
		"gemm": func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))
		},
	} {
		f := kiln.Jit(fn)
		out, err := f.Run(x, w)
		if err != nil {
			t.Fatal(err)
		}
		outs := []*tensor.Array{out}
		func() {
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			allocs := testing.AllocsPerRun(20, func() {
				if err := f.RunInto(outs, x, w); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 0 {
				t.Errorf("%s: RunInto with a packed input allocates %.1f times per call", name, allocs)
			}
		}()
	}
}
