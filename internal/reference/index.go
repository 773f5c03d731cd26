package reference

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The indexing ops (rev, gather, the scatters, the dynamic slices), each a
// plain loop over its result or its updates in row-major order:
//
//   - An index is read as an int64; a uint64 index above MaxInt64 reads as
//     MaxInt64 (it is out of bounds either way).
//   - A window starting at s along a dim of size n with window size w fits
//     when 0 ≤ s ≤ n − w. Clamping moves s to the nearest such start.
//   - gather in mode fill gives the fill value for a whole window that does
//     not fit in any of its indexed dims; in mode clip it clamps.
//   - A scatter applies its updates in row-major order of the updates
//     array: each combines the current element with the update by the
//     elementwise op (add, mul, max, min; scatter replaces), so with
//     repeated indices the last set wins and adds happen in that order. A
//     window that does not fit is dropped in mode fill, clamped in clip.
//   - dynamic_slice and dynamic_update_slice clamp every start.
//   - A scatter into an empty operand does nothing: no window fits it,
//     even clamped.

// indexValue reads element i of an integer array as int64.
func indexValue(a *tensor.Array, i int) (int64, error) {
	switch v := tensor.Index(a.Data(), i).(type) {
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return math.MaxInt64, nil
		}
		return int64(v), nil
	case tensor.Int4:
		return int64(v), nil
	case tensor.Uint4:
		return int64(v), nil
	case tensor.Int2:
		return int64(v), nil
	case tensor.Uint2:
		return int64(v), nil
	}
	return 0, fmt.Errorf("index operand of dtype %s is not an integer array", a.DType())
}

// startOf places a window of size w at s in a dim of size n: the clamped
// start, and whether s itself fits.
func startOf(s int64, n, w int) (int, bool) {
	hi := int64(n - w)
	fits := s >= 0 && s <= hi
	return int(min(max(s, 0), hi)), fits
}

func (ev *evaluator) index(e *trace.Eqn, args []*tensor.Array) (*tensor.Array, error) {
	switch op := e.Op; {
	case op == trace.OpGather:
		return gatherOp(e.Params, args[0], args[1])
	case op.IsScatter():
		return ev.scatterOp(op, e.Params.Index, args[0], args[1], args[2])
	case op == trace.OpDynamicSlice:
		return dynamicSlice(e.Params.Index.SliceSizes, args[0], args[1:])
	case op == trace.OpDynamicUpdateSlice:
		return dynamicUpdateSlice(args[0], args[1], args[2:])
	}
	return nil, fmt.Errorf("%s is not an indexing op", e.Op)
}

// rev reverses the dims p.Axes of x.
func rev(axes []int, x *tensor.Array) (*tensor.Array, error) {
	shape := x.Shape()
	for _, a := range axes {
		if a < 0 || a >= len(shape) {
			return nil, fmt.Errorf("rev dims %v out of range for %v", axes, shape)
		}
	}
	st := strides(shape)
	var idx []int
	forEach(shape, func(o []int) {
		flat := 0
		for i, c := range o {
			if slices.Contains(axes, i) {
				c = shape[i] - 1 - c
			}
			flat += c * st[i]
		}
		idx = append(idx, flat)
	})
	return gather(x.DType(), shape, []*tensor.Array{x}, nil, idx)
}

// startIndices is the index vector at batch coordinates g of an indices
// array whose last dim holds the vectors.
func startIndices(indices *tensor.Array, g []int) ([]int64, error) {
	shape := indices.Shape()
	st := strides(shape)
	base := 0
	for i, c := range g {
		base += c * st[i]
	}
	k := shape[len(shape)-1]
	out := make([]int64, k)
	for j := range out {
		v, err := indexValue(indices, base+j)
		if err != nil {
			return nil, err
		}
		out[j] = v
	}
	return out, nil
}

// windowing places the elements of a gather's result or a scatter's
// updates in the operand.
type windowing struct {
	operand, window []int // operand shape; window size per operand dim
	indices         *tensor.Array
	winPos          []int // the dims of a position that walk the window…
	winDims         []int // … along these operand dims
	startMap        []int
	opBatch         []int
	idxBatch        []int
}

