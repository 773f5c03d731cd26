//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package kiln_test

import (
	"context"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// A steady RunInto loop allocates nothing per call.
func TestRunIntoDoesNotAllocate(t *testing.T) {
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Float(1.5)).Add(x.Sqrt()).Sum() })
	x := tensor.Must(tensor.Arange(tensor.F32, 50000))
	out, err := f.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	outs := []*tensor.Array{out}
	// A collection empties sync.Pools, and the next call refills them: that
	// is the pool working, not the hot path allocating. Measure between
	// collections.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	allocs := testing.AllocsPerRun(20, func() {
		if err := f.RunInto(outs, x); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("RunInto allocates %.1f times per call", allocs)
	}
}

// A steady RunIntoContext loop under a context with a deadline allocates
// nothing per call either (the run polls ctx.Done(); it registers no
// callback): a product split over three workers, and a while loop whose
// sub-programs share the run's view of the context.
func TestRunIntoContextDoesNotAllocate(t *testing.T) {
	f := kiln.Jit(func(w, x kiln.Value) kiln.Value {
		y := x.MatMul(w).Tanh()
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(y)}
		}, y)[0]
	}, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 3, ParallelMin: 1})))
	w := tensor.Must(tensor.FromSlice(make([]float32, 128*128), 128, 128))
	x := tensor.Must(tensor.FromSlice(make([]float32, 64*128), 64, 128))
	out, err := f.Run(w, x)
	if err != nil {
		t.Fatal(err)
	}
	outs := []*tensor.Array{out}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	allocs := testing.AllocsPerRun(20, func() {
		if err := f.RunIntoContext(ctx, outs, w, x); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("RunIntoContext allocates %.1f times per call", allocs)
	}
}

// Sorting allocates nothing per call once warm: the rows' scratch lives in
// the workers (the radix path, the merge path and several keys; rows in
// parallel).
func TestSortRunIntoDoesNotAllocate(t *testing.T) {
	f := kiln.Jit(func(x, y kiln.Value) []kiln.Value {
		v, i := kiln.TopK(x, 3)
		return []kiln.Value{kiln.Argsort(x, 1), kiln.Sort(x.Index(kiln.All, kiln.To(100)), -1), v, i,
			kiln.SortMany([]kiln.Value{y, x, x}, 0, 2, true)[2]}
	})
	x := tensor.Must(tensor.Must(tensor.Arange(tensor.F32, 64*5000)).Reshape(64, 5000))
	y := tensor.Must(tensor.Must(tensor.Arange(tensor.I8, 64*5000)).Reshape(64, 5000))
	outs, err := f.RunAll(x, y)
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	allocs := testing.AllocsPerRun(10, func() {
		if err := f.RunInto(outs, x, y); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("RunInto of sorts allocates %.1f times per call", allocs)
	}
}

// A steady RunInto of a convolution (f32, bf16 on the bf16 GEMM, on one
// worker and on several; int8 into int32 on the int8 GEMM) allocates
// nothing per call: im2col patches, the packed kernel and the f32 output
// live in scratch kept between Runs (the bf16 GEMM's panels in its pool).
func TestConvRunIntoDoesNotAllocate(t *testing.T) {
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.I8} {
		for _, shape := range [][]int{{1, 5, 5, 4}, {2, 24, 24, 8}} {
			var opts []kiln.DotOption
			if d == tensor.I8 {
				opts = append(opts, kiln.PreferredElementType(tensor.I32))
			}
			f := kiln.Jit(func(x, w kiln.Value) kiln.Value {
				return kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, opts...)
			})
			x := tensor.Must(tensor.Must(tensor.Arange(d, shape[0]*shape[1]*shape[2]*shape[3])).Reshape(shape...))
			w := tensor.Must(tensor.Must(tensor.Arange(d, 3*3*shape[3]*16)).Reshape(3, 3, shape[3], 16))
			out, err := f.Run(x, w)
			if err != nil {
				t.Fatal(err)
			}
			outs := []*tensor.Array{out}
			func() {
				defer debug.SetGCPercent(debug.SetGCPercent(-1))
				allocs := testing.AllocsPerRun(10, func() {
					if err := f.RunInto(outs, x, w); err != nil {
						t.Fatal(err)
					}
				})
				if allocs > 0 {
					t.Errorf("%s %v: RunInto allocates %.1f times per call", d, shape, allocs)
				}
			}()
		}
	}
}

// A struct of parameters through Jit(ValueAndGradTree(…)) and an update,
// run with RunTreeInto with the trees by pointer — a nested struct, a
// slice of structs — allocates nothing per step: the trees are read and
// written at precomputed offsets, their shapes compared in place.
func TestTreeTrainStepDoesNotAllocate(t *testing.T) {
	type layer[T kiln.Leaf] struct{ W, B T }
	type params[T kiln.Leaf] struct {
		In     layer[T]
		Hidden []layer[T]
	}
	loss := func(p params[kiln.Value], a ...kiln.Value) kiln.Value {
		h := a[0].MatMul(p.In.W).Add(p.In.B).Tanh()
		for _, l := range p.Hidden {
			h = h.MatMul(l.W).Add(l.B).Tanh()
		}
		return h.Sub(a[1]).Square().Mean()
	}
	step := kiln.Jit(func(p params[kiln.Value], x, y kiln.Value) (kiln.Value, params[kiln.Value]) {
		l, g := kiln.ValueAndGradTree(loss)(p, x, y)
		return l, kiln.TreeMap2(p, g, func(p, g kiln.Value) kiln.Value { return p.Sub(g.Mul(kiln.Float(0.1))) })
	})
	mk := func(shape ...int) *tensor.Array {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%11)/10 - 0.5
		}
		return tensor.Must(tensor.FromSlice(v, shape...))
	}
	a := params[*tensor.Array]{In: layer[*tensor.Array]{W: mk(8, 16), B: mk(16)},
		Hidden: []layer[*tensor.Array]{{W: mk(16, 16), B: mk(16)}, {W: mk(16, 4), B: mk(4)}}}
	x, y := mk(32, 8), mk(32, 4)
	var b params[*tensor.Array]
	var la, lb *tensor.Array
	if err := step.RunTree([]any{&lb, &b}, &a, x, y); err != nil {
		t.Fatal(err)
	}
	la = tensor.Must(tensor.Zeros(lb.DType()))
	outsA, outsB := []any{&la, &a}, []any{&lb, &b}
	argsA, argsB := []any{&a, x, y}, []any{&b, x, y}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	n := 0
	allocs := testing.AllocsPerRun(20, func() {
		var err error
		if n++; n%2 == 0 {
			err = step.RunTreeInto(outsB, argsA...)
		} else {
			err = step.RunTreeInto(outsA, argsB...)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("a training step over trees allocates %.1f times", allocs)
	}
	if la.String() == lb.String() {
		t.Errorf("the loss did not change between steps: %v, %v", la, lb)
	}
}
