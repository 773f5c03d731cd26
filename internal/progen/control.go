package progen

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Control-flow steps (issue 14; issue 25 added while, scan and switch):
// loops of 0–3 steps whose carry is a value and whose body applies a
// binary op to the carry and another value (closed over) or a literal —
// a fori_loop, a counted while_loop, a scan over the value's leading axis
// (or, for a scalar or an empty leading axis, a given number of steps,
// zero included) — and branches on the value's elements: a cond on
// whether one is nonzero, a switch on how many are, choosing among that
// op, the value itself and the op applied twice. A step whose carry or
// branches would change type fails to trace and is not drawn, as any step
// that does not trace.

// isControl reports whether a step kind is a loop or a branch.
func (k kind) isControl() bool {
	switch k {
	case kFori, kCond, kWhile, kScan, kSwitch:
		return true
	}
	return false
}

// maxScanSteps bounds a scan over a leading axis: the reference evaluator
// copies the stacked ys at every step, so a scan over a large base shape's
// 7,429 rows took it 8–12 s (longer than the fuzzer's 10 s per input).
const maxScanSteps = 64

// pickControl fills a control step drawn for the value s.args[0].
func (g *gen) pickControl(s step) (step, bool) {
	s, ok := g.pickBinary(s)
	if !ok {
		return s, false
	}
	if s.args[0].ref < 0 { // pickBinary may swap: the carry must be the value
		s.args[0], s.args[1] = s.args[1], s.args[0]
	}
	s.n = int64(g.r.Intn(4))
	if s.kind == kScan {
		s.swap = g.r.Intn(2) == 0 // reverse
		sh := g.shapes[s.args[0].ref]
		s.keep = len(sh) == 0 || sh[0] == 0 // no leading axis to scan over: steps of op(c, args[1])
		if !s.keep && sh[0] > maxScanSteps {
			return s, false
		}
	}
	return s, true
}

func (s *step) applyControl(vals []trace.Value) trace.Value {
	a, b := s.args[0].value(vals), s.args[1].value(vals)
	op := func(x trace.Value) trace.Value { return binaryCall(s.op, x, b) }
	switch s.kind {
	case kFori:
		return trace.ForiLoop(trace.Int(0), trace.Int(s.n), func(_ trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{op(c[0])}
		}, a)[0]
	case kWhile:
		return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[1].Lt(trace.Int(s.n)) },
			func(c []trace.Value) []trace.Value { return []trace.Value{op(c[0]), c[1].Add(trace.Int(1))} },
			a, trace.Int(0))[0]
	case kScan:
		if s.keep {
			c, _ := trace.Scan(func(c, _ []trace.Value) ([]trace.Value, []trace.Value) {
				return []trace.Value{op(c[0])}, []trace.Value{c[0]}
			}, []trace.Value{a}, nil, trace.ScanOptions{Length: int(s.n), HasLength: true, Reverse: s.swap})
			return c[0]
		}
		_, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
			n := binaryCall(s.op, c[0], x[0])
			return []trace.Value{n}, []trace.Value{n}
		}, []trace.Value{a.Index(0)}, []trace.Value{a}, trace.ScanOptions{Reverse: s.swap})
		return ys[0]
	case kSwitch:
		count := trace.Reduce(trace.OpReduceSum, a.Astype(tensor.Bool).Astype(tensor.I32).Reshape(-1), []int{0}, false)
		return trace.Switch(count, []func([]trace.Value) []trace.Value{
			func(o []trace.Value) []trace.Value { return []trace.Value{op(o[0])} },
			func(o []trace.Value) []trace.Value { return o },
			func(o []trace.Value) []trace.Value { return []trace.Value{op(op(o[0]))} },
		}, a)[0]
	}
	pred := trace.Reduce(trace.OpReduceSum, a.Astype(tensor.Bool).Reshape(-1), []int{0}, false)
	return trace.Cond(pred, func(o []trace.Value) []trace.Value { return []trace.Value{op(o[0])} },
		func(o []trace.Value) []trace.Value { return o }, a)[0]
}

func (s *step) controlString(args []string) string {
	a, b := args[0], args[1]
	switch s.kind {
	case kFori:
		return fmt.Sprintf("fori_loop(0, %d, λc: %s(c, %s), %s)", s.n, s.op, b, a)
	case kWhile:
		return fmt.Sprintf("while_loop(λc: c[1] < %d, λc: (%s(c[0], %s), c[1] + 1), (%s, 0))[0]", s.n, s.op, b, a)
	case kScan:
		if s.keep {
			return fmt.Sprintf("scan(λc, _: (%s(c, %s), c), %s, None, length=%d, reverse=%v)[0]", s.op, b, a, s.n, s.swap)
		}
		return fmt.Sprintf("scan(λc, x: (%[1]s(c, x), %[1]s(c, x)), %[2]s[0], %[2]s, reverse=%[3]v)[1]", s.op, a, s.swap)
	case kSwitch:
		return fmt.Sprintf("switch(count_nonzero(%[2]s), (λx: %[1]s(x, %[3]s), λx: x, λx: %[1]s(%[1]s(x, %[3]s), %[3]s)), %[2]s)", s.op, a, b)
	}
	return fmt.Sprintf("cond(any(%s), λx: %s(x, %s), λx: x, %s)", a, s.op, b, a)
}

// controlMachinery are the ops a control step emits besides its binary
// op: the loop's counter and bound, the cond's predicate.
var controlMachinery = map[trace.Op]bool{trace.OpAdd: true, trace.OpLt: true, trace.OpNe: true, trace.OpReduceSum: true,
	trace.OpReshape: true, trace.OpConvert: true, trace.OpConst: true, trace.OpResult: true}

// scanMachinery are the further ops a scan emits: its reads of xs and
// writes of ys (dynamic_slice, dynamic_update_slice with their index
// wrapping), the reversed step's index, the first carry (a[0]: a gather or
// slice) and the ys' zeros.
var scanMachinery = map[trace.Op]bool{trace.OpDynamicSlice: true, trace.OpDynamicUpdateSlice: true, trace.OpSelect: true,
	trace.OpSub: true, trace.OpBroadcastInDim: true, trace.OpGather: true, trace.OpSlice: true}

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
