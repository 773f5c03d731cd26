package lower

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The memory budget of a run. A planned module's run holds, all at once:
// its inputs; its constants (kernels read them in place, for the
// executable's life); its scratch buffers (the plan's buffers that are
// neither inputs nor outputs — made once per run state and kept, so they
// are live together however the plan reuses them); its outputs; and for
// each while its two carry sets (a step reads one and writes the other)
// and for each cond one set of results, plus what the loop's or branch's
// sub-modules hold besides their inputs and outputs (those are the carry
// buffers). That sum is MemoryNeed. Kernels' small per-run scratch (a
// dot's packed panels, a reduction's partials, a sort's permutation) is
// not counted.

// MemoryNeed returns the bytes a run of the planned module m holds at
// once (see above), saturating at math.MaxInt.
func MemoryNeed(m *Module) int {
	var t tally
	t.module(m, true)
	return t.need
}

// CheckBudget returns a *trace.BudgetError when a run of the planned
// module m would hold more than limit bytes at once (MemoryNeed), naming
// the op at which, counting in execution order — inputs, constants, then
// each kernel's new buffers, then outputs no kernel writes — the total
// first goes over limit. limit ≤ 0 means none.
func CheckBudget(m *Module, limit int) error {
	if limit <= 0 {
		return nil
	}
	t := tally{limit: limit}
	t.module(m, true)
	return t.err
}

// tally adds up a module's memory, recording where it first passes limit.
type tally struct {
	need, limit int
	err         error
}

// add counts n bytes held from op on (in, or what at pos when in is nil).
func (t *tally) add(n int, in *Instr, what string) {
	if n > math.MaxInt-t.need {
		t.need = math.MaxInt
	} else {
		t.need += n
	}
	if t.err == nil && t.limit > 0 && t.need > t.limit {
		e := &trace.BudgetError{Need: t.need, Limit: t.limit, Msg: what}
		if in != nil {
			e.Op, e.Pos = in.Op.String(), in.Pos
		} else {
			e.Op = "param"
		}
		t.err = e
	}
}

func bytesOf(in *Instr) int { return in.Size() * in.DType.Size() } // fits: trace checked every shape's bytes

// module counts m; top says whether its inputs and outputs are its own
// (a sub-module's are its control kernel's carry buffers, counted there).
func (t *tally) module(m *Module, top bool) {
	if top {
		for i, p := range m.Params {
			t.add(bytesOf(p), nil, fmt.Sprintf("input %d (%s%v)", i, p.DType, p.Shape))
		}
	}
	for _, in := range m.Instrs {
		if in.Op == trace.OpConst {
			t.add(bytesOf(in), in, fmt.Sprintf("a constant %s%v", in.DType, in.Shape))
		}
	}
	counted := map[int]bool{}
	for _, f := range m.Fusions {
		for _, o := range f.Outputs {
			b, ok := m.Plan.bufferOf(o)
			if !ok || counted[b] {
				continue
			}
			buf := m.Plan.Buffers[b]
			if buf.Param >= 0 || buf.Output >= 0 && !top {
				continue
			}
			counted[b] = true
			what := "its scratch buffer"
			if buf.Output >= 0 {
				what = fmt.Sprintf("output %d", buf.Output)
			}
			t.add(buf.Size*buf.DType.Size(), o, fmt.Sprintf("%s (%s[%d])", what, buf.DType, buf.Size))
		}
		if f.Kind == FusionControl {
			t.control(f.Outputs[0])
		}
	}
	if !top {
		return
	}
	// Outputs no kernel writes (an input, a constant, a value returned
	// twice) are copies made when the run returns.
	for i, o := range m.Outputs {
		if b, ok := m.Plan.bufferOf(o); ok && m.Plan.Buffers[b].Output == i {
			continue
		}
		t.add(bytesOf(o), o, fmt.Sprintf("output %d (%s%v), a copy", i, o.DType, o.Shape))
	}
}

// control counts a while's two carry sets or a cond's results, and what
// its sub-modules hold besides.
func (t *tally) control(root *Instr) {
	if len(root.Subs) == 0 {
		return
	}
	sets := 1
	if root.Op == trace.OpWhile {
		sets = 2
	}
	res := root.Subs[len(root.Subs)-1] // the body, or a branch: its outputs are the results
	carry := 0
	for _, o := range res.Outputs {
		carry = satAdd(carry, bytesOf(o))
	}
	t.add(satMul(carry, sets), root, fmt.Sprintf("its %d carry set(s) of %s", sets, tensor.HumanBytes(carry)))
	for i, sm := range root.Subs {
		sub := tally{}
		sub.module(sm, false)
		t.add(sub.need, root, fmt.Sprintf("the buffers of its sub-program %d", i))
	}
}

func satAdd(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

func satMul(a, n int) int {
	if a > 0 && n > math.MaxInt/a {
		return math.MaxInt
	}
	return a * n
}
