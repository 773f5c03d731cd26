package lower

import (
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// PlanBuffers assigns every materialized value a buffer. Parameters are the
// caller's arrays (read only); every output gets a buffer of its own that
// nothing else uses, so outputs never alias inputs or each other (an output
// that is a parameter, a constant, a reshape of either, or a repeated
// value is copied into it at run time); fusion results that are not
// outputs share scratch buffers once their value is dead. A reshape
// aliases its operand's buffer. Constants need no buffer: kernels read
// their value directly.
func PlanBuffers(m *Module) {
	p := &Plan{Of: map[*Instr]int{}}
	newBuf := func(in *Instr, param, output int) int {
		p.Buffers = append(p.Buffers, Buffer{ID: len(p.Buffers), DType: in.DType, Size: in.Size(), Param: param, Output: output})
		return len(p.Buffers) - 1
	}
	for _, in := range m.Params {
		p.Of[in] = newBuf(in, in.Param, -1)
	}
	// lastUse[b] is the index of the last fusion reading buffer b.
	lastUse := map[int]int{}
	var free []int
	step := func(fi int, f *Fusion) {
		for _, in := range f.Inputs {
			if b, ok := p.bufferOf(in); ok {
				lastUse[b] = fi
			}
		}
	}
	for fi, f := range m.Fusions {
		step(fi, f)
	}
	// The first output computed by a fusion (directly or through reshapes)
	// owns an output buffer; other outputs are copied at run time.
	outputIndex := map[*Instr]int{}
	for i, o := range m.Outputs {
		for o.Op == trace.OpReshape {
			o = o.Args[0]
		}
		if _, ok := outputIndex[o]; !ok && o.Op != trace.OpParam && o.Op != trace.OpConst {
			outputIndex[o] = i
		}
	}
	for fi, f := range m.Fusions {
		for _, root := range f.Outputs { // one but for control fusions
			if oi, ok := outputIndex[root]; ok {
				p.Of[root] = newBuf(root, -1, oi)
				continue
			}
			b := -1
			for i, c := range free {
				if buf := p.Buffers[c]; buf.DType == root.DType && buf.Size >= root.Size() {
					b = c
					free = slices.Delete(free, i, i+1)
					break
				}
			}
			if b < 0 {
				b = newBuf(root, -1, -1)
			}
			p.Of[root] = b
		}
		// Buffers whose last reader is this fusion are free for later ones.
		for b, last := range lastUse {
			if last == fi && p.Buffers[b].Param < 0 && p.Buffers[b].Output < 0 && !slices.Contains(free, b) {
				free = append(free, b)
			}
		}
		slices.Sort(free)
	}
	// Reshapes alias their operand.
	for _, in := range m.Instrs {
		if in.Op == trace.OpReshape {
			if b, ok := p.bufferOf(in); ok {
				p.Of[in] = b
			}
		}
	}
	m.Plan = p
}

// bufferOf follows reshapes to the buffer holding in's data; constants and
// values not yet assigned have none.
func (p *Plan) bufferOf(in *Instr) (int, bool) {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	b, ok := p.Of[in]
	return b, ok
}
