package lower

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Options select the passes Compile runs. The zero value runs every pass
// except constant folding, which needs an evaluator.
type Options struct {
	// Fold evaluates one instruction on constant operands. Lowering may not
	// import a backend, so the caller wires one in (kiln uses the CPU
	// backend's evaluator, so a folded constant is bit-identical to what
	// the kernel would have computed). It may decline an instruction by
	// returning nil, nil. Nil disables constant folding.
	Fold func(in *Instr, args []*tensor.Array) (*tensor.Array, error)
	// NoFusion puts every instruction in its own kernel (op-by-op
	// execution, for comparisons and benchmarks).
	NoFusion bool
	// NoEpilogues keeps every dot_general in a kernel of its own (see
	// FuseEpilogues), for comparing fused epilogues with their unfused form.
	NoEpilogues bool
	// NoSiblings keeps every loop fusion single-output (see FuseSiblings).
	NoSiblings bool
	// MemoryLimit is the memory budget of a run, in bytes: Compile
	// refuses a module whose run would hold more at once (CheckBudget)
	// with a *trace.BudgetError. 0 means tensor.DefaultMemoryLimit(); a
	// negative limit, none.
	MemoryLimit int
	// NoSimplify skips CSE, algebraic simplification and constant folding.
	NoSimplify bool
	// Verify checks the program (trace's Program.Check) and then the
	// module after every pass (Module.VerifyAfter), and returns the first
	// violation: a bug in the pass named by the error. The environment
	// variable KILN_VERIFY=1 (trace.VerifyEnv) turns it on everywhere.
	Verify bool
}

// pass is one named step of Compile.
type pass struct {
	name string
	run  func(m *Module) error
}

// passes are the steps Compile runs after Lower.
func passes(opts Options) []pass {
	var ps []pass
	if !opts.NoSimplify {
		ps = append(ps, pass{"simplify", func(m *Module) error { return Simplify(m, opts.Fold) }})
	}
	ps = append(ps,
		pass{"dce", func(m *Module) error { DCE(m); return nil }},
		pass{"fuse", func(m *Module) error { Fuse(m, !opts.NoFusion); return nil }},
	)
	// Siblings first: loops sharing a product merge into one pass over it
	// (a relu and its mask), which serves better than the product joining
	// one of them as an epilogue while the other reads it back.
	if !opts.NoFusion && !opts.NoSiblings {
		ps = append(ps, pass{"fuse_siblings", func(m *Module) error { FuseSiblings(m); return nil }})
	}
	if !opts.NoFusion && !opts.NoEpilogues {
		ps = append(ps, pass{"fuse_epilogues", func(m *Module) error { FuseEpilogues(m); return nil }})
	}
	return append(ps, pass{"plan_buffers", func(m *Module) error { PlanBuffers(m); return nil }})
}

// Compile lowers a traced program, runs the passes, fuses and plans buffers.
// The module's run must fit opts.MemoryLimit (CheckBudget).
func Compile(p *trace.Program, opts Options) (*Module, error) {
	limit := opts.MemoryLimit
	if limit == 0 {
		var err error
		if limit, err = tensor.DefaultMemoryLimit(); err != nil {
			return nil, fmt.Errorf("lower: the memory budget: %w", err)
		}
	}
	m, err := compile(p, opts.Verify || trace.VerifyAll, passes(opts))
	if err != nil {
		return nil, err
	}
	if err := CheckBudget(m, limit); err != nil {
		return nil, err
	}
	return m, nil
}

func compile(p *trace.Program, verify bool, ps []pass) (*Module, error) {
	if verify {
		if err := p.Check(); err != nil {
			return nil, err
		}
	}
	m, err := Lower(p)
	if err != nil {
		return nil, err
	}
	// Sub-programs are compiled on their own, with the same passes.
	for _, in := range m.Instrs {
		for _, sp := range in.Params.Control.Subs {
			sm, err := compile(sp, verify, ps)
			if err != nil {
				return nil, err
			}
			in.Subs = append(in.Subs, sm)
		}
	}
	if verify {
		if err := m.VerifyAfter("lower"); err != nil {
			return nil, err
		}
	}
	for _, s := range ps {
		if err := s.run(m); err != nil {
			return nil, err
		}
		if verify {
			if err := m.VerifyAfter(s.name); err != nil {
				return nil, err
			}
		}
	}
	if err := CheckAllocs(m); err != nil {
		return nil, err
	}
	return m, nil
}

