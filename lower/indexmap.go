package lower

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/trace"
)

// Data movement inside loop fusions (XLA's loop fusion reads a fused
// slice, concatenate, rev, transpose or broadcast through an index map).
//
// A mapped loop fusion is a loop fusion holding data-movement
// instructions (movable): its members may have other shapes than its
// root. Regions splits the root's index space into boxes within which
// every concatenate the fusion holds reads one operand; in a box each
// fusion input (or constant) is read at an affine offset of the root's
// index — Base + Σ idx[j]·Strides[j] — and the elementwise members form a
// straight-line expression over the root's index, as a plain loop
// fusion's do. The elements are the ones the unfused program would move,
// and every elementwise op sees the operands it would see unfused, so a
// mapped fusion computes the unfused program's bits.

// movable reports whether in is a data-movement instruction a loop fusion
// may hold: each of its elements is an element of an operand, at an index
// an affine map of its own index gives (piecewise for a concatenate).
func movable(in *Instr) bool {
	switch in.Op {
	case trace.OpSlice, trace.OpConcat, trace.OpRev, trace.OpTranspose:
		return true
	}
	return false
}

// Mapped reports whether f is a loop fusion holding data-movement
// instructions or iotas (see Regions), whose members may have other shapes
// than its root.
func (f *Fusion) Mapped() bool {
	if f.Kind != FusionLoop {
		return false
	}
	for _, in := range f.Instrs {
		if movable(in) || in.Op == trace.OpIota {
			return true
		}
	}
	return false
}

// A Region is a box of a mapped loop fusion's iteration space (its root's
// index space): Lo[j] ≤ idx[j] < Hi[j]. Root is the fusion's value in the
// box as an expression over the root's index: copies of the fusion's
// elementwise members (given the root's shape and fresh IDs) whose
// operands are other copies or the Leaves' stand-ins. Instrs lists the
// expression's instructions in dependency order, leaves first.
type Region struct {
	Lo, Hi []int
	Root   *Instr
	Instrs []*Instr
	Leaves []*Leaf
}

// A Leaf is a value a region reads from memory: Src (a fusion input, or a
// constant) at element Base + Σ idx[j]·Strides[j] of its row-major buffer,
// for every idx of the region's box. When Counted is set (Src is an iota
// and a member of the fusion) nothing is read: the leaf's value is the
// count Base + Σ idx[j]·Strides[j] itself, converted to Src's dtype as the
// iota converts it. An iota that is not a member (a kernel of its own,
// say, because another kernel reads it too) is a buffer like any other
// input, read at Base + Σ idx[j]·Strides[j]: Src.Op alone does not tell
// the two apart. In is its stand-in in the region's expression: not a
// member of the fusion, with the root's shape.
type Leaf struct {
	In      *Instr
	Src     *Instr
	Base    int
	Strides []int
	Counted bool
}

// Size is the number of elements of the region's box.
func (r *Region) Size() int {
	n := 1
	for j := range r.Lo {
		n *= r.Hi[j] - r.Lo[j]
	}
	return n
}

// Limits on a mapped fusion: beyond them the data movement stays a
// kernel of its own (Fuse checks them with Regions).
const (
	maxRegions     = 64
	maxRegionNodes = 256
)

// axisMap is one coordinate of a value as a function of the root's index:
// off + coef·idx[dim] (dim < 0: off).
type axisMap struct{ dim, coef, off int }

