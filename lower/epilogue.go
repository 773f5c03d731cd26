package lower

import (
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// FuseEpilogues is XLA's output fusion: a dot_general or
// conv_general_dilated read by the elementwise instructions of a loop
// fusion (a bias add through a broadcast, a scale, an activation, a
// convert to the output dtype) moves into that fusion, which becomes a dot
// fusion with an epilogue. The backend then runs the elementwise part on
// each block of the product as soon as the block is final, while it is in
// cache, instead of writing the product to memory and reading it back: a
// dense layer tanh(x @ w + b) is one pass over its output.
//
// The epilogue reads the product at the same index as the element it
// computes, so the fusion's loop is the product's shape; its other inputs
// are read as a loop fusion reads them (by output index, or through its
// broadcasts). When the product has other readers too — a reduction,
// another kernel, a module output — it joins the first fusion reading it
// as that fusion's second output (XLA's multi-output fusion): the kernel
// stores the product for the others and runs the epilogue on it while in
// cache. A multi-output loop (FuseSiblings, run before, merged a relu and
// its derivative's mask, both reading the pre-activation) is absorbed
// whole: the epilogue computes each of its results, in order, on each
// block, and the product, when shared, is the last output.
// A product the loop fusion reads other than elementwise (through a
// broadcast or reshape), or whose first reader is not such a loop fusion,
// keeps its own kernel. Each element of the epilogue is computed by the
// same code as in the loop fusion it came from, from the same product, so
// fusing never changes a bit (kernels' tests hold every backend to that).
func FuseEpilogues(m *Module) {
	if m.Fusions == nil {
		return
	}
	users := m.users()
	moduleOutput := map[*Instr]bool{}
	for _, o := range m.Outputs {
		moduleOutput[throughReshapes(o)] = true
	}
	own := map[*Instr]*Fusion{} // a product's kernel of its own
	for _, f := range m.Fusions {
		if f.Kind == FusionDot && len(f.Instrs) == 1 {
			own[f.Outputs[0]] = f
		}
	}
	readers := map[*Instr]int{}   // fusions reading each value, or a reshape of it (recomputed members read it in several)
	first := map[*Instr]*Fusion{} // the first fusion reading each value or a reshape of it
	for _, f := range m.Fusions {
		for _, in := range f.Inputs {
			in = throughReshapes(in) // a kernel reading a reshape of the product reads the product
			readers[in]++
			if first[in] == nil {
				first[in] = f
			}
		}
	}
	absorbed := map[*Fusion]bool{}
	for _, f := range m.Fusions {
		if f.Kind != FusionLoop || f.Mapped() {
			continue
		}
		for _, dot := range f.Inputs {
			df := own[dot]
			if df == nil || absorbed[df] || first[dot] != f || !shapedAs(f.Outputs, dot.Shape) || !readByIndex(users[dot], f) || readsReshapeOf(f, dot) {
				continue
			}
			absorbed[df] = true
			absorb(f, dot, moduleOutput[dot] || readers[dot] > 1 || len(users[dot]) > countIn(users[dot], f))
			break // one product per kernel
		}
	}
	if len(absorbed) == 0 {
		return
	}
	m.Fusions = slices.DeleteFunc(m.Fusions, func(f *Fusion) bool { return absorbed[f] })
	for i, f := range m.Fusions {
		f.ID = i
	}
}

// shapedAs reports whether every instruction of outs has shape.
func shapedAs(outs []*Instr, shape []int) bool {
	for _, o := range outs {
		if !trace.ShapeEqual(o.Shape, shape) {
			return false
		}
	}
	return true
}

// readByIndex reports whether every reader of a value that is a member of
// f is elementwise (so it reads the value at the index it computes).
func readByIndex(readers []*Instr, f *Fusion) bool {
	for _, u := range readers {
		if !u.Op.Elementwise() && slices.Contains(f.Instrs, u) {
			return false
		}
	}
	return countIn(readers, f) > 0
}

// readsReshapeOf reports whether f reads a reshape of dot: that reshape
// would be read from the product's buffer while f's kernel is still
// writing it.
func readsReshapeOf(f *Fusion, dot *Instr) bool {
	for _, in := range f.Inputs {
		if in != dot && throughReshapes(in) == dot {
			return true
		}
	}
	return false
}

// countIn counts the instructions of xs that are members of f.
func countIn(xs []*Instr, f *Fusion) int {
	n := 0
	for _, x := range xs {
		if slices.Contains(f.Instrs, x) {
			n++
		}
	}
	return n
}

// absorb makes loop fusion f compute dot too: dot joins its members (in
// module order), its operands replace it among the inputs, and when it is
// read outside f (shared) it becomes f's last output.
func absorb(f *Fusion, dot *Instr, shared bool) {
	f.Kind = FusionDot
	if shared {
		f.Outputs = append(f.Outputs, dot)
	}
	at, _ := slices.BinarySearchFunc(f.Instrs, dot.ID, func(in *Instr, id int) int { return in.ID - id })
	f.Instrs = slices.Insert(f.Instrs, at, dot)
	f.Inputs = slices.DeleteFunc(f.Inputs, func(in *Instr) bool { return in == dot })
	for _, a := range dot.Args {
		if !slices.Contains(f.Inputs, a) && !slices.Contains(f.Instrs, a) {
			f.Inputs = append(f.Inputs, a)
		}
	}
}

// Dot returns the dot_general or conv a dot fusion computes: its root, or,
// when the fusion has an epilogue (FuseEpilogues), the product the
// epilogue reads. It is nil for other kinds.
func (f *Fusion) Dot() *Instr {
	if f.Kind != FusionDot {
		return nil
	}
	for _, in := range f.Instrs {
		if in.Op.Info().Class == trace.ClassDot {
			return in
		}
	}
	return nil
}

// Epilogue reports whether f is a dot fusion with fused elementwise
// instructions after its product. Its outputs are the epilogue's results
// (EpilogueResults), then, if others read it, the product itself.
func (f *Fusion) Epilogue() bool { return f.Kind == FusionDot && len(f.Instrs) > 1 }

// EpilogueResults are the outputs of a dot fusion with an epilogue that
// the epilogue computes: all but the product.
func (f *Fusion) EpilogueResults() []*Instr {
	if n := len(f.Outputs); n > 1 && f.Outputs[n-1] == f.Dot() {
		return f.Outputs[:n-1]
	}
	return f.Outputs
}

// SharesProduct reports whether a dot fusion with an epilogue stores its
// product too, for other readers (its last output).
func (f *Fusion) SharesProduct() bool { return len(f.EpilogueResults()) < len(f.Outputs) }
