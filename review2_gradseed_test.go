package kiln_test

import "testing"

// TestReview2GradWeakComplexScan: a FuzzGrad find (fresh seed) — the
// gradient of a scan over a weak c64 input (take, then a scan whose
// stacked output is c·x, matmul, expand_dims) does not trace: reverse
// mode's dynamic_update_slice of the stacked cotangent gets "the update
// is c64*, the operand c64*: lax.dynamic_update_slice needs one dtype" —
// the same printed dtype on both sides. It fails the same way before
// today's Checkpoint and custom-rule changes (at 0ed8cc8): not theirs.
func TestReview2GradWeakComplexScan(t *testing.T) {
	if _, msg := runGradFusedWith(2445067048979771983, "all-control"); msg != "" {
		t.Fatal(msg)
	}
}
