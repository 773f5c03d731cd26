package optim

import (
	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// LossScale is dynamic loss scaling for f16 training (jmp's
// DynamicLossScale): small gradients that would flush to zero in f16 are
// computed on a loss multiplied by a large scale, and divided by it
// before the update. Its state is the scale and the count of finite steps
// since it last changed, two f32 scalars.
type LossScale struct {
	Initial float64 // the first scale; 2¹⁵ when zero
	Period  int     // finite steps before the scale doubles; 2000 when zero
}

// Init returns the first state: the scale and a zero count.
func (s LossScale) Init() []kiln.Value {
	init := s.Initial
	if init == 0 {
		init = 1 << 15
	}
	return []kiln.Value{kiln.Float(init).Astype(tensor.F32), kiln.Float(0).Astype(tensor.F32)}
}

// Scale multiplies a loss by the scale (in the loss's dtype).
func (s LossScale) Scale(loss kiln.Value, state []kiln.Value) kiln.Value {
	return loss.Mul(state[0].Astype(loss.DType()))
}

// Unscale divides gradients by the scale (in f32, then back to each
// gradient's dtype) and reports whether they are all finite (a bool
// scalar).
func (s LossScale) Unscale(grads []kiln.Value, state []kiln.Value) ([]kiln.Value, kiln.Value) {
	out := make([]kiln.Value, len(grads))
	finite := kiln.Bool(true)
	for i, g := range grads {
		out[i] = g.Astype(tensor.F32).Div(state[0]).Astype(g.DType())
		finite = finite.And(g.IsFinite().Astype(tensor.I32).Min().Astype(tensor.Bool))
	}
	return out, finite
}

// Next is the state after a step: the scale halved (at least 1) when the
// gradients were not finite, doubled after Period finite steps.
func (s LossScale) Next(state []kiln.Value, finite kiln.Value) []kiln.Value {
	period := s.Period
	if period == 0 {
		period = 2000
	}
	scale, count := state[0], state[1]
	count = kiln.Where(finite, count.Add(kiln.Int(1)), kiln.Float(0))
	grow := count.Ge(kiln.Int(int64(period)))
	scale = kiln.Where(finite, kiln.Where(grow, scale.Mul(kiln.Int(2)), scale), scale.Mul(kiln.Float(0.5)).Maximum(kiln.Int(1)))
	count = kiln.Where(grow, kiln.Float(0), count)
	return []kiln.Value{scale, count}
}

// Select keeps old where the step is skipped (finite is false), takes new
// otherwise: for parameters and optimizer state.
func Select(finite kiln.Value, newVals, oldVals []kiln.Value) []kiln.Value {
	out := make([]kiln.Value, len(newVals))
	for i := range newVals {
		out[i] = kiln.Where(finite, newVals[i], oldVals[i])
	}
	return out
}
