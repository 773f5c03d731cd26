package opencl

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestPoolExtremumSpecials: a max/min pooling's forward pass (the
// extremum chain alone, lower.WithoutFirstChosen) on windows of
// subnormals, ±0 ties and NaN payloads has the reference evaluator's
// bits, fused, on OpenCL.
func TestPoolExtremumSpecials(t *testing.T) {
	b := testBackend(t)
	vals := []float32{math.Float32frombits(1), -math.Float32frombits(3), math.Float32frombits(0x7fffff),
		0, float32(math.Copysign(0, -1)), math.Float32frombits(0x7fc00123), math.Float32frombits(0xffa00001), 1e-38, -2}
	x := make([]float32, 2*7*6*3)
	for i := range x {
		x[i] = vals[(i*7+i/5)%len(vals)]
		if i%11 < 6 { // mostly subnormals and zeros: windows whose extremum is one
			x[i] = vals[(i*5+i/3)%5]
		}
	}
	in := tensor.Must(tensor.FromSlice(x, 2, 7, 6, 3))
	for _, d := range []tensor.DType{tensor.F32, tensor.F64} {
		arr := in.Astype(d)
		for i, op := range []func(trace.Value, []int, trace.WindowOptions) trace.Value{trace.ReduceWindowMax, trace.ReduceWindowMin, trace.ReduceWindowMax} {
			window, o := []int{1, 3, 2, 1}, trace.WindowOptions{Strides: []int{1, 2, 1, 1}, PaddingMode: "SAME"}
			if i == 2 { // over the batch and features too, dilated, explicit padding
				window, o = []int{2, 2, 1, 2}, trace.WindowOptions{Padding: [][2]int{{0, 1}, {1, -1}, {0, 0}, {1, 0}}, WindowDilation: []int{1, 2, 1, 1}}
			}
			p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(d), Shape: arr.Shape()}}, func(a []trace.Value) []trace.Value {
				return []trace.Value{op(a[0], window, o)}
			})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := reference.Eval(p, []*tensor.Array{arr}, reference.Options{Transcendental: kernels.Transcendental})
			if err != nil {
				t.Fatal(err)
			}
			m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
			if err != nil {
				t.Fatal(err)
			}
			took := 0
			for _, f := range m.Fusions {
				if lower.WithoutFirstChosen(f) != nil {
					took++
				}
			}
			if took != 1 {
				t.Fatalf("%v case %d: %d fusions take the extremum shortcut, want 1", d, i, took)
			}
			exe, err := b.CompileModule(m)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exe.Run([]*tensor.Array{arr})
			exe.Close()
			if err != nil {
				t.Fatal(err)
			}
			g := out[0].Astype(tensor.F64).Data().([]float64)
			w := ref[0].Astype(tensor.F64).Data().([]float64)
			for j := range w {
				if math.Float64bits(g[j]) != math.Float64bits(w[j]) {
					t.Fatalf("%v case %d: element %d is %x, the reference's %x", d, i, j, math.Float64bits(g[j]), math.Float64bits(w[j]))
				}
			}
		}
	}
}
