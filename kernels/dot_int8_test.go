package kernels

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestInt8DotDropsConverts: a preferred_element_type i32 product of int8
// operands lowers to converts feeding an i32 dot; where the int8 GEMM
// runs it reads the int8 sources, so the converts' kernels are dropped —
// unless something else reads a converted value (here: it is also an
// output), whose kernel then stays. Either way the results are the plain
// wrapping int32 sums and the widened values. The GEMM must run at the
// AVX512 tier of a CPU with AVX512_VNNI and the AVX2 tier of one with
// AVX-VNNI, and not with those hidden (simd.Modes) nor at the generic
// tier; the CPU's features are read here, not from package simd.
func TestInt8DotDropsConverts(t *testing.T) {
	const m, k, n = 13, 70, 35
	for _, tier := range simd.Modes() {
		restore := tier.Set()
		hidden := strings.HasSuffix(tier.String(), "-novnni")
		vnni := !hidden && (tier.Tier == simd.AVX512 && cpu.X86.HasAVX512VNNI || tier.Tier == simd.AVX2 && cpu.X86.HasAVXVNNI)
		int8Path(t, tier, vnni)
		for _, alsoOut := range []bool{false, true} {
			fn := func(a []trace.Value) []trace.Value {
				outs := []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
				if alsoOut {
					outs = append(outs, a[0].Astype(tensor.I32))
				}
				return outs
			}
			x := compileMatrices(t, fn, [2]int{m, k}, tensor.I8, [2]int{k, n}, tensor.I8)
			want := len(x.m.Fusions)
			if vnni {
				want -= 2 // the two converts
				if alsoOut {
					want++ // a[0]'s convert is an output too
				}
			}
			if len(x.kernels) != want {
				t.Errorf("%v output=%v: %d kernels for %d fusions, want %d", tier, alsoOut, len(x.kernels), len(x.m.Fusions), want)
			}
			a8, b8 := make([]int8, m*k), make([]int8, k*n)
			for i := range a8 {
				a8[i] = int8(i*37 + 11)
			}
			for i := range b8 {
				b8[i] = int8(i*53 - 7)
			}
			a, _ := tensor.FromSlice(a8, m, k)
			b, _ := tensor.FromSlice(b8, k, n)
			outs, err := x.Run([]*tensor.Array{a, b})
			if err != nil {
				t.Fatal(err)
			}
			c := make([]int32, m*n)
			for i := range m {
				for j := range n {
					for l := range k {
						c[i*n+j] += int32(a8[i*k+l]) * int32(b8[l*n+j])
					}
				}
			}
			if got, _ := tensor.Data[int32](outs[0]); !slices.Equal(got, c) {
				t.Errorf("%v output=%v: product differs from the int32 loop", tier, alsoOut)
			}
			if alsoOut {
				wide := make([]int32, m*k)
				for i, v := range a8 {
					wide[i] = int32(v)
				}
				if got, _ := tensor.Data[int32](outs[1]); !slices.Equal(got, wide) {
					t.Errorf("%v: the converted output is %v…, want %v…", tier, got[:4], wide[:4])
				}
			}
		}
		restore()
	}
}

// int8Path: an int8 or uint8 lhs computed in the program (a*a, kept in a
// scratch buffer because a reduction reads it too) is read by the int8
// GEMM at the dot past its convert — its buffer is not written between the
// convert and the dot — and the product is the plain wrapping int32 sum.
func int8Path(t *testing.T, tier simd.Mode, vnni bool) {
	for _, d := range []tensor.DType{tensor.I8, tensor.U8} {
		int8PathOf(t, tier, vnni, d)
	}
}

