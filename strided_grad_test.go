package kiln_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A strided slice's cotangent (trace's unsliceStrided: zeros concatenated
// around it on an inserted axis, one reshape, slices) is a scatter of the
// cotangent's bits into +0s, as a plain loop writes it — through the
// fused program, op by op (NoFusion) and the reference evaluator, on
// inputs with ±0, NaN and ±Inf.
func TestStridedSliceCotangent(t *testing.T) {
	for _, c := range []struct {
		shape                 []int
		ax, start, stop, step int
	}{
		{[]int{2, 9, 5}, 1, 1, 9, 2},
		{[]int{2, 9, 5}, 2, 0, 5, 3},
		{[]int{7}, 0, 2, 7, 2},
		{[]int{4, 10}, 1, 3, 10, 4},
		{[]int{3, 12, 2}, 1, 0, 12, 3}, // n a multiple of the step: no cut
		{[]int{5, 6}, 0, 4, 5, 2},      // one element
	} {
		t.Run(fmt.Sprint(c.shape, c.ax, c.start, c.stop, c.step), func(t *testing.T) {
			x := conformance.Input(tensor.F32, 11, c.shape...)
			yshape := append([]int(nil), c.shape...)
			m := (c.stop - c.start + c.step - 1) / c.step
			yshape[c.ax] = m
			ct := conformance.Input(tensor.F32, 12, yshape...)
			fn := func(x, g kiln.Value) kiln.Value {
				_, pull := kiln.VJP(func(x kiln.Value) kiln.Value { return x.Slice(c.ax, c.start, c.stop, c.step) }, x)
				return pull(g)[0]
			}
			got := checkFusedAgrees(t, fn, x, ct)
			// The plain scatter.
			gd, _ := tensor.Data[float32](got)
			cd, _ := tensor.Data[float32](ct)
			inner := 1
			for _, s := range c.shape[c.ax+1:] {
				inner *= s
			}
			n := c.shape[c.ax]
			want := make([]float32, len(gd))
			for i := range cd {
				o, j, k := i/(m*inner), i/inner%m, i%inner
				want[(o*n+c.start+j*c.step)*inner+k] = cd[i]
			}
			for i := range want {
				if math.Float32bits(gd[i]) != math.Float32bits(want[i]) && !(want[i] != want[i] && gd[i] != gd[i]) {
					t.Fatalf("element %d: %v (bits %#x), want %v (bits %#x)", i, gd[i], math.Float32bits(gd[i]), want[i], math.Float32bits(want[i]))
				}
			}
		})
	}
}

