package trace_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A result too large to exist is an error at the op that makes it.
func ExampleShapeError_size() {
	x := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{}}}
	_, err := trace.Trace(promote.Config{}, x, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].BroadcastTo(1<<40, 1<<40, 2, 3).Sum()}
	})
	var se *tensor.SizeError
	fmt.Println(errors.As(err, &se), se.Shape)
	// Output:
	// true [1099511627776 1099511627776 2 3]
}

// The zero Value is not a value: using it names the operand.
func ExampleOperandError() {
	x := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{3}}}
	_, err := trace.Trace(promote.Config{}, x, func(a []trace.Value) []trace.Value {
		var forgotten trace.Value
		return []trace.Value{a[0].Add(forgotten)}
	})
	var oe *trace.OperandError
	fmt.Println(errors.As(err, &oe), oe.Op, oe.Index)
	// Output:
	// true add 1
}

func ExampleValue_KeepDims() {
	x := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{2, 3}}}
	p, _ := trace.Trace(promote.Config{}, x, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].KeepDims().Max(-1), a[0].Max(-1)}
	})
	fmt.Println(p.Outputs[0].TypeString(), p.Outputs[1].TypeString())
	// Output:
	// f32[2,1] f32[2]
}
