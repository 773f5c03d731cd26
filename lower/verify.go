package lower

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/trace"
)

// VerifyKind says which invariant of a module a VerifyError is about.
type VerifyKind uint8

// The invariants Module.Verify checks.
const (
	// VerifyOrder: instructions are numbered by position, each defined
	// once, after its operands (dependency order); Params are the
	// module's parameter instructions in order; outputs are instructions
	// of the module.
	VerifyOrder VerifyKind = iota + 1
	// VerifyOp: the instruction breaks its op's typing rule (trace's op
	// table: dtypes, shapes, params); Err is the *trace.CheckError.
	VerifyOp
	// VerifyBroadcast: an elementwise instruction has an operand of
	// another shape (lowering makes every broadcast explicit).
	VerifyBroadcast
	// VerifyFusion: a fusion breaks the fusion rules: every instruction
	// that needs a kernel is in exactly one (cheap scalars may be in
	// several), a fusion's members are of its kind and shape, no value
	// leaves a fusion except its outputs, and a fusion reads only
	// parameters, constants and earlier fusions' outputs.
	VerifyFusion
	// VerifyBuffer: the buffer plan breaks its rules: inputs are never
	// written, outputs never alias inputs or each other, buffers have the
	// dtype and room of their values, and no buffer is reused while the
	// value in it is still to be read.
	VerifyBuffer
)

var verifyKindNames = [...]string{VerifyOrder: "order", VerifyOp: "op", VerifyBroadcast: "broadcast", VerifyFusion: "fusion", VerifyBuffer: "buffer"}

func (k VerifyKind) String() string {
	if int(k) < len(verifyKindNames) && verifyKindNames[k] != "" {
		return verifyKindNames[k]
	}
	return fmt.Sprintf("VerifyKind(%d)", uint8(k))
}

// VerifyError reports a module that breaks an invariant the backends rely
// on: a bug in lowering or in a pass (Pass names it when the check ran
// after one), never in the user's program.
type VerifyError struct {
	Pass   string
	Kind   VerifyKind
	Instr  *Instr // the instruction at fault, or nil
	Fusion int    // the fusion at fault, or -1
	Msg    string
	Err    error // the op rule's *trace.CheckError, for VerifyOp
}

func (e *VerifyError) Error() string {
	s := "lower: ill-formed module"
	if e.Pass != "" {
		s += " after " + e.Pass
	}
	s += " (" + e.Kind.String() + ")"
	if e.Fusion >= 0 {
		s += fmt.Sprintf(": fusion.%d", e.Fusion)
	}
	if e.Instr != nil {
		s += ": " + e.Instr.String()
	}
	return s + ": " + e.Msg
}

// Unwrap returns the op rule's error, if any.
func (e *VerifyError) Unwrap() error { return e.Err }

func verifyErr(k VerifyKind, in *Instr, format string, args ...any) *VerifyError {
	return &VerifyError{Kind: k, Instr: in, Fusion: -1, Msg: fmt.Sprintf(format, args...)}
}

func fusionErr(k VerifyKind, f *Fusion, format string, args ...any) *VerifyError {
	e := verifyErr(k, nil, format, args...)
	e.Fusion = f.ID
	return e
}

// Verify checks the invariants the backends rely on, as far as the
// module has been prepared: always the instructions (dependency order,
// the op table's typing rule for each, explicit broadcasts, parameters
// and outputs); once fused, the fusions; once planned, the buffers. It
// returns the first violation as a *VerifyError, or nil.
func (m *Module) Verify() error { return m.VerifyAfter("") }

// VerifyAfter is Verify naming the pass that produced m in its error.
func (m *Module) VerifyAfter(pass string) error {
	if err := m.verify(); err != nil {
		err.Pass = pass
		return err
	}
	return nil
}

