package trace_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// randInts is an integer array of dtype d with values in [lo, hi]: the
// index tests reach past both ends of the dims they index.
func randInts(r *rand.Rand, d tensor.DType, lo, hi int, shape ...int) *tensor.Array {
	n := 1
	for _, s := range shape {
		n *= s
	}
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = int64(lo + r.IntN(hi-lo+1))
	}
	return tensor.Must(tensor.New(tensor.I64, shape, xs)).Astype(d)
}

// vmapCase is a function, its vmap options and its arguments.
type vmapCase struct {
	name string
	fn   func([]V) []V
	o    trace.VmapOptions
	ins  []*tensor.Array
}

func runVmapCases(t *testing.T, cases []vmapCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkVmap(t, tc.fn, tc.o, tc.ins...) })
	}
}

func inAxes(a ...int) trace.VmapOptions { return trace.VmapOptions{InAxes: a} }

func oneOut(f func(a []V) V) func([]V) []V { return func(a []V) []V { return []V{f(a)} } }

const none = trace.NoAxis

// TestVmapGather checks gather with the operand, the indices or both
// batched, on every in_axes, clamping and filling out-of-range windows.
func TestVmapGather(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	ints := func(d tensor.DType, lo, hi int, shape ...int) *tensor.Array { return randInts(r, d, lo, hi, shape...) }
	// rows: operand [5, 4], indices [3, 1] → [3, 4]
	rows := trace.GatherDims{OffsetDims: []int{1}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}}
	// windows: operand [5, 4], indices [3, 2] → [3, 2, 3]
	windows := trace.GatherDims{OffsetDims: []int{1, 2}, StartIndexMap: []int{0, 1}}
	// paired: operand [3, 5], indices [3, 2, 1], dim 0 of each paired → [3, 2]
	paired := trace.GatherDims{OffsetDims: nil, CollapsedSliceDims: []int{1}, StartIndexMap: []int{1},
		OperandBatchingDims: []int{0}, StartIndicesBatchingDims: []int{0}}
	gather := func(d trace.GatherDims, sizes []int, opts ...trace.IndexOption) func([]V) []V {
		return oneOut(func(a []V) V { return trace.Gather(a[0], a[1], d, sizes, opts...) })
	}
	fill := trace.WithMode(trace.ModeFill)
	var cases []vmapCase
	for _, m := range []struct {
		name string
		opts []trace.IndexOption
	}{{"clip", nil}, {"fill", []trace.IndexOption{fill}}, {"fill value", []trace.IndexOption{fill, trace.WithFill(trace.Float(-1))}}} {
		cases = append(cases,
			vmapCase{m.name + " rows operand", gather(rows, []int{1, 4}, m.opts...), inAxes(0, none), []*tensor.Array{f32(2, 5, 4), ints(tensor.I32, -2, 6, 3, 1)}},
			vmapCase{m.name + " rows indices", gather(rows, []int{1, 4}, m.opts...), inAxes(none, 1), []*tensor.Array{f32(5, 4), ints(tensor.I32, -2, 6, 3, 2, 1)}},
			vmapCase{m.name + " rows both", gather(rows, []int{1, 4}, m.opts...), inAxes(-1, 0), []*tensor.Array{f32(5, 4, 3), ints(tensor.I64, -2, 6, 3, 3, 1)}},
			vmapCase{m.name + " windows operand", gather(windows, []int{2, 3}, m.opts...), inAxes(1, none), []*tensor.Array{f32(5, 2, 4), ints(tensor.I32, -1, 5, 3, 2)}},
			vmapCase{m.name + " windows indices", gather(windows, []int{2, 3}, m.opts...), inAxes(none, -1), []*tensor.Array{f32(5, 4), ints(tensor.U8, 0, 5, 3, 2, 4)}},
			vmapCase{m.name + " windows both", gather(windows, []int{2, 3}, m.opts...), inAxes(2, 0), []*tensor.Array{f32(5, 4, 2), ints(tensor.I32, -1, 5, 2, 3, 2)}},
			vmapCase{m.name + " paired operand", gather(paired, []int{1, 1}, m.opts...), inAxes(0, none), []*tensor.Array{f32(2, 3, 5), ints(tensor.I32, -1, 6, 3, 2, 1)}},
			vmapCase{m.name + " paired indices", gather(paired, []int{1, 1}, m.opts...), inAxes(none, 1), []*tensor.Array{f32(3, 5), ints(tensor.I32, -1, 6, 3, 4, 2, 1)}},
			vmapCase{m.name + " paired both", gather(paired, []int{1, 1}, m.opts...), inAxes(1, -1), []*tensor.Array{f32(3, 4, 5), ints(tensor.I32, -1, 6, 3, 2, 1, 4)}},
		)
	}
	cases = append(cases,
		vmapCase{"take", oneOut(func(a []V) V { return trace.Take(a[0], a[1], 1) }), inAxes(0, 0), []*tensor.Array{f32(3, 4, 5), ints(tensor.I32, -5, 4, 3, 6)}},
		vmapCase{"take along axis", oneOut(func(a []V) V { return trace.TakeAlongAxis(a[0], a[1], 0) }), inAxes(none, 0), []*tensor.Array{f32(4, 3), ints(tensor.I32, 0, 3, 2, 4, 3)}},
		vmapCase{"at get", oneOut(func(a []V) V { return a[0].At(a[1], trace.Range(1, 3)).Get() }), inAxes(1, none), []*tensor.Array{f32(5, 3, 4), ints(tensor.I32, -5, 4, 2)}},
		vmapCase{"int operand", gather(rows, []int{1, 4}, fill), inAxes(0, 0), []*tensor.Array{ints(tensor.I16, -9, 9, 2, 5, 4), ints(tensor.I32, -2, 6, 2, 3, 1)}},
	)
	runVmapCases(t, cases)
}

