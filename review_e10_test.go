package kiln_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
)

// reviewE10Specials are inputs that tell fma(a, b, +0) (a product with one
// contracting step) from a multiply (−1·0 = −0) or a multiply then an add
// of +0 (an underflowed −0 made +0): signed zeros, products that underflow,
// subnormals, infinities, NaN and overflowing products.
var reviewE10Specials = []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e-40, -1e-42, 1e-20, -1e-25,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e38, -3e38, 1, -1}

func reviewE10Array(rng *rand.Rand, shape ...int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
		if rng.IntN(3) == 0 {
			x[i] = reviewE10Specials[rng.IntN(len(reviewE10Specials))]
		}
	}
	return tensor.Must(tensor.FromSlice(x, shape...))
}

// reviewE10Products is every way a program writes a product with one
// contracting step: matmul of a column by a row, dot_general with the
// contracting dims leading on the left and trailing on the right
// (transposed operands), batch dims leading and batch dims trailing,
// einsum's outer products, epilogues fused after the product (bias, relu,
// convert to f16), f16 and bf16 operands (their own f16 result and
// preferred f32), f64, c64, products in a Scan over the batch, a vmapped
// one and per-example gradients of a linear layer.
func reviewE10Products(x, y, xb, yb, bias kiln.Value) []kiln.Value {
	f32 := kiln.PreferredElementType(tensor.F32)
	xt, yt := x.Transpose(1, 0), y.Transpose(1, 0) // (1, m), (n, 1)
	p := x.MatMul(y)
	out := []kiln.Value{
		p,
		kiln.DotGeneral(xt, yt, kiln.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}),
		kiln.DotGeneral(xb, yb, kiln.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}),
		kiln.DotGeneral(xb.Transpose(1, 2, 0), yb.Transpose(2, 1, 0),
			kiln.DotDims{LhsBatch: []int{2}, RhsBatch: []int{2}, LhsContract: []int{1}, RhsContract: []int{1}}),
		kiln.Einsum("im,jm->ij", x, yt),
		kiln.Einsum("bik,bkj->bij", xb, yb),
		p.Add(bias),
		p.Add(bias).Maximum(kiln.Float(0)),
		p.Add(bias).Astype(tensor.F16),
		p.Mul(kiln.Float(3)).Astype(tensor.F16),
		x.Astype(tensor.F16).MatMul(y.Astype(tensor.F16)),
		kiln.MatMul(x.Astype(tensor.F16), y.Astype(tensor.F16), f32),
		kiln.MatMul(x.Astype(tensor.BF16), y.Astype(tensor.BF16), f32),
		x.Astype(tensor.BF16).MatMul(y.Astype(tensor.BF16)),
		x.Astype(tensor.F64).MatMul(y.Astype(tensor.F64)),
		x.Astype(tensor.F64).MatMul(y.Astype(tensor.F64)).Add(bias.Astype(tensor.F64)).Maximum(kiln.Float(0)),
		x.Astype(tensor.C64).MatMul(y.Astype(tensor.C64)),
	}
	_, ys := kiln.Scan(func(c, s []kiln.Value) ([]kiln.Value, []kiln.Value) {
		q := s[0].MatMul(s[1])
		return []kiln.Value{c[0].Add(q.Sum())}, []kiln.Value{q}
	}, []kiln.Value{kiln.Float(0).Astype(tensor.F32)}, []kiln.Value{xb, yb})
	out = append(out, ys...)
	out = append(out, kiln.Vmap(func(a, b kiln.Value) kiln.Value { return a.MatMul(b) })(xb, yb)...)
	// Per-example gradients of a linear layer: dW_e = x_eᵀ · g_e, each a
	// product with one contracting step (batch of 1 row per example).
	lossW := func(w, xe, ye kiln.Value) kiln.Value {
		z := xe.MatMul(w) // (1, m)·(m, n)
		return z.Mul(ye).Sum()
	}
	xr := xb.Reshape(xb.Shape()[0], 1, xb.Shape()[1]) // (B, 1, m)
	out = append(out, kiln.Vmap(kiln.Grad(lossW, 0), kiln.InAxes(kiln.NoAxis, 0, 0))(p, xr, yb)...)
	return out
}

