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
//
// Liveness is kept per value: a value (through the reshapes aliasing it)
// is dead after the last fusion reading it, or right after the fusion
// computing it when none does, and its scratch buffer is then free for a
// later fusion's result of its dtype — the smallest free buffer with room,
// so large buffers stay for large values, and none more than tightFit
// times the value's size (a scalar takes a new buffer of its own rather
// than a matrix's, which a later matrix would then lack). A fusion's results never take
// the buffer of one of its own inputs: buffers are freed only after the
// fusion has been given its outputs.
func PlanBuffers(m *Module) {
	p := &Plan{Of: map[*Instr]int{}}
	newBuf := func(in *Instr, param, output int) int {
		p.Buffers = append(p.Buffers, Buffer{ID: len(p.Buffers), DType: in.DType, Size: in.Size(), Param: param, Output: output})
		return len(p.Buffers) - 1
	}
	for _, in := range m.Params {
		p.Of[in] = newBuf(in, in.Param, -1)
	}
	// lastRead[x] is the index of the last fusion reading value x.
	lastRead := map[*Instr]int{}
	for fi, f := range m.Fusions {
		for _, in := range f.Inputs {
			lastRead[throughReshapes(in)] = fi
		}
	}
	// The first output computed by a fusion (directly or through reshapes)
	// owns an output buffer; other outputs are copied at run time.
	outputIndex := map[*Instr]int{}
	returned := map[*Instr]bool{} // read when the run returns: never freed
	for i, o := range m.Outputs {
		o = throughReshapes(o)
		returned[o] = true
		if _, ok := outputIndex[o]; !ok && o.Op != trace.OpParam && o.Op != trace.OpConst {
			outputIndex[o] = i
		}
	}
	var free []int // scratch buffers holding no live value
	release := func(x *Instr) {
		b, ok := p.Of[x]
		if !ok || returned[x] || p.Buffers[b].Param >= 0 || p.Buffers[b].Output >= 0 || slices.Contains(free, b) {
			return
		}
		free = append(free, b)
	}
	for fi, f := range m.Fusions {
		for _, root := range f.Outputs { // one but for control fusions
			if oi, ok := outputIndex[root]; ok {
				p.Of[root] = newBuf(root, -1, oi)
				continue
			}
			best := -1
			for i, c := range free {
				buf := p.Buffers[c]
				if buf.DType == root.DType && buf.Size >= root.Size() && (best < 0 || buf.Size < p.Buffers[free[best]].Size) {
					best = i
				}
			}
			if best < 0 || p.Buffers[free[best]].Size > tightFit*max(root.Size(), 1) {
				p.Of[root] = newBuf(root, -1, -1)
				continue
			}
			p.Of[root] = free[best]
			free = slices.Delete(free, best, best+1)
		}
		// Values whose last reader is this fusion, and results no fusion
		// reads, are dead: their buffers are free for later fusions.
		for _, in := range f.Inputs {
			if x := throughReshapes(in); lastRead[x] == fi {
				release(x)
			}
		}
		for _, root := range f.Outputs {
			if _, read := lastRead[root]; !read {
				release(root)
			}
		}
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

// tightFit bounds how many times a value's size the scratch buffer it
// reuses may be.
const tightFit = 4

// bufferOf follows reshapes to the buffer holding in's data; constants and
// values not yet assigned have none.
func (p *Plan) bufferOf(in *Instr) (int, bool) {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	b, ok := p.Of[in]
	return b, ok
}
