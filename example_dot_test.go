package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleMatMul() {
	// 100 · 100 + 100 · 100 = 20000 does not fit int8: without a preferred
	// type the int8 product wraps (to 32); with int32 it is exact.
	x := tensor.Must(tensor.Must(tensor.FromSlice([]int8{100, 100})).Reshape(1, 2))
	y := tensor.Must(tensor.Must(tensor.FromSlice([]int8{100, 100})).Reshape(2, 1))
	f := kiln.Jit(func(x, y kiln.Value) []kiln.Value {
		return []kiln.Value{x.MatMul(y), kiln.MatMul(x, y, kiln.PreferredElementType(tensor.I32))}
	})
	out, err := f.RunAll(x, y)
	fmt.Println(out, err)
	// Output: [i8[1,1] [[32]] i32[1,1] [[20000]]] <nil>
}

func ExampleJVP_preferredElementType() {
	// The tangent of a bf16 matmul accumulated in f32 is f32 too: the
	// same dot with a tangent in place of an operand.
	x := tensor.Must(tensor.Must(tensor.FromSlice([]float32{1, 0.00390625})).Reshape(1, 2)).Astype(tensor.BF16)
	y := tensor.Must(tensor.Must(tensor.FromSlice([]float32{1, 1})).Reshape(2, 1)).Astype(tensor.BF16)
	f := kiln.Jit(func(x, y kiln.Value) []kiln.Value {
		mm := func(x, y kiln.Value) kiln.Value { return kiln.MatMul(x, y, kiln.PreferredElementType(tensor.F32)) }
		out, tan := kiln.JVP(mm, []kiln.Value{x, y}, []kiln.Value{x, y})
		return []kiln.Value{out[0], tan[0]}
	})
	out, err := f.RunAll(x, y)
	fmt.Println(out, err)
	// Output: [f32[1,1] [[1.0039062]] f32[1,1] [[2.0078125]]] <nil>
}
