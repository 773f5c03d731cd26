package progen

import (
	"math/rand"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// gen is the state of drawing one case: the case so far and the dtype and
// shape of every value (inputs, then step results) as last traced.
type gen struct {
	r      *rand.Rand
	o      *Options
	c      *Case
	ops    map[trace.Op]bool
	types  []promote.Type
	shapes [][]int
}

func newGen(r *rand.Rand, o *Options) *gen {
	g := &gen{r: r, o: o, c: &Case{smooth: o.Smooth}, ops: map[trace.Op]bool{}}
	for _, op := range o.Ops {
		g.ops[op] = true
	}
	if r.Float64() < o.X32Prob {
		g.c.Config.X32 = true
	}
	if r.Float64() < o.StrictProb {
		g.c.Config.Rules = promote.Strict
	}
	base := g.baseShape()
	main := o.DTypes[r.Intn(len(o.DTypes))]
	n := 1 + r.Intn(o.MaxInputs)
	for range n {
		d := main
		if r.Intn(5) < 2 {
			d = o.DTypes[r.Intn(len(o.DTypes))]
		}
		t := promote.Strong(d)
		if d != tensor.Bool && r.Float64() < o.WeakProb {
			t = g.weakType(d)
		}
		shape := g.relatedShape(base)
		g.c.Inputs = append(g.c.Inputs, trace.Abstract{Type: t, Shape: shape})
		if o.Smooth {
			g.c.Arrays = append(g.c.Arrays, smoothArray(r, t.DType, shape))
		} else {
			g.c.Arrays = append(g.c.Arrays, randomArray(r, t.DType, shape))
		}
		g.types = append(g.types, t)
		g.shapes = append(g.shapes, shape)
	}
	return g
}

// weakType is mostly the default width of d's kind (what a Python scalar
// passed to a jitted function becomes), sometimes d itself, when that is
// one of the allowed dtypes.
func (g *gen) weakType(d tensor.DType) promote.Type {
	if g.r.Intn(3) > 0 {
		var def tensor.DType
		switch d.Kind() {
		case tensor.KindUint, tensor.KindInt:
			def = g.c.Config.DefaultInt()
		case tensor.KindFloat:
			def = g.c.Config.DefaultFloat()
		default:
			def = g.c.Config.DefaultComplex()
		}
		if slices.Contains(g.o.DTypes, def) {
			d = def
		}
	}
	return promote.WeakOf(d)
}

// baseShape is the shape every input's shape is derived from: rank 0–4,
// small dimensions with many 1s and an occasional 0, or now and then a
// large shape of a few thousand elements so that block tails and parallel
// splits are crossed.
func (g *gen) baseShape() []int {
	r := g.r
	if r.Float64() < g.o.LargeProb {
		total := g.o.LargeMax/4 + r.Intn(g.o.LargeMax*3/4+1)
		switch r.Intn(3) {
		case 0:
			return []int{total}
		case 1:
			a := 1 + r.Intn(64)
			return []int{a, max(1, total/a)}
		default:
			a, b := 1+r.Intn(8), 1+r.Intn(32)
			return []int{a, b, max(1, total/(a*b))}
		}
	}
	rank := []int{0, 1, 1, 2, 2, 2, 3, 3, 4}[r.Intn(9)]
	shape := make([]int, rank)
	for i := range shape {
		switch k := r.Intn(20); {
		case k == 0:
			shape[i] = 0
		case k < 5:
			shape[i] = 1
		default:
			shape[i] = 2 + r.Intn(g.o.MaxDim-1)
		}
	}
	return shape
}

// relatedShape derives a shape that broadcasts with base: some leading
// dimensions dropped, some set to 1.
func (g *gen) relatedShape(base []int) []int {
	r := g.r
	drop := 0
	if len(base) > 0 && r.Intn(3) == 0 {
		drop = r.Intn(len(base) + 1)
	}
	shape := slices.Clone(base[drop:])
	for i := range shape {
		if r.Intn(6) == 0 {
			shape[i] = 1
		}
	}
	return shape
}

// check traces the last step of the recipe, over inputs standing for the
// values so far (a traced value and an input of the same type and shape
// behave alike), and records its result's type and shape; it refuses a
// step that fails to trace, makes a value too large, or produces an
// equation that Options.Ops or Options.Allow refuses. Tracing one step
// instead of the whole prefix keeps drawing linear in the program length.
func (g *gen) check() bool {
	s := &g.c.steps[len(g.c.steps)-1]
	abs := make([]trace.Abstract, len(g.types))
	for i := range abs {
		abs[i] = trace.Abstract{Type: g.types[i], Shape: g.shapes[i]}
	}
	var out trace.Value
	fn := func(args []trace.Value) []trace.Value {
		out = s.apply(args)
		return []trace.Value{out}
	}
	p, err := trace.Trace(g.c.Config, abs, fn)
	if err != nil {
		return false
	}
	control := s.kind.isControl()
	if !eachEqn(p, func(e *trace.Eqn) bool {
		if e.Out.Size() > g.o.MaxElems || e.Op == trace.OpDot && dotWork(e) > 1<<21 || e.Op == trace.OpConv && convWork(e) > 1<<20 {
			return false
		}
		allowed := g.ops[e.Op] || g.implicit(e.Op) || control && controlMachinery[e.Op] || s.kind == kScan && scanMachinery[e.Op]
		return allowed && (g.o.Allow == nil || g.o.Allow(e)) && (!g.o.Smooth || smoothEqn(e))
	}) {
		return false
	}
	g.types = append(g.types, out.Type())
	g.shapes = append(g.shapes, out.Shape())
	return true
}

// implicit reports whether op may appear without being in Options.Ops:
// the converts and broadcasts promotion inserts, literals, and the
// reshapes matmul makes.
func (g *gen) implicit(op trace.Op) bool {
	switch op {
	case trace.OpConst, trace.OpConvert, trace.OpBroadcastInDim:
		return true
	case trace.OpReshape:
		return g.ops[trace.OpDot]
	}
	return false
}

// dotWork is the number of multiply-adds of a dot_general.
func dotWork(e *trace.Eqn) int {
	n := e.Out.Size()
	for _, d := range e.Params.Dot.LhsContract {
		n *= e.Args[0].Shape[d]
	}
	return n
}

// broadcastsWith lists the values whose shape broadcasts with shape.
func (g *gen) broadcastsWith(shape []int) []int {
	var out []int
	for i, s := range g.shapes {
		if _, ok := trace.BroadcastShapes(shape, s); ok {
			out = append(out, i)
		}
	}
	return out
}

// reshapeTarget draws a shape of the same size: flattened, dimensions
// merged or split, size-1 dimensions inserted; -1 for one dimension now
// and then.
func (g *gen) reshapeTarget(shape []int) []int {
	r := g.r
	size := trace.ShapeSize(shape)
	if r.Intn(5) == 0 {
		if size == 0 {
			return []int{0}
		}
		return []int{-1}
	}
	out := slices.Clone(shape)
	for range 1 + r.Intn(3) {
		switch k := r.Intn(3); {
		case k == 0 && len(out) >= 2: // merge two neighbours
			i := r.Intn(len(out) - 1)
			out = slices.Replace(out, i, i+2, out[i]*out[i+1])
		case k == 1 && len(out) >= 1: // split a dimension by a divisor
			i := r.Intn(len(out))
			var divs []int
			for f := 2; f < out[i]; f++ {
				if out[i]%f == 0 {
					divs = append(divs, f)
				}
			}
			if len(divs) > 0 {
				f := divs[r.Intn(len(divs))]
				out = slices.Replace(out, i, i+1, f, out[i]/f)
			}
		default:
			if len(out) < 5 {
				out = slices.Insert(out, r.Intn(len(out)+1), 1)
			}
		}
	}
	if size > 0 && len(out) > 0 && r.Intn(4) == 0 {
		out[r.Intn(len(out))] = -1
	}
	return out
}

// randomAxes draws reduction axes: all (nil), the last, or a random subset
// written with positive or negative indices.
func (g *gen) randomAxes(rank int) []int {
	r := g.r
	switch k := r.Intn(10); {
	case k < 4 || rank == 0:
		return nil
	case k < 7:
		return []int{rank - 1}
	}
	var axes []int
	for a := range rank {
		if r.Intn(2) == 0 {
			if r.Intn(3) == 0 {
				axes = append(axes, a-rank)
			} else {
				axes = append(axes, a)
			}
		}
	}
	if len(axes) == 0 {
		axes = []int{r.Intn(rank)}
	}
	return axes
}
