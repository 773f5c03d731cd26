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
