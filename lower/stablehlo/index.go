package stablehlo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The indexing ops. stablehlo.gather, dynamic_slice and
// dynamic_update_slice clamp their start indices as Kiln does;
// stablehlo.reverse is rev. The compositions:
//   - a fill gather selects the fill value where an index vector's window
//     does not fit (0 ≤ index ≤ dim − window, compared in the index's own
//     dtype);
//   - a scatter's indices are clamped in their own dtype and converted to
//     i64; in drop mode the start of a window that does not fit becomes the
//     dim's size, so that every element of it is out of bounds and skipped
//     (stablehlo.scatter skips elements, Kiln and XLA whole windows);
//   - dynamic slices whose starts have several dtypes clamp them in their
//     own dtype and convert them to i64 (StableHLO wants one).
//
// The order in which a scatter combines repeated indices is the
// implementation's (Kiln applies updates in row-major order).

func dimsAttr(fields []struct {
	name string
	dims []int
}, vectorDim int) string {
	var parts []string
	for _, f := range fields {
		if len(f.dims) > 0 {
			parts = append(parts, f.name+" = "+i64list(f.dims))
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("index_vector_dim = %d", vectorDim)), ", ")
}

func gatherAttrs(d trace.GatherDims, sizes []int, vectorDim int) []string {
	return []string{
		"dimension_numbers = #stablehlo.gather<" + dimsAttr([]struct {
			name string
			dims []int
		}{{"offset_dims", d.OffsetDims}, {"collapsed_slice_dims", d.CollapsedSliceDims},
			{"operand_batching_dims", d.OperandBatchingDims}, {"start_indices_batching_dims", d.StartIndicesBatchingDims},
			{"start_index_map", d.StartIndexMap}}, vectorDim) + ">",
		"slice_sizes = " + i64s(sizes),
		"indices_are_sorted = false",
	}
}

func scatterAttrs(d trace.ScatterDims, vectorDim int) []string {
	return []string{
		"scatter_dimension_numbers = #stablehlo.scatter<" + dimsAttr([]struct {
			name string
			dims []int
		}{{"update_window_dims", d.UpdateWindowDims}, {"inserted_window_dims", d.InsertedWindowDims},
			{"input_batching_dims", d.OperandBatchingDims}, {"scatter_indices_batching_dims", d.ScatterIndicesBatchingDims},
			{"scatter_dims_to_operand_dims", d.ScatterDimsToOperandDims}}, vectorDim) + ">",
		"indices_are_sorted = false",
		"unique_indices = false",
	}
}

// upperBound is the largest start of a window of size w in a dim of size
// n, saturated to integer dtype d (any index of d is at most d's maximum).
func upperBound(n, w int, d tensor.DType) any {
	_, hi := intLimits(d)
	switch h := hi.(type) {
	case uint64:
		return min(uint64(n-w), h)
	case int64:
		return min(int64(n-w), h)
	}
	return nil
}

// windowBounds clamps every index vector of idx (its last dim) so that
// its window fits and, when fits is set, returns whether each element
// already did.
func (x *shloInstr) windowBounds(idx *shloVal, operand []int, window, startMap []int, fits bool) (clamped, ok *shloVal) {
	d := idx.typ.dt
	k := len(startMap)
	vals := make([]any, k)
	for j, od := range startMap {
		vals[j] = upperBound(operand[od], window[od], d)
	}
	bounds := boundsArray(vals, d)
	r := len(idx.typ.shape)
	hiV := x.opA("broadcast_in_dim", idx.typ, []string{"broadcast_dimensions = " + i64s([]int{r - 1})}, x.constant(shloType{d, []int{k}}, bounds))
	zero := x.zero(idx.typ)
	clamped = x.bin("minimum", x.bin("maximum", idx, zero), hiV)
	if fits {
		ok = x.cmp("EQ", clamped, idx)
	}
	return clamped, ok
}

// boundsArray is a 1-D array of dtype d from int64 or uint64 values.
func boundsArray(vals []any, d tensor.DType) *tensor.Array {
	if d.IsUnsigned() {
		u := make([]uint64, len(vals))
		for i, v := range vals {
			u[i] = v.(uint64)
		}
		a, _ := tensor.FromSlice(u)
		return a.Astype(d)
	}
	s := make([]int64, len(vals))
	for i, v := range vals {
		s[i] = v.(int64)
	}
	a, _ := tensor.FromSlice(s)
	return a.Astype(d)
}

// fitsAll reduces ok (per index vector element) over the last dim with and.
func (x *shloInstr) fitsAll(ok *shloVal) *shloVal {
	r := len(ok.typ.shape)
	bt := shloType{tensor.Bool, nil}
	region := x.region(x.prefix+"_r", []shloType{bt, bt}, func(b *shloBuilder, args []*shloVal) {
		b.ret(b.bin("and", args[0], args[1]))
	})
	rt := shloType{tensor.Bool, ok.typ.shape[:r-1]}
	return x.opN("reduce", []shloType{rt}, []string{"dimensions = " + i64s([]int{r - 1})}, region, ok, x.splat(bt, true))[0]
}

