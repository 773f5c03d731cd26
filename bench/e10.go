package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// E10 (issue 28) computes per-example gradients of E7's MLP — the
// gradient of one example's softmax cross-entropy with respect to w1, b1,
// w2 and b2, for each of the batch's 256 examples — as differentially
// private SGD needs them. Kiln's columns run Jit(Vmap(Grad(loss))), the
// loss written for one example; the go-loop column is what a user writes
// without vmap: a Go loop of 256 calls of the jitted Grad(loss), one per
// example, into preallocated outputs. The two are bit-identical; the
// checked output is the per-example gradients of w1, f32[256, 64, 128].

// e10Loss is e7Loss for one example: x f32[64], y its one-hot f32[10].
func e10Loss(w1, b1, w2, b2, x, y kiln.Value) kiln.Value {
	pre := x.MatMul(w1).Add(b1)
	h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
	z := h.MatMul(w2).Add(b2)
	m := kiln.StopGradient(z.Max())
	lse := z.Sub(m).Exp().Sum().Log().Add(m)
	return lse.Sub(z.Mul(y).Sum())
}

// e10Grad is one example's gradients (w1, b1, w2, b2).
var e10Grad = kiln.Grad(e10Loss, 0, 1, 2, 3)

// e10Kiln is the batch's per-example gradients: the weights shared, x and
// y batched on their first axis.
var e10Kiln = kiln.Vmap(e10Grad, kiln.InAxes(kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, 0, 0))

func newE10() *workload {
	d := newE7Data()
	shapes := [][]int{{e7In, e7Hidden}, {e7Hidden}, {e7Hidden, e7Classes}, {e7Classes}}
	params := [][]float32{d.w1, d.b1, d.w2, d.b2}
	args := make([]any, 0, 6)
	for i, p := range params {
		args = append(args, mustArray(p, shapes[i]...))
	}
	args = append(args, mustArray(d.x, e7Batch, e7In), mustArray(d.y, e7Batch, e7Classes))
	w := &workload{id: "E10", title: fmt.Sprintf("per-example gradients of E7's MLP %d-%d-%d f32, batch %d: `Jit(Vmap(Grad(loss)))`", e7In, e7Hidden, e7Classes, e7Batch),
		size: e7Batch, fn: e10Kiln, args: args}
	w.add(goLoop, func() (impl, error) {
		f := kiln.Jit(e10Grad)
		xs, ys := make([]*tensor.Array, e7Batch), make([]*tensor.Array, e7Batch)
		outs := make([][]*tensor.Array, e7Batch)
		all := make([][]float32, len(params))
		for k, p := range params {
			all[k] = make([]float32, e7Batch*len(p))
		}
		for i := range e7Batch {
			var err error
			if xs[i], err = tensor.FromSlice(d.x[i*e7In:(i+1)*e7In], e7In); err != nil {
				return impl{}, err
			}
			if ys[i], err = tensor.FromSlice(d.y[i*e7Classes:(i+1)*e7Classes], e7Classes); err != nil {
				return impl{}, err
			}
			outs[i] = make([]*tensor.Array, len(params))
			for k, p := range params {
				// Each call writes its example's slot of the stacked result.
				if outs[i][k], err = tensor.FromSlice(all[k][i*len(p):(i+1)*len(p)], shapes[k]...); err != nil {
					return impl{}, err
				}
			}
		}
		a := w.args
		run := func() error {
			for i := range e7Batch {
				if err := f.RunInto(outs[i], a[0], a[1], a[2], a[3], xs[i], ys[i]); err != nil {
					return err
				}
			}
			return nil
		}
		return impl{run: run, result: func() any { return all[0] }}, nil
	})
	for _, p := range []string{gorgoniaPeer, gonumPeer} {
		w.lacks(p, "no vmap or per-example gradients; the go-loop column is the loop a Go user writes")
	}
	return w
}

// e10OutputElems is how many f32 values E10's per-example gradients hold
// (w1, b1, w2 and b2 for each of the batch's examples): 9.8 MB that any
// implementation must write, whatever it computes.
const e10OutputElems = e7Batch * (e7In*e7Hidden + e7Hidden + e7Hidden*e7Classes + e7Classes)
