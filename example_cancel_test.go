package kiln_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kiln-go/kiln"
)

// A run given a deadline stops when it passes — here a loop that would
// count to 2^31 — and the Func runs again afterwards.
func ExampleFunc_RunContext() {
	count := kiln.Jit(func(n kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(n) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Int(1))} }, kiln.Int(0).Astype(n.DType()))[0]
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := count.RunContext(ctx, int32(math.MaxInt32))
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	r, err := count.Run(int32(5))
	fmt.Println(r, err)
	// Output:
	// true
	// i32[] 5 <nil>
}
