package kiln_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln"
)

// A program whose buffers add up to more than its memory budget is
// refused when it compiles, before anything is allocated: here three
// results of 4 MB each under a budget of 10 MB, each far below the limit
// on one allocation.
func ExampleMemoryLimit() {
	f := kiln.Jit(func(x kiln.Value) []kiln.Value {
		a := x.BroadcastTo(1_000_000)
		return []kiln.Value{a.Exp(), a.Sin(), a.Cos()}
	}, kiln.MemoryLimit(10_000_000))
	_, err := f.RunAll([]float32{1})
	var be *kiln.BudgetError
	fmt.Println(errors.As(err, &be), be.Need, be.Limit)
	// Output:
	// true 12000004 10000000
}
