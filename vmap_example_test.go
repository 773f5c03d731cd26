package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleVmap() {
	// A dot product of two vectors, vmapped over rows of x and shared y.
	dot := func(x, y kiln.Value) kiln.Value { return x.Mul(y).Sum() }
	f := kiln.Jit(kiln.Vmap(dot, kiln.InAxes(0, kiln.NoAxis)))
	x, _ := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	y, _ := tensor.FromSlice([]float32{10, 1})
	out, err := f.Run(x, y)
	fmt.Println(out, err)
	// Output: f32[3] [12 34 56] <nil>
}

func ExampleVmap_perExampleGradients() {
	// The gradient of one example's loss with respect to w, for every
	// example of a batch: one program, no Go loop.
	loss := func(w, x, y kiln.Value) kiln.Value {
		d := x.MatMul(w).Sub(y)
		return d.Mul(d).Sum()
	}
	perExample := kiln.Jit(kiln.Vmap(kiln.Grad(loss), kiln.InAxes(kiln.NoAxis, 0, 0)))
	w, _ := tensor.FromSlice([]float64{1, -1}, 2, 1)
	x, _ := tensor.FromSlice([]float64{1, 0, 0, 1, 1, 1}, 3, 2) // 3 examples of 2 features
	y, _ := tensor.FromSlice([]float64{0, 0, 1}, 3, 1)
	g, _ := perExample.Run(w, x, y)
	fmt.Println(g)
	// Output: f64[3,2,1] [[[2] [0]] [[0] [-2]] [[-2] [-2]]]
}

func ExampleAxisSize() {
	// No argument is batched: AxisSize says how many examples there are,
	// each a copy of the result. AxisSize(0) is an empty batch, as JAX's
	// axis_size=0.
	double := func(w kiln.Value) kiln.Value { return w.Mul(kiln.Float(2)) }
	w, _ := tensor.FromSlice([]float32{1, 2})
	for _, n := range []int{2, 0} {
		out, err := kiln.Jit(kiln.Vmap(double, kiln.InAxes(kiln.NoAxis), kiln.AxisSize(n))).Run(w)
		fmt.Println(out, err)
	}
	// Output:
	// f32[2,2] [[2 4] [2 4]] <nil>
	// f32[0,2] [] <nil>
}
