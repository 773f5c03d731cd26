package kernels

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Sub-byte integer dots with preferred_element_type i32 run on the int8 GEMM, reading the narrow
// operand's bytes as stored past its convert (storedAs), wherever the
// active tier has its VNNI kernel; the results are the wrapping int32 sums
// of the values in every mode.
func TestNarrowIntDotOnInt8GEMM(t *testing.T) {
	const m, k, n = 19, 70, 37
	vals := func(d tensor.DType, count int, seed int) *tensor.Array {
		lo, hi := -128, 127
		switch d {
		case tensor.I4:
			lo, hi = -8, 7
		case tensor.U4:
			lo, hi = 0, 15
		case tensor.I2:
			lo, hi = -2, 1
		case tensor.U2:
			lo, hi = 0, 3
		}
		x := make([]int8, count)
		for i := range x {
			x[i] = int8(lo + (i*seed+i/7)%(hi-lo+1))
		}
		a, _ := tensor.FromSlice(x, count)
		return a.Astype(d)
	}
	// Mixed operands (int4 × int8) are a promotion error, as in JAX: a
	// caller widens one side with astype first.
	pairs := [][2]tensor.DType{{tensor.I4, tensor.I4}, {tensor.U4, tensor.U4}, {tensor.I2, tensor.I2}, {tensor.U2, tensor.U2}}
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		hidden := strings.HasSuffix(mode.String(), "-novnni")
		vnni := !hidden && (mode.Tier == simd.AVX512 && cpu.X86.HasAVX512VNNI || mode.Tier == simd.AVX2 && cpu.X86.HasAVXVNNI)
		for _, p := range pairs {
			fn := func(a []trace.Value) []trace.Value {
				return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
			}
			x := compileMatrices(t, fn, [2]int{m, k}, p[0], [2]int{k, n}, p[1])
			var dot *dotKernel
			for _, kk := range x.kernels {
				if d, ok := kk.(*dotKernel); ok {
					dot = d
				}
			}
			if dot == nil || dot.int8 != vnni {
				t.Fatalf("%v %v×%v: dot kernel %+v, want one on the int8 GEMM = %v", mode, p[0], p[1], dot, vnni)
			}
			a, b := vals(p[0], m*k, 29), vals(p[1], k*n, 41)
			a, _ = a.Reshape(m, k)
			b, _ = b.Reshape(k, n)
			outs, err := x.Run([]*tensor.Array{a, b})
			if err != nil {
				t.Fatal(err)
			}
			av, bv := a.Astype(tensor.I32).Data().([]int32), b.Astype(tensor.I32).Data().([]int32)
			got := outs[0].Data().([]int32)
			for i := range m {
				for j := range n {
					var s int32
					for l := range k {
						s += av[i*k+l] * bv[l*n+j]
					}
					if got[i*n+j] != s {
						t.Fatalf("%v %v×%v: c[%d,%d] = %d, want %d", mode, p[0], p[1], i, j, got[i*n+j], s)
					}
				}
			}
		}
		restore()
	}
}

// Narrow float dots with preferred_element_type bf16 or f32 run on the
// bf16 GEMM reading the codes past their converts (fp8Operand,
// gemm.FP8Call) at every tier, and give the bits of the bf16 × bf16
// product of the operands converted to bf16 (with preferred f32: its f32
// accumulator, by definition); a pair of f8e8m0fnu keeps the converts.
func TestFP8DotOnBF16GEMM(t *testing.T) {
	const m, k, n = 19, 71, 37
	codes := func(f tensor.DType, count, seed int) *tensor.Array {
		x := make([]float32, count)
		for i := range x {
			x[i] = float32(int8(i*seed+i/5)) / 16 // −8 … 8 in steps of 1/16, rounded to the format
		}
		a, _ := tensor.FromSlice(x, count)
		return a.Astype(f)
	}
	formats := []tensor.DType{tensor.F8E4M3FN, tensor.F8E5M2, tensor.F8E4M3FNUZ, tensor.F6E2M3FN, tensor.F6E3M2FN, tensor.F4E2M1FN, tensor.F8E8M0FNU}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, d := range formats {
			for _, pref := range []tensor.DType{tensor.BF16, tensor.F32} {
				fn := func(a []trace.Value) []trace.Value {
					return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(pref))}
				}
				x := compileMatrices(t, fn, [2]int{m, k}, d, [2]int{k, n}, d)
				var dot *dotKernel
				for _, kk := range x.kernels {
					if d, ok := kk.(*dotKernel); ok {
						dot = d
					}
				}
				want8 := d != tensor.F8E8M0FNU
				if dot == nil || dot.fp8 != want8 {
					t.Fatalf("%v %v → %v: dot kernel %+v, want fp8 = %v", tier, d, pref, dot, want8)
				}
				a, b := codes(d, m*k, 29), codes(d, k*n, 41)
				a, _ = a.Reshape(m, k)
				b, _ = b.Reshape(k, n)
				outs, err := x.Run([]*tensor.Array{a, b})
				if err != nil {
					t.Fatal(err)
				}
				if !want8 {
					continue // the f32 rule: conformance's narrow cases check it against the reference
				}
				ref := compileMatrices(t, func(v []trace.Value) []trace.Value {
					if pref == tensor.F32 {
						return []trace.Value{trace.MatMul(v[0], v[1], trace.PreferredElementType(tensor.F32))}
					}
					return []trace.Value{v[0].MatMul(v[1])}
				}, [2]int{m, k}, tensor.BF16, [2]int{k, n}, tensor.BF16)
				refOuts, err := ref.Run([]*tensor.Array{a.Astype(tensor.BF16), b.Astype(tensor.BF16)})
				if err != nil {
					t.Fatal(err)
				}
				got, want := outs[0].Astype(tensor.F32).Data().([]float32), refOuts[0].Astype(tensor.F32).Data().([]float32)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%v %v → %v: c[%d] = %v, want %v", tier, d, pref, i, got[i], want[i])
					}
				}
			}
		}
		restore()
	}
}

