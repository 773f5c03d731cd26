package reference

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Every narrow float but f8e8m0fnu is exactly a normal bf16 in every
// value, fp6 and fp4 included; no other dtype is a narrow float.
func TestExactInBF16(t *testing.T) {
	for _, d := range tensor.NarrowDTypes() {
		_, isFloat := d.FloatFormat()
		want := isFloat && d != tensor.F8E8M0FNU
		if got := exactInBF16(d); got != want {
			t.Errorf("exactInBF16(%v) = %v, want %v", d, got, want)
		}
	}
	for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32, tensor.I8} {
		if exactInBF16(d) {
			t.Errorf("exactInBF16(%v) = true for a standard dtype", d)
		}
	}
}

// An fp8 dot with preferred_element_type f32 is the bf16 dot rule on the
// operands converted to bf16 (pairs, the odd product first), not the f32
// rule (k in order): 2¹⁵·2⁹ + 1 + 1 − 2¹⁵·2⁹ is 1 in pair order
// (2²⁴+1 → 2²⁴, −2²⁴ → 0, +1) and 0 in order (2²⁴+1+1 → 2²⁴).
func TestNarrowDotPreferredF32IsBF16Rule(t *testing.T) {
	mk := func(d tensor.DType, shape []int, v ...float32) *tensor.Array {
		a, err := tensor.FromSlice(v, shape...)
		if err != nil {
			t.Fatal(err)
		}
		return a.Astype(d)
	}
	pref := func(a []trace.Value) trace.Value {
		return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32))
	}
	a := mk(tensor.F8E5M2, shp(1, 4), 1<<15, 1, 1, -(1 << 15))
	b := mk(tensor.F8E5M2, shp(4, 1), 1<<9, 1, 1, 1<<9)
	got := eval1(t, promote.Config{}, []*tensor.Array{a, b}, pref).Data().([]float32)
	if got[0] != 1 {
		t.Errorf("f8e5m2 dot, preferred f32: %v, want 1 (the bf16 rule's pair order)", got[0])
	}
	// The definition on many values of every format exact in bf16: the
	// bf16 × bf16 → f32 dot of the converted operands, bit for bit.
	for _, d := range tensor.NarrowDTypes() {
		if !exactInBF16(d) {
			continue
		}
		const m, k, n = 3, 37, 4
		av, bv := make([]float32, m*k), make([]float32, k*n)
		for i := range av {
			av[i] = float32(int8(i*29+i/3)) / 8
		}
		for i := range bv {
			bv[i] = float32(int8(i*53+i/7)) / 16
		}
		a, b := mk(d, shp(m, k), av...), mk(d, shp(k, n), bv...)
		got := eval1(t, promote.Config{}, []*tensor.Array{a, b}, pref).Data().([]float32)
		want := eval1(t, promote.Config{}, []*tensor.Array{a.Astype(tensor.BF16), b.Astype(tensor.BF16)}, pref).Data().([]float32)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: c[%d] = %v, want %v (bf16 dot of the converted operands)", d, i, got[i], want[i])
			}
		}
	}
}