// A max_pool's gradient adds nine strided slices' cotangents; with the
// adds moved under their reshapes (lower's sinkMovement) the nine zero
// paddings and the adds run as one loop fusion, and the result keeps the
// unfused program's bits (the reference evaluator's and op by op's), ±0
// included: −0 + +0 is +0 where a window position's share is −0.
func TestMaxPoolGradientFused(t *testing.T) {
	for _, c := range []struct {
		shape            []int
		window, strides  []int
		padding          string
		wantOneScatterOp bool
	}{
		{[]int{2, 9, 9, 3}, []int{3, 3}, []int{2, 2}, "SAME", true},
		{[]int{1, 8, 8, 2}, []int{3, 3}, []int{2, 2}, "SAME", true},
		{[]int{1, 10, 7, 2}, []int{3, 3}, []int{3, 3}, "VALID", true},
		{[]int{2, 6, 6, 1}, []int{2, 2}, []int{2, 2}, "VALID", false},
		{[]int{1, 9, 8, 2}, []int{3, 2}, []int{2, 1}, "SAME", true},
	} {
		t.Run(fmt.Sprint(c.shape, c.window, c.strides, c.padding), func(t *testing.T) {
			pool := func(x kiln.Value) kiln.Value { return nn.MaxPool(x, c.window, c.strides, c.padding) }
			x := conformance.Input(tensor.F32, 21, c.shape...)
			y, err := kiln.Jit(pool).Run(x)
			if err != nil {
				t.Fatal(err)
			}
			g := conformance.Input(tensor.F32, 22, y.Shape()...)
			fn := func(x, g kiln.Value) (kiln.Value, kiln.Value) {
				y, pull := kiln.VJP(pool, x)
				return y[0], pull(g)[0]
			}
			checkFusedAgrees(t, fn, x, g)
			if !c.wantOneScatterOp {
				return
			}
			m, err := kiln.Jit(fn).Lower(x, g)
			if err != nil {
				t.Fatal(err)
			}
			// The gradient's concatenates (of rank 6, [n, L, s, L, s, c],
			// with both axes strided) and the adds of the window's shares
			// are one fusion's.
			rank := len(c.shape)
			for _, s := range c.strides {
				if s > 1 {
					rank++
				}
			}
			holders, adds := 0, 0
			for _, f := range m.Fusions {
				held := false
				for _, in := range f.Instrs {
					if len(in.Shape) == rank && in.Op == trace.OpConcat {
						held = true
					}
				}
				if held {
					holders++
					for _, in := range f.Instrs {
						if in.Op == trace.OpAdd && len(in.Shape) == rank {
							adds++
						}
					}
				}
			}
			if want := c.window[0]*c.window[1] - 1; holders != 1 || adds != want {
				t.Errorf("the shares' concatenates are in %d fusions holding %d adds, want 1 holding %d:\n%s", holders, adds, want, m.FusedString())
			}
		})
	}
}

// The max_pool gradient's fusion (nine zero-padded shares and their adds
// under one reshape) inside a fori_loop body, its carry the gradient
// accumulated over three steps: the reference evaluator's bits, and op by
// op's.
func TestMaxPoolGradientInLoop(t *testing.T) {
	pool := func(x kiln.Value) kiln.Value { return nn.MaxPool(x, []int{3, 3}, []int{2, 2}, "SAME") }
	x := conformance.Input(tensor.F32, 31, 1, 7, 9, 2)
	g := conformance.Input(tensor.F32, 32, 1, 4, 5, 2)
	fn := func(x, g kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			_, pull := kiln.VJP(pool, c[0])
			return []kiln.Value{c[0].Add(pull(g)[0])}
		}, x)[0]
	}
	checkFusedAgrees(t, fn, x, g)
}

// checkFusedAgrees runs fn fused, op by op and on the reference evaluator
// (and OpenCL with -move.opencl) and fails unless all agree bit for bit
// (any NaN equals any NaN); it returns the fused run's last result.
func checkFusedAgrees(t *testing.T, fn any, args ...*tensor.Array) *tensor.Array {
	t.Helper()
	anys := make([]any, len(args))
	for i, a := range args {
		anys[i] = a
	}
	fused := kiln.Jit(fn, kiln.Verify())
	got, err := fused.RunAll(anys...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := fused.Trace(anys...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := reference.Eval(p, args, refOptions)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffResults(got, want, true); d != "" {
		t.Fatalf("fused differs from the reference: %s", d)
	}
	other, err := kiln.Jit(fn, kiln.Verify(), kiln.NoFusion()).RunAll(anys...)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffResults(other, got, true); d != "" {
		t.Fatalf("op by op differs from fused: %s", d)
	}
	if *moveCL { // -move.opencl: the OpenCL backend's too
		moveCLOnce.Do(func() {
			b, err := opencl.New(opencl.Options{})
			if err != nil {
				t.Fatalf("-move.opencl: %v", err)
			}
			moveCLBackend = b
		})
		cl, err := kiln.Jit(fn, kiln.WithBackend(moveCLBackend)).RunAll(anys...)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffResults(cl, got, true); d != "" {
			t.Fatalf("OpenCL differs from the CPU: %s", d)
		}
	}
	return got[len(got)-1]
}
