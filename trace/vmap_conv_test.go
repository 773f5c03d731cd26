package trace_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestVmapConv checks conv_general_dilated with the input, the kernel or
// both batched, on every in_axes, in NCHW and NHWC layouts, with feature
// groups, strides, padding and dilations.
func TestVmapConv(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	conv := func(o trace.ConvOptions) func([]V) []V {
		return oneOut(func(a []V) V { return trace.ConvGeneralDilated(a[0], a[1], o) })
	}
	plain := conv(trace.ConvOptions{})
	strided := conv(trace.ConvOptions{WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 0}, {-1, 2}}, LhsDilation: []int{1, 2}, RhsDilation: []int{2, 1}})
	nhwc := conv(trace.ConvOptions{DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}, PaddingMode: "SAME"})
	grouped := conv(trace.ConvOptions{FeatureGroupCount: 2, PaddingMode: "SAME"})
	groupedNHWC := conv(trace.ConvOptions{DimensionNumbers: [3]string{"HNWC", "OHWI", "CHWN"}, FeatureGroupCount: 3})
	conv1d := conv(trace.ConvOptions{WindowStrides: []int{2}, PaddingMode: "VALID"})
	runVmapCases(t, []vmapCase{
		{"lhs", plain, inAxes(0, none), []*tensor.Array{f32(3, 2, 2, 5, 4), f32(3, 2, 2, 2)}},
		{"rhs", plain, inAxes(none, 1), []*tensor.Array{f32(2, 2, 5, 4), f32(3, 3, 2, 2, 2)}},
		{"both", plain, inAxes(-1, 0), []*tensor.Array{f32(2, 2, 5, 4, 3), f32(3, 3, 2, 2, 2)}},
		{"strided lhs", strided, inAxes(2, none), []*tensor.Array{f32(1, 2, 3, 6, 5), f32(3, 2, 2, 3)}},
		{"strided rhs", strided, inAxes(none, -1), []*tensor.Array{f32(1, 2, 6, 5), f32(3, 2, 2, 3, 2)}},
		{"strided both", strided, inAxes(0, 0), []*tensor.Array{f32(2, 1, 2, 6, 5), f32(2, 3, 2, 2, 3)}},
		{"nhwc lhs", nhwc, inAxes(1, none), []*tensor.Array{f32(2, 3, 5, 4, 2), f32(3, 2, 2, 4)}},
		{"nhwc rhs", nhwc, inAxes(none, 0), []*tensor.Array{f32(2, 5, 4, 2), f32(3, 3, 2, 2, 4)}},
		{"nhwc both", nhwc, inAxes(-1, 2), []*tensor.Array{f32(2, 5, 4, 2, 3), f32(3, 2, 3, 2, 4)}},
		{"grouped lhs", grouped, inAxes(0, none), []*tensor.Array{f32(3, 2, 4, 5, 4), f32(6, 2, 3, 2)}},
		{"grouped rhs", grouped, inAxes(none, 0), []*tensor.Array{f32(2, 4, 5, 4), f32(3, 6, 2, 3, 2)}},
		{"grouped both", grouped, inAxes(1, -1), []*tensor.Array{f32(2, 3, 4, 5, 4), f32(6, 2, 3, 2, 3)}},
		{"grouped layouts lhs", groupedNHWC, inAxes(0, none), []*tensor.Array{f32(2, 4, 2, 5, 6), f32(6, 2, 3, 2)}},
		{"grouped layouts rhs", groupedNHWC, inAxes(none, 2), []*tensor.Array{f32(4, 2, 5, 6), f32(6, 2, 2, 3, 2)}},
		{"grouped layouts both", groupedNHWC, inAxes(-1, 0), []*tensor.Array{f32(4, 2, 5, 6, 2), f32(2, 6, 2, 3, 2)}},
		{"1d rhs", conv1d, inAxes(none, 0), []*tensor.Array{f32(2, 3, 7), f32(4, 5, 3, 2)}},
		{"int", oneOut(func(a []V) V {
			return trace.ConvGeneralDilated(a[0].Astype(tensor.I32), a[1].Astype(tensor.I32), trace.ConvOptions{})
		}), inAxes(0, 0), []*tensor.Array{f32(2, 1, 2, 3, 3), f32(2, 2, 2, 2, 2)}},
		{"preferred f32 of bf16", oneOut(func(a []V) V {
			return trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{FeatureGroupCount: 2}, trace.PreferredElementType(tensor.F32))
		}), inAxes(1, 0), []*tensor.Array{randArray(r, tensor.BF16, 2, 3, 4, 5, 4), randArray(r, tensor.BF16, 3, 6, 2, 3, 2)}},
		{"empty batch", plain, inAxes(0, none), []*tensor.Array{f32(0, 2, 2, 5, 4), f32(3, 2, 2, 2)}},
	})
}

