package kiln_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
)

// outerSpecials are the inputs that tell an outer product's definition,
// fma(a, b, +0), from its shortcuts: signed zeros (an exact −0 product is
// +0), values whose products underflow (a negative one to −0), subnormals,
// infinities (∞·0 is NaN) and NaN.
var outerSpecials = []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e-40, -1e-42,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e38}

// TestPerExampleOuterProducts: per-example gradients of a two-layer MLP
// (vmap's weight gradients are batched outer products, a dot_general with
// one contracting step, which the CPU writes with simd.OuterF32 — rows of
// 128 and, for the narrow 10-wide layer, the flat run of rows shorter than
// a vector) equal, bit for bit (any NaN for a NaN), a loop of Grad calls
// one example at a time, the reference evaluator, and the op-by-op and
// tiny-block parallel CPUs, on every SIMD tier, with inputs full of signed
// zeros, underflowing products, subnormals, infinities and NaNs.
func TestPerExampleOuterProducts(t *testing.T) {
	const in, hidden, classes, batch = 16, 128, 10, 19
	rng := rand.New(rand.NewPCG(28, 1))
	fill := func(n int, special int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			if rng.IntN(special) == 0 {
				x[i] = outerSpecials[rng.IntN(len(outerSpecials))]
			}
		}
		return x
	}
	arr := func(x []float32, shape ...int) *tensor.Array { return tensor.Must(tensor.FromSlice(x, shape...)) }
	w1, b1 := arr(fill(in*hidden, 8), in, hidden), arr(fill(hidden, 8), hidden)
	w2, b2 := arr(fill(hidden*classes, 8), hidden, classes), arr(fill(classes, 8), classes)
	xs, ys := fill(batch*in, 4), fill(batch*classes, 6)
	for e := 0; e < batch; e += 3 {
		// A tiny example: its gradients are tiny, and their products
		// with its tiny inputs underflow, to −0 where negative.
		for i := range in {
			xs[e*in+i] *= 1e-20
		}
		for j := range classes {
			ys[e*classes+j] *= 1e-30
		}
	}
	x, y := arr(xs, batch, in), arr(ys, batch, classes)
	loss := func(w1, b1, w2, b2, x, y kiln.Value) kiln.Value {
		pre := x.MatMul(w1).Add(b1)
		h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
		z := h.MatMul(w2).Add(b2)
		return z.Mul(y).Sum().Add(h.Sum())
	}
	grad := kiln.Grad(loss, 0, 1, 2, 3)
	perExample := kiln.Vmap(grad, kiln.InAxes(kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, 0, 0))
	args := []any{w1, b1, w2, b2, x, y}
	p, err := kiln.Jit(perExample).Trace(args...)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Eval(p, []*tensor.Array{w1, b1, w2, b2, x, y}, refOptions)
	if err != nil {
		t.Fatal(err)
	}
	negZeros := 0
	for _, g := range ref {
		for _, v := range g.Data().([]float32) {
			if v == 0 && math.Signbit(float64(v)) {
				negZeros++
			}
		}
	}
	if negZeros == 0 {
		t.Fatal("no −0 among the reference's gradients: the inputs do not reach the case")
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, o := range []struct {
			name string
			opts []kiln.Option
		}{{"fused", nil}, {"op-by-op", []kiln.Option{kiln.NoFusion()}}, {"tiny-block parallel", []kiln.Option{kiln.WithBackend(tinyCPU)}}} {
			name := fmt.Sprintf("%v %s", tier, o.name)
			got, err := kiln.Jit(perExample, o.opts...).RunAll(args...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if d := diffResults(got, ref, true); d != "" {
				t.Fatalf("%s: per-example gradients differ from the reference: %s", name, d)
			}
			one := kiln.Jit(grad, o.opts...)
			for e := range batch {
				want, err := one.RunAll(w1, b1, w2, b2, takeAxis(x, 0, e), takeAxis(y, 0, e))
				if err != nil {
					t.Fatalf("%s: example %d: %v", name, e, err)
				}
				for k := range want {
					if d := diffArrays(takeAxis(got[k], 0, e), want[k], true); d != "" {
						t.Fatalf("%s: example %d, gradient %d differs from Grad's alone: %s", name, e, k, d)
					}
				}
			}
		}
		restore()
	}
}
