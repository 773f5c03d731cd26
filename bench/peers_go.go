package main

import (
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	gorgonia "gorgonia.org/tensor"

	"github.com/kiln-go/kiln/tensor"
)

// The in-process peers: a plain Go loop on goWorkers goroutines, gonum
// where it has the op, and gorgonia.org/tensor's eager Dense ops (which
// allocate a new Dense per op; they are timed as they are).

// goWorkers is the number of goroutines the plain Go loops use, one per
// core of the machine the report was specified for.
const goWorkers = 2

// parallel runs body over [0, n) split into goWorkers contiguous chunks.
func parallel(n int, body func(lo, hi int)) {
	chunk := (n + goWorkers - 1) / goWorkers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		wg.Go(func() { body(lo, min(lo+chunk, n)) })
	}
	wg.Wait()
}

// bytesOf views a slice's memory as bytes (native byte order), for the
// input and output files the external peers read and write.
func bytesOf[T any](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// add registers peer's implementation of one call of w (inProcess makes
// a timed run w.calls calls).
func (w *workload) add(peer string, mk func() (impl, error)) {
	if w.peers == nil {
		w.peers = map[string]func() (impl, error){}
	}
	w.peers[peer] = mk
}

func (w *workload) lacks(peer, why string) {
	if w.why == nil {
		w.why = map[string]string{}
	}
	w.why[peer] = why
}

// ready wraps a run function and its output as an impl.
func ready(run func() error, out any) (impl, error) {
	return impl{run: run, result: func() any { return out }}, nil
}

// e1Loop is E1's reference loop; the explicit conversion keeps a*x and
// +b two rounded ops (Go may otherwise fuse them into an FMA).
func e1Loop(o, x []float32) {
	a, b := float32(e1A), float32(e1B)
	for i, v := range x {
		o[i] = float32(a*v) + b
	}
}

// e1Gonum is E1 with gonum's float32 BLAS: gonum's floats package is
// float64-only and blas32 has no add-constant, so out = x; out *= a;
// out += b*ones (b*1 is exact, so the result rounds like a*x + b).
func e1Gonum(o, x, ones []float32) {
	n := len(x)
	out := blas32.Vector{N: n, Inc: 1, Data: o}
	blas32.Copy(blas32.Vector{N: n, Inc: 1, Data: x}, out)
	blas32.Scal(float32(e1A), out)
	blas32.Axpy(float32(e1B), blas32.Vector{N: n, Inc: 1, Data: ones}, out)
}

func onesF32(n int) []float32 {
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	return ones
}

// e1Gorgonia is E1 with gorgonia's eager ops: two new Dense per call.
func e1Gorgonia(x *gorgonia.Dense) (*gorgonia.Dense, error) {
	t, err := x.MulScalar(float32(e1A), true)
	if err != nil {
		return nil, err
	}
	return t.AddScalar(float32(e1B), true)
}

func denseResult(d **gorgonia.Dense) func() any {
	return func() any { return (*d).Data() }
}

func gorgoniaImpl(x []float32, op func(*gorgonia.Dense) (*gorgonia.Dense, error)) (impl, error) {
	xd := gorgonia.New(gorgonia.WithShape(len(x)), gorgonia.WithBacking(x))
	var out *gorgonia.Dense
	run := func() (err error) { out, err = op(xd); return err }
	return impl{run: run, result: denseResult(&out)}, nil
}

func e1Peers(w *workload, x []float32) {
	w.add(goLoop, func() (impl, error) {
		o := make([]float32, len(x))
		return ready(func() error { parallel(len(x), func(lo, hi int) { e1Loop(o[lo:hi], x[lo:hi]) }); return nil }, o)
	})
	w.add(gonumPeer, func() (impl, error) {
		o, ones := make([]float32, len(x)), onesF32(len(x))
		return ready(func() error { e1Gonum(o, x, ones); return nil }, o)
	})
	w.add(gorgoniaPeer, func() (impl, error) { return gorgoniaImpl(x, e1Gorgonia) })
}

// e2Elem is E2 for one element with JAX's per-op dtypes: x*2 in int8
// (wrapping), converted to f16, and every f16 op rounded (x448/float16
// converts without tables, rounding to nearest even).
func e2Elem(x int8, y tensor.Float16) tensor.Float16 {
	xh := tensor.Float32ToF16(float32(x * 2))
	s := tensor.Float32ToF16(xh.Float32() + y.Float32())
	return tensor.Float32ToF16(s.Float32() * 0.5)
}

func e2Peers(w *workload, x []int8, y []tensor.Float16) {
	w.add(goLoop, func() (impl, error) {
		o := make([]tensor.Float16, len(x))
		return ready(func() error {
			parallel(len(x), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					o[i] = e2Elem(x[i], y[i])
				}
			})
			return nil
		}, o)
	})
	w.lacks(gonumPeer, "gonum has no int8 or f16 arithmetic")
	w.lacks(gorgoniaPeer, "gorgonia.org/tensor has no f16 arithmetic")
}

func e3Peers(w *workload, x []float32) {
	w.add(goLoop, func() (impl, error) {
		o := make([]float32, len(x))
		return ready(func() error {
			parallel(len(x), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					o[i] = e3Elem(x[i])
				}
			})
			return nil
		}, o)
	})
	w.lacks(gonumPeer, "gonum has no elementwise exp, sin, cos, tanh or log")
	w.lacks(gorgoniaPeer, "gorgonia.org/tensor has Exp, Log and Tanh but no Sin, Cos or logistic")
}

