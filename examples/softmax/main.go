// Softmax computes a numerically stable softmax over the last axis — a max
// reduction, exp, a sum reduction and a division, fused into few kernels —
// in float32 and float16, and the variance of each row.
package main

import (
	"fmt"
	"log"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func softmax(x kiln.Value) kiln.Value {
	shifted := x.Sub(trace.Reduce(trace.OpReduceMax, x, []int{-1}, true))
	e := shifted.Exp()
	return e.Div(trace.Reduce(trace.OpReduceSum, e, []int{-1}, true))
}

func variance(x kiln.Value) kiln.Value {
	return x.Sub(trace.ReduceMean(x, []int{-1}, true)).Pow(kiln.Int(2)).Mean(-1)
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
