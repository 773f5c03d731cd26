package trace

import (
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// The batching rules of gather, the scatters and the dynamic slices
// (vmap.go explains the contract). They are JAX's (jax/_src/lax/slicing.py
// _gather_batching_rule, _scatter_batching_rule,
// _dynamic_slice_batching_rule, _dynamic_update_slice_batching_rule),
// with the batch axis first:
//
//   - gather, operand batched: the batch axis is one more window dim, read
//     whole (its start is 0, absent from start_index_map), so clamping and
//     filling see the per-example window unchanged;
//   - gather, indices batched: one more batch dim of the indices;
//   - gather, both: an operand batching dim paired with an indices
//     batching dim (each example reads its own operand);
//   - scatter: the operand is batched (broadcast when it is not), the
//     updates too; with unbatched indices the batch axis is one more
//     update window dim, with batched ones a batching dim of the operand
//     and the indices. Each element receives its updates in the order it
//     did per example, so sums and products round the same;
//   - dynamic_slice and dynamic_update_slice with unbatched starts stay
//     what they are, with a start of 0 on the batch axis; with a batched
//     start they become a clamping gather (a clamping scatter), whose
//     clamp is the dynamic slice's.

func init() {
	batchRules[OpGather] = batchGather
	batchRules[OpScatter] = batchScatter
	batchRules[OpScatterAdd] = batchScatter
	batchRules[OpScatterMul] = batchScatter
	batchRules[OpScatterMin] = batchScatter
	batchRules[OpScatterMax] = batchScatter
	batchRules[OpDynamicSlice] = batchDynamicSlice
	batchRules[OpDynamicUpdateSlice] = batchDynamicUpdateSlice
}

// batchGather is the gather of c's equation with operand x and indices
// idx, each batched or not (at least one is).
func batchGather(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	return single(c.gatherBatched(e.Params, c.In[0], c.Batched[0], c.In[1], c.Batched[1], e.Out.Type), true)
}

// gatherBatched emits the gather with params p (per example) of operand
// x and indices idx, batched (batch axis first) as xb and ib say.
func (c *batchCall) gatherBatched(p Params, x Value, xb bool, idx Value, ib bool, t promote.Type) Value {
	d := p.Index.Gather
	nd := GatherDims{
		OffsetDims:               shifted(nil, d.OffsetDims),
		CollapsedSliceDims:       d.CollapsedSliceDims,
		StartIndexMap:            d.StartIndexMap,
		OperandBatchingDims:      d.OperandBatchingDims,
		StartIndicesBatchingDims: d.StartIndicesBatchingDims,
	}
	sizes := p.Index.SliceSizes
	if xb {
		nd.CollapsedSliceDims = shifted(nil, d.CollapsedSliceDims)
		nd.StartIndexMap = shifted(nil, d.StartIndexMap)
		nd.OperandBatchingDims = shifted(nil, d.OperandBatchingDims)
	}
	switch {
	case xb && ib:
		nd.OperandBatchingDims = shifted([]int{0}, d.OperandBatchingDims)
		nd.StartIndicesBatchingDims = shifted([]int{0}, d.StartIndicesBatchingDims)
		sizes = append([]int{min(1, c.Size)}, sizes...) // an empty batch has no window of 1
	case xb:
		nd.OffsetDims = shifted([]int{0}, d.OffsetDims)
		sizes = append([]int{c.Size}, sizes...)
	default:
		nd.StartIndicesBatchingDims = shifted(nil, d.StartIndicesBatchingDims)
	}
	shape, msg := GatherShape(x.Shape(), idx.Shape(), nd, sizes)
	if msg != "" {
		c.vm.ruleErr(c.Eqn, "%s", msg)
		return Value{b: c.vm.b}
	}
	p.Index.Gather, p.Index.SliceSizes = nd, sizes
	return c.Emit(OpGather, t, shape, p, x, idx)
}

// batchScatter batches every scatter: operand and updates always, the
// indices when they are.
func batchScatter(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	return single(c.scatterBatched(e.Op, e.Params, c.Batch(0), c.In[1], c.Batched[1], c.Batch(2), e.Out.Type), true)
}

// scatterBatched emits scatter op with params p (per example) into the
// batched operand x of the batched updates u at indices idx, batched as
// ib says.
func (c *batchCall) scatterBatched(op Op, p Params, x, idx Value, ib bool, u Value, t promote.Type) Value {
	d := p.Index.Scatter
	nd := ScatterDims{
		UpdateWindowDims:           shifted(nil, d.UpdateWindowDims),
		InsertedWindowDims:         shifted(nil, d.InsertedWindowDims),
		ScatterDimsToOperandDims:   shifted(nil, d.ScatterDimsToOperandDims),
		OperandBatchingDims:        shifted(nil, d.OperandBatchingDims),
		ScatterIndicesBatchingDims: d.ScatterIndicesBatchingDims,
	}
	if ib {
		nd.OperandBatchingDims = shifted([]int{0}, d.OperandBatchingDims)
		nd.ScatterIndicesBatchingDims = shifted([]int{0}, d.ScatterIndicesBatchingDims)
	} else {
		nd.UpdateWindowDims = shifted([]int{0}, d.UpdateWindowDims)
	}
	if msg := ScatterCheck(x.Shape(), idx.Shape(), u.Shape(), nd); msg != "" {
		c.vm.ruleErr(c.Eqn, "%s", msg)
		return Value{b: c.vm.b}
	}
	p.Index.Scatter = nd
	return c.Emit(op, t, x.Shape(), p, x, idx, u)
}

// batchDynamicSlice: unbatched starts slice the batched operand with a
// start of 0 and the whole batch on the batch axis; a batched start makes
// the slice a gather of one window per example, clamped as the dynamic
// slice clamps.
func batchDynamicSlice(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	starts, sb := c.In[1:], c.Batched[1:]
	if !slices.Contains(sb, true) {
		p := e.Params
		p.Index.SliceSizes = append([]int{c.Size}, p.Index.SliceSizes...)
		args := append([]Value{c.In[0], c.zeroStart(starts)}, starts...)
		return single(c.Emit(OpDynamicSlice, e.Out.Type, p.Index.SliceSizes, p, args...), true)
	}
	r := e.Args[0].Rank()
	dims := make([]int, r)
	for i := range dims {
		dims[i] = i
	}
	p := Params{Index: IndexParams{
		Gather:     GatherDims{OffsetDims: dims, StartIndexMap: dims},
		SliceSizes: e.Params.Index.SliceSizes,
		Mode:       ModeClip,
	}}
	idx := c.startIndices(starts, sb, e.Args[0].Shape, e.Params.Index.SliceSizes)
	return single(c.gatherBatched(p, c.In[0], c.Batched[0], idx, true, e.Out.Type), true)
}

// batchDynamicUpdateSlice: unbatched starts update the batched operand
// with a start of 0 on the batch axis; a batched start makes the update a
// scatter of one window per example, clamped as the dynamic update slice
// clamps.
func batchDynamicUpdateSlice(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	x, u := c.Batch(0), c.Batch(1)
	starts, sb := c.In[2:], c.Batched[2:]
	if !slices.Contains(sb, true) {
		args := append([]Value{x, u, c.zeroStart(starts)}, starts...)
		return single(c.Emit(OpDynamicUpdateSlice, e.Out.Type, x.Shape(), e.Params, args...), true)
	}
	r := e.Args[0].Rank()
	dims := make([]int, r)
	for i := range dims {
		dims[i] = i
	}
	p := Params{Index: IndexParams{
		Scatter: ScatterDims{UpdateWindowDims: dims, ScatterDimsToOperandDims: dims},
		Mode:    ModeClip,
	}}
	idx := c.startIndices(starts, sb, e.Args[0].Shape, e.Args[1].Shape)
	return single(c.scatterBatched(OpScatter, p, x, idx, true, u, e.Out.Type), true)
}

// zeroStart is a start index of 0 for the batch axis, of the other
// starts' dtype (i32 when there are none).
func (c *batchCall) zeroStart(starts []Value) Value {
	t := promote.Strong(tensor.I32)
	if len(starts) > 0 {
		t = starts[0].Type()
	}
	return zerosOf(c.vm.b, t, nil)
}

// startIndices stacks the scalar starts of a dynamic slice into the
// batched indices [size, rank] of a gather or scatter (JAX's
// _batch_dynamic_slice_indices). Starts of different dtypes are converted
// to i64; an unsigned 64-bit start is first bounded by its dim's largest
// start (size of the dim less the window's), which the clamp would give
// anyway, so the conversion is exact.
func (c *batchCall) startIndices(starts []Value, sb []bool, shape, window []int) Value {
	t := starts[0].Type()
	for _, s := range starts[1:] {
		if s.Type() != t {
			t = promote.Strong(tensor.I64)
			break
		}
	}
	cols := make([]Value, len(starts))
	for i, s := range starts {
		if st := s.Type(); st != t {
			if d := st.DType; d.IsUnsigned() && d.Bits() >= 64 {
				s = s.Minimum(Const(tensor.Scalar(uint64(shape[i] - window[i])).Astype(d)))
			}
			s = ConvertTo(s, t, "the starts of a batched dynamic slice are stacked in one dtype")
		}
		col := []int{c.Size, 1}
		if sb[i] {
			s = c.Emit(OpReshape, t, col, Params{Shape: col}, s)
		} else {
			s = c.Emit(OpBroadcastInDim, t, col, Params{Shape: col}, s)
		}
		cols[i] = s
	}
	if len(cols) == 1 {
		return cols[0]
	}
	return c.Emit(OpConcat, t, []int{c.Size, len(cols)}, Params{Axis: 1}, cols...)
}
