package main

import (
	"math"
	"testing"
)

// The estimates agree with the true values within 5 standard errors (a
// fixed seed: deterministic), and the same seed gives the same numbers.
func TestEstimates(t *testing.T) {
	pi, piErr, ez, ezErr, err := run(0, 8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pi-math.Pi) > 5*piErr || piErr > 1e-3 {
		t.Errorf("π ≈ %v ± %v", pi, piErr)
	}
	if e := math.Sqrt(math.E); math.Abs(ez-e) > 5*ezErr || ezErr > 3e-3 {
		t.Errorf("E[e^Z] ≈ %v ± %v, want %v", ez, ezErr, e)
	}
	pi2, _, ez2, _, err := run(0, 8)
	if err != nil || pi2 != pi || ez2 != ez {
		t.Errorf("a second run gave %v, %v (%v)", pi2, ez2, err)
	}
}
