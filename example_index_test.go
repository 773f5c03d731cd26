package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// An embedding lookup and its gradient: rows of a table gathered by token
// ids; the gradient scatter-adds back into the rows, once per use.
func Example_embedding() {
	table := tensor.Must(tensor.Arange(tensor.F32, 8))
	table, _ = table.Reshape(4, 2)
	ids, _ := tensor.FromSlice([]int32{3, 0, 3})
	embed := func(t, ids kiln.Value) kiln.Value { return t.Index(ids) }
	out, _ := kiln.Jit(embed).Run(table, ids)
	fmt.Println(out)
	loss := func(t, ids kiln.Value) kiln.Value { return embed(t, ids).Sum() }
	grads, _ := kiln.Jit(kiln.Grad(loss)).Run(table, ids)
	fmt.Println(grads)
	// Output:
	// f32[3,2] [[6 7] [0 1] [6 7]]
	// f32[4,2] [[1 1] [0 0] [0 0] [2 2]]
}

func ExampleValue_Index() {
	x, _ := tensor.Must(tensor.Arange(tensor.I32, 24)).Reshape(2, 3, 4)
	i, _ := tensor.FromSlice([]int64{2, -1})
	f := kiln.Jit(func(x, i kiln.Value) kiln.Value {
		// NumPy's x[0, :, i]: the int and the array are apart, so the
		// index array's dim comes first.
		return x.Index(0, kiln.All, i)
	})
	out, _ := f.Run(x, i)
	fmt.Println(out)
	// Output: i32[2,3] [[2 6 10] [3 7 11]]
}

func ExampleRef_Add() {
	x, _ := tensor.FromSlice([]float64{0, 0, 0, 0})
	i, _ := tensor.FromSlice([]int32{1, 3, 1, 9})
	f := kiln.Jit(func(x, i kiln.Value) kiln.Value {
		return x.At(i).Add(kiln.Float(1)) // repeats add up; index 9 is dropped
	})
	out, _ := f.Run(x, i)
	fmt.Println(out)
	// Output: f64[4] [0 2 0 1]
}

func ExampleTake() {
	x, _ := tensor.FromSlice([]float32{10, 20, 30})
	i, _ := tensor.FromSlice([]int32{-1, 0, 5})
	take := kiln.Jit(func(x, i kiln.Value) kiln.Value { return kiln.Take(x, i, 0) })
	clip := kiln.Jit(func(x, i kiln.Value) kiln.Value { return kiln.Take(x, i, 0, kiln.WithMode(kiln.ModeClip)) })
	a, _ := take.Run(x, i)
	b, _ := clip.Run(x, i)
	fmt.Println(a, b)
	// Output: f32[3] [30 10 nan] f32[3] [10 10 30]
}

func ExampleOneHot() {
	y, _ := tensor.FromSlice([]int8{0, 2, -1})
	out, _ := kiln.Eval(kiln.OneHot(kiln.Const(y), 3, kiln.WithDType(tensor.F32)))
	fmt.Println(out)
	// Output: f32[3,3] [[1 0 0] [0 0 1] [0 0 0]]
}

func ExampleDynamicSlice() {
	x, _ := tensor.Must(tensor.Arange(tensor.I32, 10)).Reshape(10)
	start, _ := tensor.FromSlice([]int32{8})
	start, _ = start.Reshape()
	f := kiln.Jit(func(x, s kiln.Value) kiln.Value {
		return kiln.DynamicSlice(x, []kiln.Value{s}, []int{4}) // the start clamps to 6 so 4 fit
	})
	out, _ := f.Run(x, start)
	fmt.Println(out)
	// Output: i32[4] [6 7 8 9]
}
