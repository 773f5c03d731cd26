package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleForiLoop() {
	// x doubled ten times: one loop in the program, not ten multiplies.
	f := kiln.Jit(func(x kiln.Value) []kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(10), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(kiln.Int(2)), c[1].Add(i)}
		}, x, kiln.Int(0))
	})
	out, err := f.RunAll(tensor.Must(tensor.FromSlice([]float32{1, 0.5})))
	fmt.Println(out[0], out[1], err)
	// Output: f32[2] [1024 512] i64[] 45 <nil>
}

func ExampleWhileLoop() {
	f := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(kiln.Int(100)) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(kiln.Int(3))} }, x)[0]
	})
	out, err := f.Run(tensor.Scalar(int32(1)))
	fmt.Println(out, err)
	// Output: i32[] 243 <nil>
}

func ExampleCond() {
	f := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.Cond(x.Sum().Gt(kiln.Int(0)),
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Sqrt()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} }, x)[0]
	})
	pos, _ := f.Run(tensor.Must(tensor.FromSlice([]float64{4, 9})))
	neg, _ := f.Run(tensor.Must(tensor.FromSlice([]float64{-4, 1})))
	fmt.Println(pos, neg)
	// Output: f64[2] [2 3] f64[2] [4 -1]
}

func ExampleSwitch() {
	branches := []func([]kiln.Value) []kiln.Value{
		func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Add(kiln.Int(1))} },
		func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(kiln.Int(10))} },
	}
	f := kiln.Jit(func(i, x kiln.Value) kiln.Value { return kiln.Switch(i, branches, x)[0] })
	for _, i := range []int32{0, 1, 7} { // 7 is clamped to the last branch
		out, _ := f.Run(tensor.Scalar(i), tensor.Scalar(int64(5)))
		fmt.Println(i, out)
	}
	// Output:
	// 0 i64[] 6
	// 1 i64[] 50
	// 7 i64[] 50
}

func ExampleScan() {
	// A cumulative sum and the running total, as lax.scan.
	f := kiln.Jit(func(xs kiln.Value) []kiln.Value {
		c, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
			s := c[0].Add(x[0])
			return []kiln.Value{s}, []kiln.Value{s}
		}, []kiln.Value{kiln.Int(0)}, []kiln.Value{xs})
		return append(c, ys...)
	})
	out, err := f.RunAll(tensor.Must(tensor.FromSlice([]int32{1, 2, 3, 4})))
	fmt.Println(out[0], out[1], err)
	// Output: i32[] 10 i32[4] [1 3 6 10] <nil>
}

func ExampleScanOptions_length() {
	// No xs: Length steps. Length 0 alone means "not given"; HasLength
	// makes it zero steps (lax.scan's length=0): the initial carry and no ys.
	powers := func(n int) *kiln.Func {
		return kiln.Jit(func(x kiln.Value) []kiln.Value {
			c, ys := kiln.Scan(func(c, _ []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return []kiln.Value{c[0].Mul(x)}, []kiln.Value{c[0]}
			}, []kiln.Value{kiln.Const(tensor.Scalar(float32(1)))}, nil, kiln.ScanOptions{Length: n, HasLength: true})
			return append(c, ys...)
		})
	}
	for _, n := range []int{3, 0} {
		out, err := powers(n).RunAll(tensor.Scalar(float32(2)))
		fmt.Println(out[0], out[1], err)
	}
	// Output:
	// f32[] 8 f32[3] [1 2 4] <nil>
	// f32[] 1 f32[0] [] <nil>
}
