package kiln_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// One runnable example per family of the package doc's index of Value's
// methods and of this package's functions, each with JAX's answer.

// iota23 is [[0 1 2] [3 4 5]] as f32, the operand of most examples.
func iota23() kiln.Value {
	return kiln.Const(tensor.Must(tensor.Must(tensor.Arange(tensor.F32, 6)).Reshape(2, 3)))
}

// Arithmetic broadcasts and promotes as jax.numpy does: a weak literal
// takes the array's dtype (i8 + 1 is i8), two arrays join on the
// promotion lattice (i8 + u8 is i16), and true division of integers is a
// float.
func ExampleValue_Add() {
	i8 := kiln.Const(tensor.Must(tensor.FromSlice([]int8{1, 2, 3})))
	u8 := kiln.Const(tensor.Must(tensor.FromSlice([]uint8{250, 251, 252})))
	outs, err := kiln.EvalAll([]kiln.Value{
		i8.Add(kiln.Int(1)),
		i8.Add(u8),
		i8.Div(kiln.Int(2)),
		iota23().Mul(kiln.Const(tensor.Must(tensor.FromSlice([]float32{1, 10, 100})))), // [2,3] × [3]
	})
	fmt.Println(outs, err)
	// Output: [i8[3] [2 3 4] i16[3] [251 253 255] f32[3] [0.5 1 1.5] f32[2,3] [[0 10 200] [3 40 500]]] <nil>
}

// The math functions are jax.numpy's ufuncs: exponentials and logarithms,
// trigonometric, special functions, rounding (half to even, as
// jnp.round).
func ExampleValue_Exp() {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]float32{0, 0.5, 1})))
	outs, err := kiln.EvalAll([]kiln.Value{x.Exp(), x.Log1p(), x.Erf(), x.Mul(kiln.Float(5)).Round(), x.Sqrt()})
	fmt.Println(outs, err)
	// Output: [f32[3] [1 1.6487212 2.7182817] f32[3] [0 0.4054651 0.6931472] f32[3] [0 0.5204999 0.8427008] f32[3] [0 2 5] f32[3] [0 0.70710677 1]] <nil>
}

// Comparisons give bool arrays; Where selects by them (jnp.where).
func ExampleWhere() {
	x := iota23()
	out, err := kiln.Eval(kiln.Where(x.Gt(kiln.Float(2)), x, kiln.Float(-1)))
	fmt.Println(out, err)
	// Output: f32[2,3] [[-1 -1 -1] [3 4 5]] <nil>
}

// Reductions take axes (none: all of them); ArgMax one axis; the
// cumulative ones one axis and keep the shape.
func ExampleValue_Sum() {
	x := iota23()
	outs, err := kiln.EvalAll([]kiln.Value{x.Sum(), x.Sum(0), x.Mean(1), x.ArgMax(1), x.Cumsum(1), x.Std(0), x.LogSumExp(1)})
	fmt.Println(outs, err)
	// Output: [f32[] 15 f32[3] [3 5 7] f32[2] [1 4] i64[2] [2 2] f32[2,3] [[0 1 3] [3 7 12]] f32[] 1.7078252 f32[2] [2.407606 5.407606]] <nil>
}

// Reduce is lax.reduce_max and friends with keepdims: the reduced axis
// stays as size 1, so the result broadcasts against its operand (a
// softmax's max subtraction).
func ExampleReduce() {
	x := iota23()
	m := kiln.Reduce(kiln.OpReduceMax, x, []int{1}, true)
	out, err := kiln.Eval(x.Sub(m))
	fmt.Println(out, err)
	// Output: f32[2,3] [[-2 -1 0] [-2 -1 0]] <nil>
}

// The shape methods are jnp.reshape, transpose, expand_dims, squeeze,
// broadcast_to and flip.
func ExampleValue_Reshape() {
	x := iota23()
	outs, err := kiln.EvalAll([]kiln.Value{x.Reshape(3, -1), x.Transpose(), x.ExpandDims(0).Squeeze(0).Flip(1), x.Sum(0).BroadcastTo(2, 3)})
	fmt.Println(outs, err)
	// Output: [f32[3,2] [[0 1] [2 3] [4 5]] f32[3,2] [[0 3] [1 4] [2 5]] f32[2,3] [[2 1 0] [5 4 3]] f32[2,3] [[3 5 7] [3 5 7]]] <nil>
}

// Concatenate joins along an existing axis, Stack along a new one.
func ExampleConcatenate() {
	x := iota23()
	outs, err := kiln.EvalAll([]kiln.Value{kiln.Concatenate(1, x, x), kiln.Stack(0, x, x).Reshape(4, 3)})
	fmt.Println(outs, err)
	// Output: [f32[2,6] [[0 1 2 0 1 2] [3 4 5 3 4 5]] f32[4,3] [[0 1 2] [3 4 5] [0 1 2] [3 4 5]]] <nil>
}