// place is the flat operand index of the element at position p: the
// index vector at p's batch coordinates g through startMap, the batching
// dims from g, 0 elsewhere, clamped so the window fits (fits says whether
// it did before), plus p's window coordinates.
func (wd *windowing) place(p []int) (int, bool, error) {
	var g, w []int
	for i, c := range p {
		if slices.Contains(wd.winPos, i) {
			w = append(w, c)
		} else {
			g = append(g, c)
		}
	}
	s, err := startIndices(wd.indices, g)
	if err != nil {
		return 0, false, err
	}
	start := make([]int, len(wd.operand))
	fits := true
	for j, d := range wd.startMap {
		var ok bool
		start[d], ok = startOf(s[j], wd.operand[d], wd.window[d])
		fits = fits && ok
	}
	for j, d := range wd.opBatch {
		start[d] = g[wd.idxBatch[j]]
	}
	for k, d := range wd.winDims {
		start[d] += w[k]
	}
	st := strides(wd.operand)
	flat := 0
	for d, c := range start {
		flat += c * st[d]
	}
	return flat, fits, nil
}

// gatherOp is lax.gather.
func gatherOp(p trace.Params, x, indices *tensor.Array) (*tensor.Array, error) {
	ip := p.Index
	dims := ip.Gather
	operand := x.Shape()
	out, msg := trace.GatherShape(operand, indices.Shape(), dims, ip.SliceSizes)
	if msg != "" {
		return nil, fmt.Errorf("gather: %s", msg)
	}
	fill := ip.Mode == trace.ModeFill
	if fill && (p.Value == nil || p.Value.DType() != x.DType() || p.Value.Size() != 1) {
		return nil, fmt.Errorf("gather in mode fill needs a %s fill value", x.DType())
	}
	wd := &windowing{operand: operand, window: ip.SliceSizes, indices: indices, winPos: dims.OffsetDims,
		winDims:  trace.WindowDims(len(operand), dims.CollapsedSliceDims, dims.OperandBatchingDims),
		startMap: dims.StartIndexMap, opBatch: dims.OperandBatchingDims, idxBatch: dims.StartIndicesBatchingDims}
	var from, idx []int
	var err error
	forEach(out, func(o []int) {
		if err != nil {
			return
		}
		flat, fits, e := wd.place(o)
		switch {
		case e != nil:
			err = e
		case fill && !fits:
			from, idx = append(from, 1), append(idx, 0)
		default:
			from, idx = append(from, 0), append(idx, flat)
		}
	})
	if err != nil {
		return nil, err
	}
	srcs := []*tensor.Array{x, x}
	if fill {
		srcs[1] = p.Value
	}
	return gather(x.DType(), out, srcs, from, idx)
}

// scatterOp applies a scatter's updates in row-major order. Updates that
// hit distinct elements are independent, so they are applied in waves:
// wave k holds every element's k-th update, computed with one elementwise
// op, which keeps each element's updates in order.
func (ev *evaluator) scatterOp(op trace.Op, ip trace.IndexParams, x, indices, updates *tensor.Array) (*tensor.Array, error) {
	dims := ip.Scatter
	operand, ushape := x.Shape(), updates.Shape()
	if msg := trace.ScatterCheck(operand, indices.Shape(), ushape, dims); msg != "" {
		return nil, fmt.Errorf("%s: %s", op, msg)
	}
	if updates.DType() != x.DType() {
		return nil, fmt.Errorf("%s: updates are %s, the operand %s", op, updates.DType(), x.DType())
	}
	if x.Size() == 0 {
		return x.Clone(), nil // no window fits an empty operand, clamped or not
	}
	wd := &windowing{operand: operand, window: trace.ScatterWindow(len(operand), ushape, dims), indices: indices,
		winPos: dims.UpdateWindowDims, winDims: trace.WindowDims(len(operand), dims.InsertedWindowDims, dims.OperandBatchingDims),
		startMap: dims.ScatterDimsToOperandDims, opBatch: dims.OperandBatchingDims, idxBatch: dims.ScatterIndicesBatchingDims}
	var waves [][2][]int // per wave: targets and update positions
	count := map[int]int{}
	var err error
	k := -1
	forEach(ushape, func(u []int) {
		k++
		if err != nil {
			return
		}
		t, fits, e := wd.place(u)
		if e != nil {
			err = e
			return
		}
		if !fits && ip.Mode != trace.ModeClip {
			return // dropped
		}
		n := count[t]
		count[t]++
		if n == len(waves) {
			waves = append(waves, [2][]int{})
		}
		waves[n][0] = append(waves[n][0], t)
		waves[n][1] = append(waves[n][1], k)
	})
	if err != nil {
		return nil, err
	}
	out := x
	for _, wv := range waves {
		targets, ups := wv[0], wv[1]
		n := []int{len(targets)}
		u, err := gather(x.DType(), n, []*tensor.Array{updates}, nil, ups)
		if err != nil {
			return nil, err
		}
		if c := op.ScatterCombiner(); c != trace.OpInvalid {
			cur, err := gather(x.DType(), n, []*tensor.Array{out}, nil, targets)
			if err != nil {
				return nil, err
			}
			if u, err = ev.elementwise(c, []*tensor.Array{cur, u}); err != nil {
				return nil, err
			}
		}
		if out, err = overwrite(out, u, targets); err != nil {
			return nil, err
		}
	}
	return out.Clone(), nil
}

