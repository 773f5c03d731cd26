package trace

import (
	"fmt"
	"slices"
)

// IndexMode says what gather and scatter do with an index whose window
// does not fit in the operand (lax.GatherScatterMode).
type IndexMode uint8

// The index modes. A traced gather is ModeClip or ModeFill and a traced
// scatter ModeClip or ModeFill (drop): ModePromiseInBounds is resolved to
// what XLA does with it when the op is traced.
const (
	// ModePromiseInBounds is the default: the caller promises the indices
	// are in bounds, and those that are not behave as XLA does with them —
	// gather clamps (ModeClip), scatter drops (ModeFill).
	ModePromiseInBounds IndexMode = iota
	// ModeClip clamps each start index so the whole window fits.
	ModeClip
	// ModeFill ("fill", or "drop" for scatter): a gather window that does
	// not fit whole is filled with the fill value; a scatter window that
	// does not fit whole is dropped.
	ModeFill
)

func (m IndexMode) String() string {
	switch m {
	case ModePromiseInBounds:
		return "promise_in_bounds"
	case ModeClip:
		return "clip"
	case ModeFill:
		return "fill"
	}
	return fmt.Sprintf("IndexMode(%d)", uint8(m))
}

// GatherDims are the dimension numbers of a gather, as JAX's
// lax.GatherDimensionNumbers: the last dimension of the indices holds the
// start index vectors (index_vector_dim is always the last).
type GatherDims struct {
	// OffsetDims are the result dims that hold the window (sorted).
	OffsetDims []int
	// CollapsedSliceDims are operand dims with window size 1 that the
	// result drops (sorted).
	CollapsedSliceDims []int
	// StartIndexMap maps index vector element i to operand dim
	// StartIndexMap[i].
	StartIndexMap []int
	// OperandBatchingDims are operand dims (sorted) indexed by the
	// coordinate of the paired StartIndicesBatchingDims of the indices.
	OperandBatchingDims      []int
	StartIndicesBatchingDims []int
}

// ScatterDims are the dimension numbers of a scatter, as JAX's
// lax.ScatterDimensionNumbers: the last dimension of the indices holds the
// index vectors.
type ScatterDims struct {
	// UpdateWindowDims are the update dims that hold the window (sorted).
	UpdateWindowDims []int
	// InsertedWindowDims are operand dims of window size 1 absent from the
	// updates (sorted).
	InsertedWindowDims []int
	// ScatterDimsToOperandDims maps index vector element i to operand dim
	// ScatterDimsToOperandDims[i].
	ScatterDimsToOperandDims []int
	// OperandBatchingDims and ScatterIndicesBatchingDims pair operand dims
	// with index dims, as for gather.
	OperandBatchingDims        []int
	ScatterIndicesBatchingDims []int
}

// IndexParams are the static parameters of gather, the scatters and the
// dynamic slices.
type IndexParams struct {
	Gather     GatherDims  // gather
	Scatter    ScatterDims // scatter, scatter_add, …
	SliceSizes []int       // gather and dynamic_slice: the window
	Mode       IndexMode   // gather and scatters: ModeClip or ModeFill
}

// String prints the parameters of op, as the program printer and CSE keys
// show them.
func (p *IndexParams) String(op Op) string {
	switch op {
	case OpGather:
		g := p.Gather
		s := "offset_dims=" + tuple(g.OffsetDims) + " collapsed_slice_dims=" + tuple(g.CollapsedSliceDims) +
			" start_index_map=" + tuple(g.StartIndexMap)
		if len(g.OperandBatchingDims) > 0 {
			s += " operand_batching_dims=" + tuple(g.OperandBatchingDims) + " start_indices_batching_dims=" + tuple(g.StartIndicesBatchingDims)
		}
		return s + " slice_sizes=" + tuple(p.SliceSizes) + " mode=" + p.Mode.String()
	case OpScatter, OpScatterAdd, OpScatterMul, OpScatterMin, OpScatterMax:
		d := p.Scatter
		s := "update_window_dims=" + tuple(d.UpdateWindowDims) + " inserted_window_dims=" + tuple(d.InsertedWindowDims) +
			" scatter_dims_to_operand_dims=" + tuple(d.ScatterDimsToOperandDims)
		if len(d.OperandBatchingDims) > 0 {
			s += " operand_batching_dims=" + tuple(d.OperandBatchingDims) + " scatter_indices_batching_dims=" + tuple(d.ScatterIndicesBatchingDims)
		}
		mode := "drop"
		if p.Mode == ModeClip {
			mode = "clip"
		}
		return s + " mode=" + mode
	case OpDynamicSlice:
		return "slice_sizes=" + tuple(p.SliceSizes)
	}
	return ""
}

// checkDims checks that dims are unique and in [0, n); sorted too when
// sorted is set. It returns a message naming what is wrong, or "".
func checkDims(name string, dims []int, n int, sorted bool) string {
	for i, d := range dims {
		if d < 0 || d >= n {
			return fmt.Sprintf("%s %v: %d is out of range [0, %d)", name, dims, d, n)
		}
		if slices.Contains(dims[:i], d) {
			return fmt.Sprintf("%s %v repeat %d", name, dims, d)
		}
		if sorted && i > 0 && dims[i-1] > d {
			return fmt.Sprintf("%s %v must be sorted", name, dims)
		}
	}
	return ""
}

