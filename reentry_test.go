package kiln

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// within fails the test if fn does not return within a generous bound: a
// deadlock shows as a failure, not as a test binary killed by -timeout.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still waiting after 20 s (deadlock)", what)
	}
}

// Two goroutines' traces that each run the other's signature: A's trace
// waits for B's build, B's trace then asks for A. Neither can finish if B
// waits, so B's inner call gets a *ReentrantError; A's then completes. (Before
// the wait-for check, both waited forever, and so did every later caller of
// either signature.)
func TestReentrantAcrossGoroutines(t *testing.T) {
	var f *Func
	inA, inB := make(chan struct{}), make(chan struct{})
	var errs [2]error
	f = Jit(func(x Value) Value {
		switch x.Shape()[0] {
		case 1: // A: wait until B is tracing too, then run B
			close(inA)
			<-inB
			_, errs[0] = f.Run([]float32{1, 2})
		case 2: // B: the same the other way round
			close(inB)
			<-inA
			_, errs[1] = f.Run([]float32{1})
		}
		return x.Neg()
	})
	var wg sync.WaitGroup
	within(t, "two traces running each other's signature", func() {
		for _, x := range [][]float32{{1}, {1, 2}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := f.Run(x); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	})
	var re *ReentrantError
	if n := btoi(errors.As(errs[0], &re)) + btoi(errors.As(errs[1], &re)); n != 1 {
		t.Errorf("inner calls: %v, %v; want exactly one *ReentrantError", errs[0], errs[1])
	}
	if errs[0] != nil && errs[1] != nil {
		t.Errorf("both inner calls failed: %v, %v; the one that waited should have run", errs[0], errs[1])
	}
	within(t, "a later call", func() {
		if out, err := f.Run([]float32{3}); err != nil || out.String() != "f32[1] [-3]" {
			t.Errorf("after: %v, %v", out, err)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A trace that runs its own signature after that signature's entry left
// the cache (pushed out by a Run of another signature from the same trace)
// is re-entrant too: it must not start a fresh build of the same
// signature, whose trace would do the same, without end.
func TestReentrantAfterEviction(t *testing.T) {
	var f *Func
	var depth, deepest atomic.Int32
	var inner error
	f = Jit(func(x Value) Value {
		if x.Shape()[0] == 1 {
			d := depth.Add(1)
			defer depth.Add(-1)
			if d > deepest.Load() {
				deepest.Store(d)
			}
			if d > 3 { // the old code recursed; stop it here
				return x
			}
			if _, err := f.Run([]float32{1, 2}); err != nil { // evicts this signature
				t.Error(err)
			}
			_, inner = f.Run([]float32{1})
		}
		return x.Neg()
	}, CacheSize(1))
	within(t, "Run", func() {
		if _, err := f.Run([]float32{5}); err != nil {
			t.Fatal(err)
		}
	})
	var re *ReentrantError
	if !errors.As(inner, &re) || deepest.Load() != 1 {
		t.Errorf("inner Run: %v, traced %d deep; want a *ReentrantError and one trace", inner, deepest.Load())
	}
}

// Concurrent misses of one signature wait for one build and never see a
// re-entrant call, however many goroutines ask.
func TestConcurrentMissesAreNotReentrant(t *testing.T) {
	release := make(chan struct{})
	f := Jit(func(x Value) Value {
		<-release
		return x.Add(Int(1))
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Run([]int32{1}); err != nil {
				t.Error(err)
			}
		}()
	}
	time.Sleep(10 * time.Millisecond)
	close(release)
	within(t, "8 concurrent misses", wg.Wait)
	if s := f.Stats(); s.Misses != 1 || s.Hits != 7 {
		t.Errorf("%+v; want 1 miss and 7 hits", s)
	}
}
