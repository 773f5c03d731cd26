package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Under PyTorch's rules a rank-0 array is a 0-dim tensor: of the same kind
// as the rank-1 operand it yields, of a higher kind it promotes. Int
// literals wrap, true division of ints gives f32 and integer sums i64.
func ExampleRules_torch() {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(y) }, kiln.Rules(promote.Torch), kiln.Verify())
	x := tensor.Must(tensor.FromSlice([]uint8{1, 2}))
	fmt.Println(f.Run(x, tensor.Scalar(int8(1))))
	fmt.Println(f.Run(x, tensor.Must(tensor.FromSlice([]int8{1}))))
	fmt.Println(f.Run(x, tensor.Scalar(0.5)))

	g := kiln.Jit(func(x kiln.Value) []kiln.Value {
		return []kiln.Value{x.Add(kiln.Int(1000)), x.Div(x), x.Sum()}
	}, kiln.Rules(promote.Torch))
	outs, err := g.RunAll(x)
	fmt.Println(outs, err)
	// Output:
	// u8[2] [2 3] <nil>
	// i16[2] [2 3] <nil>
	// f64[2] [1.5 2.5] <nil>
	// [u8[2] [233 234] f32[2] [1 1] i64[] 3] <nil>
}
