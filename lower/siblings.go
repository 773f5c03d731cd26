package lower

import (
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// Limits of a multi-output loop fusion.
const (
	maxFusionOutputs = 4
	maxFusionInstrs  = 64
)

// FuseSiblings merges related loop fusions of one shape into multi-output
// loop fusions (XLA's multi-output fusion): a loop joins a later one of
// the same shape that reads one of its results or shares a buffer input
// with it, when no kernel between them reads its results (it now runs at
// the later one's place). The merged kernel computes every result in one
// pass over the elements, so a value both compute from, or one computes
// from the other, is read from memory once instead of twice; the training
// step's ReLU mask and activation, or an optimizer's two moments and its
// update, become one kernel each. Each element's computation is the
// separate fusions', so the bits are the same. Outputs are in execution
// order: a result may read an earlier one.
func FuseSiblings(m *Module) {
	fs := m.Fusions
	for i := 0; i < len(fs); i++ {
		f2 := fs[i]
		if !mergeableLoop(f2) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			f1 := fs[j]
			if !mergeableLoop(f1) || !trace.ShapeEqual(f1.Outputs[0].Shape, f2.Outputs[0].Shape) || !related(f1, f2) ||
				len(f1.Outputs)+len(f2.Outputs) > maxFusionOutputs || len(f1.Instrs)+len(f2.Instrs) > maxFusionInstrs ||
				readBetween(fs[j+1:i], f1) {
				continue
			}
			mergeInto(f2, f1)
			fs = slices.Delete(fs, j, j+1)
			i--
		}
	}
	for i, f := range fs {
		f.ID = i
	}
	m.Fusions = fs
}

func mergeableLoop(f *Fusion) bool {
	return f.Kind == FusionLoop && f.Outputs[0].Op != trace.OpConst && !f.Mapped()
}

// related reports whether f2 reads a result of f1 or a buffer f1 reads,
// and not a reshape of a result of f1 (a merged kernel computes the result
// in the pass that would read it through the reshape).
func related(f1, f2 *Fusion) bool {
	for _, in := range f2.Inputs {
		if in.Op == trace.OpReshape && slices.Contains(f1.Outputs, throughReshapes(in)) {
			return false
		}
	}
	for _, in := range f2.Inputs {
		if slices.Contains(f1.Outputs, in) {
			return true
		}
		if in.Op != trace.OpConst && slices.Contains(f1.Inputs, in) && trace.ShapeEqual(in.Shape, f2.Outputs[0].Shape) {
			return true
		}
	}
	return false
}

// readBetween reports whether a fusion of between reads a result of f.
func readBetween(between []*Fusion, f *Fusion) bool {
	for _, g := range between {
		for _, in := range g.Inputs {
			if slices.Contains(f.Outputs, throughReshapes(in)) {
				return true
			}
		}
	}
	return false
}

// mergeInto makes f2 compute f1's results too, f1's first.
func mergeInto(f2, f1 *Fusion) {
	members := map[*Instr]bool{}
	for _, in := range f1.Instrs {
		members[in] = true
	}
	for _, in := range f2.Instrs {
		members[in] = true
	}
	var instrs []*Instr
	for in := range members {
		instrs = append(instrs, in)
	}
	slices.SortFunc(instrs, func(a, b *Instr) int { return a.ID - b.ID })
	var inputs []*Instr
	for _, in := range slices.Concat(f1.Inputs, f2.Inputs) {
		if !members[in] && !slices.Contains(inputs, in) {
			inputs = append(inputs, in)
		}
	}
	f2.Instrs, f2.Inputs, f2.Outputs = instrs, inputs, slices.Concat(f1.Outputs, f2.Outputs)
}
