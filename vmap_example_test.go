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

// VmapTree batches a function of trees: here a layer's parameters,
// shared by every example (NoAxis), applied to a batch of inputs, with
// a struct of results stacked leaf by leaf.
func ExampleVmapTree() {
	type Out[T kiln.Leaf] struct{ Y, Norm T }
	layer := func(p Params[kiln.Value], x kiln.Value) Out[kiln.Value] {
		y := x.Mul(p.W).Add(p.B)
		return Out[kiln.Value]{Y: y, Norm: y.Square().Sum().Sqrt()}
	}
	f := kiln.Jit(kiln.VmapTree(layer, kiln.InAxes(kiln.NoAxis, 0)))
	p := Params[*tensor.Array]{W: tensor.Must(tensor.FromSlice([]float32{1, 2})), B: tensor.Scalar(float32(1))}
	x := tensor.Must(tensor.FromSlice([]float32{1, 1, 0, 1, 3, 0}, 3, 2)) // 3 examples
	var out Out[*tensor.Array]
	err := f.RunTree([]any{&out}, &p, x)
	fmt.Println(out.Y, out.Norm, err)
	// Output: f32[3,2] [[2 3] [1 3] [4 1]] f32[3] [3.6055512 3.1622777 4.1231055] <nil>
}

// Per-example gradients of a loss of a struct of parameters: the
// gradient is the parameters' struct, each leaf with a batch axis.
func ExampleVmapTree_perExampleGradients() {
	loss := func(p Params[kiln.Value], xy ...kiln.Value) kiln.Value { // (w·x + b − y)²
		return p.W.Mul(xy[0]).Add(p.B).Sub(xy[1]).Square().Sum()
	}
	perExample := kiln.Jit(kiln.VmapTree(kiln.GradTree(loss), kiln.InAxes(kiln.NoAxis, 0, 0)))
	p := Params[*tensor.Array]{W: tensor.Scalar(2.0), B: tensor.Scalar(0.5)}
	var g Params[*tensor.Array]
	err := perExample.RunTree([]any{&g}, &p, []float64{1, 2}, []float64{2, 4})
	fmt.Println("dW:", g.W, "dB:", g.B, err) // residuals 0.5, 0.5
	// Output: dW: f64[2] [1 2] dB: f64[2] [1 1] <nil>
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
