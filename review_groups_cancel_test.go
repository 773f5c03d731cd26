package kiln_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
)

// groupLoop runs E7's step (groupStep) lim times in a while loop: its
// body's groups run in every step.
func groupLoop(a ...kiln.Value) []kiln.Value {
	lim := a[15]
	c := kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[13].Lt(lim) },
		func(c []kiln.Value) []kiln.Value {
			s := groupStep(append(c[:13:13], a[13], a[14])...)
			return append(s[:13:13], c[13].Add(kiln.Int(1)))
		}, append(a[:13:13], kiln.Int(0).Astype(lim.DType()))...)
	return c[:13]
}

// A Run cancelled (or past its deadline) while its groups run — at the
// top level and in a loop's body — returns the context's error, promptly
// and without hanging, and the Func's next Runs give the bits of the
// ungrouped backend. Run it with -race.
func TestReviewGroupsCancelMidRun(t *testing.T) {
	for _, opt := range []kiln.Option{
		kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3})),
		kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 2, ParallelMin: 1, Block: 7})),
		kiln.WithBackend(kernels.DefaultCPU()),
	} {
		loop := kiln.Jit(groupLoop, opt)
		step := kiln.Jit(groupStep, opt)
		args := groupArgs(21, 256)
		wantStep, err := kiln.Jit(groupStep, kiln.WithBackend(reviewUngrouped)).RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		wantLoop, err := kiln.Jit(groupLoop, kiln.WithBackend(reviewUngrouped)).RunAll(append(args, int32(3))...)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			start := time.Now()
			_, err := loop.RunAllContext(ctx, append(args, int32(1<<30))...)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a loop of 2^30 steps past a %v deadline returned %v", d, err)
			}
			if el := time.Since(start); el > d+2*time.Second {
				t.Errorf("a loop past a %v deadline took %v to stop", d, el)
			}
			got, err := loop.RunAll(append(args, int32(3))...)
			if err != nil {
				t.Fatal(err)
			}
			if s := diffResults(got, wantLoop, true); s != "" {
				t.Fatalf("the loop after a cancelled Run: %s", s)
			}
		}
		// Cancel E7's step at times spread over its run (tens to hundreds
		// of microseconds): it either finishes with the right bits or
		// returns the context's error.
		stopped := 0
		for i := range 200 {
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(time.Duration(i%40) * 5 * time.Microsecond)
				cancel()
			}()
			got, err := step.RunAllContext(ctx, args...)
			switch {
			case errors.Is(err, context.Canceled):
				stopped++
			case err != nil:
				t.Fatal(err)
			default:
				if s := diffResults(got, wantStep, true); s != "" {
					t.Fatalf("a step that finished before its cancel: %s", s)
				}
			}
			cancel()
		}
		got, err := step.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		if s := diffResults(got, wantStep, true); s != "" {
			t.Fatalf("the step after cancelled Runs: %s", s)
		}
		t.Logf("%d of 200 steps stopped by their cancel", stopped)
	}
}

// Concurrent Runs of a loop whose body has groups (each Run's body
// executable takes its own run state, with its own child states) and of
// the step, some under a context cancelled mid-run, give the ungrouped
// bits when they finish. Run it with -race.
func TestReviewGroupsConcurrentLoops(t *testing.T) {
	opt := kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3, ParallelMin: 1, Block: 7}))
	loop := kiln.Jit(groupLoop, opt)
	args := append(groupArgs(23, 32), int32(2))
	want, err := kiln.Jit(groupLoop, kiln.WithBackend(reviewUngrouped)).RunAll(args...)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 6)
	done := make(chan bool)
	for g := range 6 {
		go func() {
			defer func() { done <- true }()
			for i := range 15 {
				ctx, cancel := context.WithCancel(context.Background())
				if g%3 == 0 {
					go func() { time.Sleep(time.Duration(i*20) * time.Microsecond); cancel() }()
				}
				got, err := loop.RunAllContext(ctx, args...)
				cancel()
				if errors.Is(err, context.Canceled) {
					continue
				}
				if err != nil {
					errs <- err.Error()
					return
				}
				if s := diffResults(got, want, true); s != "" {
					errs <- s
					return
				}
			}
		}()
	}
	for range 6 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
