package lower

import (
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// WithoutFirstChosen returns loop fusion f with its result computed as
// the extremum m it picks out, when f's one output is trace's firstChosen
// over a window reduction's parts (trace/pool.go: reduce_window max or
// min, flax's max_pool): m = comb(…comb(p₀, p₁)…, pₙ₋₁) with comb max or
// min, and the output select(pₖ == m, pₖ, …) down the parts, then for
// floats select(isnan(m), m, ·) and the zero's sign from m by
// select(· == 0, copysign(·, m), ·). That output is m to the bit: max and
// min return one of their operands or NaN, so some pₖ equals m — the same
// bits unless both are zeros, whose sign copysign takes from m — or m is
// NaN and taken whole. The derivative passes need firstChosen (it says
// which element gets the tangent); a forward pass reads only its value,
// so a backend may compute m alone: two thirds fewer steps per element
// for a 3×3 max_pool. It returns nil when f is not such a fusion. The
// returned fusion shares f's instructions; its output is m, which has the
// shape and dtype of f's output and is written to f's output buffer.
func WithoutFirstChosen(f *Fusion) *Fusion {
	if f.Kind != FusionLoop || len(f.Outputs) != 1 {
		return nil
	}
	root := f.Outputs[0]
	members := map[*Instr]bool{}
	for _, in := range f.Instrs {
		members[in] = true
	}
	sel := func(in *Instr) (cond, a, b *Instr, ok bool) {
		if in == nil || in.Op != trace.OpSelect || !members[in] {
			return nil, nil, nil, false
		}
		return in.Args[0], in.Args[1], in.Args[2], true
	}
	is := func(in *Instr, op trace.Op, args ...*Instr) bool {
		if in == nil || in.Op != op || !members[in] || len(in.Args) != len(args) {
			return false
		}
		for i, a := range args {
			if in.Args[i] != a {
				return false
			}
		}
		return true
	}
	chosen := root
	var m *Instr
	if root.DType.IsFloat() {
		// select(eq(c, 0), copysign(c, m), c)
		cond, a, c, ok := sel(root)
		if !ok || a == nil || a.Op != trace.OpCopysign || !members[a] || a.Args[0] != c {
			return nil
		}
		m = a.Args[1]
		if cond.Op != trace.OpEq || !members[cond] || cond.Args[0] != c || !isZero(cond.Args[1]) {
			return nil
		}
		// c = select(isnan(m), m, chosen)
		nan, mm, rest, ok := sel(c)
		if !ok || mm != m || !is(nan, trace.OpIsNaN, m) {
			return nil
		}
		chosen = rest
	}
	// chosen = select(eq(p₀, m), p₀, select(eq(p₁, m), p₁, … pₙ₋₁))
	var parts []*Instr
	for {
		cond, p, rest, ok := sel(chosen)
		if !ok || cond.Op != trace.OpEq || !members[cond] || cond.Args[0] != p {
			break
		}
		if m == nil {
			m = cond.Args[1]
		}
		if cond.Args[1] != m {
			return nil
		}
		parts = append(parts, p)
		chosen = rest
	}
	parts = append(parts, chosen)
	if m == nil || len(parts) < 2 || !members[m] || m.DType != root.DType || !trace.ShapeEqual(m.Shape, root.Shape) {
		return nil
	}
	// m = comb(…comb(p₀, p₁)…, pₙ₋₁)
	acc := m
	for k := len(parts) - 1; k >= 1; k-- {
		if acc.Op != trace.OpMax && acc.Op != trace.OpMin || acc.Op != m.Op || !members[acc] || acc.Args[1] != parts[k] {
			return nil
		}
		acc = acc.Args[0]
	}
	if acc != parts[0] {
		return nil
	}
	// The instructions m needs, in f's order.
	need := map[*Instr]bool{}
	var mark func(in *Instr)
	mark = func(in *Instr) {
		if need[in] || !members[in] {
			return
		}
		need[in] = true
		for _, a := range in.Args {
			mark(a)
		}
	}
	mark(m)
	g := &Fusion{ID: f.ID, Kind: f.Kind, Outputs: []*Instr{m}}
	for _, in := range f.Instrs {
		if need[in] {
			g.Instrs = append(g.Instrs, in)
		}
	}
	for _, in := range f.Inputs {
		for _, u := range g.Instrs {
			if reads(u, in) {
				g.Inputs = append(g.Inputs, in)
				break
			}
		}
	}
	return g
}

// reads says whether u takes in as an operand.
func reads(u, in *Instr) bool { return slices.Contains(u.Args, in) }

// isZero says whether in is a constant zero (of either sign) or a
// broadcast of one.
func isZero(in *Instr) bool {
	for in.Op == trace.OpBroadcastInDim || in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	if in.Op != trace.OpConst || in.Params.Value == nil || in.Params.Value.Size() != 1 {
		return false
	}
	v, ok := in.Params.Value.Astype(tensor.F64).Data().([]float64)
	return ok && len(v) == 1 && v[0] == 0
}
