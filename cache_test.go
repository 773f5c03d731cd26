package kiln

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// countingBackend is the CPU backend whose executables count their Closes
// and refuse to run after one, standing in for a backend that holds device
// memory (OpenCL): it shows when the cache lets an executable go, and that
// it never runs a released one.
type countingBackend struct {
	compiled, closed atomic.Int64
	runAfterClose    atomic.Int64
}

type countingExe struct {
	kernels.Executable
	b      *countingBackend
	closed atomic.Bool
}

func (b *countingBackend) Name() string { return "counting" }

func (b *countingBackend) Compile(m *lower.Module) (kernels.Executable, error) {
	exe, err := kernels.DefaultCPU().Compile(m)
	if err != nil {
		return nil, err
	}
	b.compiled.Add(1)
	return &countingExe{Executable: exe, b: b}, nil
}

func (e *countingExe) Close() error {
	if e.closed.Swap(true) {
		panic("executable closed twice")
	}
	e.b.closed.Add(1)
	return nil
}

func (e *countingExe) Run(in []*tensor.Array) ([]*tensor.Array, error) {
	if e.closed.Load() {
		e.b.runAfterClose.Add(1)
	}
	return e.Executable.Run(in)
}

func (e *countingExe) RunInto(out, in []*tensor.Array) error {
	if e.closed.Load() {
		e.b.runAfterClose.Add(1)
	}
	return e.Executable.RunInto(out, in)
}

func (b *countingBackend) alive() int64 { return b.compiled.Load() - b.closed.Load() }

