package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleRoll() {
	x := kiln.Const(tensor.Must(tensor.Arange(tensor.I32, 5)))
	out, _ := kiln.Eval(kiln.Roll(x, 2, 0))
	fmt.Println(out)
	// Output: i32[5] [3 4 0 1 2]
}

func ExampleTile() {
	x := kiln.Const(tensor.Must(tensor.Arange(tensor.I32, 3)))
	out, _ := kiln.Eval(kiln.Tile(x, 2, 2))
	fmt.Println(out)
	// Output: i32[2,6] [[0 1 2 0 1 2] [0 1 2 0 1 2]]
}

func ExampleRepeat() {
	x := kiln.Const(tensor.Must(tensor.Arange(tensor.I32, 3)))
	out, _ := kiln.Eval(kiln.Repeat(x, []int{1, 0, 3}, 0))
	fmt.Println(out)
	// Output: i32[4] [0 2 2 2]
}

func ExampleSplit() {
	x := kiln.Const(tensor.Must(tensor.Arange(tensor.I32, 6)))
	parts, _ := kiln.EvalAll(kiln.Split(x, 3, 0))
	fmt.Println(parts)
	// Output: [i32[2] [0 1] i32[2] [2 3] i32[2] [4 5]]
}

func ExampleIota() {
	out, _ := kiln.Eval(kiln.Iota(tensor.U8, []int{2, 3}, 1))
	fmt.Println(out)
	// Output: u8[2,3] [[0 1 2] [0 1 2]]
}

func ExampleReduceWindowMax() {
	x, _ := tensor.Must(tensor.Arange(tensor.F32, 16)).Reshape(4, 4)
	pooled := kiln.ReduceWindowMax(kiln.Const(x), []int{2, 2}, kiln.WindowOptions{Strides: []int{2, 2}}) // 2×2 max pooling
	out, _ := kiln.Eval(pooled)
	fmt.Println(out)
	// Output: f32[2,2] [[5 7] [13 15]]
}

func ExampleSumTo() {
	x, _ := tensor.Must(tensor.Arange(tensor.F32, 6)).Reshape(2, 3)
	out, _ := kiln.Eval(kiln.SumTo(kiln.Const(x), []int{1, 3})) // what broadcasting [1, 3] to [2, 3] owes back
	fmt.Println(out)
	// Output: f32[1,3] [[3 5 7]]
}
