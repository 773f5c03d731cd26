package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// BenchmarkDispatch is docs/SPEC.md §8's E5: a cached Run of a small expression on
// 1-element inputs, with fresh outputs (Run) and into the caller's (RunInto).
func BenchmarkDispatch(b *testing.B) {
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Float(1.5)).Add(kiln.Float(0.25)) })
	x, _ := tensor.FromSlice([]float32{2})
	out, _ := f.Run(x)
	b.Run("run", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := f.Run(x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("run-into", func(b *testing.B) {
		b.ReportAllocs()
		outs := []*tensor.Array{out}
		for range b.N {
			if err := f.RunInto(outs, x); err != nil {
				b.Fatal(err)
			}
		}
	})
}
