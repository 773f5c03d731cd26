package main

import (
	"math"
	"math/rand"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

const classes = 10

// config is one training run.
type config struct {
	hidden, batch, epochs int
	lr                    float64
	compute               tensor.DType // the forward and backward pass's dtype
	seed                  int64
	save, load            string // safetensors files of the weights to write after training, and to start from
}

// master is the dtype of the weights the optimizer updates: f32 (f64 for
// an f64 run), whatever the compute dtype.
func (c config) master() tensor.DType {
	if c.compute == tensor.F64 {
		return tensor.F64
	}
	return tensor.F32
}

// initParams draws w1 (dim × hidden, He-normal for the ReLU), b1 (zeros),
// w2 (hidden × 10, Glorot-normal), b2 (zeros), as float64.
func initParams(dim, hidden int, seed int64) [][]float64 {
	r := rand.New(rand.NewSource(seed))
	normal := func(n int, std float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = r.NormFloat64() * std
		}
		return out
	}
	return [][]float64{
		normal(dim*hidden, math.Sqrt(2/float64(dim))), make([]float64, hidden),
		normal(hidden*classes, math.Sqrt(2/float64(hidden+classes))), make([]float64, classes),
	}
}

// logits is the MLP, relu(x·w1 + b1)·w2 + b2, computed in dtype c from the
// master weights (each converted once).
func logits(p []kiln.Value, x kiln.Value, c tensor.DType) kiln.Value {
	h := relu(x.Astype(c).MatMul(p[0].Astype(c)).Add(p[1].Astype(c)))
	return h.MatMul(p[2].Astype(c)).Add(p[3].Astype(c))
}

// relu is jax.nn.relu: x where x > 0, else 0, with slope 0 at 0 (a select,
// whose cotangent is a select; maximum(x, 0) would split the tie).
func relu(x kiln.Value) kiln.Value { return kiln.Where(x.Gt(kiln.Int(0)), x, kiln.Int(0)) }

// loss is the mean softmax cross-entropy of the logits against one-hot
// labels y, in the master dtype (the logits are converted to it: the
// softmax is not computed in bf16 or f16). The max that keeps exp in
// range is a constant to the derivative, as in jax.nn.logsumexp.
func loss(p []kiln.Value, x, y kiln.Value, c, master tensor.DType) kiln.Value {
	z := logits(p, x, c).Astype(master)
	m := kiln.StopGradient(z.Max(1)).Reshape(-1, 1)
	lse := z.Sub(m).Exp().Sum(1).Log().Add(m.Reshape(-1))
	return lse.Sub(z.Mul(y).Sum(1)).Mean()
}

// model is the MLP being trained: its weights and optimizer state, and
// its jitted training step and prediction.
type model struct {
	cfg     config
	opt     optim.Adam
	scaler  *optim.LossScale // f16 only
	step    *kiln.Func
	predict *kiln.Func
	params  []*tensor.Array // w1, b1, w2, b2 in the master dtype
	state   []*tensor.Array // Adam's, then the loss scale's
	x, y    *tensor.Array   // the batch, over xbuf and ybuf
	xbuf    []float32
	ybuf    []float32
}

func newModel(cfg config, dim int) (*model, error) {
	m := &model{cfg: cfg, opt: optim.Adam{LR: cfg.lr}}
	if cfg.compute == tensor.F16 {
		m.scaler = &optim.LossScale{}
	}
	for i, p := range initParams(dim, cfg.hidden, cfg.seed) {
		shape := [][]int{{dim, cfg.hidden}, {cfg.hidden}, {cfg.hidden, classes}, {classes}}[i]
		a, err := tensor.FromSlice(p, shape...)
		if err != nil {
			return nil, err
		}
		m.params = append(m.params, a.Astype(cfg.master()))
	}
	init := m.opt.Init(consts(m.params))
	if m.scaler != nil {
		init = append(init, m.scaler.Init()...)
	}
	var err error
	if m.state, err = kiln.EvalAll(init); err != nil {
		return nil, err
	}
	m.xbuf = make([]float32, cfg.batch*dim)
	m.ybuf = make([]float32, cfg.batch*classes)
	m.x, _ = tensor.FromSlice(m.xbuf, cfg.batch, dim)
	m.y, _ = tensor.FromSlice(m.ybuf, cfg.batch, classes)
	m.step = kiln.Jit(m.stepFn)
	m.predict = kiln.Jit(func(w1, b1, w2, b2, x kiln.Value) kiln.Value {
		return logits([]kiln.Value{w1, b1, w2, b2}, x, cfg.compute).ArgMax(1)
	})
	return m, nil
}

