package kiln_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Go ints and int slices take the default integer dtype: an int is weak,
// as a Python int is to a jitted JAX function; a []int is a strong array,
// as jnp.asarray([1, 2, 3]) is.
func ExampleFunc_Run_ints() {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Mul(y) })
	small, _ := tensor.FromSlice([]int8{1, 2, 3})
	a, _ := f.Run(small, 2)              // i8 * weak int: stays i8
	b, _ := f.Run(small, []int{1, 2, 3}) // i8 * strong i64: promotes
	fmt.Println(a)
	fmt.Println(b)
	// Output:
	// i8[3] [2 4 6]
	// i64[3] [1 4 9]
}

// Every problem with an argument is an *ArgError naming it.
func ExampleArgError() {
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Neg() })
	_, err := f.Run((*tensor.Array)(nil))
	var argErr *kiln.ArgError
	fmt.Println(errors.As(err, &argErr), argErr.Index, err)
	// Output:
	// true 0 kiln: argument 0: nil *tensor.Array
}

// Reductions keep the reduced axes with KeepDims, as keepdims=True does in
// NumPy and JAX: a numerically stable softmax over rows.
func ExampleValue_KeepDims() {
	softmax := kiln.Jit(func(x kiln.Value) kiln.Value {
		e := x.Sub(x.KeepDims().Max(-1)).Exp() // f32[2,1] broadcasts over each row
		return e.Div(e.KeepDims().Sum(-1))
	})
	x, _ := tensor.FromSlice([]float32{0, 0, 1000, 1000}, 2, 2)
	p, _ := softmax.Run(x)
	fmt.Println(p)
	// Output:
	// f32[2,2] [[0.5 0.5] [0.5 0.5]]
}