// Regions splits mapped loop fusion f into regions (see Region), or
// returns an error when the fusion needs more than maxRegions regions or
// a region's expression more than maxRegionNodes instructions. The
// regions cover the root's index space exactly once.
func Regions(f *Fusion) ([]*Region, error) {
	if f.Kind != FusionLoop || len(f.Outputs) != 1 {
		return nil, fmt.Errorf("lower: fusion %d: regions of a %s fusion with %d outputs", f.ID, f.Kind, len(f.Outputs))
	}
	members := map[*Instr]bool{}
	maxID := 0
	for _, in := range f.Instrs {
		members[in] = true
		maxID = max(maxID, in.ID)
	}
	root := f.Outputs[0]
	ident := make([]axisMap, len(root.Shape))
	for j := range ident {
		ident[j] = axisMap{dim: j, coef: 1}
	}
	var out []*Region
	work := [][2][]int{{make([]int, len(root.Shape)), slices.Clone(root.Shape)}}
	for len(work) > 0 {
		box := work[len(work)-1]
		work = work[:len(work)-1]
		empty := false
		for j := range box[0] {
			empty = empty || box[0][j] >= box[1][j]
		}
		if empty && len(root.Shape) > 0 {
			continue
		}
		rb := &regionBuilder{members: members, root: root, lo: box[0], hi: box[1], memo: map[string]*Instr{}, leaves: map[string]*Leaf{}, nextID: maxID + 1}
		r, split, err := rb.build(ident)
		if err != nil {
			return nil, fmt.Errorf("lower: fusion %d: %w", f.ID, err)
		}
		if split != nil {
			a, b := box, box
			a[1], b[0] = slices.Clone(box[1]), slices.Clone(box[0])
			a[1][split.dim], b[0][split.dim] = split.at, split.at
			work = append(work, b, a) // a first: regions in index order
			continue
		}
		out = append(out, r)
		if len(out) > maxRegions {
			return nil, fmt.Errorf("lower: fusion %d: more than %d regions", f.ID, maxRegions)
		}
	}
	return out, nil
}

type cut struct{ dim, at int }

type regionBuilder struct {
	members map[*Instr]bool
	root    *Instr
	lo, hi  []int
	memo    map[string]*Instr
	leaves  map[string]*Leaf
	r       *Region
	split   *cut
	nextID  int
}

func (rb *regionBuilder) build(ident []axisMap) (*Region, *cut, error) {
	rb.r = &Region{Lo: rb.lo, Hi: rb.hi}
	v, err := rb.value(rb.root, ident)
	if err != nil || rb.split != nil {
		return nil, rb.split, err
	}
	rb.r.Root = v
	// Leaves first, then the expression in dependency order (value
	// appends each instruction after its operands).
	instrs := make([]*Instr, 0, len(rb.r.Instrs))
	for _, l := range rb.r.Leaves {
		instrs = append(instrs, l.In)
	}
	for _, in := range rb.r.Instrs {
		if !slices.ContainsFunc(rb.r.Leaves, func(l *Leaf) bool { return l.In == in }) {
			instrs = append(instrs, in)
		}
	}
	rb.r.Instrs = instrs
	return rb.r, nil, nil
}

func mapKey(in *Instr, m []axisMap) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", in.ID)
	for _, a := range m {
		fmt.Fprintf(&b, ":%d,%d,%d", a.dim, a.coef, a.off)
	}
	return b.String()
}

// span is the range [min, max] of coordinate a over the box.
func (rb *regionBuilder) span(a axisMap) (int, int) {
	if a.dim < 0 {
		return a.off, a.off
	}
	x, y := a.off+a.coef*rb.lo[a.dim], a.off+a.coef*(rb.hi[a.dim]-1)
	return min(x, y), max(x, y)
}

// value is in's value over the box, in's coordinates given by m.
func (rb *regionBuilder) value(in *Instr, m []axisMap) (*Instr, error) {
	if rb.split != nil {
		return nil, nil
	}
	key := mapKey(in, m)
	if v, ok := rb.memo[key]; ok {
		return v, nil
	}
	if len(rb.r.Instrs) >= maxRegionNodes {
		return nil, fmt.Errorf("a region needs more than %d instructions", maxRegionNodes)
	}
	var v *Instr
	switch {
	case !rb.members[in] || in.Op == trace.OpConst:
		v = rb.leaf(in, m)
	case in.Op == trace.OpIota:
		// Its element at coordinates c is c[Axis]: an affine count of the
		// root's index, computed rather than loaded.
		a := m[in.Params.Axis]
		l := &Leaf{Src: in, Base: a.off, Strides: make([]int, len(rb.root.Shape)), Counted: true}
		if a.dim >= 0 {
			l.Strides[a.dim] = a.coef
		}
		v = rb.addLeaf(l)
	case in.Op.Elementwise():
		c := *in
		c.Args = make([]*Instr, len(in.Args))
		for i, a := range in.Args {
			x, err := rb.value(a, m)
			if err != nil || x == nil {
				return nil, err
			}
			c.Args[i] = x
		}
		c.Shape = slices.Clone(rb.root.Shape)
		c.ID = rb.nextID
		rb.nextID++
		v = &c
		rb.r.Instrs = append(rb.r.Instrs, v)
	default:
		x, om, err := rb.operand(in, m)
		if err != nil || x == nil {
			return nil, err
		}
		if v, err = rb.value(x, om); err != nil || v == nil {
			return nil, err
		}
	}
	rb.memo[key] = v
	return v, nil
}