// e4Loop is E4 in two passes on goWorkers goroutines: the mean, then the
// sum of squared deviations (partial sums per chunk, added in order).
func e4Loop(x []float64) float64 {
	var parts [goWorkers]float64
	chunkSum := func(f func(v float64) float64) float64 {
		chunk := (len(x) + goWorkers - 1) / goWorkers
		parts = [goWorkers]float64{}
		parallel(len(x), func(lo, hi int) {
			s := 0.0
			for _, v := range x[lo:hi] {
				s += f(v)
			}
			parts[lo/chunk] = s
		})
		t := 0.0
		for _, p := range parts {
			t += p
		}
		return t
	}
	mean := chunkSum(func(v float64) float64 { return v }) / float64(len(x))
	return chunkSum(func(v float64) float64 { d := v - mean; return d * d })
}

// e4Gonum is E4 with gonum's floats: Sum for the mean, then AddConst on a
// preallocated copy and Dot of it with itself.
func e4Gonum(x, tmp []float64) float64 {
	mean := floats.Sum(x) / float64(len(x))
	copy(tmp, x)
	floats.AddConst(-mean, tmp)
	return floats.Dot(tmp, tmp)
}

// e4Gorgonia is E4 with gorgonia's eager ops: Sum, SubScalar, Mul, Sum.
func e4Gorgonia(x *gorgonia.Dense) (float64, error) {
	s, err := x.Sum()
	if err != nil {
		return 0, err
	}
	mean := s.ScalarValue().(float64) / float64(x.Len())
	d, err := x.SubScalar(mean, true)
	if err != nil {
		return 0, err
	}
	sq, err := d.Mul(d)
	if err != nil {
		return 0, err
	}
	t, err := sq.Sum()
	if err != nil {
		return 0, err
	}
	return t.ScalarValue().(float64), nil
}

func e4Peers(w *workload, x []float64) {
	w.add(goLoop, func() (impl, error) {
		out := []float64{0}
		return ready(func() error { out[0] = e4Loop(x); return nil }, out)
	})
	w.add(gonumPeer, func() (impl, error) {
		out, tmp := []float64{0}, make([]float64, len(x))
		return ready(func() error { out[0] = e4Gonum(x, tmp); return nil }, out)
	})
	w.add(gorgoniaPeer, func() (impl, error) {
		xd := gorgonia.New(gorgonia.WithShape(len(x)), gorgonia.WithBacking(x))
		out := []float64{0}
		return ready(func() (err error) { out[0], err = e4Gorgonia(xd); return err }, out)
	})
}

// e5Peers are E1's implementations on one element (inProcess makes a run
// w.calls calls); the Go loop is a plain function call (no goroutines).
func e5Peers(w *workload, x []float32) {
	w.add(goLoop, func() (impl, error) {
		o := make([]float32, 1)
		return ready(func() error { e1Loop(o, x); return nil }, o)
	})
	w.add(gonumPeer, func() (impl, error) {
		o, ones := make([]float32, 1), onesF32(1)
		return ready(func() error { e1Gonum(o, x, ones); return nil }, o)
	})
	w.add(gorgoniaPeer, func() (impl, error) {
		xd := gorgonia.New(gorgonia.WithShape(1), gorgonia.WithBacking(x))
		var out *gorgonia.Dense
		run := func() (err error) { out, err = e1Gorgonia(xd); return err }
		return impl{run: run, result: denseResult(&out)}, nil
	})
}

// e6Loop is a naive i-k-j matmul with rows split over goWorkers
// goroutines, the products and sums in C (float32 or float64 as T; int32
// for int8, E6j).
func e6Loop[T float32 | float64 | int8, C float32 | float64 | int32](c []C, a, b []T, m int) {
	parallel(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ci := c[i*m : (i+1)*m]
			clear(ci)
			for k, aik := range a[i*m : (i+1)*m] {
				av := C(aik)
				for j, bkj := range b[k*m : (k+1)*m] {
					ci[j] += av * C(bkj)
				}
			}
		}
	})
}

// gonumGemm is C = A·B for square m×m row-major matrices with gonum's
// blas32.Gemm or blas64.Gemm (gonum's pure-Go BLAS, its own goroutines).
func gonumGemm[T float32 | float64](c, a, b []T, m int) {
	switch c := any(c).(type) {
	case []float32:
		gen := func(d []float32) blas32.General { return blas32.General{Rows: m, Cols: m, Stride: m, Data: d} }
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(any(a).([]float32)), gen(any(b).([]float32)), 0, gen(c))
	case []float64:
		gen := func(d []float64) blas64.General { return blas64.General{Rows: m, Cols: m, Stride: m, Data: d} }
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(any(a).([]float64)), gen(any(b).([]float64)), 0, gen(c))
	}
}

// e6Peers are the in-process matmul peers: the naive Go loop, gonum,
// gorgonia's MatMul and GoMLX's simplego backend.
func e6Peers[T float32 | float64](w *workload, a, b []T, m int) {
	w.add(goLoop, func() (impl, error) {
		c := make([]T, m*m)
		return ready(func() error { e6Loop(c, a, b, m); return nil }, c)
	})
	w.add(gonumPeer, func() (impl, error) {
		c := make([]T, m*m)
		return ready(func() error { gonumGemm(c, a, b, m); return nil }, c)
	})
	w.add(gorgoniaPeer, func() (impl, error) {
		ad := gorgonia.New(gorgonia.WithShape(m, m), gorgonia.WithBacking(a))
		bd := gorgonia.New(gorgonia.WithShape(m, m), gorgonia.WithBacking(b))
		var out *gorgonia.Dense
		run := func() (err error) { out, err = ad.MatMul(bd); return err }
		return impl{run: run, result: denseResult(&out)}, nil
	})
	w.add(gomlxPeer, func() (impl, error) { return e6GoMLX(a, b, m) })
}
