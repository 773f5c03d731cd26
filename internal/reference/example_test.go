package reference_test

import (
	"fmt"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Eval runs a traced program op by op. f16 values compute in f32 and round
// after every op, as NumPy's float16 does.
func ExampleEval() {
	x, _ := tensor.FromSlice([]float64{0.1, 1.5})
	y, _ := tensor.FromSlice([]float64{0.2, 2.5})
	inputs := []*tensor.Array{x.Astype(tensor.F16), y.Astype(tensor.F16)}
	abstract := []trace.Abstract{
		{Type: promote.Strong(tensor.F16), Shape: []int{2}},
		{Type: promote.Strong(tensor.F16), Shape: []int{2}},
	}
	p, err := trace.Trace(promote.Config{}, abstract, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Add(a[1]), a[0].Add(a[1]).Sum()}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := reference.Eval(p, inputs, reference.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0])
	fmt.Println(out[1])
	// Output:
	// f16[2] [0.2998 4]
	// f16[] 4.3
}
