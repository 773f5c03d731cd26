package kiln_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// Concurrent Runs of one checked Func, some failing a check and some not:
// each gets its own answer (no stale or missing CheckError, no crash).
// Under -race this caught a Run clearing its state's check record in a
// defer, after the state had gone back for another Run to take.
func TestCheckedConcurrentRuns(t *testing.T) {
	f := kiln.Jit(func(x, i kiln.Value) kiln.Value { return x.Index(i).Mul(kiln.Float(2)) }, kiln.Checked())
	x := f32s(t, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10)
	good, bad := i32s(t, 1, 2, 3), i32s(t, 1, 20, 3)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 300 {
				fail := (g+k)%2 == 0
				idx := good
				if fail {
					idx = bad
				}
				out, err := f.Run(x, idx)
				var ce *kiln.CheckError
				switch {
				case fail && !errors.As(err, &ce):
					errs <- err
					return
				case !fail && err != nil:
					errs <- err
					return
				case !fail && out.Data().([]float32)[1] != 4:
					errs <- errors.New("wrong value")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("run: %v", err)
	}
}

// countingBackend counts the runs of the executables it compiles.
type countingBackend struct {
	kernels.Backend
	runs *atomic.Int64
}

type countingExe struct {
	kernels.Executable
	runs *atomic.Int64
}

func (b countingBackend) Compile(m *lower.Module) (kernels.Executable, error) {
	exe, err := b.Backend.Compile(m)
	if err != nil {
		return nil, err
	}
	return countingExe{exe, b.runs}, nil
}

func (e countingExe) Run(in []*tensor.Array) ([]*tensor.Array, error) {
	e.runs.Add(1)
	return e.Executable.Run(in)
}

func (e countingExe) RunInto(outs, in []*tensor.Array) error {
	e.runs.Add(1)
	return e.Executable.RunInto(outs, in)
}

// A checked Run that writes into released arrays and fails its check
// returns the CheckError from that one run: it does not run the program a
// second time into fresh arrays to fail the same way.
func TestCheckedPooledRunsOnce(t *testing.T) {
	var runs atomic.Int64
	f := kiln.Jit(func(x, i kiln.Value) kiln.Value { return x.Index(i) },
		kiln.Checked(), kiln.WithBackend(countingBackend{kernels.DefaultCPU(), &runs}))
	x := f32s(t, []float32{0, 1, 2, 3}, 4)
	out, err := f.Run(x, i32s(t, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	f.Release(out)
	runs.Store(0)
	if _, err := f.Run(x, i32s(t, 1, 7)); !errors.As(err, new(*kiln.CheckError)) {
		t.Fatalf("got %v, want a CheckError", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the failing run ran the program %d times, want 1", n)
	}
}

// Ops on constants alone, which lowering folds at compile time, are
// checked too: the fold declines what would fail a check, and the op's
// kernel reports it at its position when the program runs.
func TestCheckedFoldedConstants(t *testing.T) {
	iv := i32s(t, 1, 2, 3)
	for name, fn := range map[string]func(x kiln.Value) kiln.Value{
		"scalar floordiv": func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(5).FloorDiv(kiln.Int(0))) },
		"array rem": func(x kiln.Value) kiln.Value {
			return x.Add(kiln.Const(i32s(t, 5, 6, 7)).Rem(kiln.Const(i32s(t, 1, 0, 1))))
		},
		"gather": func(x kiln.Value) kiln.Value {
			return x.Add(kiln.Const(i32s(t, 5, 6, 7)).Index(kiln.Const(i32s(t, 0, 9, 1))))
		},
		"nan": func(x kiln.Value) kiln.Value { return x.Astype(tensor.F32).Add(kiln.Float(-1).Sqrt()) },
	} {
		_, err := kiln.Jit(fn, kiln.Checked(kiln.CheckIndex, kiln.CheckDivide, kiln.CheckNaN)).Run(iv)
		var ce *kiln.CheckError
		if !errors.As(err, &ce) {
			t.Errorf("%s: got %v, want a CheckError", name, err)
		} else if filepath.Base(ce.Pos.File) != "check_concurrent_test.go" {
			t.Errorf("%s: position %s is not the caller's", name, ce.Pos)
		}
		// Unchecked, the same program folds and runs.
		if _, err := kiln.Jit(fn).Run(iv); err != nil {
			t.Errorf("%s unchecked: %v", name, err)
		}
	}
	// A fold whose check passes still folds, to the same bits.
	fn := func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(7).FloorDiv(kiln.Int(2))) }
	a, err1 := kiln.Jit(fn, kiln.Checked()).Run(iv)
	b, err2 := kiln.Jit(fn).Run(iv)
	if err1 != nil || err2 != nil || !sameBits(a, b) {
		t.Errorf("checked %v (%v), unchecked %v (%v)", a, err1, b, err2)
	}
}

