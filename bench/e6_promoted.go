package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Issue 12's promoted-dtype and convolution rows, each judged against
// Kiln's own f32 GEMM (E6a's workload, its w.pair), whose Kiln fused time
// is measured in the same rounds as the row's in-process peers (one run of
// each in turn), so that load from other work falls on both alike:
//   - E6i: bf16 × bf16 with preferred_element_type f32 (f32 accumulation
//     and an f32 result), the time at most 0.6 × E6a's; E6l the same with
//     JAX's default bf16 result (accumulated in f32, rounded once);
//   - E6j: int8 × int8 with preferred_element_type i32 (i32 accumulation),
//     the time at most 0.35 × E6a's;
//   - E6k: conv 3×3, 64 → 64 channels, 56×56, batch 8, f32, NHWC input,
//     HWIO kernel, NHWC output, SAME padding, stride 1: its GFLOP/s (2 flops
//     per multiply-add: 2 · output elements · 3·3·64) at least 0.8 × E6a's.

// convSizes are E6k's convolution: batch, spatial size (square, SAME
// padding keeps it), input and output channels, window size (square).
type convSizes struct{ n, h, cin, cout, k int }

// flops counts 2 flops per multiply-add of the direct convolution.
func (c convSizes) flops() float64 {
	return 2 * float64(c.n*c.h*c.h*c.cout) * float64(c.k*c.k*c.cin)
}

// withF32Pair makes E6a's f32 GEMM (order m) w's pair. It makes as many
// calls per timed run as w does, since one divisor turns both rows' run
// times into times per call.
func withF32Pair(w *workload, m int) *workload {
	w.pair = newE6[float32]("E6a", m)
	w.pair.calls = w.calls
	return w
}

// bf16Matmul is E6i: a @ b of bf16 operands accumulated and returned in f32.
func bf16Matmul(a, b kiln.Value) kiln.Value {
	return kiln.MatMul(a, b, kiln.PreferredElementType(tensor.F32))
}

// bf16MatmulBF16 is E6l: a @ b of bf16 operands with JAX's default
// result, bf16 (accumulated in f32, rounded once).
func bf16MatmulBF16(a, b kiln.Value) kiln.Value { return a.MatMul(b) }

// i8Matmul is E6j: a @ b of int8 operands accumulated and returned in i32.
func i8Matmul(a, b kiln.Value) kiln.Value {
	return kiln.MatMul(a, b, kiln.PreferredElementType(tensor.I32))
}

// newE6BF16 is E6i (f32 result) or, with bf16Result, E6l at order m.
// Its go-loop peer widens the operands exactly to f32 and runs the naive
// f32 loop (rounding its sums to bf16 for E6l): bf16 products are exact in
// f32, so it differs from Kiln only in the order of the sums (and, for
// E6l, by a bf16 rounding of that difference).
func newE6BF16(id string, m int, bf16Result bool) *workload {
	a, b := uniform32(11, m*m, -1, 1), uniform32(12, m*m, -1, 1)
	ah, bh := make([]tensor.BFloat16, m*m), make([]tensor.BFloat16, m*m)
	for i := range a {
		ah[i], bh[i] = tensor.BFloat16FromFloat32(a[i]), tensor.BFloat16FromFloat32(b[i])
		a[i], b[i] = ah[i].Float32(), bh[i].Float32()
	}
	w := &workload{id: id, title: fmt.Sprintf("matmul bf16 %d×%d, preferred_element_type f32 (f32 result)", m, m), size: m,
		dtype: tensor.BF16, flops: 2 * float64(m) * float64(m) * float64(m), tol: e6Tol[float32](), calls: e6Calls(m),
		fn: bf16Matmul, args: []any{mustArray(ah, m, m), mustArray(bh, m, m)}}
	if !bf16Result {
		w.add(goLoop, func() (impl, error) {
			c := make([]float32, m*m)
			return ready(func() error { e6Loop(c, a, b, m); return nil }, c)
		})
		return w
	}
	// A bf16 result keeps 8 significant bits: the two sums' difference
	// can flip a rounding, one bf16 ulp (2^-8 relative).
	w.title, w.fn, w.tol = fmt.Sprintf("matmul bf16 %d×%d, bf16 result (`a @ b`, f32 accumulation)", m, m), bf16MatmulBF16, 1.0/128
	w.add(goLoop, func() (impl, error) {
		c, ch := make([]float32, m*m), make([]tensor.BFloat16, m*m)
		return ready(func() error {
			e6Loop(c, a, b, m)
			for i, v := range c {
				ch[i] = tensor.BFloat16FromFloat32(v)
			}
			return nil
		}, ch)
	})
	return w
}

// newE6I8 is E6j at order m, over the full int8 range (the sums wrap
// nowhere: |Σ| ≤ m · 2^14). Its go-loop peer is the naive int32 loop.
func newE6I8(id string, m int) *workload {
	r := rng(13)
	a, b := make([]int8, m*m), make([]int8, m*m)
	for i := range a {
		a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
	}
	w := &workload{id: id, title: fmt.Sprintf("matmul i8 %d×%d, preferred_element_type i32 (i32 result)", m, m), size: m, ext: "E6i8",
		dtype: tensor.I8, flops: 2 * float64(m) * float64(m) * float64(m), calls: e6Calls(m),
		fn: i8Matmul, args: []any{mustArray(a, m, m), mustArray(b, m, m)}, files: map[string][]byte{"a.bin": bytesOf(a), "b.bin": bytesOf(b)}}
	w.add(goLoop, func() (impl, error) {
		c := make([]int32, m*m)
		return ready(func() error { e6Loop(c, a, b, m); return nil }, c)
	})
	return w
}

