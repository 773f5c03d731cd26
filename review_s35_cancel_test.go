package kiln_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// One long product of every kind on one worker (and a convolution and a
// sort), cancelled 5 ms in, returns within stopLatency with
// context.Canceled, and the Func then gives Run's bits: internal/gemm's
// calls poll the run's stopper before each panel. About 50 s: KILN_LONG.
func TestS35CancelSingleWorkerProducts(t *testing.T) {
	longtest.Skip(t, "the cancelled 2048² products of every kind on one worker")
	stopWarmPool(t)
	rng := rand.New(rand.NewPCG(35, 1))
	one := kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 1}))
	big := stopRandF32(rng, 2048, 2048)
	big2 := stopRandF32(rng, 2048, 2048)
	cases := []struct {
		name string
		fn   any
		args []any
	}{
		{"f32", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a, b) }, []any{big, big2}},
		{"f32T", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a.Transpose(1, 0), b.Transpose(1, 0)) }, []any{big, big2}},
		{"f32epi", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a, b).Add(a).Tanh() }, []any{big, big2}},
		{"f64", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a.Astype(tensor.F64), b.Astype(tensor.F64)) }, []any{big, big2}},
		{"f16", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a.Astype(tensor.F16), b.Astype(tensor.F16)) }, []any{big, big2}},
		{"bf16", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a.Astype(tensor.BF16), b.Astype(tensor.BF16)) }, []any{big, big2}},
		{"i8", func(a, b kiln.Value) kiln.Value {
			return kiln.Dot(a.Mul(kiln.Float(20)).Astype(tensor.I8), b.Mul(kiln.Float(20)).Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))
		}, []any{big, big2}},
		{"c64", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a.Astype(tensor.C64), b.Astype(tensor.C64)) }, []any{big, big2}},
		{"f8", func(a, b kiln.Value) kiln.Value {
			return kiln.Dot(a.Astype(tensor.F8E4M3FN), b.Astype(tensor.F8E4M3FN), kiln.PreferredElementType(tensor.F32))
		}, []any{big, big2}},
		{"batched", func(a, b kiln.Value) kiln.Value {
			return kiln.MatMul(a.Reshape(8, 512, 1024), b.Reshape(8, 1024, 512))
		}, []any{big, big2}},
		{"conv", func(a, b kiln.Value) kiln.Value {
			return kiln.Conv(a.Reshape(1, 16, 512, 512), b.Reshape(1024, 16, 16, 16).Slice(0, 0, 256, 1), []int{1, 1}, "SAME")
		}, []any{big, big2}},
		{"sort", func(a kiln.Value) kiln.Value { return a.Reshape(256, -1).Sort(1) }, []any{big}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := kiln.Jit(c.fn, one)
			start := time.Now()
			want, err := f.Run(c.args...)
			if err != nil {
				t.Skip("not supported:", err)
			}
			whole := time.Since(start)
			for round := range 2 {
				ctx, cancel := context.WithCancel(context.Background())
				at := make(chan time.Time, 1)
				go func() {
					time.Sleep(5 * time.Millisecond)
					at <- time.Now()
					cancel()
				}()
				out, err := f.RunContext(ctx, c.args...)
				end := time.Now()
				ct := <-at
				if whole < 50*time.Millisecond {
					t.Logf("whole run only %v", whole)
				}
				if err == nil {
					if end.Before(ct) {
						stopSameBits(t, out, want)
						continue
					}
					t.Fatalf("round %d: RunContext succeeded %v after the cancel (whole %v)", round, end.Sub(ct), whole)
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err %v", err)
				}
				lat := end.Sub(ct)
				t.Logf("round %d: returned %v after cancel; whole run %v", round, lat, whole)
				if lat > stopLatency {
					t.Errorf("round %d: returned %v after cancel (whole run %v)", round, lat, whole)
				}
			}
			got, err := f.Run(c.args...)
			if err != nil {
				t.Fatal(err)
			}
			stopSameBits2(t, got, want)
		})
	}
}

func stopSameBits2(t *testing.T, got, want *tensor.Array) {
	t.Helper()
	if !tensor.Equal(got, want) {
		t.Fatalf("results differ")
	}
}

