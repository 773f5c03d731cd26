package kiln_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// TestProductsHoldNothing: after a Run, an executable's products of every
// kind — f32, bf16, int8, packed int4, complex, fp8 and f16 matrix
// products, and f32 (with a fused epilogue), bf16 and int8 convolutions — keep none of the caller's input or output
// arrays (their job records live in the run state between Runs): every
// array is collected once the caller drops it, while the function lives
// on. On one worker and on three (the parallel pieces' records).
func TestProductsHoldNothing(t *testing.T) {
	i32 := kiln.PreferredElementType(tensor.I32)
	f32 := kiln.PreferredElementType(tensor.F32)
	conv := func(x, w kiln.Value, opts ...kiln.DotOption) kiln.Value {
		return kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{PaddingMode: "SAME",
			DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, opts...)
	}
	cases := []struct {
		name   string
		fn     func(a ...kiln.Value) []kiln.Value
		dtypes []tensor.DType
		shapes [][]int
	}{
		{"f32", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].MatMul(a[1]).Tanh()} },
			[]tensor.DType{tensor.F32, tensor.F32}, [][]int{{64, 96}, {96, 80}}},
		{"bf16", func(a ...kiln.Value) []kiln.Value {
			return []kiln.Value{kiln.MatMul(a[0], a[1], f32), a[0].MatMul(a[1])}
		},
			[]tensor.DType{tensor.BF16, tensor.BF16}, [][]int{{64, 96}, {96, 80}}},
		{"int8", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{kiln.MatMul(a[0], a[1], i32)} },
			[]tensor.DType{tensor.I8, tensor.I8}, [][]int{{64, 96}, {96, 80}}},
		{"int4", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{kiln.MatMul(a[0], a[1], i32)} },
			[]tensor.DType{tensor.I4, tensor.I4}, [][]int{{64, 96}, {96, 80}}},
		{"complex", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].MatMul(a[1])} },
			[]tensor.DType{tensor.C64, tensor.C64}, [][]int{{40, 30}, {30, 20}}},
		{"fp8", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{kiln.MatMul(a[0], a[1], f32)} },
			[]tensor.DType{tensor.F8E4M3FN, tensor.F8E4M3FN}, [][]int{{64, 96}, {96, 80}}},
		{"f16", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].MatMul(a[1]).Tanh()} },
			[]tensor.DType{tensor.F16, tensor.F16}, [][]int{{64, 96}, {96, 80}}},
		{"conv-f32", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1]).Add(kiln.Float(1))} },
			[]tensor.DType{tensor.F32, tensor.F32}, [][]int{{2, 14, 14, 16}, {3, 3, 16, 32}}},
		{"conv-bf16", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], f32)} },
			[]tensor.DType{tensor.BF16, tensor.BF16}, [][]int{{2, 14, 14, 16}, {3, 3, 16, 32}}},
		{"conv-int8", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], i32)} },
			[]tensor.DType{tensor.I8, tensor.I8}, [][]int{{2, 14, 14, 16}, {3, 3, 16, 32}}},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d", c.name, workers), func(t *testing.T) {
				f := kiln.Jit(c.fn, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: workers, ParallelMin: 1})))
				checkReleased(t, f, func(*rand.Rand) []any {
					args := make([]any, len(c.shapes))
					for i, s := range c.shapes {
						args[i] = tensor.Must(tensor.Zeros(c.dtypes[i], s...))
					}
					return args
				})
			})
		}
	}
}
