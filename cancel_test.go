package kiln_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// The acceptance bound: a run stopped by a deadline or a cancel
// returns within this long after it. Generous on purpose: the machines
// that run the tests are shared and loaded; a run that does not stop
// takes minutes or forever.
const stopLatency = time.Second

// stopWarmPool runs a kernel big enough to split, so that the process-wide
// pool of fork helpers exists before a test counts goroutines: the pool's
// goroutines park and are reused, they are not a run's leftovers.
func stopWarmPool(t *testing.T) {
	t.Helper()
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Float(2)).Sum() })
	if _, err := f.Run(tensor.Must(tensor.Zeros(tensor.F32, 1<<20))); err != nil {
		t.Fatal(err)
	}
}

// stopSettled waits until the process has no more goroutines than before (the
// AfterFunc goroutine of a cancelled context and the fork helpers take a
// moment to end or park), failing with the stacks if it never does.
func stopSettled(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines before the run, %d after:\n%s", before, runtime.NumGoroutine(), buf)
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
}

// A RunIntoContext stopped by its deadline keeps no reference to the
// caller's output or input arrays: they are collected once the caller
// drops them. (It runs first: under the race detector, collections after
// the tests below, which leave executables with gigabytes of partial sums
// to free, take seconds each.)
func TestRunIntoContextStoppedHoldsNothing(t *testing.T) {
	f := kiln.Jit(func(x, lim kiln.Value) []kiln.Value {
		r := kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(lim) },
			func(c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(kiln.Float(1)), c[1].Add(kiln.Int(1))}
			}, x, kiln.Int(0).Astype(tensor.I32))
		return []kiln.Value{r[0], r[0].Sum()}
	})
	collected := make(chan string, 3)
	func() {
		x := tensor.Must(tensor.Zeros(tensor.F32, 1<<17))
		o0 := tensor.Must(tensor.Zeros(tensor.F32, 1<<17))
		o1 := tensor.Must(tensor.Zeros(tensor.F32))
		for name, a := range map[string]*tensor.Array{"input": x, "output 0": o0} {
			runtime.AddCleanup(&a.Data().([]float32)[0], func(s string) { collected <- s }, name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := f.RunIntoContext(ctx, []*tensor.Array{o0, o1}, x, int32(math.MaxInt32))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("RunIntoContext = %v, want context.DeadlineExceeded", err)
		}
	}()
	seen := map[string]bool{}
	for deadline := time.Now().Add(30 * time.Second); len(seen) < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("arrays still referenced after the stopped run; collected only %v", seen)
		}
		runtime.GC()
		select {
		case s := <-collected:
			seen[s] = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	// And the Func is fine: 3 steps of x/2+1 from 0 give 1.75.
	x := tensor.Must(tensor.Zeros(tensor.F32, 1<<17))
	outs, err := f.RunAll(x, int32(3))
	if err != nil || stopAt(outs[0], 5) != 1.75 || stopAt(outs[1], 0) != 1.75*(1<<17) {
		t.Fatalf("RunAll after = %v, %v", outs, err)
	}
}

// stopCases are programs that run for minutes or forever; each is run
// under a 200 ms deadline. A case with next runs the same Func again with
// those arguments and expects want; the others cannot finish, so they
// are run under a deadline a second time.
var stopCases = []struct {
	name string
	fn   any
	args []any
	next []any
	want float64
}{
	{"while_true", func(x kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return kiln.Bool(true) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Int(1))} }, x)[0]
	}, []any{int32(0)}, nil, 0},
	{"while_limit", func(x, lim kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(lim) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Int(1))} }, x)[0]
	}, []any{int32(0), int32(math.MaxInt32)}, []any{int32(0), int32(1000)}, 1000},
	{"fori_1e12", func(hi kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), hi, func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Add(kiln.Float(1))}
		}, kiln.Float(0).Astype(tensor.F32))[0]
	}, []any{int64(1e12)}, []any{int64(100)}, 100},
	{"scan_1e12", func(x kiln.Value) kiln.Value {
		c, _ := kiln.Scan(func(c, _ []kiln.Value) ([]kiln.Value, []kiln.Value) {
			return []kiln.Value{c[0].Add(kiln.Float(1))}, nil
		}, []kiln.Value{x}, nil, kiln.ScanOptions{Length: 1e12})
		return c[0]
	}, []any{float32(0)}, nil, 0},
	{"broadcast_sum", func(x kiln.Value) kiln.Value { return x.BroadcastTo(1 << 40).Sum() },
		[]any{float32(1)}, nil, 0},
	// The same reduction inside a cond's branch: the stop flag reaches
	// the sub-executable, and the other branch then runs normally.
	{"cond_broadcast_sum", func(x, big kiln.Value) kiln.Value {
		return kiln.Cond(big, func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].BroadcastTo(1 << 40).Sum()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(kiln.Float(2))} }, x)[0]
	}, []any{float32(1), true}, []any{float32(3), false}, 6},
}