// TestVmapScatter checks every scatter with each combination of batched
// operand, indices and updates, repeated and out-of-range indices
// included (their order of application, and dropping or clamping).
func TestVmapScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	ints := func(lo, hi int, shape ...int) *tensor.Array { return randInts(r, tensor.I32, lo, hi, shape...) }
	// rows: operand [5, 3], indices [4, 1], updates [4, 3]
	rows := trace.ScatterDims{UpdateWindowDims: []int{1}, InsertedWindowDims: []int{0}, ScatterDimsToOperandDims: []int{0}}
	// windows: operand [5, 4], indices [3, 2], updates [3, 2, 2]
	windows := trace.ScatterDims{UpdateWindowDims: []int{1, 2}, ScatterDimsToOperandDims: []int{0, 1}}
	var cases []vmapCase
	for _, op := range []trace.Op{trace.OpScatter, trace.OpScatterAdd, trace.OpScatterMul, trace.OpScatterMin, trace.OpScatterMax} {
		for _, m := range []struct {
			name string
			opts []trace.IndexOption
		}{{"drop", nil}, {"clip", []trace.IndexOption{trace.WithMode(trace.ModeClip)}}} {
			scatter := func(d trace.ScatterDims) func([]V) []V {
				return oneOut(func(a []V) V { return trace.Scatter(op, a[0], a[1], a[2], d, m.opts...) })
			}
			name := op.String() + " " + m.name
			cases = append(cases,
				vmapCase{name + " operand", scatter(rows), inAxes(0, none, none), []*tensor.Array{f32(3, 5, 3), ints(-1, 5, 4, 1), f32(4, 3)}},
				vmapCase{name + " indices", scatter(rows), inAxes(none, 1, none), []*tensor.Array{f32(5, 3), ints(-1, 5, 4, 3, 1), f32(4, 3)}},
				vmapCase{name + " updates", scatter(rows), inAxes(none, none, -1), []*tensor.Array{f32(5, 3), ints(-1, 5, 4, 1), f32(4, 3, 2)}},
				vmapCase{name + " operand updates", scatter(rows), inAxes(1, none, 0), []*tensor.Array{f32(5, 2, 3), ints(-1, 5, 4, 1), f32(2, 4, 3)}},
				vmapCase{name + " all", scatter(rows), inAxes(-1, 0, 1), []*tensor.Array{f32(5, 3, 2), ints(-1, 5, 2, 4, 1), f32(4, 2, 3)}},
				vmapCase{name + " windows indices updates", scatter(windows), inAxes(none, 0, 0), []*tensor.Array{f32(5, 4), ints(-1, 4, 2, 3, 2), f32(2, 3, 2, 2)}},
				vmapCase{name + " windows all", scatter(windows), inAxes(0, -1, 1), []*tensor.Array{f32(3, 5, 4), ints(-1, 4, 3, 2, 3), f32(3, 3, 2, 2)}},
			)
		}
	}
	cases = append(cases,
		vmapCase{"at add", oneOut(func(a []V) V { return a[0].At(a[1]).Add(a[2]) }), inAxes(0, 0, none), []*tensor.Array{f32(3, 6), ints(-6, 5, 3, 4), f32(4)}},
		vmapCase{"at set f64 updates", oneOut(func(a []V) V { return a[0].At(a[1]).Set(a[2]) }), inAxes(none, 0, 0), []*tensor.Array{f32(6), ints(0, 5, 3, 4), randArray(r, tensor.F64, 3, 4)}},
	)
	runVmapCases(t, cases)
}

