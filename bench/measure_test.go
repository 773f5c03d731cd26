package main

import (
	"testing"
	"time"
)

// A workload timed per step reports the median of the calls its timed runs
// logged (not the warm-up's), not the median of runs.
func TestMeasurePerStep(t *testing.T) {
	log := &stepLog{}
	runs := 0
	run := func() error {
		// Each run logs one cold call (as after a collection) and three
		// steady ones, with made-up times: the warm-up's are larger still.
		runs++
		base := time.Duration(runs) * time.Microsecond
		if runs == 1 {
			base = time.Second
		}
		log.d = append(log.d[:0], time.Millisecond, base, base, base)
		return nil
	}
	ts, errs := measureTogether([]impl{{run: run, steps: log}}, schedule{runs: 3, minRuns: 3, budget: time.Hour}, 4)
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	// Timed runs 2, 3, 4: steady calls of 2, 3 and 4 µs, three each, and
	// three of 1 ms: the median of the twelve is (3 µs + 4 µs) / 2 (the
	// median run's time per call would be over 250 µs).
	if got := time.Duration(ts[0].sec*1e9 + 0.5); got != 3500*time.Nanosecond {
		t.Errorf("per-step time %v, want the median logged call's 3.5µs", got)
	}
	if ts[0].runs != 3 {
		t.Errorf("%d runs, want 3", ts[0].runs)
	}
}

// repeat logs each call of a run of a perStep workload, the run's only,
// and gives workloads timed per run no log.
func TestRepeatLogsSteps(t *testing.T) {
	w := &workload{calls: 4, perStep: true}
	calls := 0
	run, steps := w.repeat(func() error { calls++; return nil })
	if steps == nil {
		t.Fatal("repeat of a perStep workload returned no step log")
	}
	for i := range 2 {
		if err := run(); err != nil {
			t.Fatal(err)
		}
		if len(steps.d) != 4 || calls != 4*(i+1) {
			t.Fatalf("after run %d: %d calls, %d logged; want %d calls, the run's 4 logged", i+1, calls, len(steps.d), 4*(i+1))
		}
	}
	w.perStep = false
	if _, steps = w.repeat(func() error { return nil }); steps != nil {
		t.Error("repeat of a workload timed per run returned a step log")
	}
}