func firstMsg(msgs ...string) string {
	for _, m := range msgs {
		if m != "" {
			return m
		}
	}
	return ""
}

// disjoint says which dim two lists share, or "".
func disjoint(an string, a []int, bn string, b []int) string {
	for _, d := range a {
		if slices.Contains(b, d) {
			return fmt.Sprintf("%s %v and %s %v share dim %d", an, a, bn, b, d)
		}
	}
	return ""
}

// checkBatching checks paired operand and index batching dims: the index
// dims are not the index vector dim and the sizes agree.
func checkBatching(operand, indices, opDims, idxDims []int, opName, idxName string) string {
	if len(opDims) != len(idxDims) {
		return fmt.Sprintf("%s %v and %s %v must have the same length", opName, opDims, idxName, idxDims)
	}
	if msg := checkDims(idxName, idxDims, len(indices)-1, false); msg != "" {
		return msg + " (the last dim holds the index vectors)"
	}
	for i, d := range opDims {
		if operand[d] != indices[idxDims[i]] {
			return fmt.Sprintf("batching dim %d of the operand %s (size %d) and dim %d of the indices %s (size %d) differ",
				d, shapeString(operand), operand[d], idxDims[i], shapeString(indices), indices[idxDims[i]])
		}
	}
	return ""
}

// GatherShape checks a gather's dimension numbers and slice sizes against
// its operand and indices shapes (JAX's lax.gather shape rule) and returns
// the result shape, or a message saying what is wrong.
func GatherShape(operand, indices []int, d GatherDims, sizes []int) ([]int, string) {
	r := len(operand)
	if len(indices) == 0 {
		return nil, "the indices need at least one dimension (the last holds the index vectors)"
	}
	batch := indices[:len(indices)-1]
	outRank := len(batch) + len(d.OffsetDims)
	msg := firstMsg(
		checkDims("offset_dims", d.OffsetDims, outRank, true),
		checkDims("collapsed_slice_dims", d.CollapsedSliceDims, r, true),
		checkDims("operand_batching_dims", d.OperandBatchingDims, r, true),
		checkDims("start_index_map", d.StartIndexMap, r, false),
		disjoint("collapsed_slice_dims", d.CollapsedSliceDims, "operand_batching_dims", d.OperandBatchingDims),
		disjoint("start_index_map", d.StartIndexMap, "operand_batching_dims", d.OperandBatchingDims),
	)
	if msg != "" {
		return nil, msg
	}
	if msg := checkBatching(operand, indices, d.OperandBatchingDims, d.StartIndicesBatchingDims, "operand_batching_dims", "start_indices_batching_dims"); msg != "" {
		return nil, msg
	}
	if n := indices[len(indices)-1]; n != len(d.StartIndexMap) {
		return nil, fmt.Sprintf("the index vectors have %d elements (last dim of %s), start_index_map %v has %d", n, shapeString(indices), d.StartIndexMap, len(d.StartIndexMap))
	}
	if len(sizes) != r {
		return nil, fmt.Sprintf("slice_sizes %v has %d entries, the operand %s has rank %d", sizes, len(sizes), shapeString(operand), r)
	}
	for i, s := range sizes {
		if s < 0 || s > operand[i] {
			return nil, fmt.Sprintf("slice_sizes %v: %d is outside [0, %d] for dim %d of %s", sizes, s, operand[i], i, shapeString(operand))
		}
		if slices.Contains(d.CollapsedSliceDims, i) && s != 1 {
			return nil, fmt.Sprintf("slice_sizes %v: collapsed dim %d must have size 1, not %d", sizes, i, s)
		}
		if slices.Contains(d.OperandBatchingDims, i) && s > 1 {
			return nil, fmt.Sprintf("slice_sizes %v: batching dim %d must have size 0 or 1, not %d", sizes, i, s)
		}
	}
	var window []int
	for i, s := range sizes {
		if !slices.Contains(d.CollapsedSliceDims, i) && !slices.Contains(d.OperandBatchingDims, i) {
			window = append(window, s)
		}
	}
	if len(window) != len(d.OffsetDims) {
		return nil, fmt.Sprintf("offset_dims %v has %d dims, the window (operand rank %d less %d collapsed and %d batching dims) has %d",
			d.OffsetDims, len(d.OffsetDims), r, len(d.CollapsedSliceDims), len(d.OperandBatchingDims), len(window))
	}
	out := make([]int, outRank)
	wi, bi := 0, 0
	for i := range out {
		if slices.Contains(d.OffsetDims, i) {
			out[i], wi = window[wi], wi+1
		} else {
			out[i], bi = batch[bi], bi+1
		}
	}
	return out, ""
}