// TestReviewE10ProductsMatchReference: every form of reviewE10Products,
// for m from 1 to 300 and n from 1 to 40 (around 8/16-lane vectors and
// the flat run's periods), equals the reference evaluator bit for bit (any
// NaN for a NaN) on every SIMD tier, fused, op by op and on the tiny-block
// parallel CPU.
func TestReviewE10ProductsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 10))
	sizes := [][2]int{{1, 1}, {3, 10}, {8, 2}, {17, 16}, {128, 10}, {33, 33}, {5, 40}, {300, 6}, {64, 13}, {40, 32}}
	if testing.Short() {
		sizes = sizes[:5]
	}
	for _, s := range sizes {
		m, n := s[0], s[1]
		const batch = 3
		args := []*tensor.Array{reviewE10Array(rng, m, 1), reviewE10Array(rng, 1, n),
			reviewE10Array(rng, batch, m, 1), reviewE10Array(rng, batch, 1, n), reviewE10Array(rng, n)}
		anyArgs := make([]any, len(args))
		for i, a := range args {
			anyArgs[i] = a
		}
		p, err := kiln.Jit(reviewE10Products).Trace(anyArgs...)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := reference.Eval(p, args, refOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, tier := range simd.Available() {
			restore := simd.SetLevel(tier)
			for _, o := range []struct {
				name string
				opts []kiln.Option
			}{{"fused", nil}, {"op-by-op", []kiln.Option{kiln.NoFusion()}}, {"tiny-block parallel", []kiln.Option{kiln.WithBackend(tinyCPU)}}} {
				f := kiln.Jit(reviewE10Products, o.opts...)
				for run := range 2 { // the second run reuses the planned buffers
					got, err := f.RunAll(anyArgs...)
					if err != nil {
						t.Fatalf("%dx%d %v %s: %v", m, n, tier, o.name, err)
					}
					if d := diffResults(got, ref, true); d != "" {
						t.Fatalf("%dx%d %v %s run %d: %s", m, n, tier, o.name, run, d)
					}
				}
			}
			restore()
		}
	}
}

// TestReviewE10ConcurrentAndCancelled: one compiled program of K = 1
// products run from several goroutines at once gives the reference's
// bits in every run (run with -race), and runs cancelled while they work
// end with the context's error and leave the next run right.
func TestReviewE10ConcurrentAndCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 11))
	const batch, m, n = 64, 200, 37
	loss := func(w, xe, ye kiln.Value) kiln.Value { return xe.MatMul(w).Mul(ye).Sum() }
	perExample := kiln.Vmap(kiln.Grad(loss, 0), kiln.InAxes(kiln.NoAxis, 0, 0))
	fn := func(w, x, y kiln.Value) []kiln.Value {
		g := perExample(w, x, y)
		return []kiln.Value{g[0], g[0].Add(kiln.Float(1)).Maximum(kiln.Float(0)).Astype(tensor.F16)}
	}
	args := []*tensor.Array{reviewE10Array(rng, m, n), reviewE10Array(rng, batch, 1, m), reviewE10Array(rng, batch, 1, n)}
	anyArgs := []any{args[0], args[1], args[2]}
	f := kiln.Jit(fn, kiln.WithBackend(tinyCPU))
	p, err := f.Trace(anyArgs...)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Eval(p, args, refOptions)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 3 {
				if (w+r)%2 == 1 {
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					if _, err := f.RunContext(ctx, anyArgs...); !errors.Is(err, context.Canceled) {
						errs <- fmt.Errorf("cancelled run: %v, want context.Canceled", err)
					}
					continue
				}
				got, err := f.RunAll(anyArgs...)
				if err != nil {
					errs <- err
					return
				}
				if d := diffResults(got, ref, true); d != "" {
					errs <- fmt.Errorf("goroutine %d run %d: %s", w, r, d)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestReviewE10ConvOneStep: convolutions whose im2col product has one
// contracting step (one input feature per group and a 1×1 window:
// depthwise 1×1 and a single-channel 1×1 conv, NHWC so the product writes
// the output's rows in place, 9 channels a row apart by 9 or by one
// group's 3; NCHW through the accumulator; zero padding), with an
// epilogue and their gradients, equal the reference bit for bit on every
// tier.
func TestReviewE10ConvOneStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 12))
	fn := func(x, w1, wd, xc, wc kiln.Value) []kiln.Value {
		nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
		single := kiln.ConvGeneralDilated(x.Slice(3, 0, 1, 1), w1, kiln.ConvOptions{DimensionNumbers: nhwc, Padding: [][2]int{{1, 0}, {0, 2}}})
		depth := kiln.ConvGeneralDilated(x, wd, kiln.ConvOptions{DimensionNumbers: nhwc, FeatureGroupCount: 9})
		grouped := kiln.ConvGeneralDilated(x, wd.Reshape(1, 1, 1, 9), kiln.ConvOptions{DimensionNumbers: nhwc, FeatureGroupCount: 9})
		nchw := kiln.ConvGeneralDilated(xc, wc, kiln.ConvOptions{FeatureGroupCount: 4})
		g := kiln.Grad(func(w kiln.Value) kiln.Value {
			return kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{DimensionNumbers: nhwc, FeatureGroupCount: 9}).Mul(depth).Sum()
		})(wd)
		return append([]kiln.Value{single, single.Add(kiln.Float(0.5)).Maximum(kiln.Float(0)), depth, grouped, nchw, depth.Astype(tensor.F16)}, g...)
	}
	args := []*tensor.Array{reviewE10Array(rng, 2, 5, 7, 9), reviewE10Array(rng, 1, 1, 1, 33),
		reviewE10Array(rng, 1, 1, 1, 9), reviewE10Array(rng, 3, 4, 6, 5), reviewE10Array(rng, 4, 1, 1, 1)}
	anyArgs := []any{args[0], args[1], args[2], args[3], args[4]}
	p, err := kiln.Jit(fn).Trace(anyArgs...)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Eval(p, args, refOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, o := range []struct {
			name string
			opts []kiln.Option
		}{{"fused", nil}, {"op-by-op", []kiln.Option{kiln.NoFusion()}}, {"tiny-block parallel", []kiln.Option{kiln.WithBackend(tinyCPU)}}} {
			got, err := kiln.Jit(fn, o.opts...).RunAll(anyArgs...)
			if err != nil {
				t.Fatalf("%v %s: %v", tier, o.name, err)
			}
			if d := diffResults(got, ref, true); d != "" {
				t.Fatalf("%v %s: %s", tier, o.name, d)
			}
		}
		restore()
	}
}

