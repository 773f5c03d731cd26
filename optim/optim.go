package optim

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// An Optimizer turns gradients into new parameters.
type Optimizer interface {
	// Init returns the first state for params: arrays of their shapes and
	// dtypes (and scalars), zeros.
	Init(params []kiln.Value) []kiln.Value
	// Step returns the parameters updated with grads (one per parameter,
	// of its dtype and shape) and the next state.
	Step(params, grads, state []kiln.Value) (newParams, newState []kiln.Value)
	// StateSize is the length of the state for n parameters.
	StateSize(n int) int
}

// zerosLike is zeros of p's dtype and shape (jnp.zeros_like).
func zerosLike(p kiln.Value) kiln.Value { return kiln.Where(kiln.Bool(false), p, kiln.Int(0)) }

// SGD is stochastic gradient descent with momentum (PyTorch's).
type SGD struct {
	LR       float64 // learning rate
	Momentum float64 // μ; 0 for plain SGD (no state)
	Nesterov bool
}

// StateSize is one momentum buffer per parameter, or none.
func (o SGD) StateSize(n int) int {
	if o.Momentum == 0 {
		return 0
	}
	return n
}

// Init returns zero momentum buffers.
func (o SGD) Init(params []kiln.Value) []kiln.Value {
	if o.Momentum == 0 {
		return nil
	}
	out := make([]kiln.Value, len(params))
	for i, p := range params {
		out[i] = zerosLike(p)
	}
	return out
}

// Step applies p −= lr·buf with buf = μ·buf + g.
func (o SGD) Step(params, grads, state []kiln.Value) ([]kiln.Value, []kiln.Value) {
	check("SGD", params, grads, state, o.StateSize(len(params)))
	newParams := make([]kiln.Value, len(params))
	newState := make([]kiln.Value, len(state))
	lr := kiln.Float(o.LR)
	for i, p := range params {
		g := grads[i]
		if o.Momentum == 0 {
			newParams[i] = p.Sub(lr.Mul(g))
			continue
		}
		buf := kiln.Float(o.Momentum).Mul(state[i]).Add(g)
		newState[i] = buf
		if o.Nesterov {
			g = g.Add(kiln.Float(o.Momentum).Mul(buf))
		} else {
			g = buf
		}
		newParams[i] = p.Sub(lr.Mul(g))
	}
	return newParams, newState
}

// Adam is Adam (AdamW with WeightDecay). Zero fields take the usual
// defaults: LR 1e-3, Beta1 0.9, Beta2 0.999, Eps 1e-8.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	WeightDecay           float64 // decoupled, AdamW's λ
}

func (o Adam) withDefaults() Adam {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.LR, 1e-3)
	def(&o.Beta1, 0.9)
	def(&o.Beta2, 0.999)
	def(&o.Eps, 1e-8)
	return o
}

// StateSize is m and v per parameter, then the step count.
func (o Adam) StateSize(n int) int { return 2*n + 1 }

// Init returns zero moments and a zero step count (f32).
func (o Adam) Init(params []kiln.Value) []kiln.Value {
	out := make([]kiln.Value, 0, 2*len(params)+1)
	for _, p := range params {
		out = append(out, zerosLike(p))
	}
	for _, p := range params {
		out = append(out, zerosLike(p))
	}
	return append(out, kiln.Float(0).Astype(tensor.F32))
}

// Step applies one Adam update: m = β₁m + (1−β₁)g, v = β₂v + (1−β₂)g²,
// p −= lr·(m̂/(√v̂ + ε) + λp).
func (o Adam) Step(params, grads, state []kiln.Value) ([]kiln.Value, []kiln.Value) {
	o = o.withDefaults()
	n := len(params)
	check("Adam", params, grads, state, o.StateSize(n))
	t := state[2*n].Add(kiln.Int(1))
	// The bias corrections 1 − βᵗ, in f64 for f64 parameters, f32 for the
	// others (f16's 11 bits would round β₂ = 0.999 to 0.999 − 2⁻¹¹).
	corr := func(beta float64, d tensor.DType) kiln.Value {
		if d != tensor.F64 {
			d = tensor.F32
		}
		return kiln.Int(1).Sub(kiln.Float(beta).Astype(d).Pow(t.Astype(d)))
	}
	newParams := make([]kiln.Value, n)
	newState := make([]kiln.Value, 2*n+1)
	for i, p := range params {
		g := grads[i]
		m := kiln.Float(o.Beta1).Mul(state[i]).Add(kiln.Float(1 - o.Beta1).Mul(g))
		v := kiln.Float(o.Beta2).Mul(state[n+i]).Add(kiln.Float(1 - o.Beta2).Mul(g.Mul(g)))
		d := p.DType()
		mhat := m.Div(corr(o.Beta1, d).Astype(d))
		vhat := v.Div(corr(o.Beta2, d).Astype(d))
		u := mhat.Div(vhat.Sqrt().Add(kiln.Float(o.Eps)))
		if o.WeightDecay != 0 {
			u = u.Add(kiln.Float(o.WeightDecay).Mul(p))
		}
		newParams[i] = p.Sub(kiln.Float(o.LR).Mul(u))
		newState[i], newState[n+i] = m, v
	}
	newState[2*n] = t
	return newParams, newState
}

// check panics on a call that does not fit together: a programming error
// in the training step, which Jit reports as a *kiln.PanicError.
func check(name string, params, grads, state []kiln.Value, size int) {
	if len(grads) != len(params) || len(state) != size {
		panic(fmt.Sprintf("optim: %s.Step with %d params, %d grads and %d state values (want %d)", name, len(params), len(grads), len(state), size))
	}
}
