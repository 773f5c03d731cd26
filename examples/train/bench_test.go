package main

import (
	"flag"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

var stepBatch = flag.Int("step.batch", 256, "batch size of BenchmarkStep")

// BenchmarkStep times one training step (forward, backward, Adam) at
// batch 256 (-step.batch) with RunInto into preallocated results (alternating two sets,
// since a step's results become the next step's arguments).
func BenchmarkStep(b *testing.B) {
	for _, c := range []tensor.DType{tensor.F32, tensor.BF16} {
		b.Run(c.String(), func(b *testing.B) {
			all, err := loadData("", 1)
			if err != nil {
				b.Fatal(err)
			}
			cfg := config{hidden: 128, batch: *stepBatch, lr: 3e-3, compute: c, seed: 1}
			m, err := newModel(cfg, all.dim)
			if err != nil {
				b.Fatal(err)
			}
			idx := make([]int, cfg.batch)
			for i := range idx {
				idx[i] = i
			}
			all.batch(idx, m.xbuf, m.ybuf, classes)
			args := func(p, s []*tensor.Array) []any {
				out := []any{}
				for _, a := range append(append([]*tensor.Array{}, p...), s...) {
					out = append(out, a)
				}
				return append(out, m.x, m.y)
			}
			first, err := m.step.RunAll(args(m.params, m.state)...)
			if err != nil {
				b.Fatal(err)
			}
			second := make([]*tensor.Array, len(first))
			for i, o := range first {
				second[i] = tensor.Must(tensor.Zeros(o.DType(), o.Shape()...))
			}
			np := len(m.params)
			argsA := args(first[1:1+np], first[1+np:])
			argsB := args(second[1:1+np], second[1+np:])
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					err = m.step.RunInto(second, argsA...)
				} else {
					err = m.step.RunInto(first, argsB...)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
