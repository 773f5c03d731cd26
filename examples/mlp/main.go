// Mlp runs one dense layer, relu(x @ W + b), with float32 activations and
// bfloat16 weights: the matmul promotes bf16 to f32 (JAX's lattice), goes
// through gonum's BLAS, and the bias and relu fuse into one loop after it.
package main

import (
	"fmt"
	"log"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func main() {
	const batch, in, out = 4, 8, 3
	xs := make([]float32, batch*in)
	for i := range xs {
		xs[i] = float32(i%7) - 3
	}
	ws := make([]float64, in*out)
	for i := range ws {
		ws[i] = float64(i%5)*0.25 - 0.5
	}
	x, _ := tensor.FromSlice(xs, batch, in)
	w64, _ := tensor.FromSlice(ws, in, out)
	w := w64.Astype(tensor.BF16)
	b, _ := tensor.FromSlice([]float32{0.1, -0.2, 0.3})

	layer := kiln.Jit(func(x, w, b kiln.Value) kiln.Value {
		return x.MatMul(w).Add(b).Maximum(kiln.Float(0))
	})
	y, err := layer.Run(x, w, b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("relu(x @ W + b) =", y)

	m, _ := layer.Lower(x, w, b)
	fmt.Print("\n", m.FusedString())

	ws2, _ := layer.Explain(x, w, b)
	fmt.Println("\nimplicit widenings:")
	for _, wd := range ws2 {
		fmt.Println(" ", wd)
	}
}
