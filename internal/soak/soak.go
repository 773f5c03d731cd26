// Package soak runs a jitted function hard for a while, the way a
// long-running service would: many goroutines, random dtypes and shapes
// (more signatures than the cache holds), Run, RunInto, Run+Release and
// Eval mixed, every result checked against plain Go, and the cache's bounds
// checked throughout — executables alive within the cache size plus what is
// in flight, back within the cache size at the end, and the heap after a GC
// back near where it started. The tests of package kiln run it on the CPU
// backend and those of kernels/opencl on OpenCL.
package soak

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// Config is one soak run.
type Config struct {
	Backend  kernels.Backend // nil: the CPU
	Duration time.Duration   // overridden by $KILN_SOAK (a Go duration) when set
	Workers  int
	Cache    int // the Func's CacheSize
	Lengths  int // signatures per dtype: lengths 1..Lengths
	// HeapSlack is how far the heap after GC may end above where it
	// stood after the warm-up.
	HeapSlack uint64
	// Executables, if set, reports the backend's own count of its
	// executables still open, and of those released by the garbage
	// collector because nobody closed them. Give the soak a backend of its
	// own: at the end, open ones must be within the cache size and none
	// may have been left to the collector.
	Executables func() (open, collected int64)
}

// Duration returns the run's length: $KILN_SOAK if set, else d.
func Duration(t testing.TB, d time.Duration) time.Duration {
	if s := os.Getenv("KILN_SOAK"); s != "" {
		v, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("KILN_SOAK=%q: %v", s, err)
		}
		return v
	}
	return d
}

var dtypes = []tensor.DType{tensor.F32, tensor.F64, tensor.I8, tensor.I32, tensor.F16, tensor.U8}

// Run soaks one Func computing (x*3 + y, max(x)) for x an array and y a
// weak Go int, and the same expression through Eval.
func Run(t *testing.T, c Config) {
	opts := []kiln.Option{kiln.CacheSize(c.Cache)}
	if c.Backend != nil {
		opts = append(opts, kiln.WithBackend(c.Backend))
	}
	f := kiln.Jit(func(x, y kiln.Value) (kiln.Value, kiln.Value) {
		return x.Mul(kiln.Int(3)).Add(y), x.Max()
	}, opts...)
	var (
		stop     atomic.Bool
		runs     atomic.Int64
		peak     atomic.Int64
		failures atomic.Int64
		wg       sync.WaitGroup
	)
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
		stop.Store(true)
	}
	watch := func() {
		s := f.Stats()
		if l := int64(s.Live); l > peak.Load() {
			peak.Store(l)
		}
		// Each worker has at most one Run in flight, holding at most one
		// executable no entry holds, and one build.
		if s.Live > c.Cache+c.Workers {
			fail("%d executables alive with a cache of %d and %d workers: %+v", s.Live, c.Cache, c.Workers, s)
		}
	}
	worker := func(seed uint64) {
		defer wg.Done()
		r := rand.New(rand.NewPCG(seed, 42))
		var outs []*tensor.Array
		for !stop.Load() {
			// Most calls hit a hot signature, as in a service; the rest
			// push it out of the cache now and then.
			d, shape := tensor.F32, []int{1 + r.IntN(2)}
			if r.IntN(10) < 3 {
				d, shape = dtypes[r.IntN(len(dtypes))], randomShape(r, c.Lengths)
			}
			x, y := input(r, d, shape), r.IntN(4) // y fits every dtype
			var got []*tensor.Array
			var err error
			switch r.IntN(4) {
			case 0:
				got, err = f.RunAll(x, y)
			case 3: // the same eagerly, through Eval's cache, on the CPU
				// (Eval's cache would hold executables of Config.Backend
				// that the count of Executables cannot tell apart)
				cx := kiln.Const(x)
				got, err = kiln.EvalAll([]kiln.Value{cx.Mul(kiln.Int(3)).Add(kiln.Int(int64(y))), cx.Max()})
			case 1:
				got, err = f.RunAll(x, y)
				if err == nil && r.IntN(2) == 0 {
					outs = append(outs, got...)
				}
			default:
				got = []*tensor.Array{mustZeros(d, x.Shape()), mustZeros(d, nil)}
				err = f.RunInto(got, x, y)
			}
			if err != nil {
				fail("%s%v: %v", d, x.Shape(), err)
				return
			}
			if msg := check(x, y, got); msg != "" {
				fail("%s%v y=%d: %s", d, x.Shape(), y, msg)
				return
			}
			if len(outs) > 0 && r.IntN(4) == 0 {
				f.Release(outs...) // checked above, never read again
				outs = outs[:0]
			}
			runs.Add(1)
			watch()
		}
	}
	// Warm up, then take the heap baseline.
	warm := Duration(t, c.Duration) / 10
	start := func(n int) {
		for w := range n {
			wg.Add(1)
			go worker(uint64(w) + uint64(time.Now().UnixNano()))
		}
	}
	start(c.Workers)
	time.Sleep(warm)
	stop.Store(true)
	wg.Wait()
	if failures.Load() > 0 {
		return
	}
	stop.Store(false)
	base := heapAfterGC()
	goroutines := runtime.NumGoroutine()
	start(c.Workers)
	time.Sleep(Duration(t, c.Duration) - warm)
	stop.Store(true)
	wg.Wait()
	s := f.Stats()
	if s.Live > c.Cache || s.Building != 0 {
		t.Errorf("after the soak: %+v; want at most %d live and nothing building", s, c.Cache)
	}
	if end := heapAfterGC(); end > base+c.HeapSlack {
		t.Errorf("heap after GC grew from %d to %d bytes (slack %d)", base, end, c.HeapSlack)
	}
	if g := runtime.NumGoroutine(); g > goroutines+2 {
		t.Errorf("%d goroutines after the soak, %d before", g, goroutines)
	}
	if c.Executables != nil {
		if open, collected := c.Executables(); open > int64(c.Cache) || collected != 0 {
			t.Errorf("the backend has %d executables open (cache %d) and %d released by the garbage collector; want every one the cache let go closed by it", open, c.Cache, collected)
		}
	}
	runtime.KeepAlive(f) // its executables stay open until here
	t.Logf("%d runs, %d signatures traced, %d compiles, live executables peaked at %d (cache %d)",
		runs.Load(), s.Misses, s.Compiles, peak.Load(), c.Cache)
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func mustZeros(d tensor.DType, shape []int) *tensor.Array {
	a, err := tensor.Zeros(d, shape...)
	if err != nil {
		panic(err)
	}
	return a
}

