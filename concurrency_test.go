package kiln_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// One compiled function run from 64 goroutines at once — several
// signatures, inputs large enough that each Run itself splits its kernels
// across workers — gives every goroutine its own correct result and leaves
// the inputs untouched. Run it with -race.
func TestConcurrentRuns(t *testing.T) {
	fn := func(x, y kiln.Value) (kiln.Value, kiln.Value) {
		z := x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
		return z, z.Sub(z.Mean()).Pow(kiln.Int(2)).Sum()
	}
	backend := kernels.NewCPU(kernels.CPUOptions{ParallelMin: 1024, Block: 256})
	f := kiln.Jit(fn, kiln.WithBackend(backend))
	serial := kiln.Jit(fn, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 1})))

	type job struct {
		x, y       *tensor.Array
		xs, ys     *tensor.Array // copies to check the inputs against
		want0, sum *tensor.Array
	}
	jobs := make([]job, 64)
	for i := range jobs {
		n := []int{5000, 20000, 1}[i%3]
		r := rand.New(rand.NewPCG(uint64(i), 7))
		var x *tensor.Array
		if i%2 == 0 {
			xs := make([]int8, n)
			for k := range xs {
				xs[k] = int8(r.IntN(256) - 128)
			}
			x, _ = tensor.FromSlice(xs)
		} else {
			xs := make([]float32, n)
			for k := range xs {
				xs[k] = float32(r.NormFloat64())
			}
			x, _ = tensor.FromSlice(xs)
		}
		ys := make([]float64, n)
		for k := range ys {
			ys[k] = r.Float64()
		}
		y, _ := tensor.FromSlice(ys)
		y = y.Astype(tensor.F16)
		outs, err := serial.RunAll(x, y)
		if err != nil {
			t.Fatal(err)
		}
		jobs[i] = job{x: x, y: y, xs: x.Clone(), ys: y.Clone(), want0: outs[0], sum: outs[1]}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := range 3 {
				outs, err := f.RunAll(j.x, j.y)
				switch {
				case err != nil:
					errs <- err
				case !tensor.Equal(outs[0], j.want0) || !tensor.Equal(outs[1], j.sum):
					errs <- fmt.Errorf("goroutine %d run %d: results differ from the serial run", i, rep)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, j := range jobs {
		if !tensor.Equal(j.x, j.xs) || !tensor.Equal(j.y, j.ys) {
			t.Errorf("job %d: an input was modified", i)
		}
	}
	if s := f.Stats(); s.Entries != 6 || s.Misses != 6 {
		// 3 sizes × 2 x dtypes; concurrent first calls of a signature
		// compile once.
		t.Errorf("cache stats %+v, want 6 signatures, 6 misses", s)
	}
}

// The cache is bounded and explains its misses; weak and strong
// signatures that trace to the same typed program share one executable.
func TestCache(t *testing.T) {
	var misses []string
	f := kiln.Jit(func(x, s kiln.Value) kiln.Value { return x.Add(s) }, kiln.CacheSize(2), kiln.OnCacheMiss(func(r string) { misses = append(misses, r) }))
	x := arr(t, []int8{1, 2, 3})
	if _, err := f.Run(x, 1); err != nil { // weak i64 scalar → i8 program
		t.Fatal(err)
	}
	if _, err := f.Run(x, int8(1)); err != nil { // strong i8: the same typed program
		t.Fatal(err)
	}
	if s := f.Stats(); s.Misses != 2 || s.Compiles != 1 {
		t.Errorf("stats %+v: want 2 misses sharing 1 compile", s)
	}
	if why, _ := f.ExplainMiss(x, int16(1)); why != "argument 1: dtype i16, was i8" {
		t.Errorf("ExplainMiss = %q", why)
	}
	if why, _ := f.ExplainMiss(x, int8(1)); why != "" {
		t.Errorf("a cached signature explains a miss: %q", why)
	}
	for _, y := range []any{arr(t, []int8{1, 2, 3}), float32(2), 2.5} {
		if _, err := f.Run(x, y); err != nil {
			t.Fatal(err)
		}
	}
	if s := f.Stats(); s.Entries != 2 {
		t.Errorf("%d entries cached, the bound is 2", s.Entries)
	}
	want := []string{"first call", "argument 1: dtype i8, was i64; argument 1: weak false, was true"}
	if len(misses) < 2 || misses[0] != want[0] {
		t.Errorf("miss reasons %q", misses)
	}
}