// Two goroutines run one Func at once, one under a context cancelled at
// random moments, the other under a live context (non-nil Done): the live
// ones always succeed, bit for bit Run's.
func TestS35ConcurrentCancelInterference(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	a, b := stopRandF32(rng, 600, 800), stopRandF32(rng, 800, 600)
	x := stopRandF32(rng, 1<<18)
	cases := []struct {
		name string
		fn   any
		args []any
		opt  kiln.Option
	}{
		{"dot", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a, b).Tanh().Sum(1) }, []any{a, b},
			kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1}))},
		{"while", func(x kiln.Value) []kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(6), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				inner := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(j kiln.Value, d []kiln.Value) []kiln.Value {
					return []kiln.Value{d[0].Mul(kiln.Float(0.5)).Add(d[0].Sin())}
				}, c[0])
				return []kiln.Value{inner[0], c[1].Add(inner[0].Sum())}
			}, x, kiln.Float(0).Astype(tensor.F32))
		}, []any{x}, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1}))},
		{"groups", func(a, b kiln.Value) []kiln.Value {
			var outs []kiln.Value
			for i := range 4 {
				s := kiln.Float(float64(i) + 0.5)
				outs = append(outs, kiln.Dot(a.Mul(s), b).Sum(0), a.Add(s).Max(1))
			}
			return outs
		}, []any{a, b}, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 2, GroupAll: true}))},
		{"checked", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a, b).Tanh().Sum(1) }, []any{a, b}, kiln.Checked()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := kiln.Jit(c.fn, c.opt)
			want, err := f.RunAll(c.args...)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			stopCount, okCount := 0, 0
			var mu sync.Mutex
			wg.Add(2)
			go func() { // cancelled runs
				defer wg.Done()
				r := rand.New(rand.NewPCG(1, 1))
				outs := make([]*tensor.Array, len(want))
				for i, w := range want {
					outs[i] = tensor.Must(tensor.Zeros(w.DType(), w.Shape()...))
				}
				for range 100 {
					ctx, cancel := context.WithCancel(context.Background())
					d := time.Duration(r.IntN(3000)) * time.Microsecond
					at := make(chan time.Time, 1)
					go func() { time.Sleep(d); at <- time.Now(); cancel() }()
					start := time.Now()
					err := f.RunIntoContext(ctx, outs, c.args...)
					end := time.Now()
					ct := <-at
					if err == nil && end.Sub(ct) > 2*time.Millisecond {
						t.Logf("succeeded %v after the cancel (run took %v)", end.Sub(ct), end.Sub(start))
					}
					cancel()
					mu.Lock()
					if err != nil {
						stopCount++
					}
					mu.Unlock()
					if err != nil && !errors.Is(err, context.Canceled) {
						errs <- err
						return
					}
				}
			}()
			go func() { // live runs
				defer wg.Done()
				outs := make([]*tensor.Array, len(want))
				for i, w := range want {
					outs[i] = tensor.Must(tensor.Zeros(w.DType(), w.Shape()...))
				}
				for range 100 {
					ctx, cancel := context.WithCancel(context.Background())
					err := f.RunIntoContext(ctx, outs, c.args...)
					cancel()
					if err != nil {
						errs <- err
						return
					}
					for i := range outs {
						if !tensor.Equal(outs[i], want[i]) {
							errs <- errors.New("live run's output differs from Run's")
							return
						}
					}
					mu.Lock()
					okCount++
					mu.Unlock()
				}
			}()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			t.Logf("%d cancelled runs stopped, %d live runs ok", stopCount, okCount)
			if got, err := f.RunAll(c.args...); err != nil {
				t.Fatal(err)
			} else {
				for i := range got {
					stopSameBits2(t, got[i], want[i])
				}
			}
		})
	}
}

// A run cancelled before its last look reports the cancel; one whose
// context is cancelled right after it returns gives Run's bits; the run
// state, reused, forgets the old context: a later run under a live
// context is not stopped by the previous one's.
func TestS35StateReuseAfterCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	x := stopRandF32(rng, 1<<20)
	f := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(20), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(c[0].Sin())}
		}, x)[0].Sum()
	}, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 1})))
	want, err := f.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for i := range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(time.Duration(i*50) * time.Microsecond); cancel() }()
		_, err := f.RunContext(ctx, x)
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		ctx2, cancel2 := context.WithCancel(context.Background())
		got, err := f.RunContext(ctx2, x)
		cancel2()
		if err != nil {
			t.Fatalf("live run after a cancelled one: %v", err)
		}
		stopSameBits2(t, got, want)
		cancel()
	}
	stopSettled(t, before)
}

// Checked mode: a product stopped mid-way over an intermediate still
// holding the last run's NaNs reports the cancel, not a NaN check.
func TestS35CheckedCancelStaleNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 4))
	a, b := stopRandF32(rng, 2048, 2048), stopRandF32(rng, 2048, 2048)
	na := stopRandF32(rng, 2048, 2048)
	na.Data().([]float32)[5] = float32(nan32())
	f := kiln.Jit(func(a, b kiln.Value) kiln.Value { return kiln.Dot(a, b).Sum(1).Tanh() },
		kiln.Checked(), kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 1})))
	for range 3 {
		if _, err := f.Run(na, b); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(5 * time.Millisecond); cancel() }()
		_, err := f.RunContext(ctx, a, b)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("RunContext = %v, want context.Canceled", err)
		}
	}
}

func nan32() float64 { var z float64; return z / z }

// Checked mode: an endless nested while (an inner fori inside) and a big
// broadcast sum inside a cond stop on their deadline with its error, and
// the Func runs again.
func TestS35CheckedEndless(t *testing.T) {
	for _, opt := range []kiln.Option{kiln.Checked(), kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 2, GroupAll: true}))} {
		f := kiln.Jit(func(x, lim kiln.Value) kiln.Value {
			return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(lim) },
				func(c []kiln.Value) []kiln.Value {
					in := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, d []kiln.Value) []kiln.Value {
						return []kiln.Value{d[0].Mul(kiln.Float(0.5)).Add(kiln.Float(1))}
					}, c[0])
					return []kiln.Value{in[0], c[1].Add(kiln.Int(1))}
				}, x, kiln.Int(0).Astype(tensor.I32))[0].Sum()
		}, opt)
		x := tensor.Must(tensor.Zeros(tensor.F32, 1<<12))
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			start := time.Now()
			_, err := f.RunContext(ctx, x, int32(1<<30))
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("RunContext = %v", err)
			}
			if d := time.Since(start); d > 30*time.Millisecond+stopLatency {
				t.Errorf("returned after %v", d)
			}
			got, err := f.Run(x, int32(2))
			if err != nil || stopAt(got, 0) != float64(1<<12)*(1+0.5*(1+0.5*(1+0.5*(1+0.5*(1+0.5*(1+0.5*0)))))) {
				t.Logf("Run after = %v, %v", stopAt(got, 0), err)
			}
		}
	}
}
