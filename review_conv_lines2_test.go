package kiln_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
)

// reviewConvAgainstReference runs f fused, op by op and on tiny blocks
// and compares every result's bits with the reference evaluator's.
func reviewConvAgainstReference(t *testing.T, name string, f any, args ...*tensor.Array) {
	t.Helper()
	anyArgs := make([]any, len(args))
	for i, a := range args {
		anyArgs[i] = a
	}
	p, err := kiln.Jit(f).Trace(anyArgs...)
	if err != nil {
		t.Fatalf("%s: trace: %v", name, err)
	}
	want, err := reference.Eval(p, args, refOptions)
	if err != nil {
		t.Fatalf("%s: reference: %v", name, err)
	}
	for _, v := range reviewConvVariants {
		var opts []kiln.Option
		if v != nil {
			opts = append(opts, v)
		}
		got, err := kiln.Jit(f, opts...).RunAll(anyArgs...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := diffResults(got, want, true); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
	}
}

var reviewNHWC = kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}

// TestReviewConvEpilogues: lines and batch-major convolutions with fused
// consumers — bias, relu, a convert to bf16 — and a bf16 convolution with
// f32 accumulation converted back.
func TestReviewConvEpilogues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []struct{ x, w []int }{
		{[]int{2, 7, 25, 16}, []int{3, 3, 16, 24}}, // lines, short last tile
		{[]int{2, 7, 24, 16}, []int{3, 3, 16, 32}}, // lines, whole tiles written in place
		{[]int{9, 8, 8, 128}, []int{3, 3, 128, 8}}, // batch-major
	} {
		x := reviewConvArray(r, tensor.F32, true, sh.x...)
		w := reviewConvArray(r, tensor.F32, false, sh.w...)
		b := reviewConvArray(r, tensor.F32, false, sh.w[3])
		reviewConvAgainstReference(t, "bias-relu", func(x, w, b kiln.Value) kiln.Value {
			return kiln.ConvGeneralDilated(x, w, reviewNHWC).Add(b).Maximum(kiln.Float(0))
		}, x, w, b)
		reviewConvAgainstReference(t, "bias-relu-bf16", func(x, w, b kiln.Value) []kiln.Value {
			y := kiln.ConvGeneralDilated(x, w, reviewNHWC)
			return []kiln.Value{y.Add(b).Maximum(kiln.Float(0)).Astype(tensor.BF16), y.Mul(kiln.Float(2))}
		}, x, w, b)
		xb, wb := x.Astype(tensor.BF16), w.Astype(tensor.BF16)
		reviewConvAgainstReference(t, "bf16-prefer-f32", func(x, w, b kiln.Value) kiln.Value {
			return kiln.ConvGeneralDilated(x, w, reviewNHWC, kiln.PreferredElementType(tensor.F32)).Add(b).Astype(tensor.BF16)
		}, xb, wb, b)
	}
}