// CheckAllocs checks every array a planned module's execution allocates —
// each fusion's result buffer and each output — against the allocation
// limit (tensor.CheckAlloc), so a program whose intermediate would not fit
// in memory fails to compile with a *trace.ShapeError (wrapping the
// *tensor.SizeError) at the op and line that made it, instead of running
// out of memory. A broadcast fused into its reader allocates nothing and
// is not refused.
func CheckAllocs(m *Module) error {
	check := func(in *Instr) error {
		if _, err := tensor.CheckAlloc(in.DType, in.Shape); err != nil {
			return &trace.ShapeError{Op: in.Op.String(), Pos: in.Pos, Shapes: [][]int{in.Shape}, Err: err,
				Msg: fmt.Sprintf("its result needs a buffer the allocation limit refuses: %s", strings.TrimPrefix(err.Error(), "tensor: "))}
		}
		return nil
	}
	for _, f := range m.Fusions {
		for _, o := range f.Outputs {
			if b, ok := m.Plan.bufferOf(o); ok && m.Plan.Buffers[b].Param < 0 {
				if err := check(o); err != nil {
					return err
				}
			}
		}
	}
	for _, o := range m.Outputs {
		if err := check(o); err != nil {
			return err
		}
	}
	return nil
}

// Lower translates a traced program into a module: weak flags erased,
// implicit broadcasting made explicit with broadcast_in_dim, constants kept
// at their final dtype, stop_gradient (an identity for everything but
// autodiff) dropped, a dot_general's or convolution's
// preferred_element_type expanded into converts of its operands and the op
// at that dtype.
func Lower(p *trace.Program) (*Module, error) {
	m := &Module{}
	of := map[*trace.Var]*Instr{}
	for i, v := range p.Inputs {
		in := m.add(&Instr{Op: trace.OpParam, DType: v.Type.DType, Shape: slices.Clone(v.Shape), Param: i})
		m.Params = append(m.Params, in)
		of[v] = in
	}
	for _, e := range p.Eqns {
		args := make([]*Instr, len(e.Args))
		for i, a := range e.Args {
			in, ok := of[a]
			if !ok {
				return nil, fmt.Errorf("lower: %s uses an undefined value %s", e.Op, a.Name())
			}
			if e.Op.Elementwise() && !trace.ShapeEqual(in.Shape, e.Out.Shape) {
				in = m.broadcast(in, e.Out.Shape, e.Pos)
			}
			args[i] = in
		}
		if e.Op == trace.OpStopGradient { // only autodiff sees it: the value is its operand
			of[e.Out] = args[0]
			continue
		}
		params := e.Params
		switch {
		case params.HasPreferred && narrowOnBF16(e.Op, args, params):
			args = m.convertAll(args, tensor.BF16, "preferred_element_type=f32 of "+args[0].DType.String()+" operands: their bf16 "+map[bool]string{true: "dot", false: "convolution"}[e.Op == trace.OpDot], e.Pos)
		case params.HasPreferred && !bf16Accumulator(e.Op, args, params): // dot_general or conv_general_dilated
			args, params = m.preferredDot(args, params, e.Pos)
		}
		in := m.add(&Instr{Op: e.Op, DType: e.Out.Type.DType, Shape: slices.Clone(e.Out.Shape), Args: args, Params: params, Pos: e.Pos, Why: e.Why})
		of[e.Out] = in
	}
	for _, o := range p.Outputs {
		m.Outputs = append(m.Outputs, of[o])
	}
	return m, nil
}

// preferredDot expands a dot_general's or conv_general_dilated's
// preferred_element_type into what it means: both operands converted to
// the preferred dtype and a plain op of that dtype, so every backend runs
// it with the kernels it has. The params returned have no preferred type.
func (m *Module) preferredDot(args []*Instr, p trace.Params, pos trace.Pos) ([]*Instr, trace.Params) {
	d := p.Preferred
	wide := m.convertAll(args, d, "preferred_element_type="+d.String(), pos)
	p.Preferred, p.HasPreferred = 0, false
	return wide, p
}

