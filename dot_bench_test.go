package kiln_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// BenchmarkMatMulPreferred times n×n matmuls with and without a
// preferred_element_type in one run (compare the ratios, not the times):
// f32, bf16 → bf16 (f32 accumulation, rounded), bf16 → f32, i8 → i8 (wraps)
// and i8 → i32. The preferred forms run as lowering expands them: the
// operands converted, then a dot of the wide dtype.
func BenchmarkMatMulPreferred(b *testing.B) {
	for _, n := range []int{256, 512} {
		for _, c := range []struct {
			name    string
			in      tensor.DType
			pref    tensor.DType
			hasPref bool
		}{
			{"f32", tensor.F32, 0, false}, {"bf16", tensor.BF16, 0, false}, {"bf16->f32", tensor.BF16, tensor.F32, true},
			{"i8", tensor.I8, 0, false}, {"i8->i32", tensor.I8, tensor.I32, true},
		} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				f := kiln.Jit(func(x, y kiln.Value) kiln.Value {
					if c.hasPref {
						return kiln.MatMul(x, y, kiln.PreferredElementType(c.pref))
					}
					return x.MatMul(y)
				})
				x := tensor.Must(tensor.Must(tensor.Arange(tensor.F32, n*n)).Reshape(n, n)).Astype(c.in)
				out, err := f.Run(x, x)
				if err != nil {
					b.Fatal(err)
				}
				outs := []*tensor.Array{out}
				b.ResetTimer()
				for b.Loop() {
					if err := f.RunInto(outs, x, x); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