// TestRunContextDeadline is the acceptance test: each endless
// program under a 200 ms deadline returns within a second of it with
// context.DeadlineExceeded, leaves no goroutine behind, and its Func runs
// again.
func TestRunContextDeadline(t *testing.T) {
	stopWarmPool(t)
	for _, c := range stopCases {
		t.Run(c.name, func(t *testing.T) {
			f := kiln.Jit(c.fn)
			if _, err := f.Lower(c.args...); err != nil { // compile outside the deadline
				t.Fatal(err)
			}
			before := runtime.NumGoroutine()
			for range 2 {
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				start := time.Now()
				out, err := f.RunContext(ctx, c.args...)
				took := time.Since(start)
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) || out != nil {
					t.Fatalf("RunContext = %v, %v; want context.DeadlineExceeded", out, err)
				}
				if took > 200*time.Millisecond+stopLatency {
					t.Errorf("RunContext returned %v after it started, deadline 200ms", took)
				}
				t.Logf("stopped after %v: %v", took, err)
				stopSettled(t, before)
				if c.next == nil {
					continue
				}
				got, err := f.Run(c.next...)
				if err != nil {
					t.Fatal(err)
				}
				if v := stopAt(got, 0); v != c.want {
					t.Fatalf("the next Run = %v, want %v", v, c.want)
				}
			}
		})
	}
}

// A Cancel (not a deadline) stops a run in the middle of a big GEMM: it
// returns context.Canceled within the bound, and the next run of the same
// Func gives the product bit for bit.
func TestRunContextCancelGEMM(t *testing.T) {
	stopWarmPool(t)
	const n = 2048
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := stopRandF32(rng, n, n), stopRandF32(rng, n, n)
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return kiln.Dot(x, y) })
	start := time.Now()
	want, err := f.Run(a, b)
	if err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	stoppedAt := make(chan time.Time, 1)
	go func() {
		time.Sleep(5 * time.Millisecond)
		stoppedAt <- time.Now()
		cancel()
	}()
	out, err := f.RunContext(ctx, a, b)
	end := time.Now()
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("RunContext = %v, %v; want context.Canceled (the whole product takes %v)", out, err, whole)
	}
	if lat := end.Sub(<-stoppedAt); lat > stopLatency {
		t.Errorf("RunContext returned %v after the cancel", lat)
	} else {
		t.Logf("returned %v after the cancel; the whole product takes %v", lat, whole)
	}
	stopSettled(t, before)
	got, err := f.Run(a, b)
	if err != nil {
		t.Fatal(err)
	}
	stopSameBits(t, got, want)
}

// A context that is done before the call returns at once: nothing traced,
// nothing run.
func TestRunContextDoneBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(1)) })
	if _, err := f.RunContext(ctx, int32(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunContext = %v, want context.Canceled", err)
	}
	if _, err := f.RunAllContext(ctx, int32(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunAllContext = %v, want context.Canceled", err)
	}
	out := tensor.Must(tensor.Zeros(tensor.I32))
	if err := f.RunIntoContext(ctx, []*tensor.Array{out}, int32(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunIntoContext = %v, want context.Canceled", err)
	}
	if _, err := kiln.EvalContext(ctx, kiln.Int(1).Add(kiln.Int(2))); !errors.Is(err, context.Canceled) {
		t.Fatalf("EvalContext = %v, want context.Canceled", err)
	}
	if s := f.Stats(); s.Misses != 0 || s.Compiles != 0 {
		t.Errorf("a done context traced or compiled: %+v", s)
	}
	// A cause given to the cancel is found too.
	cause := errors.New("user pressed stop")
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancelCause(cause)
	_, err := f.RunContext(ctx, int32(1))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || !strings.Contains(err.Error(), "user pressed stop") {
		t.Fatalf("RunContext = %v, want context.Canceled with its cause", err)
	}
	if got, err := f.Run(int32(1)); err != nil || stopAt(got, 0) != 2 {
		t.Fatalf("Run after = %v, %v", got, err)
	}
}

// The results of a RunContext that nobody cancels — whose kernels run in
// pieces between looks at the stop flag — are bit for bit Run's.
func TestRunContextSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := stopRandF32(rng, 1<<22)
	a, b := stopRandF32(rng, 300, 700), stopRandF32(rng, 700, 500)
	cases := []struct {
		name string
		fn   any
		args []any
	}{
		{"sum", func(x kiln.Value) kiln.Value { return x.Sum() }, []any{x}},
		{"rows", func(x kiln.Value) kiln.Value { return x.Reshape(1024, 4096).Sum(1) }, []any{x}},
		{"elementwise", func(x kiln.Value) kiln.Value { return x.Exp().Mul(x).Tanh() }, []any{x}},
		{"dot", func(a, b kiln.Value) kiln.Value { return kiln.Dot(a, b).Tanh() }, []any{a, b}},
		{"while", func(x kiln.Value) []kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(5), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(kiln.Float(0.75)).Add(c[0].Sin()), c[1].Add(c[0].Sum())}
			}, x, kiln.Float(0).Astype(tensor.F32))
		}, []any{x}},
		{"sort", func(x kiln.Value) kiln.Value { return x.Reshape(64, 65536).Sort(-1) }, []any{x}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := kiln.Jit(c.fn)
			want, err := f.RunAll(c.args...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.RunAllContext(ctx, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				stopSameBits(t, got[i], want[i])
			}
			outs := make([]*tensor.Array, len(want))
			for i, w := range want {
				outs[i] = tensor.Must(tensor.Zeros(w.DType(), w.Shape()...))
			}
			if err := f.RunIntoContext(ctx, outs, c.args...); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				stopSameBits(t, outs[i], want[i])
			}
		})
	}
}

