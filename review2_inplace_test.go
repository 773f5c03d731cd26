package kiln_test

import (
	"slices"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
)

// TestReview2InPlaceCarryReadPastConvert: a loop carry c (f16) updated in
// place by a dynamic_update_slice (the kernel writes its slice into the
// carry's own buffer, every other reader of c running in an earlier
// kernel) whose other reader is a convert to f32 feeding a product
// computed after the update. The product's GEMM reads past the convert,
// straight from c's buffer — which the update may already have written.
func TestReview2InPlaceCarryReadPastConvert(t *testing.T) {
	const n = 64
	f := func(c0, w kiln.Value) []kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, cs []kiln.Value) []kiln.Value {
			a := cs[0].Astype(tensor.F32)
			upd := kiln.Ones([]int{1, n}, tensor.F16)
			nc := kiln.DynamicUpdateSlice(cs[0], upd, []kiln.Value{i, kiln.Int(0)})
			return []kiln.Value{nc, cs[1].Add(a.MatMul(w))}
		}, c0, kiln.Zeros([]int{n, n}, tensor.F32))
	}
	c0, w := review2Matrix(n, n, 5), review2Matrix(n, n, 3)
	got, err := kiln.Jit(f).RunAll(c0.Astype(tensor.F16), w)
	if err != nil {
		t.Fatal(err)
	}
	p, err := kiln.Jit(f).Trace(c0.Astype(tensor.F16), w)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Eval(p, []*tensor.Array{c0.Astype(tensor.F16), w}, refOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref {
		if !tensor.Equal(got[i], ref[i]) {
			t.Errorf("result %d differs from the reference evaluator's", i)
		}
	}
	// In Go: the values are small integers, exact in f16 and f32 sums.
	c, wv := slices.Clone(c0.Data().([]float32)), w.Data().([]float32)
	acc := make([]float32, n*n)
	for i := range 3 {
		for r := range n {
			for col := range n {
				var s float32
				for k := range n {
					s += c[r*n+k] * wv[k*n+col]
				}
				acc[r*n+col] += s
			}
		}
		for col := range n {
			c[i*n+col] = 1
		}
	}
	if g := got[1].Data().([]float32); !slices.Equal(g, acc) {
		for i := range acc {
			if g[i] != acc[i] {
				t.Fatalf("accumulated product [%d, %d] = %v, want %v (of the carry before its update)", i/n, i%n, g[i], acc[i])
			}
		}
	}
	if g := got[0].Astype(tensor.F32).Data().([]float32); !slices.Equal(g, c) {
		t.Errorf("carry %v, want %v", g, c)
	}
}
