package onnx_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleExport() {
	x, _ := tensor.FromSlice([]float32{1, 2, 3}, 3)
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(2)).Sum() })
	m, _ := f.Lower(x) // the lowered module for these argument types
	model, err := onnx.Export(m, onnx.Options{InputNames: []string{"x"}})
	fmt.Println(err, len(model) > 0)

	// An op ONNX cannot express with Kiln's semantics is refused by name.
	m, _ = kiln.Jit(func(x kiln.Value) kiln.Value { return x.Copysign(x.Neg()) }).Lower(x)
	_, err = onnx.Export(m, onnx.Options{})
	var ue *onnx.UnsupportedError
	fmt.Println(errors.As(err, &ue), ue.Op, ue.DType)
	// Output:
	// <nil> true
	// true copysign f32
}
