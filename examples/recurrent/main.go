// Command recurrent trains a small recurrent network (an Elman RNN) with
// kiln.Scan: the network reads a noisy sine wave one sample at a time and
// predicts the next sample. The time loop is one lax.scan-style loop in
// the traced program — not unrolled — and kiln.ValueAndGrad
// differentiates through it (reverse mode stores the hidden state of
// every step and recomputes each step's derivative from it), so the whole
// training step, forward over the sequence, backward through it and the
// Adam update, is one compiled program whatever the sequence length.
//
//	go run ./examples/recurrent
//	go run ./examples/recurrent -steps 600 -seq 48
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

// config is one training run.
type config struct {
	hidden, batch, seq, steps int
	lr                        float64
	seed                      int64
}

func main() {
	var c config
	flag.IntVar(&c.hidden, "hidden", 16, "hidden units")
	flag.IntVar(&c.batch, "batch", 32, "sequences per step")
	flag.IntVar(&c.seq, "seq", 24, "samples per sequence (the scan's length)")
	flag.IntVar(&c.steps, "steps", 300, "training steps")
	flag.Float64Var(&c.lr, "lr", 1e-2, "Adam's learning rate")
	flag.Int64Var(&c.seed, "seed", 1, "seed of the weights and the data")
	flag.Parse()
	res, err := train(c, func(step int, loss float32) { fmt.Printf("step %4d  loss %.5f\n", step, loss) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "recurrent:", err)
		os.Exit(1)
	}
	fmt.Printf("final loss %.5f (first %.5f; predicting each sample by the previous one: %.5f)\n", res.last, res.first, res.baseline)
}

// rnn is the network's forward pass over a sequence batch xs [seq, batch,
// 1]: h ← tanh(x·Wx + h·Wh + b), y = h·Wo + bo at every step, by
// kiln.Scan. It returns the predictions [seq, batch, 1].
func rnn(p []kiln.Value, xs kiln.Value, batch, hidden int) kiln.Value {
	wx, wh, b, wo, bo := p[0], p[1], p[2], p[3], p[4]
	h0 := kiln.Const(tensor.Must(tensor.Zeros(tensor.F32, batch, hidden)))
	_, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
		h := x[0].MatMul(wx).Add(c[0].MatMul(wh)).Add(b).Tanh()
		return []kiln.Value{h}, []kiln.Value{h.MatMul(wo).Add(bo)}
	}, []kiln.Value{h0}, []kiln.Value{xs})
	return ys[0]
}

// loss is the mean squared error of predicting xs[t+1] from xs[..t].
func loss(p []kiln.Value, xs, next kiln.Value, batch, hidden int) kiln.Value {
	d := rnn(p, xs, batch, hidden).Sub(next)
	return d.Mul(d).Mean()
}

// result is what a run reports.
type result struct {
	first, last, baseline float32
}

// train runs c.steps Adam steps on fresh batches and reports the losses.
func train(c config, progress func(step int, loss float32)) (result, error) {
	r := rand.New(rand.NewSource(c.seed))
	opt := optim.Adam{LR: c.lr}
	const nParams = 5
	step := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
		params, state, xs, next := a[:nParams], a[nParams:nParams+opt.StateSize(nParams)], a[len(a)-2], a[len(a)-1]
		vg := kiln.ValueAndGrad(func(p ...kiln.Value) kiln.Value { return loss(p, xs, next, c.batch, c.hidden) }, 0, 1, 2, 3, 4)(params...)
		newParams, newState := opt.Step(params, vg[1:], state)
		return append(append(vg[:1], newParams...), newState...)
	})
	params := initParams(r, c.hidden)
	stateVals := opt.Init(constants(params))
	state, err := kiln.EvalAll(stateVals)
	if err != nil {
		return result{}, err
	}
	var res result
	for s := range c.steps {
		xs, next, base := batch(r, c)
		args := make([]any, 0, len(params)+len(state)+2)
		for _, p := range params {
			args = append(args, p)
		}
		for _, st := range state {
			args = append(args, st)
		}
		args = append(args, xs, next)
		outs, err := step.RunAll(args...)
		if err != nil {
			return result{}, err
		}
		l := outs[0].Data().([]float32)[0]
		copy(params, outs[1:1+nParams])
		copy(state, outs[1+nParams:])
		if s == 0 {
			res.first = l
		}
		res.last, res.baseline = l, base
		if progress != nil && (s%50 == 0 || s == c.steps-1) {
			progress(s, l)
		}
	}
	return res, nil
}

func constants(as []*tensor.Array) []kiln.Value {
	out := make([]kiln.Value, len(as))
	for i, a := range as {
		out[i] = kiln.Const(a)
	}
	return out
}

// initParams draws Glorot-scaled weights and zero biases.
func initParams(r *rand.Rand, hidden int) []*tensor.Array {
	normal := func(std float64, shape ...int) *tensor.Array {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * std)
		}
		return tensor.Must(tensor.FromSlice(v, shape...))
	}
	zeros := func(shape ...int) *tensor.Array { return tensor.Must(tensor.Zeros(tensor.F32, shape...)) }
	return []*tensor.Array{
		normal(1, 1, hidden), // Wx
		normal(1/math.Sqrt(float64(hidden)), hidden, hidden), // Wh
		zeros(hidden), // b
		normal(1/math.Sqrt(float64(hidden)), hidden, 1), // Wo
		zeros(1), // bo
	}
}

// batch draws c.batch noisy sine waves of random phase and frequency: the
// inputs xs [seq, batch, 1], the targets (each next sample) and the loss
// of predicting every sample by the previous one.
func batch(r *rand.Rand, c config) (*tensor.Array, *tensor.Array, float32) {
	xs := make([]float32, c.seq*c.batch)
	next := make([]float32, c.seq*c.batch)
	var base float64
	for b := range c.batch {
		phase, freq := r.Float64()*2*math.Pi, 0.2+0.2*r.Float64()
		sample := func(t int) float64 { return math.Sin(phase+freq*float64(t)) + 0.05*r.NormFloat64() }
		prev := sample(0)
		for t := range c.seq {
			cur := sample(t + 1)
			xs[t*c.batch+b], next[t*c.batch+b] = float32(prev), float32(cur)
			base += (cur - prev) * (cur - prev)
			prev = cur
		}
	}
	shape := []int{c.seq, c.batch, 1}
	return tensor.Must(tensor.FromSlice(xs, shape...)), tensor.Must(tensor.FromSlice(next, shape...)), float32(base / float64(len(xs)))
}
