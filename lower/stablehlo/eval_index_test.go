package stablehlo

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// The interpreter's convolution, gather, scatter, while and case, by the
// StableHLO spec.

func structField(o *Op, attr, name string) []int {
	s, _ := o.Attr(attr).(*StructAttr)
	if s == nil {
		return nil
	}
	f, _ := s.Field(name)
	return f.Values
}

// convolution sums in float64 (wrapping integers) and rounds once.
func (ev *shloEval) convolution(o *Op, args []ival) ([]ival, error) {
	f := func(name string) []int { return structField(o, "dimension_numbers", name) }
	ib, ifd, is := f("input_batch_dimension")[0], f("input_feature_dimension")[0], f("input_spatial_dimensions")
	ki, ko, ks := f("kernel_input_feature_dimension")[0], f("kernel_output_feature_dimension")[0], f("kernel_spatial_dimensions")
	ob, of, os := f("output_batch_dimension")[0], f("output_feature_dimension")[0], f("output_spatial_dimensions")
	strides, lhsDil, rhsDil := ints64(o, "window_strides"), ints64(o, "lhs_dilation"), ints64(o, "rhs_dilation")
	pad, _ := tensor.Data[int64](o.Attr("padding").(*DenseAttr).Value)
	groups := int(o.Attr("feature_group_count").(*IntAttr).Value)
	l, k := args[0], args[1]
	t := o.Results[0].Type
	out := newIval(t.DType, t.Shape)
	cin := k.shape[ki] // input features per group
	coutPerGroup := k.shape[ko] / groups
	ns := len(is)
	oidx, li, kidx := make([]int, len(t.Shape)), make([]int, len(l.shape)), make([]int, len(k.shape))
	win := make([]int, ns)
	for i, d := range ks {
		win[i] = k.shape[d]
	}
	widx := make([]int, ns)
	for j := range out.size() {
		unravel(j, t.Shape, oidx)
		g := oidx[of] / coutPerGroup
		var sf float64
		var si int64
		var su uint64
		for c := range cin {
			for w := range shapeSize(win) {
				unravel(w, win, widx)
				// A position in the padding or a hole of the lhs dilation
				// reads a zero (0 × inf is NaN, as the spec's padded
				// lhs gives).
				ok := true
				for s := range ns {
					pos := oidx[os[s]]*strides[s] + widx[s]*rhsDil[s] - int(pad[2*s])
					if pos < 0 || pos%lhsDil[s] != 0 || pos/lhsDil[s] >= l.shape[is[s]] {
						ok = false
					} else {
						li[is[s]] = pos / lhsDil[s]
					}
					kidx[ks[s]] = widx[s]
				}
				li[ib], li[ifd] = oidx[ob], g*cin+c
				kidx[ki], kidx[ko] = c, oidx[of]
				y := ravel(kidx, k.shape)
				if !ok {
					if k.f != nil {
						sf += 0 * k.f[y]
					}
					continue
				}
				x := ravel(li, l.shape)
				switch {
				case l.f != nil:
					sf += l.f[x] * k.f[y]
				case l.i != nil:
					si += l.i[x] * k.i[y]
				case l.u != nil:
					su += l.u[x] * k.u[y]
				default:
					return nil, fmt.Errorf("convolution of %s", l.d)
				}
			}
		}
		switch {
		case out.f != nil:
			out.f[j] = sf
		case out.i != nil:
			out.i[j] = wrap(t.DType, si)
		case out.u != nil:
			out.u[j] = wrapU(t.DType, su)
		}
	}
	if out.f != nil {
		out.f = round(t.DType, out.f)
	}
	return []ival{out}, nil
}