// newE6C64 is E6m, a c64 square matmul of order m, parts uniform in
// [−1, 1). Its flops are 8 per complex multiply-add (4 multiplies, 4
// adds). Kiln's contract is NumPy's complex multiply with every product
// and sum rounded (no FMA), in k order; NumPy's matmul of complex64 runs
// the BLAS's cgemm: OpenBLAS's fuses multiplies into adds and sums in its
// own blocked order, so it agrees within the matmuls' tolerance, not bit
// for bit (the reference BLAS's loop, unfused and in k order, gives
// Kiln's bits).
func newE6C64(id string, m int) *workload {
	re, im := uniform32(16, 2*m*m, -1, 1), uniform32(17, 2*m*m, -1, 1)
	a, b := make([]complex64, m*m), make([]complex64, m*m)
	for i := range a {
		a[i], b[i] = complex(re[i], im[i]), complex(re[m*m+i], im[m*m+i])
	}
	calls := 0 // e6Calls' batches of about 2^27 flops
	if c := (1 << 27) / (8 * m * m * m); c >= 2 {
		calls = min(c, 256)
	}
	return &workload{id: id, title: fmt.Sprintf("matmul c64 %d×%d (8 flops per complex multiply-add; NumPy's is the BLAS's cgemm, which rounds differently where it fuses with FMA, as OpenBLAS's does)", m, m),
		size: m, ext: "E6c64", dtype: tensor.C64, flops: 8 * float64(m) * float64(m) * float64(m), tol: e6Tol[float32](), calls: calls,
		fn: e6Kiln, args: []any{mustArray(a, m, m), mustArray(b, m, m)}, files: map[string][]byte{"a.bin": bytesOf(a), "b.bin": bytesOf(b)}}
}

// convNHWC is E6k: a SAME, stride-1 convolution of an NHWC input with an
// HWIO kernel into an NHWC output.
func convNHWC(x, k kiln.Value) kiln.Value {
	return kiln.ConvGeneralDilated(x, k, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}})
}

// newConvRow is E6k. Its peer is the naive C loop (peer.c's conv); the
// conformance and NumPy tests hold Kiln's convolution to the reference.
// The C loop sums in the same order but rounds products and sums
// separately (-ffp-contract=off) and skips the padding, so it agrees
// within the matmuls' tolerance, not bit for bit.
func newConvRow(id string, c convSizes) *workload {
	x := uniform32(14, c.n*c.h*c.h*c.cin, -1, 1)
	k := uniform32(15, c.k*c.k*c.cin*c.cout, -1, 1)
	dims := []int32{int32(c.n), int32(c.h), int32(c.cin), int32(c.cout), int32(c.k)}
	return &workload{id: id, size: c.h, ext: "E6conv", dtype: tensor.F32, flops: c.flops(), tol: e6Tol[float32](),
		title: fmt.Sprintf("conv %d×%d, %d→%d channels, %d×%d, batch %d, f32 NHWC × HWIO → NHWC, SAME", c.k, c.k, c.cin, c.cout, c.h, c.h, c.n),
		fn:    convNHWC, args: []any{mustArray(x, c.n, c.h, c.h, c.cin), mustArray(k, c.k, c.k, c.cin, c.cout)},
		files: map[string][]byte{"x.bin": bytesOf(x), "w.bin": bytesOf(k), "dims.bin": bytesOf(dims)}}
}

// convNHWCGrad is E6kb: the backward pass of E6k's convolution — its
// input and kernel cotangents for the output cotangent g (jax.vjp of
// convNHWC at (x, k), pulled back through g). The forward convolution is
// not computed: the op is bilinear, so its transposes read x, k and g only
// and the unused primal output is dead code.
func convNHWCGrad(x, k, g kiln.Value) (kiln.Value, kiln.Value) {
	_, pull := kiln.VJP(convNHWC, x, k)
	cts := pull(g)
	return cts[0], cts[1]
}

// newConvGradRow is E6kb, E6k's backward pass. Its result is the two
// cotangents, the input's (NHWC) then the kernel's (HWIO), each checked
// against the peers on its own (parts) relative to its largest element.
// It counts the flops of two convolutions of E6k's size (the input
// cotangent is a 3×3 convolution of g with the flipped kernel, the
// kernel's a 56×56 one of x with g: the same multiply-adds each).
func newConvGradRow(id string, c convSizes) *workload {
	x := uniform32(14, c.n*c.h*c.h*c.cin, -1, 1)
	k := uniform32(15, c.k*c.k*c.cin*c.cout, -1, 1)
	g := uniform32(16, c.n*c.h*c.h*c.cout, -1, 1)
	dims := []int32{int32(c.n), int32(c.h), int32(c.cin), int32(c.cout), int32(c.k)}
	return &workload{id: id, size: c.h, ext: "E6convgrad", dtype: tensor.F32, flops: 2 * c.flops(), tol: e6Tol[float32](),
		parts: []int{len(x), len(k)},
		title: fmt.Sprintf("conv backward (input and kernel cotangents, `jax.vjp`) of E6k's conv %d×%d, %d→%d channels, %d×%d, batch %d, f32 NHWC × HWIO", c.k, c.k, c.cin, c.cout, c.h, c.h, c.n),
		fn:    convNHWCGrad, args: []any{mustArray(x, c.n, c.h, c.h, c.cin), mustArray(k, c.k, c.k, c.cin, c.cout), mustArray(g, c.n, c.h, c.h, c.cout)},
		files: map[string][]byte{"x.bin": bytesOf(x), "w.bin": bytesOf(k), "g.bin": bytesOf(g), "dims.bin": bytesOf(dims)}}
}