// convertAll converts each of args not of dtype d to d.
func (m *Module) convertAll(args []*Instr, d tensor.DType, why string, pos trace.Pos) []*Instr {
	wide := make([]*Instr, len(args))
	for i, a := range args {
		wide[i] = a
		if a.DType != d {
			wide[i] = m.add(&Instr{Op: trace.OpConvert, DType: d, Shape: slices.Clone(a.Shape), Args: []*Instr{a},
				Params: trace.Params{DType: d}, Pos: pos, Why: why})
		}
	}
	return wide
}

// narrowOnBF16 reports whether a dot_general or conv_general_dilated with
// a preferred type is a narrow float × narrow float → f32 whose format is
// exactly bf16 in every code (bf16Exact: every narrow float but
// f8e8m0fnu). Such a product is defined as the bf16 × bf16 → f32 one of
// its operands converted to bf16 (docs/SPEC.md §3, narrow dtypes): it
// lowers to those converts and a bf16Accumulator product, so it runs at
// the bf16 GEMM's rate.
func narrowOnBF16(op trace.Op, args []*Instr, p trace.Params) bool {
	return (op == trace.OpDot || op == trace.OpConv) && p.Preferred == tensor.F32 && len(args) == 2 &&
		args[0].DType == args[1].DType && bf16Exact(args[0].DType)
}

// bf16Exact reports whether d is a narrow float every code of which is
// exactly a bf16 that is zero, normal, infinite or NaN (none a bf16
// subnormal, which the bf16 dot rule reads as zero).
func bf16Exact(d tensor.DType) bool {
	f, ok := d.FloatFormat()
	if !ok {
		return false
	}
	for code := range 1 << f.Bits() {
		v := f.ToFloat32(uint8(code))
		bits := math.Float32bits(v)
		if v == v && (bits&0xffff != 0 || v != 0 && !math.IsInf(float64(v), 0) && math.Abs(float64(v)) < 0x1p-126) {
			return false
		}
	}
	return true
}

// bf16Accumulator reports whether a dot_general or conv_general_dilated
// with a preferred type is bf16 × bf16 → f32, which is not the f32 product
// of its operands converted: the bf16 rule's f32 accumulator is its result
// (docs/SPEC.md §3). It stays one instruction, bf16 operands and an f32
// result, its params keeping the preferred type; the backends run it as
// the bf16 product without rounding.
func bf16Accumulator(op trace.Op, args []*Instr, p trace.Params) bool {
	return (op == trace.OpDot || op == trace.OpConv) && p.Preferred == tensor.F32 && len(args) == 2 &&
		args[0].DType == tensor.BF16 && args[1].DType == tensor.BF16
}

func (m *Module) add(in *Instr) *Instr {
	in.ID = len(m.Instrs)
	m.Instrs = append(m.Instrs, in)
	return in
}

// broadcast makes NumPy's implicit broadcast of in to shape explicit.
func (m *Module) broadcast(in *Instr, shape []int, pos trace.Pos) *Instr {
	off := len(shape) - len(in.Shape)
	dims := make([]int, len(in.Shape))
	for i := range dims {
		dims[i] = off + i
	}
	return m.add(&Instr{Op: trace.OpBroadcastInDim, DType: in.DType, Shape: slices.Clone(shape), Args: []*Instr{in},
		Params: trace.Params{Shape: slices.Clone(shape), Dims: dims}, Pos: pos})
}

// users maps every instruction to the instructions that read it.
func (m *Module) users() map[*Instr][]*Instr {
	u := map[*Instr][]*Instr{}
	for _, in := range m.Instrs {
		for _, a := range in.Args {
			if !slices.Contains(u[a], in) {
				u[a] = append(u[a], in)
			}
		}
	}
	return u
}

// DCE removes instructions no output depends on (parameters stay) and
// renumbers the rest.
func DCE(m *Module) {
	live := map[*Instr]bool{}
	var mark func(in *Instr)
	mark = func(in *Instr) {
		if live[in] {
			return
		}
		live[in] = true
		for _, a := range in.Args {
			mark(a)
		}
	}
	for _, o := range m.Outputs {
		mark(o)
	}
	kept := m.Instrs[:0]
	for _, in := range m.Instrs {
		if live[in] || in.Op == trace.OpParam {
			in.ID = len(kept)
			kept = append(kept, in)
		}
	}
	m.Instrs = kept
}
