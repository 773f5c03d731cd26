package kiln_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
)

// TestReview2MixedPrecisionChains: random chains over square f16 values —
// transposes (scratch copies), products in f32 read past their widening
// converts with epilogues narrowing back to f16, elementwise steps and
// sums — where scratch buffers of one dtype and size are freed and
// reused all along. Each program's run (fused, many times: the GEMM's
// workers race with a wrong reuse) equals the reference evaluator's.
func TestReview2MixedPrecisionChains(t *testing.T) {
	const n = 64
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		steps := 3 + r.IntN(6)
		kinds := make([]int, steps)
		for i := range kinds {
			kinds[i] = r.IntN(5)
		}
		f := func(p, q kiln.Value) []kiln.Value {
			vals := []kiln.Value{p, q}
			var sums []kiln.Value
			for _, k := range kinds {
				a, b := vals[len(vals)-1], vals[len(vals)-2]
				var v kiln.Value
				switch k {
				case 0:
					v = a.Transpose(1, 0)
				case 1:
					v = a.Astype(tensor.F32).MatMul(b.Astype(tensor.F32)).Astype(tensor.F16)
				case 2:
					v = b.Transpose(1, 0).Astype(tensor.F32).MatMul(a.Astype(tensor.F32)).Mul(kiln.Float(0.5)).Astype(tensor.F16)
				case 3:
					v = a.Mul(kiln.Float(0.25)).Add(b)
				case 4:
					sums = append(sums, a.Astype(tensor.F32).Sum())
					v = a.Neg().Transpose(1, 0)
				}
				vals = append(vals, v)
			}
			return append(sums, vals[len(vals)-1].Transpose(1, 0))
		}
		p := review2Matrix(n, n, 5).Astype(tensor.F16)
		q := review2Matrix(n, n, 3).Astype(tensor.F16)
		prog, err := kiln.Jit(f).Trace(p, q)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want, err := reference.Eval(prog, []*tensor.Array{p, q}, refOptions)
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		fn := kiln.Jit(f)
		for run := range 20 {
			got, err := fn.RunAll(p, q)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for i := range want {
				if !tensor.Equal(got[i], want[i]) {
					t.Fatalf("seed %d (steps %v), run %d: result %d differs from the reference\n%s", seed, kinds, run, i, fmt.Sprint(prog))
				}
			}
		}
	}
}
