package lower_test

import (
	"fmt"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func ExampleModule_Verify() {
	p, _ := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{4}}},
		func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Exp().Sum()} })
	m, err := lower.Compile(p, lower.Options{Verify: true}) // verified after every pass
	fmt.Println(err, m.Verify())
	// A buffer plan that writes the result over the caller's input:
	m.Plan.Of[m.Outputs[0]] = m.Plan.Of[m.Params[0]]
	fmt.Println(m.Verify())
	// Output:
	// <nil> <nil>
	// lower: ill-formed module (buffer): %2 = f32[] reduce_sum(%1), dimensions={0}: written to buffer 0, input 0: inputs are never written
}