// overwrite returns x with element targets[i] replaced by element i of v.
func overwrite(x, v *tensor.Array, targets []int) (*tensor.Array, error) {
	from, idx := make([]int, x.Size()), make([]int, x.Size())
	for i := range idx {
		idx[i] = i
	}
	for i, t := range targets {
		from[t], idx[t] = 1, i
	}
	return gather(x.DType(), x.Shape(), []*tensor.Array{x, v}, from, idx)
}

// dynamicStarts reads and clamps the scalar starts of a window.
func dynamicStarts(operand, window []int, starts []*tensor.Array) ([]int, error) {
	if len(starts) != len(operand) || len(window) != len(operand) {
		return nil, fmt.Errorf("%d start indices and window %v for an operand %v", len(starts), window, operand)
	}
	out := make([]int, len(starts))
	for i, s := range starts {
		if s.Size() != 1 {
			return nil, fmt.Errorf("start index %d has shape %v", i, s.Shape())
		}
		v, err := indexValue(s, 0)
		if err != nil {
			return nil, err
		}
		if window[i] < 0 || window[i] > operand[i] {
			return nil, fmt.Errorf("window %v does not fit in %v", window, operand)
		}
		out[i], _ = startOf(v, operand[i], window[i])
	}
	return out, nil
}

func dynamicSlice(sizes []int, x *tensor.Array, starts []*tensor.Array) (*tensor.Array, error) {
	shape := x.Shape()
	start, err := dynamicStarts(shape, sizes, starts)
	if err != nil {
		return nil, err
	}
	st := strides(shape)
	var idx []int
	forEach(sizes, func(o []int) {
		flat := 0
		for i, c := range o {
			flat += (start[i] + c) * st[i]
		}
		idx = append(idx, flat)
	})
	return gather(x.DType(), sizes, []*tensor.Array{x}, nil, idx)
}

func dynamicUpdateSlice(x, update *tensor.Array, starts []*tensor.Array) (*tensor.Array, error) {
	shape, us := x.Shape(), update.Shape()
	if update.DType() != x.DType() {
		return nil, fmt.Errorf("dynamic_update_slice: update is %s, the operand %s", update.DType(), x.DType())
	}
	start, err := dynamicStarts(shape, us, starts)
	if err != nil {
		return nil, err
	}
	ust := strides(us)
	var from, idx []int
	flat := -1
	forEach(shape, func(o []int) {
		flat++
		u, in := 0, true
		for i, c := range o {
			c -= start[i]
			in = in && c >= 0 && c < us[i]
			u += c * ust[i]
		}
		if in {
			from, idx = append(from, 1), append(idx, u)
		} else {
			from, idx = append(from, 0), append(idx, flat)
		}
	})
	return gather(x.DType(), shape, []*tensor.Array{x, update}, from, idx)
}
