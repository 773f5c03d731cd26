// Mixedprecision shows JAX's promotion rules at work on int8 and float16
// arrays and Python-like weak literals: which dtype each step gets, where
// the converts go, what preferred_element_type does to an int8 or bfloat16
// matmul, and what strict promotion says about the same code.
package main

import (
	"fmt"
	"log"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func main() {
	x, _ := tensor.FromSlice([]int8{1, 2, 3, 100})
	y, _ := tensor.FromSlice([]float64{0.5, 1, 2, 0.1})
	yh := y.Astype(tensor.F16) // float16 storage, rounded to nearest even

	// The literal 2 is weak: x*2 stays int8 (and wraps: 100*2 = -56). Adding
	// the float16 y promotes to float16, and the weak 0.5 keeps float16.
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value {
		return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
	})
	out, err := f.Run(x, yh)
	if err != nil {
		log.Fatal(err)
	}
	p, _ := f.Trace(x, yh)
	fmt.Println("program:")
	fmt.Println(p)
	fmt.Println("result:", out) // f16[4] [1.25 2.5 4 -27.95]

	fmt.Println("\nimplicit widenings:")
	ws, _ := f.Explain(x, yh)
	for _, w := range ws {
		fmt.Println(" ", w)
	}

	// A Go float64 argument is weak, like a Python float: it does not widen.
	g := kiln.Jit(func(y, s kiln.Value) kiln.Value { return y.Mul(s) })
	r, _ := g.Run(yh, 3.0)
	fmt.Println("\nf16 array * Go float64 3.0 =", r)

	// A dot of int8 arrays is int8 and wraps (100·100 + 100·100 = 20000);
	// preferred_element_type=int32 (JAX's) accumulates wide instead.
	// bfloat16 products summed in float32 keep what a bfloat16 result
	// rounds away (1 + 1/256).
	matmuls := func(d tensor.DType) *kiln.Func {
		return kiln.Jit(func(a, b kiln.Value) []kiln.Value {
			return []kiln.Value{a.MatMul(b), kiln.MatMul(a, b, kiln.PreferredElementType(d))}
		})
	}
	a := tensor.Must(tensor.Must(tensor.FromSlice([]int8{100, 100})).Reshape(1, 2))
	ds, err := matmuls(tensor.I32).RunAll(a, tensor.Must(a.Reshape(2, 1)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\nint8 matmul:", ds[0], "  with preferred_element_type=int32:", ds[1])
	h := tensor.Must(tensor.Must(tensor.FromSlice([]float32{1, 1.0 / 256})).Reshape(1, 2)).Astype(tensor.BF16)
	ones := tensor.Must(tensor.Must(tensor.FromSlice([]float32{1, 1})).Reshape(2, 1)).Astype(tensor.BF16)
	ds, err = matmuls(tensor.F32).RunAll(h, ones)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bf16 matmul:", ds[0], "  with preferred_element_type=float32:", ds[1])

	// Strict promotion refuses int8 + float16 and says how to fix it.
	strict := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(y) }, kiln.Strict())
	_, err = strict.Run(x, yh)
	fmt.Println("\nstrict:", err)
}
