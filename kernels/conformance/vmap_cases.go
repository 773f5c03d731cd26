package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// vmapCases are the programs trace.Vmap makes of indexing, control flow
// and convolution (issue 28): gathers and scatters whose operand batching
// dims pair each example with its indices, dynamic slices turned into
// clamping gathers and scatters by a batched start, a while whose
// predicate is batched (each example stops after its own number of steps,
// its carry frozen by a select), a scan over batched xs, a cond and a
// switch whose batched index selects among all branches, and
// convolutions with the batch folded into N, the output features or the
// feature groups. The backends must run them as the reference does;
// trace's tests check they are the stacked examples.
func vmapCases() []Case {
	const none = trace.NoAxis
	vmap := func(f func([]trace.Value) []trace.Value, axes ...int) func([]trace.Value) []trace.Value {
		return func(a []trace.Value) []trace.Value { return trace.Vmap(f, trace.VmapOptions{InAxes: axes})(a...) }
	}
	var cs []Case
	for _, d := range []tensor.DType{tensor.F32, tensor.I16, tensor.BF16, tensor.C64} {
		in := func(seed uint64, shape ...int) *tensor.Array { return Input(d, seed, shape...) }
		s := d.String()
		rows := func(a []trace.Value) []trace.Value { return []trace.Value{trace.Take(a[0], a[1], 0)} }
		clip := func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.Take(a[0], a[1], -1, trace.WithMode(trace.ModeClip))}
		}
		addAt := func(a []trace.Value) []trace.Value { return []trace.Value{a[0].At(a[1]).Add(a[2])} }
		maxAt := func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].At(a[1], trace.All).Max(a[2], trace.WithMode(trace.ModeClip))}
		}
		slice := func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.DynamicSlice(a[0], []trace.Value{a[1], trace.Int(1)}, []int{2, 3})}
		}
		update := func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.DynamicUpdateSlice(a[0], a[2], []trace.Value{a[1], a[1]})}
		}
		cs = append(cs,
			Case{Name: "vmap/gather-both/" + s, Inputs: []*tensor.Array{in(100, 4, 6, 3), Input(tensor.I32, 101, 4, 5)}, Fn: vmap(rows, 0, 0)},
			Case{Name: "vmap/gather-operand/" + s, Inputs: []*tensor.Array{in(102, 6, 3, 4), Input(tensor.I64, 103, 5)}, Fn: vmap(clip, -1, none)},
			Case{Name: "vmap/gather-indices/" + s, Inputs: []*tensor.Array{in(104, 6, 3), Input(tensor.U8, 105, 5, 4)}, Fn: vmap(clip, none, 1)},
			Case{Name: "vmap/scatter-add-indices/" + s, Inputs: []*tensor.Array{in(106, 7), Input(tensor.I32, 107, 3, 8), in(108, 8)}, Fn: vmap(addAt, none, 0, none)},
			Case{Name: "vmap/scatter-add-all/" + s, Inputs: []*tensor.Array{in(109, 3, 7), Input(tensor.I32, 110, 8, 3), in(111, 8, 3)}, Fn: vmap(addAt, 0, 1, 1)},
			Case{Name: "vmap/dynamic-slice-start/" + s, Inputs: []*tensor.Array{in(112, 5, 4), Input(tensor.I32, 113, 6)}, Fn: vmap(slice, none, 0)},
			Case{Name: "vmap/dynamic-update-slice-start/" + s, Inputs: []*tensor.Array{in(114, 6, 5, 4), Input(tensor.I16, 115, 6), in(116, 2, 3)}, Fn: vmap(update, 0, 0, none)},
		)
		if d != tensor.C64 {
			cs = append(cs,
				Case{Name: "vmap/scatter-max-clip/" + s, Inputs: []*tensor.Array{in(117, 5, 4, 3), Input(tensor.I32, 118, 5, 6), in(119, 6, 3, 5)}, Fn: vmap(maxAt, 0, 0, -1)})
		}
	}
	f32 := func(seed uint64, shape ...int) *tensor.Array { return Input(tensor.F32, seed, shape...) }
	steps := tensor.Must(tensor.FromSlice([]int32{0, 3, -2, 7, 1}))
	// Each example counts to its own limit, doubling its carry.
	count := func(a []trace.Value) []trace.Value {
		return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[1].Lt(a[1]) },
			func(c []trace.Value) []trace.Value { return []trace.Value{c[0].Add(c[0]), c[1].Add(trace.Int(1))} },
			a[0], trace.Int(0).Astype(tensor.I32))
	}
	fori := func(a []trace.Value) []trace.Value {
		return trace.ForiLoop(trace.Int(0), a[1], func(i trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{c[0].Mul(c[0]).Sub(i.Astype(tensor.F32))}
		}, a[0])
	}
	scan := func(a []trace.Value) []trace.Value {
		c, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
			n := c[0].Mul(a[1]).Add(x[0])
			return []trace.Value{n}, []trace.Value{n.Sum()}
		}, []trace.Value{a[1]}, []trace.Value{a[0]})
		return append(c, ys...)
	}
	cond := func(a []trace.Value) []trace.Value {
		return trace.Cond(a[1].Sum().Gt(trace.Float(0)),
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(o[1]), o[1].Max()} },
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Sub(o[1]), o[0].Min()} }, a[0], a[1])
	}
	switch3 := func(a []trace.Value) []trace.Value {
		return trace.Switch(a[1], []func([]trace.Value) []trace.Value{
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg()} },
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(o[0])} },
			func(o []trace.Value) []trace.Value {
				return trace.ForiLoop(trace.Int(0), trace.Int(3), func(_ trace.Value, c []trace.Value) []trace.Value { return []trace.Value{c[0].Add(c[0])} }, o[0])
			},
		}, a[0])
	}
	cs = append(cs,
		Case{Name: "vmap/while-predicate/f32", Inputs: []*tensor.Array{f32(120, 5, 3), steps}, Fn: vmap(count, 0, 0)},
		Case{Name: "vmap/while-predicate-limit/f32", Inputs: []*tensor.Array{f32(121, 3), steps}, Fn: vmap(count, none, 0)},
		Case{Name: "vmap/while-counter/f32", Inputs: []*tensor.Array{f32(122, 3, 5), tensor.Scalar(int32(4))}, Fn: vmap(count, 1, none)},
		Case{Name: "vmap/fori-bound/f32", Inputs: []*tensor.Array{f32(123, 2), steps}, Fn: vmap(fori, none, 0)},
		Case{Name: "vmap/scan-xs/f32", Inputs: []*tensor.Array{f32(124, 6, 4, 3), f32(125, 3)}, Fn: vmap(scan, 1, none)},
		Case{Name: "vmap/scan-carry/f32", Inputs: []*tensor.Array{f32(126, 6, 3), f32(127, 4, 3)}, Fn: vmap(scan, none, 0)},
		Case{Name: "vmap/cond-predicate/f32", Inputs: []*tensor.Array{f32(128, 6, 2), f32(129, 6, 2)}, Fn: vmap(cond, 0, 0)},
		Case{Name: "vmap/cond-operand/f32", Inputs: []*tensor.Array{f32(130, 6, 2), f32(131, 2)}, Fn: vmap(cond, 0, none)},
		Case{Name: "vmap/switch-index/f32", Inputs: []*tensor.Array{f32(132, 2), Input(tensor.I32, 133, 9)}, Fn: vmap(switch3, none, 0)},
		Case{Name: "vmap/switch-all/f32", Inputs: []*tensor.Array{f32(134, 9, 2), Input(tensor.I32, 135, 9)}, Fn: vmap(switch3, 0, 0)},
	)
	for _, c := range []struct {
		name     string
		lhs, rhs []int
		axes     []int
		opts     trace.ConvOptions
	}{
		{"lhs", []int{3, 2, 2, 5, 4}, []int{3, 2, 2, 2}, []int{0, none}, trace.ConvOptions{PaddingMode: "SAME"}},
		{"rhs", []int{2, 2, 5, 4}, []int{3, 3, 2, 2, 2}, []int{none, 1}, trace.ConvOptions{WindowStrides: []int{2, 1}}},
		{"both", []int{2, 5, 4, 2, 3}, []int{3, 2, 2, 2, 4}, []int{-1, 0}, trace.ConvOptions{DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}, PaddingMode: "SAME"}},
		{"grouped-rhs", []int{2, 4, 5, 4}, []int{3, 6, 2, 3, 2}, []int{none, 0}, trace.ConvOptions{FeatureGroupCount: 2, RhsDilation: []int{1, 2}}},
		{"grouped-both", []int{2, 3, 4, 5, 4}, []int{6, 2, 3, 2, 3}, []int{1, -1}, trace.ConvOptions{FeatureGroupCount: 2, LhsDilation: []int{2, 1}}},
	} {
		for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.BF16, tensor.I32} {
			f := func(a []trace.Value) []trace.Value {
				return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], c.opts)}
			}
			cs = append(cs, Case{Name: fmt.Sprintf("vmap/conv-%s/%s", c.name, d), Inputs: []*tensor.Array{Input(d, 136, c.lhs...), Input(d, 137, c.rhs...)}, Fn: vmap(f, c.axes...)})
		}
	}
	return cs
}