// EvalContext stops an eager evaluation as RunContext stops a run, and
// gives Eval's bits when not stopped.
func TestEvalContext(t *testing.T) {
	stopWarmPool(t)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	big := kiln.Const(tensor.Scalar(float32(1))).BroadcastTo(1 << 40).Sum()
	_, err := kiln.EvalContext(ctx, big)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > 200*time.Millisecond+stopLatency {
		t.Fatalf("EvalContext = %v after %v; want context.DeadlineExceeded within the bound", err, took)
	}
	// The sum's partials are bounded (a MiB), not a 1024th of the 2^40
	// values it reduces: 4 GiB of scratch once took 18 s to fault in.
	if runtime.ReadMemStats(&m1); m1.TotalAlloc-m0.TotalAlloc > 64<<20 {
		t.Errorf("the stopped sum allocated %d MiB", (m1.TotalAlloc-m0.TotalAlloc)>>20)
	}
	stopSettled(t, before)
	x := kiln.Const(stopRandF32(rand.New(rand.NewPCG(5, 6)), 1<<21))
	v := x.Exp().Sum()
	want, err := kiln.Eval(v)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	got, err := kiln.EvalContext(ctx2, v)
	if err != nil {
		t.Fatal(err)
	}
	stopSameBits(t, got, want)
}

func stopRandF32(rng *rand.Rand, shape ...int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return tensor.Must(tensor.FromSlice(v, shape...))
}

// stopSameBits fails unless got and want hold the same dtype, shape and bytes.
func stopSameBits(t *testing.T, got, want *tensor.Array) {
	t.Helper()
	if got.DType() != want.DType() || !got.HasShape(want.Shape()) {
		t.Fatalf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	if !bytes.Equal(stopBytes(got), stopBytes(want)) {
		t.Fatalf("the results differ in their bits")
	}
}

func stopBytes(a *tensor.Array) []byte {
	n := a.Size() * a.DType().Size()
	if n == 0 {
		return nil
	}
	switch d := a.Data().(type) {
	case []float32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), n)
	case []int32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), n)
	case []float64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), n)
	case []int64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), n)
	}
	panic("rawBytes: dtype " + a.DType().String())
}

// stopAt is element i of a as a float64.
func stopAt(a *tensor.Array, i int) float64 {
	switch d := a.Data().(type) {
	case []float32:
		return float64(d[i])
	case []float64:
		return d[i]
	case []int32:
		return float64(d[i])
	case []int64:
		return float64(d[i])
	}
	panic("at: dtype " + a.DType().String())
}

// A run that writes into released arrays (Release) is stopped too, with
// the context's error, and the arrays it took go back to the pool for the
// next run.
func TestRunContextPooled(t *testing.T) {
	f := kiln.Jit(func(x, lim kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(lim) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Float(1)), c[1].Add(kiln.Int(1))} },
			x, kiln.Int(0).Astype(tensor.I32))[0]
	})
	x := tensor.Must(tensor.Zeros(tensor.F32, 1000))
	out, err := f.Run(x, int32(2))
	if err != nil {
		t.Fatal(err)
	}
	f.Release(out)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := f.RunContext(ctx, x, int32(math.MaxInt32)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("RunContext = %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 200*time.Millisecond+stopLatency {
		t.Errorf("RunContext returned after %v", took)
	}
	got, err := f.Run(x, int32(3))
	if err != nil || stopAt(got, 999) != 3 {
		t.Fatalf("Run after = %v, %v", got, err)
	}
	if unsafe.SliceData(got.Data().([]float32)) != unsafe.SliceData(out.Data().([]float32)) {
		t.Errorf("the released array did not go back to the pool")
	}
}
