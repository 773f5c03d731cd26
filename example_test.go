package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleJit() {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value {
		return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
	})
	x, _ := tensor.FromSlice([]int8{1, 2, 3})
	y, _ := tensor.FromSlice([]float64{0.5, 1, 2})
	out, err := f.Run(x, y.Astype(tensor.F16))
	fmt.Println(out, err)
	// Output: f16[3] [1.25 2.5 4] <nil>
}

func ExampleVerify() {
	// Every program and module built for f is checked after every pass;
	// a broken invariant would be a *trace.CheckError or *lower.VerifyError.
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(2)).Mean() }, kiln.Verify())
	x, _ := tensor.FromSlice([]int8{1, 2, 3})
	out, err := f.Run(x)
	fmt.Println(out, err)
	// Output: f32[] 4 <nil>
}

func ExampleFunc_Trace() {
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Div(kiln.Int(2)) })
	p, _ := f.Trace(tensor.Must(tensor.Arange(tensor.I32, 4)))
	fmt.Println(p.Outputs[0].TypeString())
	// Output: f32[4]
}

func ExampleFunc_Explain() {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(y) })
	ws, _ := f.Explain(tensor.Must(tensor.Arange(tensor.U8, 2)), tensor.Must(tensor.Arange(tensor.I8, 2)))
	for _, w := range ws {
		fmt.Println(w.From, "->", w.To, "because", w.Why)
	}
	// Output:
	// u8 -> i16 because promote u8, i8 -> i16 (jax)
	// i8 -> i16 because promote u8, i8 -> i16 (jax)
}

func ExampleEval() {
	x, _ := tensor.FromSlice([]float32{1, 4, 9})
	out, _ := kiln.Eval(kiln.Const(x).Sqrt().Sum())
	fmt.Println(out)
	// Output: f32[] 6
}

func ExampleForbid() {
	f := kiln.Jit(func(x, w kiln.Value) kiln.Value { return x.Mul(w) }, kiln.Forbid(tensor.BF16, tensor.F32))
	_, err := f.Run(tensor.Must(tensor.Arange(tensor.BF16, 2)), tensor.Must(tensor.Arange(tensor.F32, 2)))
	fmt.Println(err != nil)
	// Output: true
}

func ExampleFunc_RunInto() {
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(x) })
	x := tensor.Must(tensor.Arange(tensor.F64, 3))
	out, _ := tensor.Zeros(tensor.F64, 3)
	for range 3 { // a steady loop allocates no outputs
		_ = f.RunInto([]*tensor.Array{out}, x)
	}
	fmt.Println(out)
	// Output: f64[3] [0 1 4]
}

func ExampleWeak() {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(y) })
	x := tensor.Must(tensor.Arange(tensor.I8, 2))
	p, _ := f.Trace(x, kiln.Weak(tensor.Must(tensor.Arange(tensor.I64, 2))))
	fmt.Println(p.Outputs[0].TypeString())
	// Output: i8[2]
}

func ExampleFunc_Release() {
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(1)) })
	x := tensor.Must(tensor.Arange(tensor.F32, 3))
	first, _ := f.Run(x)
	fmt.Println(first)
	f.Release(first) // first is f's again: the next f32[3] result reuses it
	second, _ := f.Run(x)
	fmt.Println(second, second == first)
	// Output:
	// f32[3] [1 2 3]
	// f32[3] [1 2 3] true
}
