package kiln_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// retainStep is a program of loops and reductions only (products:
// TestReviewGroupsProductHoldsNothing), whose independent kernels make
// groups under GroupAll.
func retainStep(a ...kiln.Value) []kiln.Value {
	x, y, z := a[0], a[1], a[2]
	s := x.Exp().Sum(1)
	m := y.Max(0)
	v := z.Mul(z).Sum(0)
	return []kiln.Value{s, m, v, x.Add(s.Reshape(-1, 1)), y.Sub(m), z.Mul(kiln.Float(2))}
}

// After a RunInto of retainStep, grouped (the child states of its groups
// kept for the next Run) or not, the executable holds none of the caller's
// arrays: every input and output is collected once the caller drops it
// while the Func lives on (putState's releaseGroups).
func TestReviewGroupsHoldNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  kiln.Option
	}{
		{"ungrouped", kiln.WithBackend(reviewUngrouped)},
		{"default", kiln.WithBackend(kernels.DefaultCPU())},
		{"grouped", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3}))},
		{"grouped-split", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 2, ParallelMin: 1}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkReleased(t, kiln.Jit(retainStep, c.opt), func(r *rand.Rand) []any {
				return []any{reviewF32(r, 64, 300), reviewF32(r, 200, 50), reviewF32(r, 70, 90)}
			})
		})
	}
}

// An f32 product's job record (gemmJob.call's A, B and C, kernels/dot.go
// runGemm) and its epilogue's run record (epilogueRun.srcs, a copy of the
// Run's sources, kernels/epilogue.go start) drop the caller's inputs and
// outputs after the Run (gemmJob.release), grouped (each child state has
// its own records) or not. Before, they kept them until the next Run, on
// every backend.
func TestReviewGroupsProductHoldsNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  kiln.Option
	}{
		{"ungrouped", kiln.WithBackend(reviewUngrouped)},
		{"grouped", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
				return []kiln.Value{a[0].MatMul(a[1]), a[2].MatMul(a[1]).Add(a[3]).Tanh()}
			}, c.opt)
			checkReleased(t, f, func(r *rand.Rand) []any {
				return []any{reviewF32(r, 40, 30), reviewF32(r, 30, 20), reviewF32(r, 40, 30), reviewF32(r, 40, 20)}
			})
		})
	}
}

// checkReleased runs f on fresh arguments (RunAll, then RunInto fresh
// outputs) and fails unless every input and output array, of any dtype,
// is collected once dropped, while f lives on.
func checkReleased(t *testing.T, f *kiln.Func, mkArgs func(r *rand.Rand) []any) {
	t.Helper()
	collected := make(chan string, 64)
	n := 0
	watch := func(a *tensor.Array, name string) {
		// An interior pointer is enough for a cleanup: the data's start.
		p := (*byte)(unsafe.Pointer(reflect.ValueOf(a.Data()).Pointer()))
		runtime.AddCleanup(p, func(s string) { collected <- s }, name)
		n++
	}
	func() {
		args := mkArgs(rand.New(rand.NewPCG(1, 1)))
		outs, err := f.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if arr, ok := a.(*tensor.Array); ok {
				watch(arr, fmt.Sprint("input ", i))
			}
		}
		fresh := make([]*tensor.Array, len(outs))
		for i, o := range outs {
			fresh[i] = tensor.Must(tensor.Zeros(o.DType(), o.Shape()...))
			watch(fresh[i], fmt.Sprint("output ", i))
		}
		if err := f.RunInto(fresh, args...); err != nil {
			t.Fatal(err)
		}
	}()
	seen := map[string]bool{}
	for deadline := time.Now().Add(5 * time.Second); len(seen) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d arrays collected after the Run (%v): the executable still holds the others", len(seen), n, seen)
		}
		runtime.GC()
		select {
		case s := <-collected:
			seen[s] = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	runtime.KeepAlive(f)
}