// TestReviewE10LoopCarry: a loop whose carry is rebuilt each step from a
// product with one contracting step of its own column and row (the
// product's operands are views of the buffer the new carry replaces), a
// while loop over the same and a Scan emitting the products, equal the
// reference bit for bit on every tier and backend form.
func TestReviewE10LoopCarry(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xe10, 14))
	fn := func(c0, v kiln.Value) []kiln.Value {
		step := func(c kiln.Value) kiln.Value {
			col := c.Slice(1, 0, 1, 1) // (m, 1)
			row := c.Slice(0, 1, 2, 1) // (1, n)
			return col.MatMul(row).Mul(kiln.Float(0.5)).Add(c.Mul(kiln.Float(1e-3)))
		}
		fori := kiln.ForiLoop(kiln.Int(0), kiln.Int(5), func(_ kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{step(c[0])}
		}, c0)
		while := kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(kiln.Int(4)) },
			func(c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Slice(1, 0, 1, 1).MatMul(c[0].Slice(0, 0, 1, 1)), c[1].Add(kiln.Int(1))}
			}, c0, kiln.Int(0))
		_, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
			q := c[0].Slice(1, 0, 1, 1).MatMul(x[0].Reshape(1, -1))
			return []kiln.Value{q}, []kiln.Value{q.Sum(0)}
		}, []kiln.Value{c0}, []kiln.Value{v})
		return append(append(fori, while[0]), ys...)
	}
	for _, s := range [][2]int{{12, 12}, {10, 10}, {33, 33}} {
		m := s[0]
		args := []*tensor.Array{reviewE10Array(rng, m, m), reviewE10Array(rng, 4, m)}
		anyArgs := []any{args[0], args[1]}
		p, err := kiln.Jit(fn).Trace(anyArgs...)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := reference.Eval(p, args, refOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, tier := range simd.Available() {
			restore := simd.SetLevel(tier)
			for _, o := range []struct {
				name string
				opts []kiln.Option
			}{{"fused", nil}, {"op-by-op", []kiln.Option{kiln.NoFusion()}}, {"tiny-block parallel", []kiln.Option{kiln.WithBackend(tinyCPU)}}} {
				got, err := kiln.Jit(fn, o.opts...).RunAll(anyArgs...)
				if err != nil {
					t.Fatalf("m=%d %v %s: %v", m, tier, o.name, err)
				}
				if d := diffResults(got, ref, true); d != "" {
					t.Fatalf("m=%d %v %s: %s", m, tier, o.name, d)
				}
			}
			restore()
		}
	}
}