// operand resolves a data-movement instruction: the operand read over the
// box and its coordinates. It records a split of the box (and returns nil)
// when a concatenate reads several operands over it.
func (rb *regionBuilder) operand(in *Instr, m []axisMap) (*Instr, []axisMap, error) {
	x := in.Args[0]
	p := in.Params
	om := make([]axisMap, len(x.Shape))
	switch in.Op {
	case trace.OpBroadcastInDim:
		for i, d := range p.Dims {
			if x.Shape[i] != 1 {
				om[i] = m[d]
			} else {
				om[i] = axisMap{dim: -1}
			}
		}
	case trace.OpTranspose:
		for i, d := range p.Perm {
			om[d] = m[i]
		}
	case trace.OpSlice:
		for k, a := range m {
			om[k] = axisMap{dim: a.dim, coef: a.coef * p.Stride[k], off: p.Start[k] + a.off*p.Stride[k]}
			if a.dim < 0 {
				om[k].coef = 0
			}
		}
	case trace.OpRev:
		copy(om, m)
		for _, k := range p.Axes {
			om[k] = axisMap{dim: m[k].dim, coef: -m[k].coef, off: x.Shape[k] - 1 - m[k].off}
		}
	case trace.OpConcat:
		ax := p.Axis
		a := m[ax]
		lo, hi := rb.span(a)
		c0 := a.off // the coordinate at the box's first index
		if a.dim >= 0 {
			c0 += a.coef * rb.lo[a.dim]
		}
		start, found := 0, false
		for _, y := range in.Args {
			end := start + y.Shape[ax]
			if c0 < start || c0 >= end {
				start = end
				continue
			}
			if lo >= start && hi < end {
				x = y
				copy(om, m)
				om[ax].off -= start
				found = true
				break
			}
			// Split the box where the coordinate leaves [start, end).
			at := ceilDiv(end-a.off, a.coef) // rising: the first index reaching end
			if a.coef < 0 {
				at = ceilDiv(a.off-start+1, -a.coef) // falling: the first below start
			}
			rb.split = &cut{dim: a.dim, at: at}
			return nil, nil, nil
		}
		if !found {
			return nil, nil, fmt.Errorf("concatenate coordinate %d is outside its operands", c0)
		}
	default:
		return nil, nil, fmt.Errorf("%s cannot run inside a loop fusion", in.Op)
	}
	return x, om, nil
}

func ceilDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) == (b < 0)) {
		q++
	}
	return q
}

// leaf is the stand-in reading src at coordinates m.
func (rb *regionBuilder) leaf(src *Instr, m []axisMap) *Instr {
	st := rowMajorStrides(src.Shape)
	l := &Leaf{Src: src, Strides: make([]int, len(rb.root.Shape))}
	for k, a := range m {
		if src.Shape[k] == 1 {
			continue
		}
		l.Base += a.off * st[k]
		if a.dim >= 0 {
			l.Strides[a.dim] += a.coef * st[k]
		}
	}
	return rb.addLeaf(l)
}

// addLeaf adds leaf l to the region (once per source and map) and returns
// its stand-in.
func (rb *regionBuilder) addLeaf(l *Leaf) *Instr {
	src := l.Src
	key := fmt.Sprintf("%d:%d:%v:%t", src.ID, l.Base, l.Strides, l.Counted)
	if old, ok := rb.leaves[key]; ok {
		return old.In
	}
	in := &Instr{Op: src.Op, DType: src.DType, Shape: slices.Clone(rb.root.Shape), Params: src.Params, Pos: src.Pos, ID: rb.nextID}
	rb.nextID++
	l.In = in
	rb.leaves[key] = l
	rb.r.Leaves = append(rb.r.Leaves, l)
	rb.r.Instrs = append(rb.r.Instrs, in)
	return in
}

// rowMajorStrides are the element strides of a row-major array of shape.
func rowMajorStrides(shape []int) []int {
	st := make([]int, len(shape))
	n := 1
	for k := len(shape) - 1; k >= 0; k-- {
		st[k] = n
		n *= shape[k]
	}
	return st
}