// TestVmapDynamicSlice checks dynamic_slice and dynamic_update_slice with
// batched and unbatched operands, updates and starts; starts out of range
// (clamped), negative (from the end) and of different dtypes.
func TestVmapDynamicSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	ints := func(d tensor.DType, lo, hi int, shape ...int) *tensor.Array { return randInts(r, d, lo, hi, shape...) }
	ds := oneOut(func(a []V) V { return trace.DynamicSlice(a[0], []V{a[1], a[2]}, []int{2, 3}) })
	dus := oneOut(func(a []V) V { return trace.DynamicUpdateSlice(a[0], a[1], []V{a[2], a[3]}) })
	cases := []vmapCase{
		{"slice operand", ds, inAxes(0, none, none), []*tensor.Array{f32(3, 5, 4), ints(tensor.I32, 2, 2), ints(tensor.I32, 3, 3)}},
		{"slice one start", ds, inAxes(none, 0, none), []*tensor.Array{f32(5, 4), ints(tensor.I32, -7, 6, 4), ints(tensor.I32, 1, 1)}},
		{"slice starts", ds, inAxes(none, 0, 0), []*tensor.Array{f32(5, 4), ints(tensor.I32, -7, 6, 4), ints(tensor.I32, -5, 5, 4)}},
		{"slice all", ds, inAxes(-1, 0, 0), []*tensor.Array{f32(5, 4, 4), ints(tensor.I32, -7, 6, 4), ints(tensor.I32, -5, 5, 4)}},
		{"slice mixed dtypes", ds, inAxes(1, 0, 0), []*tensor.Array{f32(5, 3, 4), ints(tensor.U8, 0, 9, 3), ints(tensor.I64, -5, 5, 3)}},
		{"slice u64 start", ds, inAxes(none, 0, none), []*tensor.Array{f32(5, 4), tensor.Must(tensor.FromSlice([]uint64{0, 3, 1 << 63, ^uint64(0)})), ints(tensor.I32, 1, 1)}},
		{"update operand", dus, inAxes(0, none, none, none), []*tensor.Array{f32(2, 5, 4), f32(2, 3), ints(tensor.I32, 4, 4), ints(tensor.I32, -1, -1)}},
		{"update update", dus, inAxes(none, 1, none, none), []*tensor.Array{f32(5, 4), f32(2, 3, 3), ints(tensor.I32, 4, 4), ints(tensor.I32, 1, 1)}},
		{"update starts", dus, inAxes(none, none, 0, 0), []*tensor.Array{f32(5, 4), f32(2, 3), ints(tensor.I32, -7, 6, 4), ints(tensor.I32, -5, 5, 4)}},
		{"update all", dus, inAxes(-1, 0, 0, 0), []*tensor.Array{f32(5, 4, 4), f32(4, 2, 3), ints(tensor.I32, -7, 6, 4), ints(tensor.I16, -5, 5, 4)}},
		{"update one start", dus, inAxes(0, none, none, 0), []*tensor.Array{f32(3, 5, 4), f32(2, 3), ints(tensor.I32, 1, 1), ints(tensor.U16, 0, 5, 3)}},
	}
	runVmapCases(t, cases)
}

// TestVmapDynamicSliceGather checks that a batched start turns a dynamic
// slice into a gather (and an update into a scatter), as JAX's, and an
// unbatched one keeps it.
func TestVmapDynamicSliceGather(t *testing.T) {
	for _, tc := range []struct {
		axes      []int
		ins       []string
		want, not string
	}{
		{[]int{0, none}, []string{"f32[3,5]", "i32[]"}, "dynamic_slice", "gather"},
		{[]int{none, 0}, []string{"f32[5]", "i32[3]"}, "gather", "dynamic_slice"},
	} {
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{in(t, tc.ins[0]), in(t, tc.ins[1])}, func(a []V) []V {
			return trace.Vmap(func(e []V) []V {
				return []V{trace.DynamicSlice(e[0], []V{e[1]}, []int{2}), trace.DynamicUpdateSlice(e[0], trace.Float(1).BroadcastTo(2), []V{e[1]})}
			}, trace.VmapOptions{InAxes: tc.axes})(a...)
		})
		if err != nil {
			t.Fatal(err)
		}
		if s := p.String(); !strings.Contains(s, tc.want) || strings.Contains(s, tc.not) {
			t.Errorf("in_axes %v: want %s, not %s:\n%s", tc.axes, tc.want, tc.not, s)
		}
	}
}
