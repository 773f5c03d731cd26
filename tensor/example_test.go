package tensor_test

import (
	"errors"
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

func ExampleFloat16() {
	// f16 data needs no third-party import.
	h := []tensor.Float16{tensor.Float32ToF16(0.1), tensor.Float64ToF16(65504), tensor.Float32ToF16(1e5)}
	a, _ := tensor.FromSlice(h)
	fmt.Println(a, h[0].Float32())
	// Output:
	// f16[3] [0.1 65500 inf] 0.099975586
}

func ExampleShapeSize() {
	n, err := tensor.ShapeSize([]int{2, 3, 4})
	fmt.Println(n, err)
	_, err = tensor.ShapeSize([]int{1 << 32, 1 << 32})
	var se *tensor.SizeError
	fmt.Println(errors.As(err, &se), se.Shape)
	// Output:
	// 24 <nil>
	// true [4294967296 4294967296]
}

func ExampleSetMaxAlloc() {
	old := tensor.SetMaxAlloc(1 << 20) // 1 MiB
	defer tensor.SetMaxAlloc(old)
	_, err := tensor.Zeros(tensor.F32, 1000, 1000)
	fmt.Println(err)
	// Output:
	// tensor: Zeros: shape [1000,1000]: 4000000 bytes of f32 (3.81 MiB) are over the allocation limit of 1 MiB (set KILN_MAX_ALLOC in the environment, or call tensor.SetMaxAlloc)
}

func ExampleMust() {
	a := tensor.Must(tensor.Arange(tensor.I8, 6))
	fmt.Println(a)
	// Output:
	// i8[6] [0 1 2 3 4 5]
}

func ExampleByteSize() {
	n, _ := tensor.ByteSize(tensor.C128, []int{3, 5})
	fmt.Println(n)
	_, err := tensor.ByteSize(tensor.C128, []int{1 << 60}) // 2^60 elements fit an int; 2^64 bytes do not
	fmt.Println(err)
	// Output:
	// 240
	// tensor: shape [1152921504606846976]: 1152921504606846976 elements (18446744073709551616 bytes of c128) do not fit an int (at most 9223372036854775807)
}

func ExampleCheckAlloc() {
	old := tensor.SetMaxAlloc(1 << 30) // 1 GiB
	defer tensor.SetMaxAlloc(old)
	for _, shape := range [][]int{{1000, 1000}, {100000, 100000}} {
		n, err := tensor.CheckAlloc(tensor.F32, shape)
		fmt.Println(n, err != nil)
	}
	// Output:
	// 4000000 false
	// 0 true
}

func ExampleInferShape() {
	shape, err := tensor.InferShape(24, []int{2, -1, 3})
	fmt.Println(shape, err)
	_, err = tensor.InferShape(24, []int{5, -1})
	fmt.Println(err)
	// Output:
	// [2 4 3] <nil>
	// tensor: shape [5 -1]: cannot infer -1 for 24 elements
}