// An entry evicted while it is still being traced must not keep the
// executable its Run compiles: once every Run is done, the Func keeps only
// what its cache holds. (Before the fix, build took the executable's
// reference after evict had skipped the entry, and nothing dropped it.)
func TestEvictedDuringBuildIsReleased(t *testing.T) {
	b := &countingBackend{}
	inTrace, proceed := make(chan struct{}), make(chan struct{})
	f := Jit(func(x Value) Value {
		if x.Shape()[0] == 1 {
			close(inTrace)
			<-proceed
		}
		return x.Mul(Int(2))
	}, CacheSize(1), WithBackend(b))
	done := make(chan error)
	go func() {
		_, err := f.Run([]float32{1})
		done <- err
	}()
	<-inTrace
	// Signature [2] evicts [1] while [1] is inside its trace.
	if _, err := f.Run([]float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := f.Stats(); got.Entries != 1 || got.Live != 1 || len(f.execs) != 1 {
		t.Errorf("after the runs: %+v, %d executables by module; want 1 entry, 1 live", got, len(f.execs))
	}
	if b.alive() != 1 || b.runAfterClose.Load() != 0 {
		t.Errorf("backend: %d compiled, %d closed, %d runs after close; want 1 alive, none run after close",
			b.compiled.Load(), b.closed.Load(), b.runAfterClose.Load())
	}
}

// Many goroutines, more signatures than the cache holds: the executables
// alive never exceed the cache size plus the runs in flight, and once the
// runs are done they are back within the cache size. Every executable the
// cache lets go is closed exactly once, none after it ran its last Run.
func TestCacheBoundUnderLoad(t *testing.T) {
	const cache, workers, lengths = 2, 8, 120
	b := &countingBackend{}
	f := Jit(func(x Value) Value { return x.Add(Int(1)) }, CacheSize(cache), WithBackend(b))
	var wg sync.WaitGroup
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() { // watch Live while the workers run
		for {
			select {
			case <-stop:
				return
			default:
			}
			if l := int64(f.Stats().Live); l > peak.Load() {
				peak.Store(l)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lengths {
				n := 1 + (i*7+w*13)%97
				x := make([]int32, n)
				for k := range x {
					x[k] = int32(k - w)
				}
				out, err := f.Run(x)
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := tensor.Data[int32](out)
				for k := range got {
					if got[k] != x[k]+1 {
						t.Errorf("n=%d: out[%d] = %d, want %d", n, k, got[k], x[k]+1)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	s := f.Stats()
	if s.Live > cache || len(f.execs) > cache || s.Building != 0 {
		t.Errorf("after the load: %+v, %d by module; want at most %d live", s, len(f.execs), cache)
	}
	if p := peak.Load(); p > cache+2*workers {
		t.Errorf("live executables peaked at %d; the bound is the cache (%d) plus the runs and builds in flight (%d)", p, cache, 2*workers)
	}
	if int64(s.Live) != b.alive() || b.runAfterClose.Load() != 0 {
		t.Errorf("Live %d, backend %d compiled - %d closed; %d runs after close", s.Live, b.compiled.Load(), b.closed.Load(), b.runAfterClose.Load())
	}
}

// Signatures that trace to one typed program share one executable, also
// when their builds race: f(x, 1) with a weak 1 and f(x, int8(1)).
func TestConcurrentSharedProgram(t *testing.T) {
	b := &countingBackend{}
	f := Jit(func(x, y Value) Value { return x.Add(y) }, WithBackend(b))
	x := []int8{1, 2, 3}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = f.Run(x, 1)
			} else {
				_, err = f.Run(x, int8(1))
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if s := f.Stats(); s.Entries != 2 || s.Live != 1 || b.alive() != 1 {
		t.Errorf("%+v, backend alive %d; want 2 signatures sharing 1 executable", s, b.alive())
	}
}

// A signature whose trace fails leaves nothing behind, and the next call
// of it traces again (and fails again).
func TestFailedBuildLeavesNothing(t *testing.T) {
	f := Jit(func(x Value) Value { return x.Reshape(7) })
	for range 2 {
		var se *trace.ShapeError
		if _, err := f.Run([]float32{1, 2}); !errors.As(err, &se) {
			t.Fatalf("err = %v, want a *trace.ShapeError", err)
		}
	}
	if s := f.Stats(); s.Entries != 0 || s.Live != 0 || s.Misses != 2 {
		t.Errorf("%+v, want no entries, nothing live, 2 misses", s)
	}
}

// Trace, Lower, Explain and ExplainMiss look inside without compiling.
func TestInspectionDoesNotCompile(t *testing.T) {
	b := &countingBackend{}
	f := Jit(func(x Value) Value { return x.Mul(Float(0.5)) }, WithBackend(b))
	x := []float32{1, 2}
	if _, err := f.Trace(x); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Lower(x); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Explain(x); err != nil {
		t.Fatal(err)
	}
	if b.compiled.Load() != 0 || f.Stats().Compiles != 0 {
		t.Fatalf("inspection compiled %d executables", b.compiled.Load())
	}
	if _, err := f.Run(x); err != nil {
		t.Fatal(err)
	}
	if b.compiled.Load() != 1 {
		t.Errorf("Run compiled %d executables, want 1", b.compiled.Load())
	}
}

// A traced function that runs its own Func with the signature being traced
// gets a *ReentrantError instead of waiting forever, and the Func stays
// usable for every caller afterwards.
func TestReentrantRun(t *testing.T) {
	var f *Func
	var inner error
	f = Jit(func(x Value) Value {
		_, inner = f.Run([]float32{1, 2, 3})
		return x.Neg()
	})
	done := make(chan error, 1)
	go func() {
		_, err := f.Run([]float32{4, 5, 6})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("re-entrant Run deadlocked")
	}
	var re *ReentrantError
	if !errors.As(inner, &re) || re.Signature != "(f32[3])" {
		t.Fatalf("inner Run: %v, want a *ReentrantError naming (f32[3])", inner)
	}
	out, err := f.Run([]float32{7, 8, 9})
	if err != nil || out.String() != "f32[3] [-7 -8 -9]" {
		t.Errorf("after the re-entrant call: %v, %v", out, err)
	}
}

// A cycle through two Funcs is re-entrant too.
func TestReentrantCycle(t *testing.T) {
	var f, g *Func
	var inner error
	f = Jit(func(x Value) Value {
		g.Run([]float32{1})
		return x
	})
	g = Jit(func(x Value) Value {
		_, inner = f.Run([]float32{1})
		return x
	})
	done := make(chan error, 1)
	go func() { _, err := f.Run([]float32{2}); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("re-entrant cycle deadlocked")
	}
	var re *ReentrantError
	if !errors.As(inner, &re) {
		t.Errorf("inner Run: %v, want a *ReentrantError", inner)
	}
}

// A panic inside the trace is a *PanicError that keeps an error value
// findable, and leaves the cache usable.
func TestPanicInTraceKeepsTheError(t *testing.T) {
	calls := 0
	f := Jit(func(x Value) Value {
		calls++
		if calls == 1 {
			panic(&ArgError{Index: 0, Msg: "boom"})
		}
		return x
	})
	_, err := f.Run([]float32{1})
	var pe *PanicError
	var ae *ArgError
	if !errors.As(err, &pe) || !errors.As(err, &ae) || ae.Msg != "boom" {
		t.Fatalf("err = %v (%T), want a *PanicError wrapping the *ArgError", err, err)
	}
	if out, err := f.Run([]float32{1}); err != nil || out.String() != "f32[1] [1]" {
		t.Errorf("after the panic: %v, %v", out, err)
	}
}

// Jit reports a function of the wrong shape at once, with a typed error.
func TestJitFuncError(t *testing.T) {
	for _, fn := range []any{42, nil, func(x int) Value { return Value{} }, func(x Value) int { return 0 }, func(x Value) {}} {
		f := Jit(fn)
		var fe *FuncError
		if !errors.As(f.Err(), &fe) {
			t.Errorf("Jit(%T).Err() = %v, want a *FuncError", fn, f.Err())
			continue
		}
		if _, err := f.Run(1); !errors.As(err, &fe) {
			t.Errorf("Run of Jit(%T) = %v, want the *FuncError", fn, err)
		}
	}
	if err := Jit(func(x Value) Value { return x }).Err(); err != nil {
		t.Errorf("a good function: Err() = %v", err)
	}
}

func Example_reentrant() {
	var f *Func
	f = Jit(func(x Value) Value {
		if _, err := f.Run([]float32{0}); err != nil {
			fmt.Println(err)
		}
		return x
	})
	f.Run([]float32{1})
	// Output:
	// kiln: re-entrant call: the Func is being traced for the signature (f32[1]) by a trace that waits for this call; a traced function must not run its own Func with the signature it is tracing
}
