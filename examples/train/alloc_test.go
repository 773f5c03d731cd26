//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package main

import (
	"runtime/debug"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestStepDoesNotAllocate: a steady loop of training steps with RunInto —
// each step's results are the next step's arguments, two sets of arrays
// taking turns — allocates nothing per step. At batch 64 every GEMM runs
// serially; at batch 256 gonum's parallel sgemm allocates its own
// goroutines' state (BenchmarkStep reports it).
func TestStepDoesNotAllocate(t *testing.T) {
	all, err := loadData("", 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{hidden: 128, batch: 64, lr: 3e-3, compute: tensor.F32, seed: 1}
	m, err := newModel(cfg, all.dim)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, cfg.batch)
	for i := range idx {
		idx[i] = i
	}
	all.batch(idx, m.xbuf, m.ybuf, classes)
	args := func(arrays []*tensor.Array) []any {
		out := make([]any, 0, len(arrays)+2)
		for _, a := range arrays[1:] { // the loss is not an argument
			out = append(out, a)
		}
		return append(out, m.x, m.y)
	}
	first, err := m.step.RunAll(args(append([]*tensor.Array{nil}, append(m.params, m.state...)...))...)
	if err != nil {
		t.Fatal(err)
	}
	second := make([]*tensor.Array, len(first))
	for i, o := range first {
		second[i] = tensor.Must(tensor.Zeros(o.DType(), o.Shape()...))
	}
	argsA, argsB := args(first), args(second)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	step := 0
	allocs := testing.AllocsPerRun(20, func() {
		if step++; step%2 == 0 {
			err = m.step.RunInto(second, argsA...)
		} else {
			err = m.step.RunInto(first, argsB...)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("a training step allocates %.1f times", allocs)
	}
}
