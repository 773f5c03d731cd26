package trace

import (
	"slices"
	"testing"
)

// TestEveryOpHasBatchRule checks the batching rules table: every op of
// the op table has a rule (vmap.go says how to write one).
func TestEveryOpHasBatchRule(t *testing.T) {
	var missing []string
	for op := OpInvalid + 1; op < numOps; op++ {
		if batchRules[op] == nil {
			missing = append(missing, op.String())
		}
	}
	if len(missing) > 0 {
		t.Errorf("ops without a batching rule (add one beside the op's other rules; see vmap.go): %v", missing)
	}
}

// setLoopRuleForTest installs loopRuleForTest as the while's batching
// rule until the returned function restores the table: a minimal rule
// (every carry batched, the predicate unbatched) that checks Replay — a
// sub-program batched inside the function given to WhileLoop, closing
// over the enclosing trace — until vmapext's rule is merged.
func setLoopRuleForTest() (restore func()) {
	saved := batchRules[OpWhile]
	batchRules[OpWhile] = loopRuleForTest
	return func() { batchRules[OpWhile] = saved }
}

func loopRuleForTest(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	cp := e.Params.Control
	nc, nb := cp.NConsts[0], cp.NConsts[1]
	n := len(e.Args) - nc - nb
	condIn, bodyIn := c.In[n:n+nc], c.In[n+nc:]
	condBat, bodyBat := c.Batched[n:n+nc], c.Batched[n+nc:]
	// The batched carries: those batched on entry, and those the body
	// makes batched, to a fixpoint.
	carry := slices.Clone(c.Batched[:n])
	for {
		out := batchedOutputs(cp.Subs[1], append(slices.Clone(carry), bodyBat...))
		changed := false
		for i := range carry {
			if out[i] && !carry[i] {
				carry[i], changed = true, true
			}
		}
		if !changed {
			break
		}
	}
	if batchedOutputs(cp.Subs[0], append(slices.Clone(carry), condBat...))[0] {
		c.vm.ruleErr(e, "the test's loop rule takes an unbatched predicate only")
		return nil, nil
	}
	init := make([]Value, n)
	for i := range init {
		init[i] = c.In[i]
		if carry[i] {
			init[i] = c.Batch(i)
		}
	}
	cond := func(x []Value) Value {
		o, _ := c.Replay(cp.Subs[0], append(slices.Clone(x), condIn...), append(slices.Clone(carry), condBat...))
		return o[0]
	}
	body := func(x []Value) []Value {
		o, ob := c.Replay(cp.Subs[1], append(slices.Clone(x), bodyIn...), append(slices.Clone(carry), bodyBat...))
		for i := range o {
			if carry[i] && !ob[i] {
				o[i] = c.BroadcastBatch(o[i])
			}
		}
		return o
	}
	return WhileLoop(cond, body, init...), carry
}