func (m *Module) verify() *VerifyError {
	if err := m.verifyInstrs(); err != nil {
		return err
	}
	for _, in := range m.Instrs {
		for i, sub := range in.Subs {
			if err := sub.verify(); err != nil {
				err.Msg = fmt.Sprintf("in sub-module %d of %s: %s", i, in.Name(), err.Msg)
				return err
			}
		}
	}
	if m.Fusions != nil {
		if err := m.verifyFusions(); err != nil {
			return err
		}
	}
	if m.Plan != nil {
		if m.Fusions == nil {
			return verifyErr(VerifyBuffer, nil, "a buffer plan without fusions")
		}
		if err := m.verifyPlan(); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) verifyInstrs() *VerifyError {
	defined := make(map[*Instr]bool, len(m.Instrs))
	params := 0
	for i, in := range m.Instrs {
		switch {
		case in == nil:
			return verifyErr(VerifyOrder, nil, "instruction %d is nil", i)
		case defined[in]:
			return verifyErr(VerifyOrder, in, "listed twice")
		case in.ID != i:
			return verifyErr(VerifyOrder, in, "numbered %d at position %d", in.ID, i)
		}
		args := make([]trace.Abstract, len(in.Args))
		for j, a := range in.Args {
			if a == nil || !defined[a] {
				return verifyErr(VerifyOrder, in, "operand %d is not an earlier instruction", j)
			}
			args[j] = trace.AbstractOf(a.DType, a.Shape)
			if in.Op.Elementwise() && !trace.ShapeEqual(a.Shape, in.Shape) {
				return verifyErr(VerifyBroadcast, in, "operand %s has shape %v: the broadcast is not explicit", a.Name(), a.Shape)
			}
		}
		out := trace.AbstractOf(in.DType, in.Shape)
		if err := in.Op.CheckTypes(args, out, &in.Params); err != nil {
			e := verifyErr(VerifyOp, in, "%v", err)
			if ce, ok := err.(*trace.CheckError); ok {
				e.Msg = ce.Msg + " (" + ce.Kind.String() + ")"
			}
			e.Err = err
			return e
		}
		if in.Op == trace.OpParam {
			if in.Param < 0 || in.Param >= len(m.Params) || m.Params[in.Param] != in {
				return verifyErr(VerifyOrder, in, "parameter %d is not Params[%d]", in.Param, in.Param)
			}
			params++
		}
		defined[in] = true
	}
	if params != len(m.Params) {
		return verifyErr(VerifyOrder, nil, "%d parameters, %d parameter instructions", len(m.Params), params)
	}
	if len(m.Outputs) == 0 {
		return verifyErr(VerifyOrder, nil, "no outputs")
	}
	for i, o := range m.Outputs {
		if o == nil || !defined[o] {
			return verifyErr(VerifyOrder, o, "output %d is not an instruction of the module", i)
		}
	}
	return nil
}

// throughReshapes is the instruction whose data in has: reshapes alias
// their operand.
func throughReshapes(in *Instr) *Instr {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	return in
}

func (m *Module) verifyFusions() *VerifyError {
	owner := map[*Instr]*Fusion{}      // the fusion computing each instruction (cheap ones: the last)
	computedBy := map[*Instr]*Fusion{} // each fusion output
	users := m.users()
	dup := newDupRule(m, users)
	for fi, f := range m.Fusions {
		if f == nil || f.ID != fi {
			return verifyErr(VerifyFusion, nil, "fusion at position %d is nil or misnumbered", fi)
		}
		if err := m.verifyFusion(f, users, dup); err != nil {
			return err
		}
		for _, in := range f.Inputs {
			x := throughReshapes(in)
			if x.Op != trace.OpParam && x.Op != trace.OpConst && computedBy[x] == nil {
				return fusionErr(VerifyFusion, f, "reads %s before a fusion computes it", in.Name())
			}
		}
		for _, in := range f.Instrs {
			if prev := owner[in]; prev != nil && !cheap(in) && !dup.ok(in) && in.Op != trace.OpIota {
				return fusionErr(VerifyFusion, f, "%s is computed by fusion.%d too", in.Name(), prev.ID)
			}
			owner[in] = f
		}
		for _, o := range f.Outputs {
			computedBy[o] = f
		}
	}
	for _, in := range m.Instrs {
		if in.Op != trace.OpParam && in.Op != trace.OpReshape && !cheap(in) && owner[in] == nil {
			return verifyErr(VerifyFusion, in, "no fusion computes it")
		}
	}
	for i, o := range m.Outputs {
		x := throughReshapes(o)
		if x.Op != trace.OpParam && x.Op != trace.OpConst && computedBy[x] == nil {
			return verifyErr(VerifyFusion, o, "output %d is not the output of a fusion", i)
		}
	}
	return nil
}

// verifyFusion checks one fusion on its own: members in module order, of
// its kind and shape, its inputs exactly what its members read from
// outside, and no member but an output read outside it.
func (m *Module) verifyFusion(f *Fusion, users map[*Instr][]*Instr, dup *dupRule) *VerifyError {
	if len(f.Outputs) == 0 || len(f.Instrs) == 0 {
		return fusionErr(VerifyFusion, f, "no outputs or no instructions")
	}
	members := make(map[*Instr]bool, len(f.Instrs))
	for i, in := range f.Instrs {
		if in == nil || in.ID < 0 || in.ID >= len(m.Instrs) || m.Instrs[in.ID] != in {
			return fusionErr(VerifyFusion, f, "member %d is not an instruction of the module", i)
		}
		if i > 0 && in.ID <= f.Instrs[i-1].ID {
			return fusionErr(VerifyFusion, f, "members are not in module order at %s", in.Name())
		}
		if in.Op == trace.OpParam || in.Op == trace.OpReshape {
			return fusionErr(VerifyFusion, f, "%s needs no kernel", in)
		}
		members[in] = true
	}
	isOutput := map[*Instr]bool{}
	for _, o := range f.Outputs {
		if !members[o] {
			return fusionErr(VerifyFusion, f, "output %s is not a member", o.Name())
		}
		isOutput[o] = true
	}
	root := f.Outputs[0]
	inputs := map[*Instr]bool{}
	for _, in := range f.Inputs {
		if members[in] || inputs[in] {
			return fusionErr(VerifyFusion, f, "input %s is a member or listed twice", in.Name())
		}
		inputs[in] = true
	}
	for _, in := range f.Instrs {
		for _, a := range in.Args {
			if !members[a] && !inputs[a] {
				return fusionErr(VerifyFusion, f, "%s reads %s, neither a member nor an input", in.Name(), a.Name())
			}
		}
	}
	if err := verifyKind(f, root); err != nil {
		return err
	}
	moduleOutput := map[*Instr]bool{}
	for _, o := range m.Outputs {
		moduleOutput[throughReshapes(o)] = true
	}
	for _, in := range f.Instrs {
		if isOutput[in] || cheap(in) || dup.ok(in) || in.Op == trace.OpIota {
			// A duplicable member's every reader computes it too; an iota
			// is computed from the index by every loop fusion reading it,
			// and the others read it from its own kernel's buffer (they
			// list it as an input, checked above to follow its kernel).
			continue
		}
		if moduleOutput[in] {
			return fusionErr(VerifyFusion, f, "%s is a module output but not an output of the fusion", in.Name())
		}
		for _, u := range users[in] {
			if !members[u] {
				return fusionErr(VerifyFusion, f, "%s leaves the fusion (read by %s) but is not one of its outputs", in.Name(), u.Name())
			}
		}
	}
	return nil
}

// verifyKind checks that a fusion's members suit its kind.
func verifyKind(f *Fusion, root *Instr) *VerifyError {
	switch f.Kind {
	case FusionDot:
		if f.Epilogue() {
			return verifyEpilogue(f, root)
		}
		fallthrough
	case FusionCopy:
		class := root.Op.Info().Class
		ok := len(f.Instrs) == 1 && (f.Kind == FusionDot && class == trace.ClassDot ||
			f.Kind == FusionCopy && (class == trace.ClassStructural && root.Op != trace.OpBroadcastInDim || class == trace.ClassIndex))
		if !ok {
			return fusionErr(VerifyFusion, f, "a %s fusion is one %s instruction, not %d instructions rooted at %s", f.Kind, f.Kind, len(f.Instrs), root.Op)
		}
		return nil
	case FusionControl:
		if c := root.Op.Info().Class; c != trace.ClassControl || root.Op == trace.OpResult {
			return fusionErr(VerifyFusion, f, "a control fusion rooted at %s", root.Op)
		}
		for _, in := range f.Instrs[1:] {
			if in.Op != trace.OpResult || in.Args[0] != root {
				return fusionErr(VerifyFusion, f, "%s is not a result of the fusion's %s", in.Name(), root.Op)
			}
		}
		return nil
	case FusionLoop, FusionReduce:
	default:
		return fusionErr(VerifyFusion, f, "unknown kind %d", f.Kind)
	}
	if f.Mapped() {
		for _, in := range f.Instrs {
			if !loopable(in) && !movable(in) && in.Op != trace.OpIota {
				return fusionErr(VerifyFusion, f, "%s cannot run in a %s fusion's loop", in, f.Kind)
			}
		}
		if _, err := Regions(f); err != nil {
			return fusionErr(VerifyFusion, f, "its data movement has no index map: %v", err)
		}
		return nil
	}
	shape := root.Shape
	if f.Kind == FusionReduce {
		if root.Op.Info().Class != trace.ClassReduce {
			return fusionErr(VerifyFusion, f, "a reduce fusion rooted at %s", root.Op)
		}
		shape = root.Args[0].Shape
	}
	for _, in := range f.Instrs {
		if in == root && f.Kind == FusionReduce {
			continue
		}
		if !loopable(in) {
			return fusionErr(VerifyFusion, f, "%s cannot run in a %s fusion's loop", in, f.Kind)
		}
		if !trace.ShapeEqual(in.Shape, shape) {
			return fusionErr(VerifyFusion, f, "%s has shape %v, the loop runs over %v", in.Name(), in.Shape, shape)
		}
	}
	return nil
}

// verifyEpilogue checks a dot fusion with an epilogue: one dot_general
// or conv, the other members loopable over its shape, the epilogue's
// results as outputs, then perhaps the product.
func verifyEpilogue(f *Fusion, root *Instr) *VerifyError {
	dot := f.Dot()
	if dot == nil || root == dot || slices.Contains(f.EpilogueResults(), dot) {
		return fusionErr(VerifyFusion, f, "a dot fusion with an epilogue has one product, the epilogue's results and perhaps the product as outputs")
	}
	for _, in := range f.Instrs {
		if in == dot {
			continue
		}
		if !loopable(in) || in.Op.Info().Class == trace.ClassDot {
			return fusionErr(VerifyFusion, f, "%s cannot run in a dot fusion's epilogue", in)
		}
		if !trace.ShapeEqual(in.Shape, dot.Shape) {
			return fusionErr(VerifyFusion, f, "%s has shape %v, the epilogue runs over %v", in.Name(), in.Shape, dot.Shape)
		}
	}
	return nil
}

func (m *Module) verifyPlan() *VerifyError {
	p := m.Plan
	bufErr := func(in *Instr, format string, args ...any) *VerifyError {
		return verifyErr(VerifyBuffer, in, format, args...)
	}
	for i, b := range p.Buffers {
		switch {
		case b.ID != i:
			return bufErr(nil, "buffer %d numbered %d", i, b.ID)
		case !b.DType.Valid() || b.Size < 0:
			return bufErr(nil, "buffer %d has dtype %v and size %d", i, b.DType, b.Size)
		case b.Param >= 0 && b.Output >= 0:
			return bufErr(nil, "buffer %d is both input %d and output %d: an output aliases an input", i, b.Param, b.Output)
		case b.Param >= len(m.Params) || b.Output >= len(m.Outputs):
			return bufErr(nil, "buffer %d is input %d or output %d of %d and %d", i, b.Param, b.Output, len(m.Params), len(m.Outputs))
		}
	}
	for in, b := range p.Of {
		if b < 0 || b >= len(p.Buffers) {
			return bufErr(in, "in buffer %d of %d", b, len(p.Buffers))
		}
	}
	// Parameters live in their own read-only buffers.
	paramBuf := map[int]bool{}
	for _, in := range m.Params {
		b, ok := p.Of[in]
		if !ok || p.Buffers[b].Param != in.Param || paramBuf[b] {
			return bufErr(in, "parameter %d is not in a buffer of its own marked as input %d", in.Param, in.Param)
		}
		if buf := p.Buffers[b]; buf.DType != in.DType || buf.Size != in.Size() {
			return bufErr(in, "in buffer %d of %s[%d]", b, buf.DType, buf.Size)
		}
		paramBuf[b] = true
	}
	// Every fusion output has a buffer with room for it; none is an input.
	writer := map[int]*Instr{} // output buffers: the value written there
	for _, f := range m.Fusions {
		for _, o := range f.Outputs {
			b, ok := p.Of[o]
			if !ok {
				return bufErr(o, "fusion.%d's output has no buffer", f.ID)
			}
			buf := p.Buffers[b]
			switch {
			case buf.Param >= 0:
				return bufErr(o, "written to buffer %d, input %d: inputs are never written", b, buf.Param)
			case buf.DType != o.DType || buf.Size < o.Size():
				return bufErr(o, "in buffer %d of %s[%d]", b, buf.DType, buf.Size)
			case buf.Output >= 0 && writer[b] != nil && writer[b] != o:
				return bufErr(o, "written to output buffer %d, which holds %s", b, writer[b].Name())
			}
			if buf.Output >= 0 {
				writer[b] = o
			}
		}
	}
	// Outputs computed by fusions are in output buffers, one per value.
	seen := map[int]*Instr{}
	for i, o := range m.Outputs {
		x := throughReshapes(o)
		if x.Op == trace.OpParam || x.Op == trace.OpConst {
			continue // copied into a new array at run time
		}
		b, ok := p.Of[x]
		if !ok || p.Buffers[b].Output < 0 {
			return bufErr(o, "output %d is not in an output buffer", i)
		}
		if prev := seen[b]; prev != nil && prev != x {
			return bufErr(o, "outputs %s and %s share buffer %d", prev.Name(), x.Name(), b)
		}
		seen[b] = x
	}
	// Reshapes alias their operand's buffer.
	for _, in := range m.Instrs {
		if b, ok := p.Of[in]; ok && in.Op == trace.OpReshape {
			if ob, ok := p.bufferOf(in); !ok || ob != b {
				return bufErr(in, "a reshape in buffer %d, not its operand's", b)
			}
		}
	}
	return m.verifyLiveness()
}

// verifyLiveness replays the fusions in order and checks that no fusion
// writes a buffer whose value a fusion at or after it (or the caller, for
// an output) still reads.
func (m *Module) verifyLiveness() *VerifyError {
	p := m.Plan
	const forever = int(^uint(0) >> 1)
	lastRead := map[*Instr]int{}
	for fi, f := range m.Fusions {
		for _, in := range f.Inputs {
			lastRead[throughReshapes(in)] = fi
		}
	}
	for _, o := range m.Outputs {
		lastRead[throughReshapes(o)] = forever
	}
	holder := map[int]*Instr{}
	for _, in := range m.Params {
		holder[p.Of[in]] = in
	}
	for fi, f := range m.Fusions {
		for _, in := range f.Inputs {
			x := throughReshapes(in)
			if b, ok := p.Of[x]; ok && holder[b] != x {
				return fusionErr(VerifyBuffer, f, "reads %s from buffer %d, which holds %s", x.Name(), b, nameOf(holder[b]))
			}
		}
		for _, o := range f.Outputs {
			b := p.Of[o]
			if h := holder[b]; h != nil && h != o {
				if last, ok := lastRead[h]; ok && last >= fi {
					return fusionErr(VerifyBuffer, f, "writes %s to buffer %d while %s, still to be read, lives there", o.Name(), b, h.Name())
				}
			}
			holder[b] = o
		}
	}
	return nil
}

func nameOf(in *Instr) string {
	if in == nil {
		return "nothing"
	}
	return in.Name()
}
