package main

import (
	"flag"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

var stepBatch = flag.Int("step.batch", 256, "batch size of BenchmarkStep")

// BenchmarkStep times one training step (forward, backward, Adam) at
// batch 256 (-step.batch) with RunTreeInto into preallocated carries
// (alternating two, since a step's results become the next step's
// arguments).
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
			c1, c2 := m.state, twin(b, m.state)
			var l1, l2 *tensor.Array
			if err := m.step.RunTree([]any{&l2, &c2}, &c1, m.x, m.y); err != nil {
				b.Fatal(err)
			}
			l1 = tensor.Must(tensor.Zeros(l2.DType(), l2.Shape()...))
			outs1, outs2 := []any{&l1, &c1}, []any{&l2, &c2}
			args1, args2 := []any{&c1, m.x, m.y}, []any{&c2, m.x, m.y}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					err = m.step.RunTreeInto(outs2, args1...)
				} else {
					err = m.step.RunTreeInto(outs1, args2...)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
