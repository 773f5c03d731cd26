package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleVmap_whileLoop() {
	// Doubling until the value passes the example's limit: a while loop
	// whose predicate depends on the example. The vmapped loop runs until
	// every example is done; an example that is done keeps its value, so
	// each takes its own number of steps.
	grow := func(x, limit kiln.Value) []kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(limit) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(kiln.Float(2)), c[1].Add(kiln.Int(1))} },
			x, kiln.Int(0).Astype(tensor.I32))
	}
	f := kiln.Jit(kiln.Vmap(grow, kiln.InAxes(kiln.NoAxis, 0)))
	x := tensor.Scalar(float32(1)).Astype(tensor.F32)
	limits, _ := tensor.FromSlice([]float32{0, 5, 100})
	out, err := f.RunAll(x, limits)
	fmt.Println(out, err)
	// Output: [f32[3] [1 8 128] i32[3] [0 3 7]] <nil>
}

func ExampleVmap_cond() {
	// A cond whose predicate depends on the example computes both
	// branches for the batch and selects each example's (JAX's vmap of
	// cond); with a shared predicate it stays a cond.
	f := kiln.Jit(kiln.Vmap(func(x kiln.Value) kiln.Value {
		return kiln.Cond(x.Gt(kiln.Float(0)),
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Sqrt()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} }, x)[0]
	}))
	x, _ := tensor.FromSlice([]float64{4, -3, 9, 0})
	out, err := f.Run(x)
	fmt.Println(out, err)
	// Output: f64[4] [2 3 3 -0] <nil>
}
