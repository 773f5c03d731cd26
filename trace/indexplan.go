package trace

import (
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// gatherPlan is one gather (or, transposed, one scatter) computing a NumPy
// index: JAX's _index_to_gather.
type gatherPlan struct {
	dims    GatherDims
	sizes   []int
	indices *Var // the index batch shape, then the index vectors
}

// indexPart is one component of the index vectors: v's dims are dims
// pos… of the index batch shape (broadcast over the others).
type indexPart struct {
	v   *Var
	pos int
}

// plan builds the gather reading the index from x. With sliced set the
// spans have been applied to x already and are full dims; otherwise a
// unit-step span is a window at a start index and any other span an
// index array of its own (a batch dim of the result).
func (ix *indexer) plan(x *Var, sliced bool) *gatherPlan {
	b := ix.b
	var (
		parts      []indexPart
		ib         []int // the index batch shape
		offsetDims []int
		startMap   []int
		collapsed  []int
		outPos     int
	)
	sizes := slices.Clone(x.Shape)
	block := -1 // where the advanced block's dims start in ib
	emitBlock := func() {
		block = len(ib)
		ib = append(ib, ix.bcast...)
		outPos += len(ix.bcast)
	}
	if ix.arrays && !ix.contiguous {
		emitBlock()
	}
	index := func(d int, v *Var, pos int, collapse bool) {
		parts = append(parts, indexPart{v, pos})
		startMap = append(startMap, d)
		if collapse {
			collapsed, sizes[d] = append(collapsed, d), 1
		}
	}
	dim := 0
	for _, it := range ix.items {
		if it.kind == itNone {
			continue
		}
		n := x.Shape[dim]
		switch {
		case ix.advanced(it):
			if block < 0 {
				emitBlock()
			}
			v := ix.intConst(it.i)
			if it.kind == itArray {
				v = b.normIndex(it.v.v, n)
			}
			if v == nil {
				return nil
			}
			index(dim, v, block+len(ix.bcast)-v.Rank(), true)
		case it.kind == itInt:
			index(dim, ix.intConst(it.i), 0, true)
		case it.kind == itSpan && !sliced:
			lo, _, step, count := it.span.bounds(n)
			if step == 1 {
				if count != n {
					index(dim, ix.intConst(lo), 0, false)
				}
				sizes[dim] = count
				offsetDims, outPos = append(offsetDims, outPos), outPos+1
				break
			}
			vals := make([]int64, count)
			for j := range vals {
				vals[j] = int64(lo + j*step)
			}
			a, _ := tensor.FromSlice(vals)
			index(dim, b.attach(Const(a.Astype(b.cfg.IndexType())), ix.op).v, len(ib), true)
			ib, outPos = append(ib, count), outPos+1
		default:
			offsetDims, outPos = append(offsetDims, outPos), outPos+1
		}
		dim++
	}
	idx := ix.indexArray(parts, ib)
	if idx == nil {
		return nil
	}
	return &gatherPlan{dims: GatherDims{OffsetDims: offsetDims, CollapsedSliceDims: collapsed, StartIndexMap: startMap}, sizes: sizes, indices: idx}
}

// intConst is a static index as a scalar constant of the index dtype.
func (ix *indexer) intConst(i int) *Var {
	return ix.b.to(Value{b: ix.b, lit: &literal{kind: tensor.KindInt, i: int64(i)}}, strongIndex(ix.b), ix.op, "")
}

// indexArray converts the parts to the index dtype, broadcasts each to
// the index batch shape and stacks them along a new last dim.
func (ix *indexer) indexArray(parts []indexPart, ib []int) *Var {
	b := ix.b
	t := strongIndex(b)
	if len(parts) == 0 {
		a, _ := tensor.Zeros(t.DType, append(slices.Clone(ib), 0)...)
		return b.attach(Const(a), ix.op).v
	}
	full := append(slices.Clone(ib), 1)
	cols := make([]Value, len(parts))
	for i, p := range parts {
		v := b.to(Value{b: b, v: p.v}, t, ix.op, "indices convert to "+t.String())
		if v == nil {
			return nil
		}
		shape := make([]int, len(full))
		for k := range shape {
			shape[k] = 1
		}
		copy(shape[p.pos:], v.Shape)
		cols[i] = Value{b: b, v: v}.Reshape(shape...).BroadcastTo(full...)
	}
	return Concatenate(-1, cols...).v
}

// update computes x.at[idx].op(upd) as one scatter.
func (ix *indexer) update(op Op, upd Value, orig []int) Value {
	b := ix.b
	final, isNew := ix.layout()
	var window []int
	for i, d := range final {
		if !isNew[i] {
			window = append(window, d)
		}
	}
	if ShapeSize(window) == 0 {
		return Value{b: b, v: ix.x}.Reshape(orig...) // nothing to update (JAX returns x)
	}
	if _, bad := ix.empty(final); bad {
		return Value{b: b}
	}
	p := ix.plan(ix.x, false)
	if p == nil {
		return Value{b: b}
	}
	mode := ModeFill
	if ix.mode == ModeClip {
		mode = ModeClip
	}
	shapeUpd := func(u *Var) *Var {
		if u = b.broadcastTo(u, final, ix.op).v; u == nil {
			return nil
		}
		return Value{b: b, v: u}.Reshape(window...).v
	}
	r := b.scatter(op, ix.x, p.indices, upd, ScatterDimsOf(p.dims), mode, shapeUpd)
	return r.Reshape(orig...)
}

func strongIndex(b *builder) promote.Type { return promote.Strong(b.cfg.IndexType()) }