// ScatterCheck checks a scatter's dimension numbers against its operand,
// indices and updates shapes (JAX's lax.scatter shape rule) and returns a
// message saying what is wrong, or "". The result has the operand's shape.
func ScatterCheck(operand, indices, updates []int, d ScatterDims) string {
	r := len(operand)
	if len(indices) == 0 {
		return "the indices need at least one dimension (the last holds the index vectors)"
	}
	msg := firstMsg(
		checkDims("update_window_dims", d.UpdateWindowDims, len(updates), true),
		checkDims("inserted_window_dims", d.InsertedWindowDims, r, true),
		checkDims("operand_batching_dims", d.OperandBatchingDims, r, true),
		checkDims("scatter_dims_to_operand_dims", d.ScatterDimsToOperandDims, r, false),
		disjoint("inserted_window_dims", d.InsertedWindowDims, "operand_batching_dims", d.OperandBatchingDims),
		disjoint("scatter_dims_to_operand_dims", d.ScatterDimsToOperandDims, "operand_batching_dims", d.OperandBatchingDims),
	)
	if msg != "" {
		return msg
	}
	if msg := checkBatching(operand, indices, d.OperandBatchingDims, d.ScatterIndicesBatchingDims, "operand_batching_dims", "scatter_indices_batching_dims"); msg != "" {
		return msg
	}
	if n := indices[len(indices)-1]; n != len(d.ScatterDimsToOperandDims) {
		return fmt.Sprintf("the index vectors have %d elements (last dim of %s), scatter_dims_to_operand_dims %v has %d", n, shapeString(indices), d.ScatterDimsToOperandDims, len(d.ScatterDimsToOperandDims))
	}
	if len(d.UpdateWindowDims)+len(d.InsertedWindowDims)+len(d.OperandBatchingDims) != r {
		return fmt.Sprintf("update_window_dims %v, inserted_window_dims %v and operand_batching_dims %v must account for the operand's %d dims",
			d.UpdateWindowDims, d.InsertedWindowDims, d.OperandBatchingDims, r)
	}
	var scatterDims []int
	for i, n := range updates {
		if !slices.Contains(d.UpdateWindowDims, i) {
			scatterDims = append(scatterDims, n)
		}
	}
	if !ShapeEqual(scatterDims, indices[:len(indices)-1]) {
		return fmt.Sprintf("the updates' scatter dims %s must be the indices' batch dims %s (updates %s, indices %s)",
			shapeString(scatterDims), shapeString(indices[:len(indices)-1]), shapeString(updates), shapeString(indices))
	}
	w := 0
	for i := range operand {
		if slices.Contains(d.InsertedWindowDims, i) || slices.Contains(d.OperandBatchingDims, i) {
			continue
		}
		if n := updates[d.UpdateWindowDims[w]]; n > operand[i] {
			return fmt.Sprintf("update window dim %d (size %d) is larger than operand dim %d of %s", d.UpdateWindowDims[w], n, i, shapeString(operand))
		}
		w++
	}
	return ""
}

// Scatter dimension numbers and gather dimension numbers are transposes
// of each other (JAX's gather transpose rule): the window of one is the
// window of the other.

// ScatterDimsOf returns the scatter dimension numbers that write back what
// a gather with dims d reads.
func ScatterDimsOf(d GatherDims) ScatterDims {
	return ScatterDims{
		UpdateWindowDims: slices.Clone(d.OffsetDims), InsertedWindowDims: slices.Clone(d.CollapsedSliceDims),
		ScatterDimsToOperandDims: slices.Clone(d.StartIndexMap), OperandBatchingDims: slices.Clone(d.OperandBatchingDims),
		ScatterIndicesBatchingDims: slices.Clone(d.StartIndicesBatchingDims),
	}
}

// GatherDimsOf returns the gather dimension numbers that read what a
// scatter with dims d writes.
func GatherDimsOf(d ScatterDims) GatherDims {
	return GatherDims{
		OffsetDims: slices.Clone(d.UpdateWindowDims), CollapsedSliceDims: slices.Clone(d.InsertedWindowDims),
		StartIndexMap: slices.Clone(d.ScatterDimsToOperandDims), OperandBatchingDims: slices.Clone(d.OperandBatchingDims),
		StartIndicesBatchingDims: slices.Clone(d.ScatterIndicesBatchingDims),
	}
}

// WindowDims lists the operand dims a gather's or scatter's window walks,
// in order: all but the collapsed (inserted) and batching dims.
func WindowDims(rank int, collapsed, batching []int) []int {
	var out []int
	for i := range rank {
		if !slices.Contains(collapsed, i) && !slices.Contains(batching, i) {
			out = append(out, i)
		}
	}
	return out
}

// ScatterWindow returns, per operand dim, the size of a scatter's update
// window: the update window dims in order, 1 for inserted and batching
// dims.
func ScatterWindow(operandRank int, updates []int, d ScatterDims) []int {
	out := make([]int, operandRank)
	w := 0
	for i := range out {
		if slices.Contains(d.InsertedWindowDims, i) || slices.Contains(d.OperandBatchingDims, i) {
			out[i] = 1
			continue
		}
		out[i] = updates[d.UpdateWindowDims[w]]
		w++
	}
	return out
}
