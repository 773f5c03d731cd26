// Softmax computes a numerically stable softmax over the last axis — a max
// reduction, exp, a sum reduction and a division, fused into few kernels —
// in float32 and float16, and the variance of each row.
package main

import (
	"fmt"
	"log"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// softmax is jnp's: e = exp(x - x.max(-1, keepdims=True)); e / e.sum(-1,
// keepdims=True). KeepDims keeps the reduced axis as size 1, so the max and
// the sum broadcast against the rows they came from.
func softmax(x kiln.Value) kiln.Value {
	e := x.Sub(x.KeepDims().Max(-1)).Exp()
	return e.Div(e.KeepDims().Sum(-1))
}

func variance(x kiln.Value) kiln.Value {
	return x.Sub(x.KeepDims().Mean(-1)).Pow(kiln.Int(2)).Mean(-1)
}

func main() {
	logits, _ := tensor.FromSlice([]float32{
		1, 2, 3, 4,
		-1, 0, 1, 1000, // the max shift keeps exp from overflowing
	}, 2, 4)
	f := kiln.Jit(func(x kiln.Value) (kiln.Value, kiln.Value, kiln.Value) {
		p := softmax(x)
		return p, p.Sum(-1), variance(x)
	})
	outs, err := f.RunAll(logits)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("softmax f32: ", outs[0])
	fmt.Println("row sums:    ", outs[1])
	fmt.Println("variance:    ", outs[2])

	half := logits.Astype(tensor.F16)
	outs, err = f.RunAll(half) // a new signature: traced and compiled again
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("softmax f16: ", outs[0])

	m, _ := f.Lower(logits)
	fmt.Printf("\n%d ops fused into %d kernels:\n%s", len(m.Instrs), len(m.Fusions), m.FusedString())
}