// Pad is jnp.pad: PadConstant fills with a value, the other modes with
// x's own elements.
func ExamplePad() {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]int32{1, 2, 3})))
	w := [][2]int{{2, 2}}
	outs, err := kiln.EvalAll([]kiln.Value{
		kiln.Pad(x, w, kiln.PadConstant, kiln.Int(9)),
		kiln.Pad(x, w, kiln.PadEdge, kiln.Value{}),
		kiln.Pad(x, w, kiln.PadReflect, kiln.Value{}),
		kiln.Pad(x, w, kiln.PadWrap, kiln.Value{}),
	})
	fmt.Println(outs, err)
	// Output: [i32[7] [9 9 1 2 3 9 9] i32[7] [1 1 1 2 3 3 3] i32[7] [3 2 1 2 3 2 1] i32[7] [2 3 1 2 3 1 2]] <nil>
}

// The creation functions are jnp.zeros, ones, full, eye, tri and friends:
// the default float (f64; f32 with X32) unless a dtype is given.
func ExampleEye() {
	outs, err := kiln.EvalAll([]kiln.Value{
		kiln.Eye(2, 3, 1),
		kiln.Zeros([]int{2}, tensor.I32),
		kiln.Full([]int{2}, kiln.Float(0.5)),
		kiln.Tri(2, 2, 0),
	})
	fmt.Println(outs, err)
	// Output: [f64[2,3] [[0 1 0] [0 0 1]] i32[2] [0 0] f64[2] [0.5 0.5] bool[2,2] [[true false] [true true]]] <nil>
}

// Einsum contracts by subscripts (jnp.einsum): here a batched matrix
// product and a batched inner product.
func ExampleEinsum() {
	a := kiln.Const(tensor.Must(tensor.Must(tensor.Arange(tensor.F32, 8)).Reshape(2, 2, 2)))
	outs, err := kiln.EvalAll([]kiln.Value{kiln.Einsum("bij,bjk->bik", a, a), kiln.Einsum("bij,bij->b", a, a)})
	fmt.Println(outs, err)
	// Output: [f32[2,2,2] [[[2 3] [6 11]] [[46 55] [66 79]]] f32[2] [14 126]] <nil>
}

// DotGeneral is lax.dot_general: batch dims first in the result, then the
// free dims of each operand; the contracting dims are summed over.
func ExampleDotGeneral() {
	a := kiln.Const(tensor.Must(tensor.Must(tensor.Arange(tensor.F32, 8)).Reshape(2, 2, 2)))
	dims := kiln.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}
	out, err := kiln.Eval(kiln.DotGeneral(a, a, dims)) // as einsum "bij,bjk->bik"
	fmt.Println(out, err)
	// Output: f32[2,2,2] [[[2 3] [6 11]] [[46 55] [66 79]]] <nil>
}

// Tensordot is jnp.tensordot: contract the given axes of x with those of
// y.
func ExampleTensordot() {
	x := iota23()
	out, err := kiln.Eval(kiln.Tensordot(x, x, []int{0}, []int{0})) // xᵀx
	fmt.Println(out, err)
	// Output: f32[3,3] [[9 12 15] [12 17 22] [15 22 29]] <nil>
}

// TopK is lax.top_k: the k largest along the last axis and their indices.
func ExampleTopK() {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]float32{3, 1, 4, 1, 5, 9, 2, 6})))
	vals, idx := kiln.TopK(x, 3)
	outs, err := kiln.EvalAll([]kiln.Value{vals, idx, kiln.Sort(x, 0, kiln.Descending())})
	fmt.Println(outs, err)
	// Output: [f32[3] [9 6 5] i32[3] [5 7 4] f32[8] [9 6 5 4 3 2 1 1]] <nil>
}

// Astype converts explicitly (jnp.astype): floats to integers truncate
// toward zero, as NumPy's casts do.
func ExampleValue_Astype() {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]float32{-1.5, 0.5, 2.7})))
	outs, err := kiln.EvalAll([]kiln.Value{x.Astype(tensor.I32), x.Astype(tensor.F16), x.Gt(kiln.Int(0)).Astype(tensor.U8)})
	fmt.Println(outs, err)
	// Output: [i32[3] [-1 0 2] f16[3] [-1.5 0.5 2.7] u8[3] [0 1 1]] <nil>
}

// An op's error names the op, the shapes and the line that built it;
// errors.As finds its type among this package's (no import of trace).
func ExampleShapeError() {
	x := iota23()
	_, err := kiln.Eval(x.Add(x.Transpose()))
	var shapeErr *kiln.ShapeError
	fmt.Println(errors.As(err, &shapeErr), shapeErr.Op, shapeErr.Shapes)
	// Output: true add [[2 3] [3 2]]
}
