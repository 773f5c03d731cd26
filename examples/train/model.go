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

// Params are the MLP's weights, as Values inside a traced function and
// as arrays between steps: one struct for both (a kiln tree).
type Params[T kiln.Leaf] struct {
	W1, B1, W2, B2 T
}

// Carry is what one training step hands the next: the master weights,
// Adam's state (moments of the weights' structure, and the step count)
// and, for f16, the loss scale's state.
type Carry[T kiln.Leaf] struct {
	Params Params[T]
	Opt    optim.State[Params[T], T]
	Scale  []T // the loss scale and its count; empty unless f16
}

// logits is the MLP, relu(x·w1 + b1)·w2 + b2, computed in dtype c from the
// master weights (each converted once).
func logits(p Params[kiln.Value], x kiln.Value, c tensor.DType) kiln.Value {
	h := relu(x.Astype(c).MatMul(p.W1.Astype(c)).Add(p.B1.Astype(c)))
	return h.MatMul(p.W2.Astype(c)).Add(p.B2.Astype(c))
}

// relu is jax.nn.relu: x where x > 0, else 0, with slope 0 at 0 (a select,
// whose cotangent is a select; maximum(x, 0) would split the tie).
func relu(x kiln.Value) kiln.Value { return kiln.Where(x.Gt(kiln.Int(0)), x, kiln.Int(0)) }

// loss is the mean softmax cross-entropy of the logits against one-hot
// labels y, in the master dtype (the logits are converted to it: the
// softmax is not computed in bf16 or f16). The max that keeps exp in
// range is a constant to the derivative, as in jax.nn.logsumexp.
func loss(p Params[kiln.Value], x, y kiln.Value, c, master tensor.DType) kiln.Value {
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
	state   Carry[*tensor.Array] // the weights in the master dtype, Adam's state, the loss scale's
	x, y    *tensor.Array        // the batch, over xbuf and ybuf
	xbuf    []float32
	ybuf    []float32
}

func newModel(cfg config, dim int) (*model, error) {
	m := &model{cfg: cfg, opt: optim.Adam{LR: cfg.lr}}
	if cfg.compute == tensor.F16 {
		m.scaler = &optim.LossScale{}
	}
	init := initParams(dim, cfg.hidden, cfg.seed)
	shapes := [][]int{{dim, cfg.hidden}, {cfg.hidden}, {cfg.hidden, classes}, {classes}}
	weights := make([]*tensor.Array, len(init))
	for i, p := range init {
		a, err := tensor.FromSlice(p, shapes[i]...)
		if err != nil {
			return nil, err
		}
		weights[i] = a.Astype(cfg.master())
	}
	params := Params[*tensor.Array]{W1: weights[0], B1: weights[1], W2: weights[2], B2: weights[3]}
	start := kiln.Jit(func(p Params[kiln.Value]) Carry[kiln.Value] {
		c := Carry[kiln.Value]{Params: p, Opt: optim.InitTree(m.opt, p)}
		if m.scaler != nil {
			c.Scale = m.scaler.Init()
		}
		return c
	})
	if err := start.RunTree([]any{&m.state}, &params); err != nil {
		return nil, err
	}
	m.xbuf = make([]float32, cfg.batch*dim)
	m.ybuf = make([]float32, cfg.batch*classes)
	m.x, _ = tensor.FromSlice(m.xbuf, cfg.batch, dim)
	m.y, _ = tensor.FromSlice(m.ybuf, cfg.batch, classes)
	m.step = kiln.Jit(m.stepFn)
	m.predict = kiln.Jit(func(p Params[kiln.Value], x kiln.Value) kiln.Value {
		return logits(p, x, cfg.compute).ArgMax(1)
	})
	return m, nil
}

// weights are the master weights in Params' order: w1, b1, w2, b2.
func (m *model) weights() []*tensor.Array {
	w, _ := kiln.TreeLeaves[*tensor.Array](&m.state.Params) // a struct of four arrays: no error
	return w
}

// stepFn is one training step: from the carry (weights, optimizer and
// loss-scale state) and the batch x with one-hot labels y to the batch's
// loss and the next carry.
func (m *model) stepFn(s Carry[kiln.Value], x, y kiln.Value) (kiln.Value, Carry[kiln.Value]) {
	c, master := m.cfg.compute, m.cfg.master()
	objective := func(p Params[kiln.Value], _ ...kiln.Value) kiln.Value {
		l := loss(p, x, y, c, master)
		if m.scaler != nil {
			l = m.scaler.Scale(l, s.Scale)
		}
		return l
	}
	value, grads := kiln.ValueAndGradTree(objective)(s.Params)
	if m.scaler == nil {
		p, o := optim.StepTree(m.opt, s.Params, grads, s.Opt)
		return value, Carry[kiln.Value]{Params: p, Opt: o}
	}
	grads, finite := optim.UnscaleTree(*m.scaler, grads, s.Scale)
	p, o := optim.StepTree(m.opt, s.Params, grads, s.Opt)
	next := Carry[kiln.Value]{
		Params: optim.SelectTree(finite, p, s.Params),
		Opt:    optim.SelectTree(finite, o, s.Opt),
		Scale:  m.scaler.Next(s.Scale, finite),
	}
	return value.Div(s.Scale[0].Astype(value.DType())), next
}

// trainStep runs one step on rows idx of d and returns the batch's loss.
func (m *model) trainStep(d *dataset, idx []int) (float64, error) {
	d.batch(idx, m.xbuf, m.ybuf, classes)
	var l *tensor.Array
	var next Carry[*tensor.Array]
	if err := m.step.RunTree([]any{&l, &next}, &m.state, m.x, m.y); err != nil {
		return 0, err
	}
	// The old carry is dead: the next step's results reuse its arrays.
	old, err := kiln.TreeLeaves[*tensor.Array](&m.state)
	if err != nil {
		return 0, err
	}
	for _, a := range old {
		m.step.Release(a)
	}
	loss := tensor.Index(l.Astype(tensor.F64).Data(), 0).(float64)
	m.step.Release(l)
	m.state = next
	return loss, nil
}

// accuracy is the share of d's rows whose predicted class is the label.
func (m *model) accuracy(d *dataset) (float64, error) {
	x, err := tensor.FromSlice(d.x, d.n, d.dim)
	if err != nil {
		return 0, err
	}
	pred, err := m.predict.Run(&m.state.Params, x)
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
