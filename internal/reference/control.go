package reference

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Control flow: a while or cond runs its sub-programs with Eval itself,
// carry by carry, step by step; its further results are kept for the
// result equations that project them.

// control evaluates a while or cond equation and returns all its results.
func (ev *evaluator) control(e *trace.Eqn, args []*tensor.Array) ([]*tensor.Array, error) {
	c := e.Params.Control
	switch e.Op {
	case trace.OpWhile:
		if len(c.Subs) != 2 || len(c.NConsts) != 2 {
			return nil, fmt.Errorf("while without cond and body")
		}
		n := len(args) - c.NConsts[0] - c.NConsts[1]
		if n < 1 {
			return nil, fmt.Errorf("while without a carry")
		}
		carry := args[:n]
		condConsts := args[n : n+c.NConsts[0]]
		bodyConsts := args[n+c.NConsts[0]:]
		for {
			p, err := Eval(c.Subs[0], append(append([]*tensor.Array{}, carry...), condConsts...), ev.opts)
			if err != nil {
				return nil, fmt.Errorf("cond: %w", err)
			}
			if !p[0].Data().([]bool)[0] {
				return carry, nil
			}
			if carry, err = Eval(c.Subs[1], append(append([]*tensor.Array{}, carry...), bodyConsts...), ev.opts); err != nil {
				return nil, fmt.Errorf("body: %w", err)
			}
		}
	case trace.OpCond:
		n := len(args) - 1
		for _, k := range c.NConsts {
			n -= k
		}
		if n < 0 || len(c.Subs) == 0 {
			return nil, fmt.Errorf("malformed cond")
		}
		idx, ok := args[0].Data().([]int32)
		if !ok || len(idx) != 1 {
			return nil, fmt.Errorf("the branch index is not an i32 scalar")
		}
		i := int(idx[0])
		if i < 0 || i >= len(c.Subs) {
			return nil, fmt.Errorf("branch index %d out of range", i)
		}
		at := 1 + n
		for k := range i {
			at += c.NConsts[k]
		}
		in := append(append([]*tensor.Array{}, args[1:1+n]...), args[at:at+c.NConsts[i]]...)
		outs, err := Eval(c.Subs[i], in, ev.opts)
		if err != nil {
			return nil, fmt.Errorf("branch %d: %w", i, err)
		}
		return outs, nil
	}
	return nil, fmt.Errorf("%s is not a control-flow op", e.Op)
}