func int8PathOf(t *testing.T, tier simd.Mode, vnni bool, d tensor.DType) {
	const m, k, n = 24, 40, 33
	fn := func(a []trace.Value) []trace.Value {
		x := a[0].Mul(a[0])
		return []trace.Value{trace.MatMul(x, a[1], trace.PreferredElementType(tensor.I32)), x.Sum()}
	}
	x := compileMatrices(t, fn, [2]int{m, k}, d, [2]int{k, n}, tensor.I8)
	var dot *dotKernel
	for _, k := range x.kernels {
		if d, ok := k.(*dotKernel); ok {
			dot = d
		}
	}
	if dot == nil || dot.int8 != vnni || dot.aUnsigned != (vnni && d == tensor.U8) {
		t.Fatalf("%v %v: dot kernel %+v, want one on the int8 GEMM = %v", tier, d, dot, vnni)
	}
	a8, b8 := make([]int8, m*k), make([]int8, k*n)
	for i := range a8 {
		a8[i] = int8(i*29 + 3)
	}
	for i := range b8 {
		b8[i] = int8(i*41 - 9)
	}
	a, _ := tensor.FromSlice(a8, m, k)
	if d == tensor.U8 {
		a = a.Astype(tensor.U8) // the same bytes, read as uint8
	}
	b, _ := tensor.FromSlice(b8, k, n)
	outs, err := x.Run([]*tensor.Array{a, b})
	if err != nil {
		t.Fatal(err)
	}
	c := make([]int32, m*n)
	for i := range m {
		for j := range n {
			for l := range k {
				x := int32(a8[i*k+l] * a8[i*k+l])
				if d == tensor.U8 {
					x = int32(uint8(a8[i*k+l]) * uint8(a8[i*k+l]))
				}
				c[i*n+j] += x * int32(b8[l*n+j])
			}
		}
	}
	if got, _ := tensor.Data[int32](outs[0]); !slices.Equal(got, c) {
		t.Errorf("%v %v: (a*a) @ b differs from the int32 loop", tier, d)
	}
}

// compileMatrices traces fn on two matrices of the given shapes and
// dtypes, lowers it and compiles it on the default CPU backend.
func compileMatrices(t *testing.T, fn func([]trace.Value) []trace.Value, s0 [2]int, d0 tensor.DType, s1 [2]int, d1 tensor.DType) *cpuExec {
	t.Helper()
	return compileShapes(t, fn, []tensor.DType{d0, d1}, s0[:], s1[:])
}

// An int8 product whose fused epilogue reads a converted operand too
// (x·w + x.astype(i32), w square) keeps that convert's kernel: the GEMM
// reads past the convert, the epilogue does not — dropping it left the
// epilogue reading a buffer nothing wrote (266 for 256 at [0,0]).
func TestInt8DotEpilogueReadsConvert(t *testing.T) {
	const m, k = 6, 5
	for _, tier := range simd.Modes() {
		restore := tier.Set()
		fn := func(a []trace.Value) []trace.Value {
			y := trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))
			return []trace.Value{y.Add(a[0].Astype(tensor.I32))}
		}
		x := compileMatrices(t, fn, [2]int{m, k}, tensor.I8, [2]int{k, k}, tensor.I8)
		a8, b8 := make([]int8, m*k), make([]int8, k*k)
		for i := range a8 {
			a8[i] = int8(i*37 + 11)
		}
		for i := range b8 {
			b8[i] = int8(i*53 - 7)
		}
		a, _ := tensor.FromSlice(a8, m, k)
		b, _ := tensor.FromSlice(b8, k, k)
		outs, err := x.Run([]*tensor.Array{a, b})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int32, m*k)
		for i := range m {
			for j := range k {
				want[i*k+j] = int32(a8[i*k+j])
				for l := range k {
					want[i*k+j] += int32(a8[i*k+l]) * int32(b8[l*k+j])
				}
			}
		}
		if got, _ := tensor.Data[int32](outs[0]); !slices.Equal(got, want) {
			t.Errorf("%v: x·w + x = %v…, want %v…", tier, got[:4], want[:4])
		}
		restore()
	}
}
