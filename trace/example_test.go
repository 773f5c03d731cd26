package trace_test

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func ExampleTrace() {
	inputs := []trace.Abstract{
		{Type: promote.Strong(tensor.I8), Shape: []int{3}},
		{Type: promote.Strong(tensor.F16), Shape: []int{3}},
	}
	p, err := trace.Trace(promote.Config{}, inputs, func(a []trace.Value) []trace.Value {
		x, y := a[0], a[1]
		return []trace.Value{x.Mul(trace.Int(2)).Add(y).Mul(trace.Float(0.5))}
	})
	fmt.Println(err)
	fmt.Println(p.Outputs[0].TypeString())
	// Output:
	// <nil>
	// f16[3]
}

func ExampleProgram_Check() {
	p, _ := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.I8), Shape: []int{3}}},
		func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Add(trace.Float(1.5))} })
	fmt.Println(p.Check())
	// A pass that forgot the convert from i8 breaks the program:
	p.Eqns[len(p.Eqns)-1].Args[0] = p.Inputs[0]
	fmt.Println(p.CheckAfter("my_pass"))
	// Output:
	// <nil>
	// trace: ill-formed program after my_pass (type): equation 2 (add at trace/example_test.go:29): operands 0 and 1 are i8 and f64*: elementwise operands share one type (converts are explicit)
}

func ExampleHoistWeakScalars() {
	p, _ := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.Strong(tensor.F32), Shape: []int{3}},
		{Type: promote.WeakOf(tensor.I64)}, // a Go int argument
	}, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Mul(a[1])} })
	q, hoisted, err := trace.HoistWeakScalars(p)
	fmt.Println(hoisted, err)
	fmt.Println(q)
	// Output:
	// [{1 f32}] <nil>
	// { lambda ; a:f32[3] b:f32[]. let
	//     d:f32[3] = mul a b
	//   in (d) }
}
