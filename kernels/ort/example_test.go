package ort_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels/ort"
	"github.com/kiln-go/kiln/tensor"
)

// ExampleNew runs a Kiln program on ONNX Runtime (the library named by
// KILN_ORT_LIBRARY); it has no Output line because the library is
// optional.
func ExampleNew() {
	b, err := ort.New(ort.Options{Threads: 2})
	if err != nil {
		fmt.Println(err) // ort.Unavailable(err) when ONNX Runtime is not installed
		return
	}
	f := kiln.Jit(func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w).Add(kiln.Int(1)) }, kiln.WithBackend(b))
	x, _ := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w, _ := tensor.FromSlice([]float32{1, 1, 1}, 3)
	fmt.Println(f.Run(x, w)) // f32[2] [7 16] <nil>
}
