package kiln_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Checked mode turns an index JAX would clamp into an error that names it.
func ExampleChecked() {
	table, _ := tensor.FromSlice([]float32{10, 20, 30})
	ids, _ := tensor.FromSlice([]int32{2, 7})
	lookup := func(t, ids kiln.Value) kiln.Value { return t.Index(ids) }

	out, _ := kiln.Jit(lookup).Run(table, ids)
	fmt.Println(out) // JAX's rule: the index clamps to the last row

	_, err := kiln.Jit(lookup, kiln.Checked()).Run(table, ids)
	var ce *kiln.CheckError
	if errors.As(err, &ce) {
		fmt.Printf("%s: index %d of axis %d (size %d) at index element %d\n", ce.Op, ce.Index, ce.Axis, ce.AxisSize, ce.Element)
	}
	// Output:
	// f32[2] [30 30]
	// gather: index 7 of axis 0 (size 3) at index element 1
}
