package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Steady runs of dots large enough for gemm's MC-row blocks (and the
// Finisher's nc limit, with a fused epilogue) allocate nothing.
func TestReviewMCDotAllocs(t *testing.T) {
	const m, k, n = 300, 600, 700
	fns := map[string]func(a []trace.Value) []trace.Value{
		"a@b":      func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1])} },
		"a@b+relu": func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1]).Maximum(trace.Float(0))} },
	}
	for _, tier := range simd.Available() {
		if tier == simd.Generic {
			continue
		}
		restore := simd.SetLevel(tier)
		for name, fn := range fns {
			for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.F64} {
				x := compileMatrices(t, fn, [2]int{m, k}, dt, [2]int{k, n}, dt)
				dk := dotKernelOf(t, name, x)
				inputs := []*tensor.Array{halfInput(1, m, k).Astype(dt), halfInput(2, k, n).Astype(dt)}
				outs, err := x.Run(inputs)
				if err != nil {
					t.Fatal(err)
				}
				if a := testing.AllocsPerRun(3, func() {
					if err := x.RunInto(outs, inputs); err != nil {
						t.Fatal(err)
					}
				}); a != 0 && !raceOn {
					t.Errorf("%v %s %v (epi %v): %v allocations per steady run", tier, name, dt, dk.epi != nil, a)
				}
			}
		}
		restore()
	}
}