// TestVmapConvProperty draws convolutions of random layouts, sizes,
// strides, paddings (negative too), dilations and feature groups, with
// the input, the kernel or both batched along random axes: the vmapped
// convolution equals the stacked examples bit for bit.
func TestVmapConvProperty(t *testing.T) {
	layouts := map[int][][3]string{
		1: {{"NCW", "OIW", "NCW"}, {"NWC", "WIO", "NWC"}, {"WNC", "IOW", "CWN"}},
		2: {{"NCHW", "OIHW", "NCHW"}, {"NHWC", "HWIO", "NHWC"}, {"HNWC", "OHWI", "CHWN"}},
	}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 103))
		ns := 1 + r.IntN(2)
		spec := layouts[ns][r.IntN(3)]
		g := 1 + r.IntN(3)
		dims := map[byte]int{'N': 1 + r.IntN(2), 'C': g * (1 + r.IntN(2)), 'O': g * (1 + r.IntN(2))}
		dims['I'] = dims['C'] / g
		o := trace.ConvOptions{DimensionNumbers: spec, FeatureGroupCount: g}
		kernel := map[byte]int{}
		for _, sp := range "HW"[:ns] {
			c := byte(sp)
			if ns == 1 {
				c = 'W'
			}
			dims[c] = 3 + r.IntN(4)
			kernel[c] = 1 + r.IntN(3)
			o.WindowStrides = append(o.WindowStrides, 1+r.IntN(2))
			o.Padding = append(o.Padding, [2]int{r.IntN(4) - 1, r.IntN(4) - 1})
			o.LhsDilation = append(o.LhsDilation, 1+r.IntN(2))
			o.RhsDilation = append(o.RhsDilation, 1+r.IntN(2))
		}
		shape := func(s string, sizes func(c byte) int) []int {
			out := make([]int, len(s))
			for i := range len(s) {
				out[i] = sizes(s[i])
			}
			return out
		}
		lhs := shape(spec[0], func(c byte) int { return dims[c] })
		rhs := shape(spec[1], func(c byte) int {
			if k, ok := kernel[c]; ok {
				return k
			}
			return dims[c]
		})
		f := oneOut(func(a []V) V { return trace.ConvGeneralDilated(a[0], a[1], o) })
		if _, err := trace.Trace(promote.Config{}, abstractsOf([]*tensor.Array{randArray(r, tensor.F32, lhs...), randArray(r, tensor.F32, rhs...)}), f); err != nil {
			continue // a padding that crops too much
		}
		size := 1 + r.IntN(3)
		f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
		axes := make([]int, 2)
		ins := make([]*tensor.Array, 2)
		axes[0], ins[0] = batchedInput(r, lhs, size, f32)
		axes[1], ins[1] = batchedInput(r, rhs, size, f32)
		if axes[0] == none && axes[1] == none {
			axes[1], ins[1] = 0, f32(append([]int{size}, rhs...)...)
		}
		name := fmt.Sprintf("seed %d %v lhs %v rhs %v groups %d in_axes %s", seed, spec, lhs, rhs, g, axesText(axes))
		t.Run(name, func(t *testing.T) { checkVmap(t, f, trace.VmapOptions{InAxes: axes}, ins...) })
	}
}
