package kiln

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
)

// A trace whose goroutine exits inside the user's function (runtime.Goexit,
// which t.FailNow calls) finishes nothing: the entry must still be let go,
// so a caller already waiting for it and every later caller build the
// signature themselves. (Before, the entry stayed "being built" forever
// and every caller of that signature hung.)
func TestCacheUsableAfterGoexitInTrace(t *testing.T) {
	var calls atomic.Int32
	entered, exit := make(chan struct{}), make(chan struct{})
	f := Jit(func(x Value) Value {
		if calls.Add(1) == 1 {
			close(entered)
			<-exit
			runtime.Goexit()
		}
		return x.Mul(Int(3))
	})
	go f.Run([]float32{1}) // its goroutine exits inside the trace
	<-entered
	waiter := make(chan error, 1)
	go func() { // waits for the build that will be abandoned
		out, err := f.Run([]float32{2})
		if err == nil && out.String() != "f32[1] [6]" {
			t.Errorf("waiter got %v", out)
		}
		waiter <- err
	}()
	time.Sleep(10 * time.Millisecond) // let it start waiting
	close(exit)
	within(t, "the caller waiting for the abandoned build", func() {
		if err := <-waiter; err != nil {
			t.Error(err)
		}
	})
	within(t, "a later caller", func() {
		if out, err := f.Run([]float32{4}); err != nil || out.String() != "f32[1] [12]" {
			t.Errorf("later: %v, %v", out, err)
		}
	})
	if s := f.Stats(); s.Building != 0 || s.Entries != 1 || s.Live != 1 {
		t.Errorf("%+v; want nothing building, 1 entry, 1 live", s)
	}
}

// panickyBackend is the CPU backend whose first Compile panics, as a
// backend bug would.
type panickyBackend struct{ n atomic.Int32 }

func (b *panickyBackend) Name() string { return "panicky" }

func (b *panickyBackend) Compile(m *lower.Module) (kernels.Executable, error) {
	if b.n.Add(1) == 1 {
		panic("backend bug")
	}
	return kernels.DefaultCPU().Compile(m)
}

// A panic out of the backend's Compile goes to the caller (it is a bug
// there, not a user error) but must not leave the entry "compiling": the
// next Run compiles it. (Before, every later Run of the signature waited
// forever for the compile that had panicked.)
func TestCacheUsableAfterCompilePanic(t *testing.T) {
	f := Jit(func(x Value) Value { return x.Add(Int(1)) }, WithBackend(&panickyBackend{}))
	func() {
		defer func() {
			if r := recover(); r != "backend bug" {
				t.Errorf("recovered %v, want the backend's panic", r)
			}
		}()
		f.Run([]int32{1})
	}()
	within(t, "Run after the panic", func() {
		if out, err := f.Run([]int32{1}); err != nil || out.String() != "i32[1] [2]" {
			t.Errorf("after the panic: %v, %v", out, err)
		}
	})
	if s := f.Stats(); s.Live != 1 || s.Compiles != 1 {
		t.Errorf("%+v; want 1 compile, 1 live", s)
	}
}
