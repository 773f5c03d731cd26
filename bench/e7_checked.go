package main

import (
	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// E7c and E7i time checked mode (kiln.Checked, issue 25) on E7's step
// written as most cross-entropies are: the labels are integer class
// indices and the loss takes each row's label logit with take_along_axis
// (a gather; its gradient is a scatter-add). E7i runs it unchecked, E7c
// with kiln.Checked()'s index and division checks, which test every label
// inside the gather and scatter kernels; E7c's target is its time over
// E7i's, the two timed in the same rounds.

// e7IdxLoss is e7Loss with integer labels.
func e7IdxLoss(w1, b1, w2, b2, x, labels kiln.Value) kiln.Value {
	pre := x.MatMul(w1).Add(b1)
	h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
	z := h.MatMul(w2).Add(b2)
	m := kiln.StopGradient(z.Max(1)).Reshape(-1, 1)
	lse := z.Sub(m).Exp().Sum(1).Log().Add(m.Reshape(-1))
	picked := kiln.TakeAlongAxis(z, labels.Reshape(-1, 1), 1).Reshape(-1)
	return lse.Sub(picked).Mean()
}

// e7IdxKiln is e7Kiln on e7IdxLoss.
var e7IdxKiln = e7StepOf(e7IdxLoss)

// newE7Idx is E7c (checked) or E7i (its unchecked pair).
func newE7Idx(id string, checked bool) *workload {
	w := newE7()
	labels := make([]int32, e7Batch)
	y := w.args[len(w.args)-1].(*tensor.Array).Data().([]float32)
	for i := range labels {
		for c := range e7Classes {
			if y[i*e7Classes+c] == 1 {
				labels[i] = int32(c)
			}
		}
	}
	w.args[len(w.args)-1] = mustArray(labels, e7Batch)
	w.id, w.fn, w.peers, w.files, w.why = id, e7IdxKiln, nil, nil, nil // Kiln-only rows
	w.title = "E7's step with integer labels (take_along_axis), unchecked (E7c's pair)"
	if checked {
		w.title = "E7's step with integer labels (take_along_axis) in checked mode, `kiln.Checked()`"
		w.opts = []kiln.Option{kiln.Checked()}
		w.pair = newE7Idx("E7i", false)
	}
	return w
}
