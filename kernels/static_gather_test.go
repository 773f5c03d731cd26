package kernels_test

import (
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A take with constant in-bounds indices (folded: -1 counts from the end)
// is data movement: a concatenate of slices, one per run of indices,
// fused into its reader — one mapped loop, no gather; out-of-bounds
// indices (a clamp decides the element) keep the gather. The conformance
// suite's movement/static-gather cases check the bits.
func TestStaticGatherFuses(t *testing.T) {
	plan := func(idx []int32, opts ...trace.IndexOption) *lower.Module {
		t.Helper()
		x := trace.Abstract{Type: promote.Strong(tensor.F32), Shape: []int{4, 6}}
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{x, x}, func(a []trace.Value) []trace.Value {
			i := trace.Const(tensor.Must(tensor.FromSlice(idx)))
			return []trace.Value{trace.Take(a[0], i, 1, opts...).Mul(a[1])}
		})
		if err != nil {
			t.Fatal(err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	gathers := func(m *lower.Module) (n int) {
		for _, in := range m.Instrs {
			if in.Op == trace.OpGather {
				n++
			}
		}
		return n
	}
	if m := plan([]int32{5, 0, 2, 2, 4, -1}); gathers(m) != 0 || len(m.Fusions) != 1 || !m.Fusions[0].Mapped() {
		t.Errorf("want one mapped loop and no gather:\n%s", m.FusedString())
	}
	if m := plan([]int32{5, 0, 9, 2, 4, 1}, trace.WithMode(trace.ModeClip)); gathers(m) != 1 {
		t.Errorf("an out-of-bounds take lost its gather:\n%s", m.FusedString())
	}
}
