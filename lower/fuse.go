package lower

import (
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// loopable reports whether in can run inside an elementwise loop: an
// elementwise op, a constant, or a broadcast_in_dim (which reads its
// operand by index arithmetic).
func loopable(in *Instr) bool {
	return in.Op.Elementwise() || in.Op == trace.OpConst || in.Op == trace.OpBroadcastInDim
}

// cheap instructions are duplicated into every fusion that reads them
// instead of being materialized: scalar-ish constants and broadcasts of
// them.
func cheap(in *Instr) bool {
	switch in.Op {
	case trace.OpConst:
		return in.Size() == 1
	case trace.OpBroadcastInDim:
		return in.Args[0].Op == trace.OpConst && in.Args[0].Size() == 1
	}
	return false
}

// Fuse partitions the module's instructions into kernels (XLA's
// producer-into-consumer rule). Walking from the last instruction back, each
// unassigned instruction roots a fusion; a loopable producer of the same
// shape joins it when every one of its users is already in it — so no value
// leaves a fusion except its root, and fusions never form a cycle. Cheap
// producers (scalar constants and their broadcasts) join every fusion that
// reads them. A reduction roots a reduce fusion whose elementwise producers
// are fused into it. A broadcast_in_dim joins only as a leaf: its operand
// is read from a buffer. With fuse false every instruction is its own
// kernel (op by op).
func Fuse(m *Module, fuse bool) {
	users := m.users()
	assigned := map[*Instr]bool{}
	outputs := map[*Instr]bool{}
	for _, o := range m.Outputs {
		for o.Op == trace.OpReshape {
			o = o.Args[0]
		}
		outputs[o] = true
	}
	fusions := []*Fusion{} // not nil: the module is fused, if into no kernel
	for i := len(m.Instrs) - 1; i >= 0; i-- {
		root := m.Instrs[i]
		if assigned[root] || root.Op == trace.OpParam || root.Op == trace.OpReshape || root.Op == trace.OpResult {
			continue // a result is an output of its while's or cond's fusion
		}
		if fuse && cheap(root) && !outputs[root] && (root.Op == trace.OpConst || allAbsorb(users[root])) {
			continue // duplicated into its users' fusions
		}
		f := &Fusion{Kind: kindOf(root), Outputs: []*Instr{root}}
		members := map[*Instr]bool{root: true}
		assigned[root] = true
		if f.Kind == FusionControl {
			for _, u := range users[root] {
				if u.Op == trace.OpResult {
					members[u], assigned[u] = true, true
				}
			}
		}
		if fuse && (f.Kind == FusionLoop || f.Kind == FusionReduce) {
			growFusion(root, f, members, users, assigned, outputs)
		}
		for _, in := range m.Instrs {
			if members[in] {
				f.Instrs = append(f.Instrs, in)
				if f.Kind == FusionControl && in != root {
					f.Outputs = append(f.Outputs, in)
				}
			}
		}
		for _, in := range f.Instrs {
			for _, a := range in.Args {
				if !members[a] && !slices.Contains(f.Inputs, a) {
					f.Inputs = append(f.Inputs, a)
				}
			}
		}
		fusions = append(fusions, f)
	}
	slices.Reverse(fusions)
	for i, f := range fusions {
		f.ID = i
	}
	m.Fusions = fusions
}

func kindOf(in *Instr) FusionKind {
	switch in.Op.Info().Class {
	case trace.ClassReduce:
		return FusionReduce
	case trace.ClassDot:
		return FusionDot
	case trace.ClassIndex:
		return FusionCopy
	case trace.ClassControl:
		return FusionControl
	case trace.ClassStructural:
		if in.Op == trace.OpBroadcastInDim {
			return FusionLoop
		}
		return FusionCopy
	}
	return FusionLoop
}

// growFusion adds producers to f, from its root outward.
// A module output is used outside every fusion, so it never joins one
// except as its root.
func growFusion(root *Instr, f *Fusion, members map[*Instr]bool, users map[*Instr][]*Instr, assigned, outputs map[*Instr]bool) {
	shape := root.Shape
	if f.Kind == FusionReduce {
		shape = root.Args[0].Shape
	}
	work := []*Instr{root}
	for len(work) > 0 {
		in := work[len(work)-1]
		work = work[:len(work)-1]
		if in.Op == trace.OpBroadcastInDim && in != root {
			continue // its operand has another shape: read from a buffer
		}
		if in.Op == trace.OpBroadcastInDim && !cheap(in) {
			continue
		}
		for _, p := range in.Args {
			if members[p] || !loopable(p) || !trace.ShapeEqual(p.Shape, shape) {
				continue
			}
			if cheap(p) {
				members[p] = true
				work = append(work, p)
				continue
			}
			if assigned[p] || outputs[p] || !allIn(users[p], members) {
				continue
			}
			members[p], assigned[p] = true, true
			work = append(work, p)
		}
	}
}

// allAbsorb reports whether every user can compute a cheap broadcast inside
// its own fusion: elementwise ops and reductions can; copies, dots and
// reshapes read a buffer. (A constant needs none: kernels read its value.)
func allAbsorb(users []*Instr) bool {
	for _, u := range users {
		if !u.Op.Elementwise() && u.Op.Info().Class != trace.ClassReduce {
			return false
		}
	}
	return true
}

func allIn(xs []*Instr, set map[*Instr]bool) bool {
	for _, x := range xs {
		if !set[x] {
			return false
		}
	}
	return true
}
