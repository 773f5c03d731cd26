package kiln_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

func affine() *kiln.Func {
	return kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(3)).Add(kiln.Int(1)) })
}

func checkAffine(t *testing.T, x, out *tensor.Array) {
	t.Helper()
	xs, ys := x.Data().([]float32), out.Data().([]float32)
	if len(ys) != len(xs) {
		t.Fatalf("result has %d elements, want %d", len(ys), len(xs))
	}
	for i, v := range xs {
		if want := v*3 + 1; ys[i] != want {
			t.Fatalf("element %d = %g, want %g", i, ys[i], want)
		}
	}
}

// A released result is the next result of its dtype and shape, with the
// right values.
func TestReleaseReuses(t *testing.T) {
	f := affine()
	x := tensor.Must(tensor.Arange(tensor.F32, 1000))
	a, err := f.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	checkAffine(t, x, a)
	a.Data().([]float32)[7] = -1 // the caller's writes are overwritten
	f.Release(a)
	b, err := f.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	if b != a {
		t.Error("Run allocated although a released array fitted")
	}
	checkAffine(t, x, b)
	c, _ := f.Run(x)
	if c == b {
		t.Error("an array handed out by Run was handed out again without a Release")
	}
	checkAffine(t, x, c)
}

// A loop of Run and Release allocates no result memory: over 50 runs of a
// 4 MiB result, the heap grows by less than one result.
func TestReleaseAllocs(t *testing.T) {
	f := affine()
	x := tensor.Must(tensor.Arange(tensor.F32, 1<<20))
	out, _ := f.Run(x)
	f.Release(out)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 50 {
		out, err := f.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		f.Release(out)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew >= 4<<20 {
		t.Errorf("50 Run+Release of a 4 MiB result allocated %d bytes", grew)
	}
}

// Nil, empty, repeated and unrelated arrays are handled: each pooled array
// is handed out once, and only for its own dtype and shape.
func TestReleaseIgnores(t *testing.T) {
	f := affine()
	x := tensor.Must(tensor.Arange(tensor.F32, 4))
	a, _ := f.Run(x)
	empty, _ := tensor.Zeros(tensor.F32, 0)
	other, _ := tensor.Zeros(tensor.F32, 5)
	i32, _ := tensor.Zeros(tensor.I32, 4)
	f.Release(nil, a, a, empty, other, i32)
	b, _ := f.Run(x)
	c, _ := f.Run(x)
	if b != a || c == a || c == other || c == i32 {
		t.Errorf("got arrays %p, %p from the pool holding %p once (and %p, %p of other shapes or dtypes)", b, c, a, other, i32)
	}
	checkAffine(t, x, b)
	checkAffine(t, x, c)
	y := tensor.Must(tensor.Arange(tensor.F32, 5))
	d, _ := f.Run(y)
	if d != other {
		t.Error("a released array of the result's dtype and shape was not reused")
	}
	checkAffine(t, y, d)
}

// A released array passed back as an input (which the caller must not do)
// is not also written as the output: the input stays intact and the result
// is right.
func TestReleaseThenInput(t *testing.T) {
	f := affine()
	a, _ := f.Run(tensor.Must(tensor.Arange(tensor.F32, 8)))
	f.Release(a)
	keep := append([]float32(nil), a.Data().([]float32)...)
	b, err := f.Run(a)
	if err != nil {
		t.Fatal(err)
	}
	if b == a {
		t.Fatal("the output is the input")
	}
	for i, v := range a.Data().([]float32) {
		if v != keep[i] {
			t.Fatalf("input element %d changed from %g to %g", i, keep[i], v)
		}
	}
	in, _ := tensor.FromSlice(keep)
	checkAffine(t, in, b)
}

// Concurrent Run and Release on one Func: every result is right and no
// array is handed to two goroutines at once. Run it with -race.
func TestConcurrentRelease(t *testing.T) {
	f := affine()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := tensor.Must(tensor.Arange(tensor.F32, 3000+g%2))
			for range 40 {
				out, err := f.Run(x)
				if err != nil {
					t.Error(err)
					return
				}
				checkAffine(t, x, out)
				f.Release(out)
			}
		}()
	}
	wg.Wait()
}

// Two arrays over one buffer (a wrapper, a reshape) released together are
// one buffer in the pool: the next two results do not share memory.
func TestReleaseAliasedArrays(t *testing.T) {
	f := affine()
	x := tensor.Must(tensor.Arange(tensor.F32, 8))
	a, _ := f.Run(x)
	wrap, err := tensor.New(a.DType(), a.Shape(), a.Data())
	if err != nil {
		t.Fatal(err)
	}
	flat, err := a.Reshape(8)
	if err != nil {
		t.Fatal(err)
	}
	f.Release(a, wrap, flat)
	r1, _ := f.Run(x)
	r2, _ := f.Run(x)
	if kernels.Overlaps(r1, r2) {
		t.Fatal("two results share memory")
	}
	checkAffine(t, x, r1)
	checkAffine(t, x, r2)
}

// The pool is bounded: of 300 released arrays of 300 shapes, at most 256
// come back as results.
func TestReleaseBounded(t *testing.T) {
	f := affine()
	released := map[*tensor.Array]bool{}
	for n := 1; n <= 300; n++ {
		a, _ := tensor.Zeros(tensor.F32, n)
		released[a] = true
		f.Release(a)
	}
	reused := 0
	for n := 1; n <= 300; n++ {
		x := tensor.Must(tensor.Arange(tensor.F32, n))
		out, err := f.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		checkAffine(t, x, out)
		if released[out] {
			reused++
		}
	}
	if reused == 0 || reused > 256 {
		t.Errorf("%d released arrays came back, want 1 to 256", reused)
	}
}
