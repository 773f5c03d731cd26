package trace

import (
	"slices"
	"testing"
)

// batchRulesElsewhere are the ops whose batching rules live on another
// branch (vmapext: indexing, control flow, convolution).
// TODO(vmapext): remove when merged.
var batchRulesElsewhere = []Op{
	OpGather, OpScatter, OpScatterAdd, OpScatterMul, OpScatterMin, OpScatterMax,
	OpDynamicSlice, OpDynamicUpdateSlice, OpWhile, OpCond, OpConv,
}

// TestEveryOpHasBatchRule checks the batching rules table: every op of
// the op table has a rule (vmap.go says how to write one).
func TestEveryOpHasBatchRule(t *testing.T) {
	var missing []string
	for op := OpInvalid + 1; op < numOps; op++ {
		if batchRules[op] == nil && !slices.Contains(batchRulesElsewhere, op) {
			missing = append(missing, op.String())
		}
	}
	if len(missing) > 0 {
		t.Errorf("ops without a batching rule (add one beside the op's other rules; see vmap.go): %v", missing)
	}
}
