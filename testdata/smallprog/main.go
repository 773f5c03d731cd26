// Command smallprog is a Kiln-only program: TestSmallProgramIsLean checks
// its size and that it links none of the interop or benchmark dependencies.
package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func main() {
	x, _ := tensor.FromSlice([]float32{1, 2, 3})
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(2)).Add(kiln.Float(0.5)) })
	out, err := f.Run(x)
	fmt.Println(out, err)
}