// An fp8 dot with preferred_element_type f32 is the bf16 rule on the
// converted operands (docs/SPEC.md §3), on the bf16 GEMM at every tier:
// 2¹⁵·2⁹ + 1 + 1 − 2¹⁵·2⁹ is 1 in its pair order (the f32 rule's k in
// order gives 0). Not a conformance case: StableHLO leaves a dot's order
// to the implementation, and this one depends on it entirely.
func TestFP8DotPreferredF32PairOrder(t *testing.T) {
	a := tensor.Must(tensor.FromSlice([]float32{1 << 15, 1, 1, -(1 << 15)}, 1, 4)).Astype(tensor.F8E5M2)
	b := tensor.Must(tensor.FromSlice([]float32{1 << 9, 1, 1, 1 << 9}, 4, 1)).Astype(tensor.F8E5M2)
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		x := compileMatrices(t, func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1], trace.PreferredElementType(tensor.F32))}
		}, [2]int{1, 4}, tensor.F8E5M2, [2]int{4, 1}, tensor.F8E5M2)
		outs, err := x.Run([]*tensor.Array{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if got := outs[0].Data().([]float32)[0]; got != 1 {
			t.Errorf("%v: f8e5m2 dot, preferred f32 = %v, want 1 (pair order)", tier, got)
		}
		restore()
	}
}

// Quantized inference's int8 activations times int4 weights (widened by
// astype(i8), as JAX requires) with preferred_element_type i32 run on the
// int8 GEMM reading the int4 bytes as stored, wherever the tier has VNNI,
// and give the exact int32 sums.
func TestInt4WeightsInt8DotOnInt8GEMM(t *testing.T) {
	const m, k, n = 9, 64, 11
	a8, w8 := make([]int8, m*k), make([]int8, k*n)
	for i := range a8 {
		a8[i] = int8(i*37 + i/3)
	}
	for i := range w8 {
		w8[i] = int8((i*5+i/9)%16 - 8)
	}
	a := tensor.Must(tensor.FromSlice(a8, m, k))
	w := tensor.Must(tensor.FromSlice(w8, k, n)).Astype(tensor.I4)
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		hidden := strings.HasSuffix(mode.String(), "-novnni")
		vnni := !hidden && (mode.Tier == simd.AVX512 && cpu.X86.HasAVX512VNNI || mode.Tier == simd.AVX2 && cpu.X86.HasAVXVNNI)
		x := compileMatrices(t, func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8), trace.PreferredElementType(tensor.I32))}
		}, [2]int{m, k}, tensor.I8, [2]int{k, n}, tensor.I4)
		var dot *dotKernel
		for _, kk := range x.kernels {
			if d, ok := kk.(*dotKernel); ok {
				dot = d
			}
		}
		if dot == nil || dot.int8 != vnni {
			t.Fatalf("%v: dot kernel %+v, want one on the int8 GEMM = %v", mode, dot, vnni)
		}
		outs, err := x.Run([]*tensor.Array{a, w})
		if err != nil {
			t.Fatal(err)
		}
		got := outs[0].Data().([]int32)
		for i := range m {
			for j := range n {
				var s int32
				for l := range k {
					s += int32(a8[i*k+l]) * int32(w8[l*n+j])
				}
				if got[i*n+j] != s {
					t.Fatalf("%v: c[%d,%d] = %d, want %d", mode, i, j, got[i*n+j], s)
				}
			}
		}
		restore()
	}
}
