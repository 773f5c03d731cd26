package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// indexCases cover rev and negative-step slices, gather, the scatters and
// the dynamic slices through their user-level builders (NumPy indexing,
// take, take_along_axis, one_hot, x.at[…]) and directly, over every
// dtype class, every index dtype, every mode, out-of-bounds and repeated
// indices (Input's integers include −20…20 and the dtypes' extremes), and
// sizes large enough for the parallel paths.
func indexCases() []Case {
	var cs []Case
	add := func(name string, inputs []*tensor.Array, f func(a []trace.Value) trace.Value) {
		cs = append(cs, Case{Name: name, Inputs: inputs, Fn: one(f)})
	}
	for _, d := range []tensor.DType{tensor.Bool, tensor.I8, tensor.U16, tensor.F16, tensor.BF16, tensor.F32, tensor.F64, tensor.C64, tensor.C128} {
		x := Input(d, 50, 3, 4, 5)
		s := d.String()
		add("flip/"+s, []*tensor.Array{x}, func(a []trace.Value) trace.Value { return a[0].Flip(0, 2) })
		add("slice-negative-step/"+s, []*tensor.Array{x}, func(a []trace.Value) trace.Value {
			return a[0].Index(trace.Step(-1), trace.RangeStep(3, 0, -2), trace.All)
		})
		add("index-array/"+s, []*tensor.Array{x, Input(tensor.I32, 51, 2, 3)}, func(a []trace.Value) trace.Value {
			return a[0].Index(trace.All, a[1], trace.Step(-2))
		})
		add("index-mixed/"+s, []*tensor.Array{x, Input(tensor.I64, 52, 4), Input(tensor.U8, 53, 4)}, func(a []trace.Value) trace.Value {
			return a[0].Index(a[1], 1, a[2]) // advanced, int, advanced: adjacent, then placed first anyway
		})
		add("index-split/"+s, []*tensor.Array{x, Input(tensor.I16, 54, 2, 1)}, func(a []trace.Value) trace.Value {
			return a[0].Index(a[1], trace.Range(1, 3), []int{0, 4, -1})
		})
		add("index-scalar/"+s, []*tensor.Array{x, Input(tensor.I8, 55)}, func(a []trace.Value) trace.Value {
			return a[0].Index(trace.Ellipsis, a[1], trace.NewAxis)
		})
		add("take-fill/"+s, []*tensor.Array{x, Input(tensor.I32, 56, 7)}, func(a []trace.Value) trace.Value { return trace.Take(a[0], a[1], 1) })
		add("take-clip/"+s, []*tensor.Array{x, Input(tensor.U32, 57, 2, 3)}, func(a []trace.Value) trace.Value {
			return trace.Take(a[0], a[1], -1, trace.WithMode(trace.ModeClip))
		})
		add("take-wrap-flat/"+s, []*tensor.Array{x, Input(tensor.I64, 58, 9)}, func(a []trace.Value) trace.Value {
			return trace.Take(a[0], a[1], trace.AxisNone, trace.WithWrap())
		})
		add("take-along/"+s, []*tensor.Array{x, Input(tensor.I32, 59, 3, 1, 6)}, func(a []trace.Value) trace.Value {
			return trace.TakeAlongAxis(a[0], a[1], 2)
		})
		add("get-fill/"+s, []*tensor.Array{x, Input(tensor.I32, 60, 6)}, func(a []trace.Value) trace.Value {
			return a[0].At(trace.All, a[1]).Get(trace.WithMode(trace.ModeFill), trace.WithFill(trace.Int(1)))
		})
		for _, u := range []struct {
			name string
			f    func(r trace.Ref, v trace.Value, opts ...trace.IndexOption) trace.Value
		}{{"set", trace.Ref.Set}, {"add", trace.Ref.Add}, {"mul", trace.Ref.Mul}, {"min", trace.Ref.Min}, {"max", trace.Ref.Max}} {
			add(fmt.Sprintf("at-%s/%s", u.name, s), []*tensor.Array{x, Input(tensor.I32, 61, 8), Input(d, 62, 8, 5)}, func(a []trace.Value) trace.Value {
				return u.f(a[0].At(1, a[1]), a[2]) // repeated and out-of-bounds rows: order and drop
			})
			add(fmt.Sprintf("at-%s-clip/%s", u.name, s), []*tensor.Array{x, Input(tensor.I8, 63, 2, 2), Input(d, 64, 3, 2, 2, 2)}, func(a []trace.Value) trace.Value {
				return u.f(a[0].At(trace.All, a[1], trace.Step(-3)), a[2], trace.WithMode(trace.ModeClip))
			})
		}
		add("dynamic-slice/"+s, []*tensor.Array{x, Input(tensor.I8, 65), Input(tensor.U64, 66), Input(tensor.I32, 67)}, func(a []trace.Value) trace.Value {
			return trace.DynamicSlice(a[0], []trace.Value{a[1].Reshape(), a[2].Reshape(), a[3].Reshape()}, []int{2, 2, 3})
		})
		add("dynamic-update-slice/"+s, []*tensor.Array{x, Input(d, 68, 1, 3, 2), Input(tensor.I16, 69), Input(tensor.I64, 70)}, func(a []trace.Value) trace.Value {
			return trace.DynamicUpdateSlice(a[0], a[1], []trace.Value{a[2].Reshape(), trace.Int(-1), a[3].Reshape()})
		})
	}
	for _, idt := range []tensor.DType{tensor.I8, tensor.I16, tensor.I32, tensor.I64, tensor.U8, tensor.U16, tensor.U32, tensor.U64} {
		add("index-dtype/"+idt.String(), []*tensor.Array{Input(tensor.F32, 71, 30, 2), Input(idt, 72, 40)}, func(a []trace.Value) trace.Value {
			return a[0].Index(a[1])
		})
		add("scatter-dtype/"+idt.String(), []*tensor.Array{Input(tensor.F32, 73, 30, 2), Input(idt, 74, 40)}, func(a []trace.Value) trace.Value {
			return a[0].At(a[1]).Add(trace.Float(0.5))
		})
	}
	cs = append(cs, laxIndexCases()...)
	return cs
}

