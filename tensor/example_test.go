package tensor_test

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

func ExampleFromSlice() {
	a, err := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(a, err)
	// Output:
	// f32[2,3] [[1 2 3] [4 5 6]] <nil>
}

func ExampleArray_Astype() {
	a, _ := tensor.FromSlice([]float64{-1.7, 0.1, 300, -1e9})
	fmt.Println(a.Astype(tensor.I8))  // truncate toward zero, saturate
	fmt.Println(a.Astype(tensor.F16)) // round to nearest even
	// Output:
	// i8[4] [-1 0 127 -128]
	// f16[4] [-1.7 0.1 300 -inf]
}

func ExampleBFloat16FromFloat32() {
	b := tensor.BFloat16FromFloat32(1.00390625) // exactly halfway: ties to even
	fmt.Println(b, b.Float32())
	// Output:
	// 1 1
}
