package kernels_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestPoolShortcutInPrograms: max/min pooling whose forward pass takes
// the extremum shortcut inside larger programs — its value also read by
// other ops and by its own gradient, under vmap and in a fori_loop, on
// windows of ±0 ties and NaNs, integer inputs — has the
// reference evaluator's bits, fused and op by op.
func TestPoolShortcutInPrograms(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()), 2, float32(math.Inf(-1))}
	x := make([]float32, 3*6*5*2)
	for i := range x {
		x[i] = vals[(i*3+i/7)%len(vals)]
	}
	xf := tensor.Must(tensor.FromSlice(x, 3, 6, 5, 2))
	win := []int{1, 3, 2, 1}
	opt := trace.WindowOptions{Strides: []int{1, 2, 1, 1}, PaddingMode: "SAME"}
	programs := map[string]func(a []trace.Value) []trace.Value{
		"value-and-grad": func(a []trace.Value) []trace.Value {
			y, pull := trace.VJP(func(v []trace.Value) []trace.Value {
				return []trace.Value{trace.ReduceWindowMax(v[0], win, opt)}
			}, a[0])
			return append(pull(y[0].Mul(trace.Float(3))), y[0], y[0].Add(trace.Float(1)))
		},
		"vmap": func(a []trace.Value) []trace.Value {
			return trace.Vmap(func(v []trace.Value) []trace.Value {
				return []trace.Value{trace.ReduceWindowMin(v[0], win[1:], trace.WindowOptions{Strides: []int{2, 1, 1}, PaddingMode: "SAME"})}
			}, trace.VmapOptions{})(a[0])
		},
		"fori": func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
				same := trace.WindowOptions{PaddingMode: "SAME"}
				return []trace.Value{trace.ReduceWindowMin(trace.ReduceWindowMax(c[0], win, same), []int{2, 1, 2, 2}, same)}
			}, a[0])
		},
	}
	for name, fn := range programs {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16, tensor.I32, tensor.U8} {
			if name == "value-and-grad" && !d.IsFloat() {
				continue
			}
			fused, opByOp, ref := runNarrow(t, []*tensor.Array{xf.Astype(d)}, fn)
			for i := range ref {
				for what, got := range map[string]*tensor.Array{"fused": fused[i], "op by op": opByOp[i]} {
					if at, ok := sameBits(got, ref[i]); !ok {
						t.Errorf("%s %v %s: output %d differs from the reference at %d", name, d, what, i, at)
					}
				}
			}
		}
	}
}
