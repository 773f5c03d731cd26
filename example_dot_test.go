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