// randomShape is a shape of rank 0, 1 or 2 with at most lengths elements
// per row: lengths + lengths/2*3 + 1 shapes in all.
func randomShape(r *rand.Rand, lengths int) []int {
	switch k := r.IntN(8); {
	case k == 0:
		return nil
	case k < 5 || lengths < 2:
		return []int{1 + r.IntN(lengths)}
	default:
		return []int{2 + r.IntN(3), 1 + r.IntN(lengths/2)}
	}
}

// input makes a random array of dtype d and the given shape, in the range
// of d: multiples of 1/8 in [-125, 125] for floats, every value of 8-bit
// ints.
func input(r *rand.Rand, d tensor.DType, shape []int) *tensor.Array {
	n, err := tensor.ShapeSize(shape)
	if err != nil {
		panic(err)
	}
	xs := make([]float64, n)
	for i := range xs {
		switch d {
		case tensor.F16, tensor.F32, tensor.F64:
			xs[i] = float64(r.IntN(2001)-1000) / 8
		case tensor.U8:
			xs[i] = float64(r.IntN(256))
		default:
			xs[i] = float64(r.IntN(256) - 128)
		}
	}
	a := tensor.Scalar(xs[0])
	if len(shape) > 0 {
		a = tensor.Must(tensor.FromSlice(xs, shape...))
	}
	return a.Astype(d)
}

// check computes x*3 + y and max(x) in plain Go, op by op at x's dtype,
// and compares.
func check(x *tensor.Array, y int, got []*tensor.Array) string {
	if len(got) != 2 || got[0].DType() != x.DType() || !got[0].HasShape(x.Shape()) {
		return fmt.Sprintf("results %v", got)
	}
	want := x.Astype(x.DType()) // a copy to fill
	var mx any
	switch xs := x.Data().(type) {
	case []float32:
		ws, m := want.Data().([]float32), xs[0]
		for i, v := range xs {
			ws[i] = float32(float32(v*3) + float32(y))
			m = max(m, v)
		}
		mx = m
	case []float64:
		ws, m := want.Data().([]float64), xs[0]
		for i, v := range xs {
			ws[i] = float64(v*3) + float64(y)
			m = max(m, v)
		}
		mx = m
	case []tensor.Float16:
		ws, m := want.Data().([]tensor.Float16), xs[0].Float32()
		for i, v := range xs {
			t := tensor.Float32ToF16(float32(v.Float32() * 3)).Float32()
			ws[i] = tensor.Float32ToF16(float32(t + float32(y)))
			m = max(m, v.Float32())
		}
		mx = tensor.Float32ToF16(m)
	case []int8:
		ws, m := want.Data().([]int8), xs[0]
		for i, v := range xs {
			ws[i] = v*3 + int8(y)
			m = max(m, v)
		}
		mx = m
	case []uint8:
		ws, m := want.Data().([]uint8), xs[0]
		for i, v := range xs {
			ws[i] = v*3 + uint8(y)
			m = max(m, v)
		}
		mx = m
	case []int32:
		ws, m := want.Data().([]int32), xs[0]
		for i, v := range xs {
			ws[i] = v*3 + int32(y)
			m = max(m, v)
		}
		mx = m
	default:
		return "unexpected dtype " + x.DType().String()
	}
	if !tensor.Equal(got[0], want) {
		return fmt.Sprintf("x*3 + y = %v, want %v (x = %v)", got[0], want, x)
	}
	if got[1].Rank() != 0 || tensor.Index(got[1].Data(), 0) != mx {
		return fmt.Sprintf("max(x) = %v, want %v (x = %v)", got[1], mx, x)
	}
	return ""
}
