package lower

import (
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// maxStaticRuns bounds the slices a static gather becomes (see
// staticGathers): beyond it the gather stays a kernel of its own.
const maxStaticRuns = 16

// staticGathers rewrites each take along one axis with constant,
// in-bounds, 1-D indices — gather(x, idx) reading x[…, idx[k], …] into
// element k of the axis — as a concatenate of slices of x, one per run of
// indices stepping by a constant stride ≥ 1 (a single index is a run of
// one), so the gather fuses into its readers and producers as data
// movement (Regions): x[:, [5, 0, 2, 2, 4, 1]] is the concatenate of
// x[:, 5:6], x[:, 0:3:2], x[:, 2:5:2] and x[:, 1:2]. The elements moved are
// the gather's, so the bits are. A gather with more than maxStaticRuns
// runs, an index out of bounds (the fill value or a clamp decides the
// element), or another form (windows, batching, indices of rank other
// than one) is left as it is.
func staticGathers(m *Module, fold func(*Instr, []*tensor.Array) (*tensor.Array, error)) {
	var instrs []*Instr
	changed := false
	memo := map[*Instr]*tensor.Array{}
	for _, g := range m.Instrs {
		var runs []run
		if g.Op == trace.OpGather {
			budget := maxIndexCone
			runs = staticTake(g, constValue(g.Args[1], fold, memo, &budget))
		}
		if runs == nil {
			instrs = append(instrs, g)
			continue
		}
		x, ax := g.Args[0], g.Params.Index.Gather.StartIndexMap[0]
		var parts []*Instr
		for _, r := range runs {
			if r.start == 0 && r.n == x.Shape[ax] && r.step == 1 {
				parts = append(parts, x) // the whole axis, in order
				continue
			}
			p := trace.Params{Start: make([]int, len(x.Shape)), Limit: slices.Clone(x.Shape), Stride: make([]int, len(x.Shape))}
			for j := range p.Stride {
				p.Stride[j] = 1
			}
			p.Start[ax], p.Limit[ax], p.Stride[ax] = r.start, r.start+(r.n-1)*r.step+1, r.step
			shape := slices.Clone(x.Shape)
			shape[ax] = r.n
			s := &Instr{Op: trace.OpSlice, DType: x.DType, Shape: shape, Args: []*Instr{x}, Params: p, Pos: g.Pos}
			parts = append(parts, s)
			instrs = append(instrs, s)
		}
		switch {
		case len(parts) > 1:
			g.Op, g.Args, g.Params = trace.OpConcat, parts, trace.Params{Axis: ax}
		case parts[0] == x:
			// The identity: keep a gather-free copy as one slice of all of x.
			g.Op, g.Args, g.Params = trace.OpSlice, []*Instr{x}, identitySlice(x.Shape)
		default:
			instrs = instrs[:len(instrs)-1] // the one slice is the gather itself
			g.Op, g.Args, g.Params = trace.OpSlice, []*Instr{x}, parts[0].Params
		}
		instrs = append(instrs, g)
		changed = true
	}
	if !changed {
		return
	}
	for i, in := range instrs {
		in.ID = i
	}
	m.Instrs = instrs
}

func identitySlice(shape []int) trace.Params {
	p := trace.Params{Start: make([]int, len(shape)), Limit: slices.Clone(shape), Stride: make([]int, len(shape))}
	for j := range p.Stride {
		p.Stride[j] = 1
	}
	return p
}

// maxIndexCone bounds the instructions constValue evaluates for one
// gather's indices.
const maxIndexCone = 16

// constValue is in's value when it is a constant or computed from
// constants alone (take's normalization of negative indices is a select
// over the constant indices and broadcast scalars, which Simplify's
// folding leaves: a broadcast of a constant stays a broadcast), evaluated
// with fold within budget instructions of at most foldLimit elements; or
// nil.
func constValue(in *Instr, fold func(*Instr, []*tensor.Array) (*tensor.Array, error), memo map[*Instr]*tensor.Array, budget *int) *tensor.Array {
	if in.Op == trace.OpConst {
		return in.Params.Value
	}
	if v, ok := memo[in]; ok {
		return v
	}
	if fold == nil || len(in.Args) == 0 || in.Size() > foldLimit || in.Op.Info().Class == trace.ClassControl || *budget <= 0 {
		return nil
	}
	*budget--
	memo[in] = nil
	args := make([]*tensor.Array, len(in.Args))
	for i, a := range in.Args {
		if args[i] = constValue(a, fold, memo, budget); args[i] == nil {
			return nil
		}
	}
	v, err := fold(in, args)
	if err != nil {
		return nil
	}
	memo[in] = v
	return v
}

// A run is the indices start, start+step, … (n of them).
type run struct{ start, step, n int }

// staticTake returns the runs of g's indices when g is a take along one
// axis of x with in-bounds indices of shape [k, 1] whose value is v (see
// staticGathers), or nil.
func staticTake(g *Instr, v *tensor.Array) []run {
	if v == nil || g.Params.Index.Gather.OperandBatchingDims != nil {
		return nil
	}
	x, idx := g.Args[0], g.Args[1]
	d := g.Params.Index.Gather
	if len(d.StartIndexMap) != 1 || !slices.Equal(d.CollapsedSliceDims, d.StartIndexMap) || len(idx.Shape) != 2 || idx.Shape[1] != 1 || idx.Shape[0] == 0 {
		return nil
	}
	ax := d.StartIndexMap[0]
	// Take's form: the result is x's shape with axis ax holding the k
	// taken elements, the window dims x's other dims in order.
	want := make([]int, 0, len(x.Shape)-1)
	for j := range len(x.Shape) {
		if j != ax {
			want = append(want, j)
		}
	}
	sizes := slices.Clone(x.Shape)
	sizes[ax] = 1
	shape := slices.Clone(x.Shape)
	shape[ax] = idx.Shape[0]
	if !slices.Equal(d.OffsetDims, want) || !slices.Equal(g.Params.Index.SliceSizes, sizes) || !slices.Equal(g.Shape, shape) {
		return nil
	}
	if !v.DType().IsInteger() {
		return nil
	}
	vals, ok := v.Astype(tensor.I64).Data().([]int64)
	if !ok {
		return nil
	}
	var runs []run
	for _, i := range vals {
		if i < 0 || int(i) >= x.Shape[ax] {
			return nil
		}
		if n := len(runs); n > 0 {
			r := &runs[n-1]
			next := r.start + r.step*r.n
			if r.n == 1 && int(i) > r.start {
				r.step, r.n = int(i)-r.start, 2
				continue
			}
			if r.n > 1 && int(i) == next {
				r.n++
				continue
			}
		}
		runs = append(runs, run{start: int(i), step: 1, n: 1})
		if len(runs) > maxStaticRuns {
			return nil
		}
	}
	return runs
}