func (x *shloInstr) lowerIndex(args []*shloVal) (*shloVal, error) {
	in := x.in
	p := in.Params
	a := args[0]
	switch op := in.Op; {
	case op == trace.OpRev:
		return x.opA("reverse", x.t, []string{"dimensions = " + i64s(p.Axes)}, a), nil
	case op == trace.OpGather:
		return x.gather(a, args[1]), nil
	case op.IsScatter():
		return x.scatter(a, args[1], args[2]), nil
	case op == trace.OpDynamicSlice:
		return x.opA("dynamic_slice", x.t, []string{"slice_sizes = " + i64s(p.Index.SliceSizes)}, append([]*shloVal{a}, x.starts(a, args[1:], x.t.shape)...)...), nil
	case op == trace.OpDynamicUpdateSlice:
		return x.op("dynamic_update_slice", x.t, append([]*shloVal{a, args[1]}, x.starts(a, args[2:], args[1].typ.shape)...)...), nil
	}
	return nil, fmt.Errorf("no StableHLO lowering for %s", in.Op)
}

func (x *shloInstr) gather(a, idx *shloVal) *shloVal {
	p := x.in.Params
	ip := p.Index
	vdim := len(idx.typ.shape) - 1
	g := x.opA("gather", x.t, gatherAttrs(ip.Gather, ip.SliceSizes, vdim), a, idx)
	if ip.Mode != trace.ModeFill || p.Value == nil {
		return g
	}
	x.note("mode fill: the fill value where a window does not fit")
	_, ok := x.windowBounds(idx, a.typ.shape, ip.SliceSizes, ip.Gather.StartIndexMap, true)
	fits := x.fitsAll(ok)
	var batch []int
	for i := range x.t.shape {
		if !slices.Contains(ip.Gather.OffsetDims, i) {
			batch = append(batch, i)
		}
	}
	mask := x.opA("broadcast_in_dim", x.t.with(tensor.Bool), []string{"broadcast_dimensions = " + i64s(batch)}, fits)
	fill := x.opA("broadcast_in_dim", x.t, []string{"broadcast_dimensions = " + i64s(nil)}, x.constant(x.t.scalar(), p.Value))
	return x.sel(mask, g, fill)
}

func (x *shloInstr) scatter(a, idx, upd *shloVal) *shloVal {
	ip := x.in.Params.Index
	d := ip.Scatter
	if trace.ShapeSize(a.typ.shape) == 0 {
		x.note("an empty operand: no window fits, the result is the operand")
		return a
	}
	window := trace.ScatterWindow(len(a.typ.shape), upd.typ.shape, d)
	drop := ip.Mode != trace.ModeClip
	clamped, ok := x.windowBounds(idx, a.typ.shape, window, d.ScatterDimsToOperandDims, drop)
	i64 := idx.typ.with(tensor.I64)
	starts := clamped
	if idx.typ.dt != tensor.I64 {
		starts = x.conv(clamped, tensor.I64)
	}
	if !drop {
		x.note("mode clip: indices clamped so every window fits")
	} else {
		x.note("mode drop: a window that does not fit starts at the dim's size, so all of it is skipped")
		r := len(idx.typ.shape)
		fits := x.opA("broadcast_in_dim", i64.with(tensor.Bool), []string{"broadcast_dimensions = " + i64s(seq(r-1))}, x.fitsAll(ok))
		size := make([]int64, len(d.ScatterDimsToOperandDims))
		for j, od := range d.ScatterDimsToOperandDims {
			size[j] = int64(a.typ.shape[od])
		}
		sv, _ := tensor.FromSlice(size)
		past := x.opA("broadcast_in_dim", i64, []string{"broadcast_dimensions = " + i64s([]int{r - 1})}, x.constant(shloType{tensor.I64, []int{len(size)}}, sv))
		starts = x.sel(fits, starts, past)
	}
	x.note("repeated indices combine in the implementation's order")
	et := x.t.scalar()
	region := x.region(x.prefix+"_r", []shloType{et, et}, func(b *shloBuilder, args []*shloVal) {
		switch c := x.in.Op.ScatterCombiner(); {
		case c == trace.OpInvalid:
			b.ret(args[1])
		case et.dt == tensor.Bool:
			b.ret(b.bin(map[trace.Op]string{trace.OpAdd: "or", trace.OpMax: "or", trace.OpMul: "and", trace.OpMin: "and"}[c], args[0], args[1]))
		default:
			b.ret(b.bin(map[trace.Op]string{trace.OpAdd: "add", trace.OpMul: "multiply", trace.OpMax: "maximum", trace.OpMin: "minimum"}[c], args[0], args[1]))
		}
	})
	return x.opN("scatter", []shloType{x.t}, scatterAttrs(d, len(idx.typ.shape)-1), region, a, starts, upd)[0]
}

// starts returns the start indices of a dynamic slice of a with the given
// window: as they are when they share a dtype, else clamped in their own
// dtype and converted to i64.
func (x *shloInstr) starts(a *shloVal, starts []*shloVal, window []int) []*shloVal {
	same := true
	for _, s := range starts {
		same = same && s.typ.dt == starts[0].typ.dt
	}
	if same {
		return starts
	}
	x.note("start indices of several dtypes: clamped, then i64")
	out := make([]*shloVal, len(starts))
	for i, s := range starts {
		hi := x.splat(s.typ, upperBound(a.typ.shape[i], window[i], s.typ.dt))
		out[i] = x.conv(x.bin("minimum", x.bin("maximum", s, x.zero(s.typ)), hi), tensor.I64)
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
