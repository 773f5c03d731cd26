package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

// E7 is one training step of examples/train's MLP — 64 → 128 (ReLU) → 10,
// softmax cross-entropy, Adam — at batch 256 in f32: forward pass,
// backward pass and optimizer update, from the same weights and zero Adam
// state every run. Its checked output is Adam's new first moment of w1,
// (1 − β₁)·∂loss/∂w1: the backward pass's result, comparable across peers
// (the weights themselves move by ±lr·sign(g) on a first Adam step, which
// flips where a gradient element is a rounding-level cancellation).
const (
	e7Batch, e7In, e7Hidden, e7Classes = 256, 64, 128, 10
	e7LR                               = 3e-3
)

// e7Calls is how many steps one timed run of the in-process peers makes,
// each timed alone: E7's time is the median step (workload.perStep), as
// NumPy's subprocess times its steps, one by one in a hot loop. A run
// starts after a collection (see measureTogether), which leaves its first
// step cold caches and parked threads (a 16-step run's mean was 5 to 10%
// above its median step); NumPy's timed steps never follow one.
const e7Calls = 16

// e7Opt is E7's optimizer: Adam with the usual β₁, β₂, ε.
var e7Opt = optim.Adam{LR: e7LR}

// e7Loss is the MLP's mean softmax cross-entropy (logsumexp − the label's
// logit), as examples/train computes it in f32.
func e7Loss(w1, b1, w2, b2, x, y kiln.Value) kiln.Value {
	pre := x.MatMul(w1).Add(b1)
	h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
	z := h.MatMul(w2).Add(b2)
	m := kiln.StopGradient(z.Max(1)).Reshape(-1, 1) // as jax.nn.logsumexp
	lse := z.Sub(m).Exp().Sum(1).Log().Add(m.Reshape(-1))
	return lse.Sub(z.Mul(y).Sum(1)).Mean()
}

// e7Kiln is the jitted step: arguments w1 b1 w2 b2, Adam's m (4), v (4)
// and count, x, y; results the new first moment of w1, then the new
// weights, the rest of the state and the loss.
func e7Kiln(a ...kiln.Value) []kiln.Value { return e7StepOf(e7Loss)(a...) }

// e7StepOf is the jitted step of a loss of (w1, b1, w2, b2, x, labels).
func e7StepOf(lossOf func(w1, b1, w2, b2, x, y kiln.Value) kiln.Value) func(a ...kiln.Value) []kiln.Value {
	return func(a ...kiln.Value) []kiln.Value {
		params, state, x, y := a[:4], a[4:13], a[13], a[14]
		loss := func(p ...kiln.Value) kiln.Value { return lossOf(p[0], p[1], p[2], p[3], x, y) }
		vg := kiln.ValueAndGrad(loss, 0, 1, 2, 3)(params...)
		newParams, newState := e7Opt.Step(params, vg[1:], state)
		out := append([]kiln.Value{newState[0]}, newParams...)
		return append(append(out, newState[1:]...), vg[0])
	}
}

// e7Data are E7's inputs as flat f32 slices: w1 b1 w2 b2 (He and Glorot
// normal, zero biases), x uniform in [0, 1) and one-hot labels y.
type e7Data struct{ w1, b1, w2, b2, x, y []float32 }

func newE7Data() e7Data {
	r := rng(77)
	normal := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(r.NormFloat64() * std)
		}
		return out
	}
	d := e7Data{w1: normal(e7In*e7Hidden, 0.177), b1: make([]float32, e7Hidden), w2: normal(e7Hidden*e7Classes, 0.12),
		b2: make([]float32, e7Classes), x: uniform32(78, e7Batch*e7In, 0, 1), y: make([]float32, e7Batch*e7Classes)}
	for i := range e7Batch {
		d.y[i*e7Classes+r.IntN(e7Classes)] = 1
	}
	return d
}

func newE7() *workload {
	d := newE7Data()
	shapes := [][]int{{e7In, e7Hidden}, {e7Hidden}, {e7Hidden, e7Classes}, {e7Classes}}
	params := [][]float32{d.w1, d.b1, d.w2, d.b2}
	var args []any
	for i, p := range params {
		args = append(args, mustArray(p, shapes[i]...))
	}
	for range 2 { // m, then v: zeros
		for i, p := range params {
			args = append(args, mustArray(make([]float32, len(p)), shapes[i]...))
		}
	}
	args = append(args, tensor.Scalar(float32(0)), mustArray(d.x, e7Batch, e7In), mustArray(d.y, e7Batch, e7Classes))
	flops := 3 * 2 * float64(e7Batch) * (e7In*e7Hidden + e7Hidden*e7Classes) // forward GEMMs, and twice that backward
	w := &workload{id: "E7", title: fmt.Sprintf("MLP training step (forward, backward, Adam) %d-%d-%d f32, batch %d", e7In, e7Hidden, e7Classes, e7Batch),
		size: e7Batch, flops: flops, tol: 1e-4, fn: e7Kiln, args: args, calls: e7Calls, perStep: true,
		files: map[string][]byte{"w1.bin": bytesOf(d.w1), "b1.bin": bytesOf(d.b1), "w2.bin": bytesOf(d.w2), "b2.bin": bytesOf(d.b2),
			"x.bin": bytesOf(d.x), "y.bin": bytesOf(d.y)}}
	e7Peers(w, d)
	return w
}