func consts(as []*tensor.Array) []kiln.Value {
	out := make([]kiln.Value, len(as))
	for i, a := range as {
		out[i] = kiln.Const(a)
	}
	return out
}

// stepFn is one training step: arguments the weights, the optimizer
// state (and the loss scale's), the batch x and its one-hot labels y;
// results the loss, the new weights and the new state.
func (m *model) stepFn(a ...kiln.Value) []kiln.Value {
	c, master := m.cfg.compute, m.cfg.master()
	n, ns := 4, m.opt.StateSize(4)
	params, state, x, y := a[:n], a[n:n+ns], a[len(a)-2], a[len(a)-1]
	var scale []kiln.Value
	if m.scaler != nil {
		scale = a[n+ns : n+ns+2]
	}
	objective := func(p ...kiln.Value) kiln.Value {
		l := loss(p, x, y, c, master)
		if m.scaler != nil {
			l = m.scaler.Scale(l, scale)
		}
		return l
	}
	vg := kiln.ValueAndGrad(objective, 0, 1, 2, 3)(params...)
	value, grads := vg[0], vg[1:]
	if m.scaler == nil {
		newParams, newState := m.opt.Step(params, grads, state)
		return append(append([]kiln.Value{value}, newParams...), newState...)
	}
	grads, finite := m.scaler.Unscale(grads, scale)
	newParams, newState := m.opt.Step(params, grads, state)
	newParams = optim.Select(finite, newParams, params)
	newState = optim.Select(finite, newState, state)
	out := append([]kiln.Value{value.Div(scale[0].Astype(value.DType()))}, newParams...)
	return append(append(out, newState...), m.scaler.Next(scale, finite)...)
}

// trainStep runs one step on rows idx of d and returns the batch's loss.
func (m *model) trainStep(d *dataset, idx []int) (float64, error) {
	d.batch(idx, m.xbuf, m.ybuf, classes)
	args := make([]any, 0, len(m.params)+len(m.state)+2)
	for _, a := range m.params {
		args = append(args, a)
	}
	for _, a := range m.state {
		args = append(args, a)
	}
	args = append(args, m.x, m.y)
	outs, err := m.step.RunAll(args...)
	if err != nil {
		return 0, err
	}
	// The old weights and state are dead: the next step's results reuse them.
	for _, a := range append(m.params, m.state...) {
		m.step.Release(a)
	}
	l := tensor.Index(outs[0].Astype(tensor.F64).Data(), 0).(float64)
	m.step.Release(outs[0])
	m.params = outs[1 : 1+len(m.params)]
	m.state = outs[1+len(m.params):]
	return l, nil
}

// accuracy is the share of d's rows whose predicted class is the label.
func (m *model) accuracy(d *dataset) (float64, error) {
	x, err := tensor.FromSlice(d.x, d.n, d.dim)
	if err != nil {
		return 0, err
	}
	pred, err := m.predict.Run(m.params[0], m.params[1], m.params[2], m.params[3], x)
	if err != nil {
		return 0, err
	}
	classes, err := tensor.Data[int64](pred.Astype(tensor.I64))
	if err != nil {
		return 0, err
	}
	right := 0
	for i, c := range classes {
		if int(c) == d.y[i] {
			right++
		}
	}
	return float64(right) / float64(d.n), nil
}
