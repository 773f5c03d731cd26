//go:build !race

package kiln_test

import (
	"runtime/debug"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
)

// E7's step (groupStep at batch 256) allocates nothing per steady RunInto
// with its groups side by side (GroupAll, several
// workers; ParallelMin 1 so that the other kernels fork too), on the
// default backend, and with a loop whose body has groups (the body's
// child states are made once, its groups forked in each step).
func TestReviewGroupsRunIntoDoesNotAllocate(t *testing.T) {
	loop := func(a ...kiln.Value) []kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(_ kiln.Value, c []kiln.Value) []kiln.Value {
			return groupStep(append(c[:13:13], a[13], a[14])...)[:13]
		}, a[:13]...)
	}
	for _, c := range []struct {
		name string
		fn   func(a ...kiln.Value) []kiln.Value
		opt  kiln.Option
	}{
		{"default", groupStep, nil},
		{"grouped", groupStep, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3}))},
		{"grouped-split", groupStep, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 2, ParallelMin: 1}))},
		{"grouped-loop", loop, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opts []kiln.Option
			if c.opt != nil {
				opts = append(opts, c.opt)
			}
			f := kiln.Jit(c.fn, opts...)
			args := groupArgs(11, 256)
			outs, err := f.RunAll(args...)
			if err != nil {
				t.Fatal(err)
			}
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			allocs := testing.AllocsPerRun(20, func() {
				if err := f.RunInto(outs, args...); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 0 {
				t.Errorf("a steady RunInto allocates %.1f times per call", allocs)
			}
		})
	}
}
