package kiln_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

// groupStep is E7's training step at a smaller batch: forward, backward
// (whose logits' gradient feeds three independent kernels: the hidden
// gradient through the ReLU, ∂w2 with its Adam update, ∂b2) and Adam.
func groupStep(a ...kiln.Value) []kiln.Value {
	params, state, x, y := a[:4], a[4:13], a[13], a[14]
	loss := func(p ...kiln.Value) kiln.Value {
		pre := x.MatMul(p[0]).Add(p[1])
		h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
		z := h.MatMul(p[2]).Add(p[3])
		m := kiln.StopGradient(z.Max(1)).Reshape(-1, 1)
		lse := z.Sub(m).Exp().Sum(1).Log().Add(m.Reshape(-1))
		return lse.Sub(z.Mul(y).Sum(1)).Mean()
	}
	vg := kiln.ValueAndGrad(loss, 0, 1, 2, 3)(params...)
	newParams, newState := optim.Adam{LR: 3e-3}.Step(params, vg[1:], state)
	return append(append(newParams, newState...), vg[0])
}

// groupArgs are groupStep's arguments at batch b: random weights, zero
// Adam state, random inputs and one-hot labels.
func groupArgs(seed uint64, b int) []any {
	r := rand.New(rand.NewPCG(seed, 1))
	shapes := [][]int{{64, 128}, {128}, {128, 10}, {10}}
	var args []any
	for _, s := range shapes {
		args = append(args, reviewF32(r, s...))
	}
	for range 2 {
		for _, s := range shapes {
			args = append(args, tensor.Must(tensor.Zeros(tensor.F32, s...)))
		}
	}
	y := make([]float32, b*10)
	for i := range b {
		y[i*10+r.IntN(10)] = 1
	}
	return append(args, tensor.Scalar(float32(0)), reviewF32(r, b, 64), tensor.Must(tensor.FromSlice(y, b, 10)))
}

// Kernels run side by side (CPUOptions.GroupAll: every group of
// independent kernels, on three workers; with ParallelMin 1 the others
// split too) give the bits of the default backend, of the op-by-op
// program and of one worker running the kernels in program order
// (reviewUngrouped), and so do concurrent Runs of one grouped function,
// with and without a context watching them. Run it with -race.
func TestConcurrentGroups(t *testing.T) {
	grouped := []kiln.Option{
		kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3})),
		kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3, ParallelMin: 1, Block: 7})),
	}
	for _, b := range []int{256, 7} {
		args := groupArgs(uint64(b), b)
		want, err := kiln.Jit(groupStep, kiln.WithBackend(reviewUngrouped)).RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		for v, opt := range append([]kiln.Option{nil, kiln.NoFusion()}, grouped...) {
			var opts []kiln.Option
			if opt != nil {
				opts = append(opts, opt)
			}
			f := kiln.Jit(groupStep, opts...)
			got, err := f.RunAll(args...)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffResults(got, want, true); d != "" {
				t.Fatalf("batch %d, variant %d: %s", b, v, d)
			}
			if v < 2 {
				continue
			}
			var wg sync.WaitGroup
			errs := make(chan string, 8)
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					for range 20 {
						var got []*tensor.Array
						var err error
						if g%2 == 0 {
							got, err = f.RunAllContext(ctx, args...)
						} else {
							got, err = f.RunAll(args...)
						}
						if err != nil {
							errs <- err.Error()
							return
						}
						if d := diffResults(got, want, true); d != "" {
							errs <- d
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Fatalf("batch %d, variant %d, concurrent Runs: %s", b, v, e)
			}
		}
	}
}
