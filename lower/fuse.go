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
// reads them, and so do duplicable ones (see dupRule): a few arithmetic
// steps every one of whose readers is an elementwise op or reduction of its
// shape are recomputed in each reader's fusion instead of being written
// out and read back (XLA's instruction fusion duplicates cheap producers
// the same way). Recomputing gives the same bits: each element's operations
// and roundings are the unfused ones. A reduction roots a reduce fusion
// whose elementwise producers are fused into it. A broadcast_in_dim joins
// only as a leaf: its operand is read from a buffer. An iota joins every
// loop fusion that reads it (computed from the index: see Regions) and
// roots a kernel of its own only when some reader needs its buffer. With
// fuse false every instruction is its own kernel (op by op).
func Fuse(m *Module, fuse bool) {
	users := m.users()
	dup := newDupRule(m, users)
	inSome := map[*Instr]bool{} // duplicable instructions some fusion computes
	needed := map[*Instr]bool{} // duplicable instructions a mapped fusion reads from a buffer
	assigned := map[*Instr]bool{}
	outputs := map[*Instr]bool{}
	for _, o := range m.Outputs {
		for o.Op == trace.OpReshape {
			o = o.Args[0]
		}
		outputs[o] = true
	}
	fusions := []*Fusion{}                     // not nil: the module is fused, if into no kernel
	memberSets := map[*Instr]map[*Instr]bool{} // each loop fusion's members, by member
	for i := len(m.Instrs) - 1; i >= 0; i-- {
		root := m.Instrs[i]
		if assigned[root] || root.Op == trace.OpParam || root.Op == trace.OpReshape || root.Op == trace.OpResult {
			continue // a result is an output of its while's or cond's fusion
		}
		if fuse && cheap(root) && !outputs[root] && (root.Op == trace.OpConst || allAbsorb(root, users[root], memberSets)) {
			continue // duplicated into its users' fusions
		}
		if fuse && inSome[root] && dup.ok(root) && !needed[root] {
			continue // recomputed in every reader's fusion
		}
		if fuse && !outputs[root] && iotaAbsorbed(root, users[root], memberSets, needed) {
			continue // computed from the index in every reader's fusion
		}
		f := &Fusion{Kind: kindOf(root), Outputs: []*Instr{root}}
		if fuse && movable(root) {
			f.Kind = FusionLoop // a copy unless something fuses with it (below)
		}
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
			growFusion(root, f, members, users, assigned, outputs, dup, inSome, needed)
		}
		if fuse && f.Kind == FusionLoop {
			keepEpilogue(members, needed)
		}
		if f.Kind == FusionLoop && movable(root) && len(members) == 1 {
			f.Kind = FusionCopy // nothing to fuse: the copy kernel moves it
		}
		if f.Kind == FusionLoop {
			for in := range members {
				memberSets[in] = members
			}
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
func growFusion(root *Instr, f *Fusion, members map[*Instr]bool, users map[*Instr][]*Instr, assigned, outputs map[*Instr]bool, dup *dupRule, inSome, needed map[*Instr]bool) {
	shape := root.Shape
	if f.Kind == FusionReduce {
		shape = root.Args[0].Shape
	}
	work := []*Instr{root}
	for len(work) > 0 {
		in := work[len(work)-1]
		work = work[:len(work)-1]
		if in.Op == trace.OpBroadcastInDim && in != root || in.Op == trace.OpBroadcastInDim && !cheap(in) {
			iotasRead(in, members, needed) // its operand has another shape: read from a buffer
			continue
		}
		for _, p := range in.Args {
			if p.Op == trace.OpIota {
				// An iota is computed from the index where it is read
				// (Regions), so every loop fusion reading it holds it,
				// within Regions' limits.
				if f.Kind == FusionLoop && !members[p] && mappedOK(root, members, p) {
					members[p] = true
				}
				continue
			}
			plain := loopable(p) && trace.ShapeEqual(p.Shape, shape)
			// A loop fusion may also hold data movement (movable) and
			// whatever of another shape it reads, read through index
			// maps (Regions), when it stays within Regions' limits.
			below := movable(p) || movable(in) || !trace.ShapeEqual(in.Shape, shape) // read through an index map
			mapped := !plain && f.Kind == FusionLoop && below && (loopable(p) || movable(p))
			if members[p] || !plain && !mapped {
				continue
			}
			if cheap(p) {
				if mapped || movable(in) {
					if !mappedOK(root, members, p) {
						continue
					}
				}
				members[p] = true
				work = append(work, p)
				continue
			}
			if !assigned[p] && dup.ok(p) {
				if (mapped || f.Kind == FusionLoop && hasMovable(members)) && !mappedOK(root, members, p) {
					needed[p] = true // read from a buffer: p gets a fusion of its own
					continue
				}
				members[p], inSome[p] = true, true
				work = append(work, p)
				continue
			}
			if assigned[p] || outputs[p] || !allIn(users[p], members) {
				continue // a reader recomputed elsewhere too reads p from a buffer
			}
			if mapped && slices.ContainsFunc(users[p], func(u *Instr) bool { return !onlyIn(u, root, members, users, dup, 0) }) {
				// A duplicable reader recomputed in other fusions too has
				// them read p from a buffer (dupRule counts an operand
				// that is not loopable as read from one).
				continue
			}
			if (mapped || f.Kind == FusionLoop && hasMovable(members)) && !mappedOK(root, members, p) {
				continue
			}
			members[p], assigned[p] = true, true
			work = append(work, p)
		}
		iotasRead(in, members, needed)
	}
}

// onlyIn reports whether member u is computed by the fusion rooted at
// root (with members) and no other: u is the root, or not duplicable
// (assigned to it alone), or duplicable with every reader a member
// computed only there in turn — another fusion computes a duplicable
// instruction only where it holds one of its readers. (Readers not yet
// members count as elsewhere.)
func onlyIn(u, root *Instr, members map[*Instr]bool, users map[*Instr][]*Instr, dup *dupRule, depth int) bool {
	if u == root || !dup.ok(u) {
		return true
	}
	if depth > maxDupCone {
		return false
	}
	for _, w := range users[u] {
		if !members[w] || !onlyIn(w, root, members, users, dup, depth+1) {
			return false
		}
	}
	return true
}

// keepEpilogue takes the iotas out of a loop fusion that holds no data
// movement and reads a product (a dot's or conv's result): a mapped fusion
// is no epilogue (Epilogue), so computing the iota inside it would cost
// the product's write and read (a causal mask's iotas beside attention
// scores). The iotas stay kernels of their own, read from buffers.
func keepEpilogue(members, needed map[*Instr]bool) {
	product := false
	for in := range members {
		if movable(in) {
			return
		}
		for _, a := range in.Args {
			product = product || !members[a] && a.Op.Info().Class == trace.ClassDot
		}
	}
	if !product {
		return
	}
	for in := range members {
		if in.Op == trace.OpIota {
			delete(members, in)
			needed[in] = true
		}
	}
}

// iotasRead marks the iotas member in reads that its fusion does not
// hold: they need a buffer, hence a kernel of their own.
func iotasRead(in *Instr, members, needed map[*Instr]bool) {
	for _, a := range in.Args {
		if a.Op == trace.OpIota && !members[a] {
			needed[a] = true
		}
	}
}

// iotaAbsorbed reports whether every reader of iota in computes it in its
// own loop fusion (growFusion), so it needs no kernel.
func iotaAbsorbed(in *Instr, users []*Instr, memberSets map[*Instr]map[*Instr]bool, needed map[*Instr]bool) bool {
	if in.Op != trace.OpIota || needed[in] || len(users) == 0 {
		return false
	}
	for _, u := range users {
		if !memberSets[u][in] {
			return false
		}
	}
	return true
}

// allAbsorb reports whether every user can compute cheap broadcast p inside
// its own fusion: elementwise ops and reductions can, and data movement a
// loop fusion holds together with p; copies, dots and reshapes read a
// buffer. (A constant needs none: kernels read its value.)
func allAbsorb(p *Instr, users []*Instr, memberSets map[*Instr]map[*Instr]bool) bool {
	for _, u := range users {
		if movable(u) && memberSets[u][p] {
			continue
		}
		if !u.Op.Elementwise() && u.Op.Info().Class != trace.ClassReduce {
			return false
		}
	}
	return true
}

// hasMovable reports whether a set of members holds data movement.
func hasMovable(members map[*Instr]bool) bool {
	for in := range members {
		if movable(in) {
			return true
		}
	}
	return false
}

// mappedOK reports whether the loop fusion rooted at root with members and
// p stays within Regions' limits.
func mappedOK(root *Instr, members map[*Instr]bool, p *Instr) bool {
	f := &Fusion{Kind: FusionLoop, Outputs: []*Instr{root}, Instrs: []*Instr{p}}
	for in := range members {
		f.Instrs = append(f.Instrs, in)
	}
	_, err := Regions(f)
	return err == nil
}

// materialized reports whether Fuse certainly gives in a buffer: it is a
// module output, or a reader needs it from a buffer (not an elementwise op
// of its shape, nor a reduction of it).
func (d *dupRule) materialized(in *Instr) bool {
	if d.outputs[in] {
		return true
	}
	for _, u := range d.users[in] {
		elementwise := u.Op.Elementwise() && trace.ShapeEqual(u.Shape, in.Shape)
		reduce := u.Op.Info().Class == trace.ClassReduce && u.Args[0] == in
		// A data-movement reader may fuse in with it (Fuse): not certain.
		if !elementwise && !reduce && !movable(u) {
			return true
		}
	}
	return false
}

func allIn(xs []*Instr, set map[*Instr]bool) bool {
	for _, x := range xs {
		if !set[x] {
			return false
		}
	}
	return true
}

// dupRule decides which instructions Fuse may recompute in several
// fusions. An instruction is duplicable when
//   - it is a broadcast_in_dim (an index computation reading a buffer), or
//     an elementwise op that is neither transcendental nor pow (a few
//     cycles per vector);
//   - it is not a module output and has at most maxDupUsers users, each an
//     elementwise op of its shape or a reduction of it — so every reader's
//     fusion computes it and nothing reads it from a buffer;
//   - its same-shape loopable operands are cheap, duplicable in turn, or
//     certainly materialized (see materialized: an operand that could
//     join one reader's fusion as its own member would be missing from
//     the other fusions that recompute the reader), the whole
//     recomputed cone has at most maxDupCone instructions, and the
//     buffers it reads hold no more bytes per element than the value —
//     so recomputation stays bounded and never adds memory traffic.
type dupRule struct {
	users   map[*Instr][]*Instr
	outputs map[*Instr]bool
	memo    map[*Instr]int // cone size, or -1: not duplicable
	reads   map[*Instr]int // bytes per element the recomputed cone reads
}

const (
	maxDupUsers = 4
	maxDupCone  = 8
)

func newDupRule(m *Module, users map[*Instr][]*Instr) *dupRule {
	d := &dupRule{users: users, outputs: map[*Instr]bool{}, memo: map[*Instr]int{}, reads: map[*Instr]int{}}
	for _, o := range m.Outputs {
		d.outputs[throughReshapes(o)] = true
	}
	return d
}

func (d *dupRule) ok(in *Instr) bool { return d.cone(in) > 0 }

// cone is the number of instructions recomputed with in, or -1.
func (d *dupRule) cone(in *Instr) int {
	if n, ok := d.memo[in]; ok {
		return n
	}
	d.memo[in] = -1 // also while in is being decided
	n := d.decide(in)
	d.memo[in] = n
	return n
}

func (d *dupRule) decide(in *Instr) int {
	if d.outputs[in] || cheap(in) {
		return -1
	}
	switch {
	case in.Op == trace.OpBroadcastInDim:
	case in.Op.Elementwise() && !in.Op.Info().Transcendental && in.Op != trace.OpPow:
	default:
		return -1
	}
	us := d.users[in]
	if len(us) == 0 || len(us) > maxDupUsers {
		return -1
	}
	for _, u := range us {
		elementwise := u.Op.Elementwise() && trace.ShapeEqual(u.Shape, in.Shape)
		reduce := u.Op.Info().Class == trace.ClassReduce && u.Args[0] == in
		if !elementwise && !reduce || slices.Contains(u.Args[1:], in) && !elementwise {
			return -1
		}
	}
	if in.Op == trace.OpBroadcastInDim {
		d.reads[in] = 0 // its operand is small next to it
		return 1
	}
	n, reads := 1, 0
	for _, a := range in.Args {
		if !trace.ShapeEqual(a.Shape, in.Shape) || cheap(a) {
			continue
		}
		if !loopable(a) {
			reads += a.DType.Size() // read from a buffer
			continue
		}
		c := d.cone(a)
		if c < 0 && !d.materialized(a) {
			return -1 // a could join one reader's fusion alone
		}
		if c < 0 {
			reads += a.DType.Size()
			continue
		}
		n += c
		reads += d.reads[a]
	}
	// Recomputing must not read more bytes per element than reading the
	// value back would (a bool mask of a compare of f32 values is read,
	// not recomputed).
	if n > maxDupCone || reads > in.DType.Size() {
		return -1
	}
	d.reads[in] = reads
	return n
}
