package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Issue 27's narrow-dtype matmul rows, each judged against the GEMM whose
// rate it must reach (its w.pair, timed in the same rounds and then in
// alternating rounds of the two alone):
//   - E6n: f8e4m3fn × f8e4m3fn with preferred_element_type f32, defined
//     (docs/SPEC.md §3) as the bf16 × bf16 → f32 dot of the operands
//     converted to bf16, against E6i (that bf16 dot): time ≤ 1.0 × E6i's;
//   - E6o: int8 × int4 (the int4 weights widened with astype(int8), as JAX
//     requires) with preferred_element_type i32, against E6j (int8 ×
//     int8 → i32): time ≤ 1.0 × E6j's.

// fp8Matmul is E6n: a @ b of f8e4m3fn operands with an f32 result.
func fp8Matmul(a, b kiln.Value) kiln.Value {
	return kiln.MatMul(a, b, kiln.PreferredElementType(tensor.F32))
}

// i4i8Matmul is E6o: int8 activations a times int4 weights w (widened to
// int8 explicitly: JAX promotes no int4 implicitly) with an i32 result.
func i4i8Matmul(a, w kiln.Value) kiln.Value {
	return kiln.MatMul(a, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))
}

// newE6FP8 is E6n at order m: E6i's uniform [−1, 1) operands rounded to
// f8e4m3fn. Its go-loop peer is the bf16 dot rule in Go (bf16DotLoop) on
// the operands' values, so the check is bit-exact.
func newE6FP8(id string, m int) *workload {
	a, b := uniform32(11, m*m, -1, 1), uniform32(12, m*m, -1, 1)
	a8 := tensor.Must(tensor.FromSlice(a, m, m)).Astype(tensor.F8E4M3FN)
	b8 := tensor.Must(tensor.FromSlice(b, m, m)).Astype(tensor.F8E4M3FN)
	av, bv := a8.Astype(tensor.F32).Data().([]float32), b8.Astype(tensor.F32).Data().([]float32)
	w := &workload{id: id, title: fmt.Sprintf("matmul f8e4m3fn %d×%d, preferred_element_type f32 (f32 result: the bf16 dot rule on the converted operands)", m, m),
		size: m, dtype: tensor.F8E4M3FN, flops: 2 * float64(m) * float64(m) * float64(m), calls: e6Calls(m),
		fn: fp8Matmul, args: []any{a8, b8}}
	w.add(goLoop, func() (impl, error) {
		c := make([]float32, m*m)
		return ready(func() error { bf16DotLoop(c, av, bv, m); return nil }, c)
	})
	return w
}

// bf16DotLoop is c = a·b (m×m, row-major) by the bf16 dot rule
// (docs/SPEC.md §3) for operands whose values are exact normal bf16s with
// products exact in f32, as fp8's are: each element sums k in pairs from
// +0, the odd product first (an odd m pads one zero product), one f32
// rounding per step. Its DAZ and FTZ never act on such operands (every
// product of two nonzero f8e4m3fn values is at least 2⁻¹⁸ and every
// partial sum a multiple of the smallest), so none is applied here.
func bf16DotLoop(c, a, b []float32, m int) {
	parallel(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ci, ai := c[i*m:(i+1)*m], a[i*m:(i+1)*m]
			clear(ci)
			step := func(k int) {
				av := ai[k]
				for j, bkj := range b[k*m : (k+1)*m] {
					ci[j] += float32(av * bkj) // the product is exact: one rounding, as fma's
				}
			}
			for k := 0; k+1 < m; k += 2 {
				step(k + 1)
				step(k)
			}
			if m%2 == 1 {
				for j := range ci {
					ci[j] += 0 // the padding's zero product (turns −0 into +0, as the rule does)
				}
				step(m - 1)
			}
		}
	})
}

// newE6I4 is E6o at order m: E6j's int8 activations times int4 weights
// over the full int4 range [−8, 7]. Its go-loop peer is the naive int32
// loop on the values (exact: no sum wraps).
func newE6I4(id string, m int) *workload {
	r := rng(13)
	a, wv := make([]int8, m*m), make([]int8, m*m)
	for i := range a {
		a[i], wv[i] = int8(r.IntN(256)-128), int8(r.IntN(16)-8)
	}
	w4 := tensor.Must(tensor.FromSlice(wv, m, m)).Astype(tensor.I4)
	w := &workload{id: id, title: fmt.Sprintf("matmul i8 × i4 %d×%d (the i4 weights widened by astype(i8)), preferred_element_type i32 (i32 result)", m, m),
		size: m, dtype: tensor.I4, flops: 2 * float64(m) * float64(m) * float64(m), calls: e6Calls(m),
		fn: i4i8Matmul, args: []any{mustArray(a, m, m), w4}}
	w.add(goLoop, func() (impl, error) {
		c := make([]int32, m*m)
		return ready(func() error { e6Loop(c, a, wv, m); return nil }, c)
	})
	return w
}

// withPair makes workload pair (E6n's E6i, E6o's E6j) w's pair, making as
// many calls per timed run as w does.
func withPair(w, pair *workload) *workload {
	w.pair = pair
	w.pair.calls = w.calls
	return w
}