// gather follows the spec: each result index is a batch index (the
// dims not in offset_dims) selecting a start vector, clamped so the slice
// fits, plus an offset into the slice.
func (ev *shloEval) gather(o *Op, args []ival) ([]ival, error) {
	f := func(name string) []int { return structField(o, "dimension_numbers", name) }
	offsetDims, collapsed, startMap := f("offset_dims"), f("collapsed_slice_dims"), f("start_index_map")
	opBatch, idxBatch := f("operand_batching_dims"), f("start_indices_batching_dims")
	ivd := f("index_vector_dim")[0]
	sizes := ints64(o, "slice_sizes")
	a, ix := args[0], args[1]
	t := o.Results[0].Type
	var batchDims []int
	for d := range t.Shape {
		if !slices.Contains(offsetDims, d) {
			batchDims = append(batchDims, d)
		}
	}
	var windowOperandDims []int // operand dims that offset dims index, in order
	for d := range a.shape {
		if !slices.Contains(collapsed, d) && !slices.Contains(opBatch, d) {
			windowOperandDims = append(windowOperandDims, d)
		}
	}
	oidx := make([]int, len(t.Shape))
	return []ival{mapIndex(a, t.Shape, func(out, in []int) bool {
		copy(oidx, out)
		bi := make([]int, len(batchDims))
		for i, d := range batchDims {
			bi[i] = oidx[d]
		}
		// the index into start_indices, with index_vector_dim inserted
		sidx := make([]int, 0, len(ix.shape))
		sidx = append(sidx, bi[:min(ivd, len(bi))]...)
		if ivd < len(ix.shape) {
			sidx = append(sidx, 0)
		}
		sidx = append(sidx, bi[min(ivd, len(bi)):]...)
		for i := range in {
			in[i] = 0
		}
		for k, d := range startMap {
			if ivd < len(ix.shape) {
				sidx[ivd] = k
			}
			s := index(ix, ravel(sidx, ix.shape))
			in[d] = int(min(max(s, 0), int64(a.shape[d]-sizes[d])))
		}
		for k, d := range opBatch {
			bd := idxBatch[k]
			if bd > ivd {
				bd--
			}
			in[d] = bi[bd]
		}
		for i, d := range windowOperandDims {
			in[d] += oidx[offsetDims[i]]
		}
		return true
	})}, nil
}

// scatter follows the spec: each update element goes to its start plus
// its window offset, combined by the region; elements out of bounds are
// skipped.
func (ev *shloEval) scatter(o *Op, args []ival) ([]ival, error) {
	f := func(name string) []int { return structField(o, "scatter_dimension_numbers", name) }
	windowDims, inserted, toOperand := f("update_window_dims"), f("inserted_window_dims"), f("scatter_dims_to_operand_dims")
	opBatch, idxBatch := f("input_batching_dims"), f("scatter_indices_batching_dims")
	ivd := f("index_vector_dim")[0]
	a, ix, upd := args[0], args[1], args[2]
	r := a.pick(seqN(a.size()), a.shape)
	var scatterDims []int
	for d := range upd.shape {
		if !slices.Contains(windowDims, d) {
			scatterDims = append(scatterDims, d)
		}
	}
	var windowOperandDims []int
	for d := range a.shape {
		if !slices.Contains(inserted, d) && !slices.Contains(opBatch, d) {
			windowOperandDims = append(windowOperandDims, d)
		}
	}
	uidx, res := make([]int, len(upd.shape)), make([]int, len(a.shape))
	for j := range upd.size() {
		unravel(j, upd.shape, uidx)
		si := make([]int, len(scatterDims))
		for i, d := range scatterDims {
			si[i] = uidx[d]
		}
		sidx := make([]int, 0, len(ix.shape))
		sidx = append(sidx, si[:min(ivd, len(si))]...)
		if ivd < len(ix.shape) {
			sidx = append(sidx, 0)
		}
		sidx = append(sidx, si[min(ivd, len(si)):]...)
		for i := range res {
			res[i] = 0
		}
		for k, d := range toOperand {
			if ivd < len(ix.shape) {
				sidx[ivd] = k
			}
			res[d] = int(min(max(index(ix, ravel(sidx, ix.shape)), -1<<40), 1<<40))
		}
		for k, d := range opBatch {
			bd := idxBatch[k]
			if bd > ivd {
				bd--
			}
			res[d] = si[bd]
		}
		for i, d := range windowOperandDims {
			res[d] += uidx[windowDims[i]]
		}
		inBounds := true
		for d := range res {
			inBounds = inBounds && res[d] >= 0 && res[d] < a.shape[d]
		}
		if !inBounds {
			continue
		}
		p := ravel(res, a.shape)
		y, err := ev.combine(o.Regions[0], []ival{r.scalar(p), upd.scalar(j)})
		if err != nil {
			return nil, err
		}
		r.put(p, y[0], 0)
	}
	return []ival{r}, nil
}

// while runs the body while the cond returns true (at most a million
// iterations: an export that loops forever is an error).
func (ev *shloEval) while(o *Op, args []ival) ([]ival, error) {
	carry := args
	for range 1 << 20 {
		c, err := ev.run(o.Regions[0], carry)
		if err != nil {
			return nil, err
		}
		if !c[0].b[0] {
			return carry, nil
		}
		if carry, err = ev.run(o.Regions[1], carry); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("a while that does not end")
}

// caseOp runs the branch the index selects; an index out of range selects
// the last branch (the spec's rule; the export clamps it first).
func (ev *shloEval) caseOp(o *Op, args []ival) ([]ival, error) {
	i := index(args[0], 0)
	if i < 0 || i >= int64(len(o.Regions)) {
		i = int64(len(o.Regions) - 1)
	}
	return ev.run(o.Regions[i], nil)
}
