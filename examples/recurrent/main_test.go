package main

import (
	"math"
	"math/rand"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Training through the scan learns: the loss falls at least 20× and ends
// below half the loss of predicting each sample by the previous one.
func TestTrainLearns(t *testing.T) {
	res, err := train(config{hidden: 16, batch: 32, seq: 24, steps: 300, lr: 1e-2, seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.last > res.first/20 || res.last > res.baseline/2 {
		t.Errorf("loss %v after training (first %v, previous-sample baseline %v)", res.last, res.first, res.baseline)
	}
}

// unrolled is rnn with the time loop unrolled in Go: the same ops.
func unrolled(p []kiln.Value, xs kiln.Value, batch, hidden, seq int) kiln.Value {
	h := kiln.Value(kiln.Const(tensor.Must(tensor.Zeros(tensor.F32, batch, hidden))))
	ys := make([]kiln.Value, seq)
	for s := range seq {
		h = xs.Index(s).MatMul(p[0]).Add(h.MatMul(p[1])).Add(p[2]).Tanh()
		ys[s] = h.MatMul(p[3]).Add(p[4])
	}
	return kiln.Stack(0, ys...)
}

// The scan computes what the unrolled loop computes — the forward pass
// bit for bit, the gradients to rounding (their sums over time are added
// in another order) — and its program does not grow with the sequence.
func TestScanIsTheUnrolledLoop(t *testing.T) {
	const nb, hidden, seq = 4, 8, 12
	c := config{batch: nb, seq: seq}
	r := rand.New(rand.NewSource(3))
	params := initParams(r, hidden)
	xs, next, _ := batch(r, c)
	args := []any{xs, next}
	for _, p := range params {
		args = append(args, p)
	}
	fwd := func(roll bool) []*tensor.Array {
		f := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
			if roll {
				return []kiln.Value{unrolled(a[2:], a[0], nb, hidden, seq)}
			}
			return []kiln.Value{rnn(a[2:], a[0], nb, hidden)}
		})
		out, err := f.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if a, b := fwd(false), fwd(true); !tensor.Equal(a[0], b[0]) {
		t.Errorf("scan %v\nunrolled %v", a[0], b[0])
	}
	grads := func(roll bool) []*tensor.Array {
		f := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
			return kiln.Grad(func(p ...kiln.Value) kiln.Value {
				var ys kiln.Value
				if roll {
					ys = unrolled(p, a[0], nb, hidden, seq)
				} else {
					ys = rnn(p, a[0], nb, hidden)
				}
				d := ys.Sub(a[1])
				return d.Mul(d).Mean()
			}, 0, 1, 2, 3, 4)(a[2:]...)
		})
		out, err := f.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	gs, gu := grads(false), grads(true)
	for i := range gs {
		a, _ := tensor.Data[float32](gs[i])
		b, _ := tensor.Data[float32](gu[i])
		for k := range a {
			if d := math.Abs(float64(a[k] - b[k])); d > 1e-5*(1+math.Abs(float64(b[k]))) {
				t.Fatalf("gradient %d element %d: scan %v, unrolled %v", i, k, a[k], b[k])
			}
		}
	}
	size := func(seq int) int {
		xs := tensor.Must(tensor.Zeros(tensor.F32, seq, nb, 1))
		f := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
			return []kiln.Value{kiln.Grad(func(p ...kiln.Value) kiln.Value { return rnn(p, a[0], nb, hidden).Sum() }, 0)(a[1:]...)[0]}
		})
		p, err := f.Trace(append([]any{xs}, args[2:]...)...)
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Eqns)
	}
	if a, b := size(12), size(120); a != b {
		t.Errorf("the gradient program has %d equations for 12 steps, %d for 120", a, b)
	}
}
