package progen

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Control-flow steps (issue 14): a fori_loop of 0–3 steps whose carry is
// a value and whose body applies a binary op to the carry and another
// value (closed over) or a literal; a cond on whether a value has a
// nonzero element, choosing between that op and the value itself. A step
// whose carry or branches would change type fails to trace and is not
// drawn, as any step that does not trace.

// pickControl fills a kFori or kCond step drawn for the value
// s.args[0].
func (g *gen) pickControl(s step) (step, bool) {
	s, ok := g.pickBinary(s)
	if !ok {
		return s, false
	}
	if s.args[0].ref < 0 { // pickBinary may swap: the carry must be the value
		s.args[0], s.args[1] = s.args[1], s.args[0]
	}
	s.n = int64(g.r.Intn(4))
	return s, true
}

func (s *step) applyControl(vals []trace.Value) trace.Value {
	a, b := s.args[0].value(vals), s.args[1].value(vals)
	if s.kind == kFori {
		return trace.ForiLoop(trace.Int(0), trace.Int(s.n), func(_ trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{binaryCall(s.op, c[0], b)}
		}, a)[0]
	}
	pred := trace.Reduce(trace.OpReduceSum, a.Astype(tensor.Bool).Reshape(-1), []int{0}, false)
	return trace.Cond(pred, func(o []trace.Value) []trace.Value { return []trace.Value{binaryCall(s.op, o[0], b)} },
		func(o []trace.Value) []trace.Value { return o }, a)[0]
}

func (s *step) controlString(args []string) string {
	if s.kind == kFori {
		return fmt.Sprintf("fori_loop(0, %d, λc: %s(c, %s), %s)", s.n, s.op, args[1], args[0])
	}
	return fmt.Sprintf("cond(any(%s), λx: %s(x, %s), λx: x, %s)", args[0], s.op, args[1], args[0])
}

// controlMachinery are the ops a control step emits besides its binary
// op: the loop's counter and bound, the cond's predicate.
var controlMachinery = map[trace.Op]bool{trace.OpAdd: true, trace.OpLt: true, trace.OpNe: true, trace.OpReduceSum: true,
	trace.OpReshape: true, trace.OpConvert: true, trace.OpConst: true, trace.OpResult: true}

// eachEqn calls f on every equation of p and of its sub-programs.
func eachEqn(p *trace.Program, f func(e *trace.Eqn) bool) bool {
	for _, e := range p.Eqns {
		if !f(e) {
			return false
		}
		for _, sub := range e.Params.Control.Subs {
			if !eachEqn(sub, f) {
				return false
			}
		}
	}
	return true
}