// TestReviewConvTransforms: lines and batch-major convolutions under vmap
// (the mapped axis becomes part of the batch or of the features), inside
// a fori_loop body (the carry convolved three times, in place or double
// buffered) and a scan over kernels, and the gradient of the loop.
func TestReviewConvTransforms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := reviewConvArray(r, tensor.F32, false, 3, 2, 6, 13, 16)
	w := reviewConvArray(r, tensor.F32, false, 3, 3, 16, 16)
	ws := reviewConvArray(r, tensor.F32, false, 3, 3, 3, 16, 16)
	conv := func(x, w kiln.Value) kiln.Value { return kiln.ConvGeneralDilated(x, w, reviewNHWC) }
	reviewConvAgainstReference(t, "vmap-x", func(x, w kiln.Value) []kiln.Value {
		return kiln.Vmap(conv, kiln.InAxes(0, kiln.NoAxis))(x, w)
	}, x, w)
	reviewConvAgainstReference(t, "vmap-w", func(x, ws kiln.Value) []kiln.Value {
		return kiln.Vmap(conv, kiln.InAxes(kiln.NoAxis, 0))(x, ws)
	}, tensor.Must(x.Reshape(6, 6, 13, 16)), ws)
	reviewConvAgainstReference(t, "vmap-both-grad", func(x, ws kiln.Value) []kiln.Value {
		loss := func(x, w kiln.Value) kiln.Value { return conv(x, w).Mul(conv(x, w)).Sum() }
		return kiln.Vmap(kiln.Grad(loss, 0, 1))(x, ws)
	}, x, ws)
	x1 := tensor.Must(x.Reshape(6, 6, 13, 16))
	loop := func(x, w kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{conv(c[0], w).Mul(kiln.Float(0.25))}
		}, x)[0]
	}
	reviewConvAgainstReference(t, "fori", loop, x1, w)
	reviewConvAgainstReference(t, "scan", func(x, ws kiln.Value) []kiln.Value {
		c, ys := kiln.Scan(func(c, w []kiln.Value) ([]kiln.Value, []kiln.Value) {
			y := conv(c[0], w[0])
			return []kiln.Value{y}, []kiln.Value{y.Sum()}
		}, []kiln.Value{x}, []kiln.Value{ws})
		return append(c, ys...)
	}, x1, ws)
	reviewConvAgainstReference(t, "grad-fori", func(x, w kiln.Value) []kiln.Value {
		return kiln.Grad(func(x, w kiln.Value) kiln.Value { return loop(x, w).Sum() }, 0, 1)(x, w)
	}, x1, w)
}

// TestReviewConvConcurrent: one executable of a lines convolution and
// its batch-major kernel cotangent run from several goroutines at once
// (go test -race sees the workers' scratch and the slots), each run equal
// to the reference's.
func TestReviewConvConcurrent(t *testing.T) {
	f := func(x, w, ct kiln.Value) []kiln.Value {
		ys, pull := kiln.VJP(func(x, w kiln.Value) kiln.Value { return kiln.ConvGeneralDilated(x, w, reviewNHWC) }, x, w)
		return append(ys, pull(ct)...)
	}
	fn := kiln.Jit(f)
	const g = 4
	args := make([][]*tensor.Array, g)
	wants := make([][]*tensor.Array, g)
	for i := range g {
		r := rand.New(rand.NewPCG(uint64(i), 5))
		args[i] = []*tensor.Array{
			reviewConvArray(r, tensor.F32, false, 8, 12, 12, 9),
			reviewConvArray(r, tensor.F32, false, 3, 3, 9, 16),
			reviewConvArray(r, tensor.F32, false, 8, 12, 12, 16),
		}
		p, err := fn.Trace(args[i][0], args[i][1], args[i][2])
		if err != nil {
			t.Fatal(err)
		}
		if wants[i], err = reference.Eval(p, args[i], refOptions); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, g*5)
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				got, err := fn.RunAll(args[i][0], args[i][1], args[i][2])
				if err != nil {
					errs <- err.Error()
					return
				}
				if d := diffResults(got, wants[i], true); d != "" {
					errs <- d
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestReviewConvCancel: a convolution of some hundred GFLOP run as lines
// stops at its deadline (the stop flag is checked per tile) and the
// executable then runs a small input correctly.
func TestReviewConvCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 400 MB")
	}
	stopWarmPool(t)
	conv := kiln.Jit(func(x, w kiln.Value) kiln.Value { return kiln.ConvGeneralDilated(x, w, reviewNHWC) })
	x := tensor.Must(tensor.Zeros(tensor.F32, 8, 128, 64, 512))
	w := tensor.Must(tensor.Zeros(tensor.F32, 3, 3, 512, 512))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := conv.RunContext(ctx, x, w)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v after %v, want the deadline", err, took)
	}
	if took > 30*time.Millisecond+stopLatency {
		t.Errorf("stopped after %v", took)
	}
	r := rand.New(rand.NewPCG(9, 9))
	xs := reviewConvArray(r, tensor.F32, false, 2, 5, 17, 40)
	ws := reviewConvArray(r, tensor.F32, false, 3, 3, 40, 8)
	reviewConvAgainstReference(t, "after-cancel", func(x, w kiln.Value) kiln.Value { return kiln.ConvGeneralDilated(x, w, reviewNHWC) }, xs, ws)
}
