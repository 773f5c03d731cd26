//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package main

import (
	"runtime/debug"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestStepDoesNotAllocate: a steady loop of training steps with
// RunTreeInto — the carry (a struct of weights, Adam's state tree) goes in
// by pointer and each step's results are the next step's arguments, two
// carries taking turns — allocates nothing per step. At batch 64 every
// GEMM runs serially; at batch 256 gonum's parallel sgemm allocates its
// own goroutines' state (BenchmarkStep reports it).
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
	a, b := m.state, twin(t, m.state)
	var la, lb *tensor.Array
	if err := m.step.RunTree([]any{&lb, &b}, &a, m.x, m.y); err != nil {
		t.Fatal(err)
	}
	la = tensor.Must(tensor.Zeros(lb.DType(), lb.Shape()...))
	outsA, outsB := []any{&la, &a}, []any{&lb, &b}
	argsA, argsB := []any{&a, m.x, m.y}, []any{&b, m.x, m.y}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	step := 0
	allocs := testing.AllocsPerRun(20, func() {
		if step++; step%2 == 0 {
			err = m.step.RunTreeInto(outsB, argsA...)
		} else {
			err = m.step.RunTreeInto(outsA, argsB...)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("a training step allocates %.1f times", allocs)
	}
}
