package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A bf16 convolution follows dot_general's bf16 rule over its K order
// (docs/SPEC.md §3) on the bf16 GEMM, at every tier: its K = (kernel
// position, input feature) order taken in pairs, the odd product first,
// subnormal inputs read as zeros. 2²⁴ + 1 + 1 − 2²⁴ is 1 in pairs (0 in
// order), and 2⁻¹³⁰ · 2¹⁰⁰ is 0 (DAZ; 2⁻³⁰ without it), with a bf16 and
// with an f32 result (preferred_element_type).
func TestConvBF16PairRule(t *testing.T) {
	nwc := trace.ConvOptions{DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}
	for _, c := range []struct {
		name string
		x, w []float32
		xs   []int
		ws   []int
		want float32
	}{
		// K order (kx, c): products 2²⁴, 1, 1, −2²⁴.
		{"cancel", []float32{1 << 12, 1, 1, -(1 << 12)}, []float32{1 << 12, 1, 1, 1 << 12}, []int{1, 2, 2}, []int{2, 2, 1}, 1},
		{"daz", []float32{0x1p-130, 0}, []float32{0x1p100, 1}, []int{1, 1, 2}, []int{1, 2, 1}, 0},
	} {
		x := tensor.Must(tensor.FromSlice(c.x, c.xs...)).Astype(tensor.BF16)
		w := tensor.Must(tensor.FromSlice(c.w, c.ws...)).Astype(tensor.BF16)
		for _, pref := range []bool{false, true} {
			var opts []trace.DotOption
			if pref {
				opts = []trace.DotOption{trace.PreferredElementType(tensor.F32)}
			}
			for _, tier := range simd.Available() {
				restore := simd.SetLevel(tier)
				exe := compileShapes(t, func(a []trace.Value) []trace.Value {
					return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], nwc, opts...)}
				}, []tensor.DType{tensor.BF16, tensor.BF16}, c.xs, c.ws)
				var conv *convKernel
				for _, k := range exe.kernels {
					if ck, ok := k.(*convKernel); ok {
						conv = ck
					}
				}
				if conv == nil || !conv.bf16 || conv.batch != nil {
					t.Fatalf("%s %v: conv kernel %+v, want the bf16 GEMM path", c.name, tier, conv)
				}
				outs, err := exe.Run([]*tensor.Array{x, w})
				if err != nil {
					t.Fatal(err)
				}
				if d := outs[0].DType(); d != map[bool]tensor.DType{false: tensor.BF16, true: tensor.F32}[pref] {
					t.Fatalf("%s: result dtype %s", c.name, d)
				}
				if got := outs[0].Astype(tensor.F32).Data().([]float32)[0]; got != c.want {
					t.Errorf("%s %v (preferred f32: %v) = %v, want %v", c.name, tier, pref, got, c.want)
				}
				restore()
			}
		}
	}
}