// A NaN check names the primitive that made the NaN, as checkify does,
// not the op of the fused kernel's output it flowed into.
func TestCheckedNaNBlamesItsMaker(t *testing.T) {
	var at int
	for _, be := range []kiln.Option{kiln.WithBackend(kernels.DefaultCPU()), kiln.WithBackend(tinyCPU)} {
		f := kiln.Jit(func(x kiln.Value) kiln.Value {
			at = line() + 1
			s := x.Sub(kiln.Float(1)).Sqrt()
			return s.Mul(kiln.Float(2)).Add(x).Exp()
		}, kiln.Checked(kiln.CheckNaN), be)
		_, err := f.Run(f32s(t, []float32{1, 2, 0.5, 3}, 4))
		var ce *kiln.CheckError
		if !errors.As(err, &ce) {
			t.Fatalf("got %v, want a CheckError", err)
		}
		if ce.Op != "sqrt" || ce.Pos.Line != at || ce.Element != 2 {
			t.Errorf("got %v (op %s, line %d, element %d), want sqrt at line %d, element 2", ce, ce.Op, ce.Pos.Line, ce.Element, at)
		}
	}
}

// Checked runs that fail a check, runs a deadline stops and runs that
// pass, concurrently on one Func (default and tiny-block CPU): each gets
// its own error or the passing run's bits, and no goroutine is left.
func TestCheckedCancelConcurrent(t *testing.T) {
	stopWarmPool(t)
	if _, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Float(2)).Sum() }, kiln.WithBackend(tinyCPU)).Run(tensor.Must(tensor.Zeros(tensor.F32, 1<<16))); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for _, be := range []kiln.Option{kiln.Checked(), kiln.WithBackend(tinyCPU)} {
		f := kiln.Jit(func(x, lim, ids kiln.Value) kiln.Value {
			return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(lim) },
				func(c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Add(c[0].Index(ids).Sum()).Mul(kiln.Float(0.5)), c[1].Add(kiln.Int(1))}
				}, x, kiln.Int(0).Astype(tensor.I32))[0]
		}, kiln.Checked(), be)
		x := tensor.Must(tensor.Zeros(tensor.F32, 5000))
		good, bad := i32s(t, 1, 2), i32s(t, 1, 20000)
		want, err := f.Run(x, int32(5), good)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range 10 {
					switch (g + k) % 3 {
					case 0:
						ctx, cancel := context.WithTimeout(context.Background(), time.Duration(k)*time.Millisecond)
						_, err := f.RunContext(ctx, x, int32(math.MaxInt32), good)
						cancel()
						if !errors.Is(err, context.DeadlineExceeded) {
							t.Errorf("ctx: %v", err)
						}
					case 1:
						if _, err := f.Run(x, int32(5), bad); !errors.As(err, new(*kiln.CheckError)) {
							t.Errorf("bad: %v", err)
						}
					case 2:
						ctx, cancel := context.WithCancel(context.Background())
						out, err := f.RunContext(ctx, x, int32(5), good)
						cancel()
						if err != nil || !sameBits(out, want) {
							t.Errorf("good: %v", err)
						}
						f.Release(out)
					}
				}
			}()
		}
		wg.Wait()
	}
	stopSettled(t, before)
}
