package kernels_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A dot_general of a transposed operand reads the transpose's operand
// (lower's transpose folding) when the transpose keeps the operand's
// batch dimensions in place and its free dimensions in order, and gives
// the bits of the unsimplified program, which copies the transpose
// first: x.T @ y, x @ y.T, both, batched swaps of the last two
// dimensions, a contraction over two dimensions. A transpose that would
// reorder the free dimensions, or move a batch dimension, stays.
func TestTransposedDotOperands(t *testing.T) {
	type tcase struct {
		name   string
		shapes [][]int
		fn     func(a []trace.Value) trace.Value
		folds  bool
	}
	swap := func(v trace.Value) trace.Value { // the last two dimensions
		p := make([]int, len(v.Shape()))
		for i := range p {
			p[i] = i
		}
		n := len(p)
		p[n-1], p[n-2] = p[n-2], p[n-1]
		return v.Transpose(p...)
	}
	cases := []tcase{
		{"square x.T@y", [][]int{{20, 20}, {20, 20}}, func(a []trace.Value) trace.Value { return a[0].Transpose(1, 0).MatMul(a[1]) }, true},
		{"x.T@y", [][]int{{37, 13}, {37, 21}}, func(a []trace.Value) trace.Value { return a[0].Transpose(1, 0).MatMul(a[1]) }, true},
		{"x@y.T", [][]int{{19, 40}, {23, 40}}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1].Transpose(1, 0)) }, true},
		{"x.T@y.T", [][]int{{40, 19}, {23, 40}}, func(a []trace.Value) trace.Value {
			return a[0].Transpose(1, 0).MatMul(a[1].Transpose(1, 0))
		}, true},
		{"batched swaps", [][]int{{3, 17, 9}, {3, 11, 17}}, func(a []trace.Value) trace.Value { return swap(a[0]).MatMul(swap(a[1])) }, true},
		{"two contracting dims", [][]int{{5, 7, 6}, {6, 5, 7}}, func(a []trace.Value) trace.Value {
			return trace.DotGeneral(a[0].Transpose(2, 0, 1), a[1], trace.DotDims{LhsContract: []int{1, 2}, RhsContract: []int{1, 2}})
		}, true},
		{"free dims reordered", [][]int{{4, 6, 9}, {9, 5}}, func(a []trace.Value) trace.Value {
			return trace.DotGeneral(a[0].Transpose(1, 0, 2), a[1], trace.DotDims{LhsContract: []int{2}, RhsContract: []int{0}})
		}, false},
		{"batch dim moved", [][]int{{4, 3, 6}, {3, 6, 5}}, func(a []trace.Value) trace.Value {
			return trace.DotGeneral(a[0].Transpose(1, 0, 2), a[1], trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}})
		}, false},
	}
	cpus := []*kernels.CPU{kernels.NewCPU(kernels.CPUOptions{Workers: 1}), kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1})}
	for _, c := range cases {
		for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.I32, tensor.F16, tensor.BF16} {
			label := fmt.Sprintf("%s/%s", c.name, d)
			abs := make([]trace.Abstract, len(c.shapes))
			inputs := make([]*tensor.Array, len(c.shapes))
			for i, s := range c.shapes {
				abs[i] = trace.Abstract{Type: promote.Strong(d), Shape: s}
				inputs[i] = randomInput(d, uint64(40+i), s...)
			}
			p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return []trace.Value{c.fn(a)} })
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			on, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			off, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoSimplify: true})
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			transposes := 0
			for _, in := range on.Instrs {
				if in.Op == trace.OpTranspose {
					transposes++
				}
			}
			if c.folds != (transposes == 0) {
				t.Fatalf("%s: %d transposes left (folds: %v)\n%s", label, transposes, c.folds, on.FusedString())
			}
			want := runModule(t, label, cpus[0], off, inputs)
			for i, cpu := range cpus {
				got := runModule(t, label, cpu, on, inputs)
				if diff := conformance.Compare(got[0], want[0], 0); diff != "" {
					t.Fatalf("%s, cpu %d: folded differs from the copied transpose: %s", label, i, diff)
				}
			}
		}
	}
}