// laxIndexCases call gather and scatter with dimension numbers the NumPy
// builders do not produce (offset dims before batch dims, batching dims,
// windows wider than 1 on indexed dims), one_hot, and large operands.
func laxIndexCases() []Case {
	gdims := trace.GatherDims{OffsetDims: []int{0, 3}, CollapsedSliceDims: []int{1}, StartIndexMap: []int{1, 2}}
	bdims := trace.GatherDims{OffsetDims: []int{2}, CollapsedSliceDims: []int{1}, StartIndexMap: []int{1},
		OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{0}}
	return []Case{
		{Name: "gather-windows", Inputs: []*tensor.Array{Input(tensor.F64, 80, 4, 6, 7), Input(tensor.I32, 81, 2, 3, 2)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.Gather(a[0], a[1], gdims, []int{3, 1, 4}) })},
		{Name: "gather-windows-fill", Inputs: []*tensor.Array{Input(tensor.I16, 82, 4, 6, 7), Input(tensor.I64, 83, 2, 3, 2)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.Gather(a[0], a[1], gdims, []int{3, 1, 4}, trace.WithMode(trace.ModeFill))
			})},
		{Name: "gather-batching", Inputs: []*tensor.Array{Input(tensor.F32, 84, 5, 9, 3), Input(tensor.U8, 85, 5, 4, 1)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.Gather(a[0], a[1], bdims, []int{1, 1, 3}) })},
		{Name: "scatter-batching", Inputs: []*tensor.Array{Input(tensor.F32, 86, 5, 9, 3), Input(tensor.I32, 87, 5, 4, 1), Input(tensor.F32, 88, 5, 4, 3)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.Scatter(trace.OpScatterAdd, a[0], a[1], a[2], trace.ScatterDimsOf(bdims))
			})},
		{Name: "scatter-windows-clip", Inputs: []*tensor.Array{Input(tensor.F16, 89, 4, 6, 7), Input(tensor.I32, 90, 2, 3, 2), Input(tensor.F16, 91, 3, 2, 3, 4)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.Scatter(trace.OpScatterMax, a[0], a[1], a[2], trace.ScatterDimsOf(gdims), trace.WithMode(trace.ModeClip))
			})},
		{Name: "take-no-indices", Inputs: []*tensor.Array{Input(tensor.F32, 102, 3, 4), Input(tensor.I32, 103, 0)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.Take(a[0], a[1], 1) })}, // a result with a zero dim
		{Name: "one-hot", Inputs: []*tensor.Array{Input(tensor.I8, 92, 3, 4)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.OneHot(a[0], 5, trace.WithAxis(1), trace.WithDType(tensor.F16))
			})},
		{Name: "one-hot-u8-wide", Inputs: []*tensor.Array{Input(tensor.U8, 93, 6)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.OneHot(a[0], 300) })},
		{Name: "embedding-large", Inputs: []*tensor.Array{Input(tensor.F32, 94, 1000, 64), Input(tensor.I32, 95, 3000)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Index(a[1]) })},
		{Name: "embedding-grad-large", Inputs: []*tensor.Array{Input(tensor.F32, 96, 50, 256), Input(tensor.I32, 97, 3000), Input(tensor.F32, 98, 3000, 256)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].At(a[1]).Add(a[2]) })},
		{Name: "flip-large", Inputs: []*tensor.Array{Input(tensor.F64, 99, 300, 400)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Flip() })},
		{Name: "dynamic-slice-large", Inputs: []*tensor.Array{Input(tensor.I32, 100, 500, 300), Input(tensor.I32, 101)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DynamicSlice(a[0], []trace.Value{a[1].Reshape(), trace.Int(7)}, []int{400, 250})
			})},
	}
}
