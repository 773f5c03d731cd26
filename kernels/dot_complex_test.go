package kernels_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// complexDotCases are c64 and c128 dot_generals for TestComplexDot: sizes
// around the complex GEMM's tiles and blocks (1, primes, k past KC, n
// past NC), operands stored transposed, batch dims first and in the
// middle, contracting dims that do not merge (gathered first), k = 0, a
// product with elementwise consumers (its fused epilogue), and
// short sums of ±0, ±1, ±Inf and NaN parts, whose signed zeros and NaNs
// the non-FMA order decides.
func complexDotCases() []conformance.Case {
	var cs []conformance.Case
	for _, d := range []tensor.DType{tensor.C64, tensor.C128} {
		seed := uint64(100)
		in := func(shape ...int) *tensor.Array { seed++; return conformance.Input(d, seed, shape...) }
		dot := func(dims trace.DotDims) func([]trace.Value) []trace.Value {
			return func(a []trace.Value) []trace.Value { return []trace.Value{trace.DotGeneral(a[0], a[1], dims)} }
		}
		mm := trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}
		for _, s := range [][3]int{{1, 1, 1}, {1, 7, 3}, {13, 1, 5}, {4, 32, 1}, {37, 53, 41}, {5, 97, 600}, {9, 400, 20}, {3, 170, 200}, {6, 5, 0}} {
			m, n, k := s[0], s[1], s[2]
			name := fmt.Sprintf("%s/%dx%dx%d", d, m, n, k)
			cs = append(cs,
				conformance.Case{Name: name, Inputs: []*tensor.Array{in(m, k), in(k, n)}, Fn: dot(mm)},
				conformance.Case{Name: name + "/aT", Inputs: []*tensor.Array{in(k, m), in(k, n)},
					Fn: dot(trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})},
				conformance.Case{Name: name + "/bT", Inputs: []*tensor.Array{in(m, k), in(n, k)},
					Fn: dot(trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}})},
				conformance.Case{Name: name + "/aTbT", Inputs: []*tensor.Array{in(k, m), in(n, k)},
					Fn: dot(trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}})})
		}
		cs = append(cs,
			conformance.Case{Name: d.String() + "/batched", Inputs: []*tensor.Array{in(3, 11, 29), in(3, 29, 41)},
				Fn: dot(trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}})},
			conformance.Case{Name: d.String() + "/batch-in-middle", Inputs: []*tensor.Array{in(23, 2, 7), in(2, 23, 37)},
				Fn: dot(trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{0}, LhsContract: []int{0}, RhsContract: []int{1}})},
			conformance.Case{Name: d.String() + "/unmerged-contraction", Inputs: []*tensor.Array{in(3, 10, 4), in(4, 3, 33)},
				Fn: dot(trace.DotDims{LhsContract: []int{0, 2}, RhsContract: []int{1, 0}})},
			conformance.Case{Name: d.String() + "/epilogue", Inputs: []*tensor.Array{in(19, 40), in(40, 45), in(45)},
				Fn: func(a []trace.Value) []trace.Value {
					return []trace.Value{a[0].MatMul(a[1]).Add(a[2]).Mul(a[0].Sum().Reshape(1, 1))}
				}},
			conformance.Case{Name: d.String() + "/matmul-batch-broadcast", Inputs: []*tensor.Array{in(2, 1, 9, 17), in(3, 17, 35)},
				Fn: func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1])} }})
		for _, k := range []int{1, 2, 3} {
			cs = append(cs, conformance.Case{Name: fmt.Sprintf("%s/specials/k%d", d, k),
				Inputs: []*tensor.Array{specialComplex(d, seed+uint64(k), 2, 11, k), specialComplex(d, seed+10+uint64(k), 2, k, 37)},
				Fn:     dot(trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}})})
		}
	}
	return cs
}

// specialComplex is an array of d whose parts are ±0, ±1, 0.5, ±Inf and
// NaN.
func specialComplex(d tensor.DType, seed uint64, shape ...int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, 7))
	parts := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN()}
	vals := make([]complex128, trace.ShapeSize(shape))
	for i := range vals {
		vals[i] = complex(parts[r.IntN(len(parts))], parts[r.IntN(len(parts))])
	}
	a, _ := tensor.FromSlice(vals, shape...)
	return a.Astype(d)
}

// TestComplexDot: c64 and c128 dot_general on the complex GEMM at every
// SIMD tier and on 1, 2 and 3 workers (every product split, however
// small), bit-identical to the reference evaluator's in-order sum of
// NumPy's complex products (NaNs equal whatever their payload).
func TestComplexDot(t *testing.T) {
	cases := complexDotCases()
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, workers := range []int{1, 2, 3} {
			b := kernels.NewCPU(kernels.CPUOptions{Workers: workers, ParallelMin: 1})
			for _, c := range cases {
				runComplexCase(t, fmt.Sprintf("%v/w%d/%s", tier, workers, c.Name), b, c)
			}
		}
		restore()
	}
}

func runComplexCase(t *testing.T, name string, b kernels.Backend, c conformance.Case) {
	t.Helper()
	p, want, err := conformance.Reference(c)
	if err != nil {
		t.Fatalf("%s: reference: %v", name, err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	exe, err := b.Compile(m)
	if err != nil {
		t.Fatalf("%s: compile: %v", name, err)
	}
	got, err := exe.Run(c.Inputs)
	if err != nil {
		t.Fatalf("%s: run: %v", name, err)
	}
	if msg := conformance.Compare(got[0], want[0], 0); msg != "" {
		t.Errorf("%s: %s", name, msg)
	}
}
