package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleGrad() {
	f := func(x kiln.Value) kiln.Value { return x.Mul(x).Sum() } // Σ x²
	df := kiln.Jit(kiln.Grad(f))
	x, _ := tensor.FromSlice([]float32{1, 2, 3})
	g, err := df.Run(x)
	fmt.Println(g, err)
	// Output: f32[3] [2 4 6] <nil>
}

func ExampleGrad_second() {
	f := func(x kiln.Value) kiln.Value { return x.Mul(x).Mul(x) } // x³
	d2f := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(f)(x)[0] }))
	g, _ := d2f.Run(2.0) // a Go float64 is a weak f64, and so is its gradient
	p, _ := d2f.Trace(2.0)
	fmt.Println(g, p.Outputs[0].TypeString())
	// Output: f64[] 12 f64*[]
}

func ExampleValueAndGrad() {
	loss := func(w, x kiln.Value) kiln.Value { return x.MatMul(w).Tanh().Sum() }
	step := kiln.Jit(kiln.ValueAndGrad(loss)) // with respect to w
	w, _ := tensor.FromSlice([]float64{0, 1}, 2, 1)
	x, _ := tensor.FromSlice([]float64{1, 0, 0, 2}, 2, 2)
	out, _ := step.RunAll(w, x)
	fmt.Printf("%.4f %v\n", tensor.Index(out[0].Data(), 0), out[1].Shape())
	// Output: 0.9640 [2 1]
}

func ExampleGradWith() {
	f := kiln.Jit(kiln.GradWith(func(x, n kiln.Value) kiln.Value { return x.Mul(n.Astype(tensor.F32)).Sum() },
		kiln.GradOptions{Argnums: []int{0, 1}, AllowInt: true}))
	x, _ := tensor.FromSlice([]float32{1, 2})
	n, _ := tensor.FromSlice([]int8{3, 4})
	g, _ := f.RunAll(x, n)
	fmt.Println(g[0], g[1]) // an int argument's gradient is JAX's float0: bool zeros
	// Output: f32[2] [3 4] bool[2] [false false]
}

func ExampleVJP() {
	f := kiln.Jit(func(x, ct kiln.Value) []kiln.Value {
		outs, pullback := kiln.VJP(kiln.Value.Exp, x)
		return append(outs, pullback(ct)...)
	})
	x, _ := tensor.FromSlice([]float64{0, 1})
	ct, _ := tensor.FromSlice([]float64{1, 2})
	out, _ := f.RunAll(x, ct)
	fmt.Printf("%.4f %.4f\n", out[0].Data(), out[1].Data())
	// Output: [1.0000 2.7183] [1.0000 5.4366]
}

func ExampleJVP() {
	f := kiln.Jit(func(x, t kiln.Value) []kiln.Value {
		outs, tans := kiln.JVP(kiln.Value.Sin, []kiln.Value{x}, []kiln.Value{t})
		return append(outs, tans...)
	})
	out, _ := f.RunAll(0.0, 3.0)
	fmt.Println(out[0], out[1])
	// Output: f64[] 0 f64[] 3
}
