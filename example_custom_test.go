package kiln_test

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleCheckpoint() {
	// Two residual blocks; with Checkpoint, the backward pass recomputes
	// each block's hidden values from its input instead of storing them.
	block := func(x, w kiln.Value) kiln.Value { return x.Add(x.MatMul(w).Tanh().MatMul(w.Transpose()).Tanh()) }
	loss := func(block func(x, w kiln.Value) kiln.Value) func(x, w1, w2 kiln.Value) kiln.Value {
		return func(x, w1, w2 kiln.Value) kiln.Value { return block(block(x, w1), w2).Square().Sum() }
	}
	ck := kiln.Checkpoint(block)
	remat := func(x, w kiln.Value) kiln.Value { return ck(x, w)[0] }
	plain, checkpointed := kiln.Jit(kiln.Grad(loss(block), 1, 2)), kiln.Jit(kiln.Grad(loss(remat), 1, 2))

	wave := func(n, scale float64, shape ...int) *tensor.Array {
		xs := make([]float32, int(n))
		for i := range xs {
			xs[i] = float32(scale * math.Sin(float64(i)))
		}
		return tensor.Must(tensor.FromSlice(xs, shape...))
	}
	x, w := wave(256*64, 1, 256, 64), wave(64*256, 0.1, 64, 256)
	g1, _ := plain.RunAll(x, w, w)
	g2, _ := checkpointed.RunAll(x, w, w)
	fmt.Println("same gradients:", tensor.Equal(g1[0], g2[0]) && tensor.Equal(g1[1], g2[1]))
	m1, _ := plain.Lower(x, w, w)
	m2, _ := checkpointed.Lower(x, w, w)
	fmt.Println("less memory:", lower.MemoryNeed(m2) < lower.MemoryNeed(m1))
	// Output:
	// same gradients: true
	// less memory: true
}

func ExampleCustomVJP() {
	// log Σ exp(x) as written overflows, and so does its derivative; the
	// custom VJP computes both stably (fwd) and gives softmax as the
	// gradient (bwd).
	lse := kiln.CustomVJP(func(x kiln.Value) kiln.Value { return x.Exp().Sum().Log() },
		func(p []kiln.Value) (outs, res []kiln.Value) {
			m := kiln.StopGradient(p[0].Max())
			y := p[0].Sub(m).Exp().Sum().Log().Add(m)
			return []kiln.Value{y}, []kiln.Value{p[0], y}
		},
		func(res, cts []kiln.Value) []kiln.Value {
			x, y := res[0], res[1]
			return []kiln.Value{x.Sub(y).Exp().Mul(cts[0])}
		})
	f := kiln.Jit(kiln.ValueAndGrad(func(x kiln.Value) kiln.Value { return lse(x)[0] }))
	x, _ := tensor.FromSlice([]float64{1000, 1000})
	out, _ := f.RunAll(x)
	fmt.Printf("%.4f %.2f\n", out[0].Data(), out[1].Data())
	// Output: [1000.6931] [0.50 0.50]
}

func ExampleCustomJVP() {
	// softplus = log(1 + exp(x)); its own derivative exp(x)/(1+exp(x)) is
	// NaN where exp overflows, the custom JVP's t·σ(x) is not.
	softplus := kiln.CustomJVP(func(x kiln.Value) kiln.Value { return x.Exp().Add(kiln.Float(1)).Log() },
		func(p, t []kiln.Value) (outs, touts []kiln.Value) {
			x := p[0]
			y := x.Maximum(kiln.Float(0)).Add(x.Abs().Neg().Exp().Log1p())
			return []kiln.Value{y}, []kiln.Value{t[0].Mul(x.Logistic())}
		})
	df := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return softplus(x)[0].Sum() }))
	x, _ := tensor.FromSlice([]float64{-1000, 0, 1000})
	g, _ := df.Run(x)
	fmt.Println(g)
	// Output: f64[3] [0 0.5 1]
}
