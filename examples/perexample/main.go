// Command perexample trains a small classifier with differentially private
// SGD (DP-SGD, Abadi et al. 2016), the standard use of per-example
// gradients: every example's gradient is computed separately with
// kiln.VmapTree(kiln.GradTree(loss)), clipped to an L2 norm of at most clip,
// summed, and Gaussian noise of standard deviation noise·clip is added
// before the mean is taken. Written by hand, per-example gradients need a
// batch axis threaded through every op of the loss and its derivative;
// with Vmap the loss is written for one example, and with trees its
// parameters and their gradients are one struct, Params.
//
//	go run ./examples/perexample [-steps 300] [-batch 64] [-clip 1] [-noise 0.5]
//
// It prints the mean per-example gradient norm before clipping and the test
// accuracy as training goes.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
)

// The model: dim → hidden (ReLU) → classes, f32.
const (
	dim, hidden, classes = 16, 32, 4
)

// config is one training run.
type config struct {
	steps, batch int
	lr           float64
	clip, noise  float64 // the L2 bound of each example's gradient, and the noise multiplier σ
	seed         uint64
}

// Params are the model's weights as a tree: Params[kiln.Value] inside
// traced functions, Params[*tensor.Array] outside them, and a gradient is
// a Params too.
type Params[T kiln.Leaf] struct {
	W1, B1, W2, B2 T
}

// lossOne is the softmax cross-entropy of one example: xy[0] is x,
// f32[dim], xy[1] its one-hot label f32[classes]. Vmap adds the batch axis.
func lossOne(p Params[kiln.Value], xy ...kiln.Value) kiln.Value {
	x, y := xy[0], xy[1]
	pre := x.MatMul(p.W1).Add(p.B1)
	h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
	z := h.MatMul(p.W2).Add(p.B2)
	m := kiln.StopGradient(z.Max())
	lse := z.Sub(m).Exp().Sum().Log().Add(m)
	return lse.Sub(z.Mul(y).Sum())
}

// perExampleGrads returns the gradient of lossOne with respect to the
// weights, one per example: a Params whose every leaf has a leading batch
// axis. The weights are shared (not batched); x and y are batched on their
// first axis. It has GradTree's type, func(Params, ...Value) Params.
var perExampleGrads = kiln.VmapTree(kiln.GradTree(lossOne), kiln.InAxes(kiln.NoAxis, 0, 0))

// stepFunc returns DP-SGD's step for c: arguments the weights, x, y and
// the step's noise key; results the new weights and the batch's mean
// per-example gradient norm before clipping.
func stepFunc(c config) func(p Params[kiln.Value], x, y, key kiln.Value) (Params[kiln.Value], kiln.Value) {
	return func(p Params[kiln.Value], x, y, key kiln.Value) (Params[kiln.Value], kiln.Value) {
		grads := perExampleGrads(p, x, y)
		norms := globalNorms(grads)
		// Clip: scale each example's gradient by min(1, clip/‖g‖).
		scale := kiln.Float(c.clip).Div(norms.Add(kiln.Float(1e-12))).Minimum(kiln.Float(1))
		keys := random.Split(key, 4)
		i := 0 // TreeMap2 visits the leaves in order: W1, B1, W2, B2
		next := kiln.TreeMap2(p, grads, func(w, g kiln.Value) kiln.Value {
			s := scale.Reshape(append([]int{c.batch}, ones(len(g.Shape())-1)...)...)
			sum := g.Mul(s).Sum(0)
			noise := random.Normal(keys.Index(i), w.Shape(), w.DType()).Mul(kiln.Float(c.noise * c.clip))
			i++
			mean := sum.Add(noise).Div(kiln.Float(float64(c.batch)))
			return w.Sub(mean.Mul(kiln.Float(c.lr)))
		})
		return next, norms.Mean()
	}
}

// globalNorms is each example's gradient norm over all the weights:
// √(Σ_params Σ g²) for every example, f32[batch].
func globalNorms(grads Params[kiln.Value]) kiln.Value {
	leaves, _ := kiln.TreeLeaves[kiln.Value](&grads) // a struct of four Values: no error
	var sq kiln.Value
	for i, g := range leaves {
		axes := make([]int, len(g.Shape())-1)
		for a := range axes {
			axes[a] = a + 1
		}
		s := g.Mul(g).Sum(axes...)
		if i == 0 {
			sq = s
		} else {
			sq = sq.Add(s)
		}
	}
	return sq.Sqrt()
}

// ones returns n ones (the trailing axes of a per-example scale).
func ones(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// dataset is a classification set: n rows of dim features and one-hot labels.
type dataset struct {
	x, y []float32
	n    int
}

// blobs draws n points from `classes` Gaussian clusters in dim dimensions,
// their centres ±1 in each coordinate, spread sd.
func blobs(n int, sd float64, seed uint64) dataset {
	r := rand.New(rand.NewPCG(seed, 1))
	centres := make([]float64, classes*dim)
	cr := rand.New(rand.NewPCG(0, 2)) // the same centres for every split
	for i := range centres {
		centres[i] = float64(2*cr.IntN(2) - 1)
	}
	d := dataset{x: make([]float32, n*dim), y: make([]float32, n*classes), n: n}
	for i := range n {
		c := r.IntN(classes)
		d.y[i*classes+c] = 1
		for j := range dim {
			d.x[i*dim+j] = float32(centres[c*dim+j] + sd*r.NormFloat64())
		}
	}
	return d
}

// batchOf returns rows [i, i+b) of d as arrays.
func (d dataset) batchOf(i, b int) (x, y *tensor.Array) {
	x = must(tensor.FromSlice(d.x[i*dim:(i+b)*dim], b, dim))
	y = must(tensor.FromSlice(d.y[i*classes:(i+b)*classes], b, classes))
	return x, y
}

// initParams draws w1 (He-normal), b1 = 0, w2 (Glorot-normal), b2 = 0.
func initParams(seed uint64) Params[*tensor.Array] {
	r := rand.New(rand.NewPCG(seed, 3))
	normal := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(r.NormFloat64() * std)
		}
		return out
	}
	return Params[*tensor.Array]{
		W1: must(tensor.FromSlice(normal(dim*hidden, math.Sqrt(2.0/dim)), dim, hidden)),
		B1: must(tensor.FromSlice(make([]float32, hidden), hidden)),
		W2: must(tensor.FromSlice(normal(hidden*classes, math.Sqrt(2.0/(hidden+classes))), hidden, classes)),
		B2: must(tensor.FromSlice(make([]float32, classes), classes)),
	}
}

// accuracy is the share of d's rows whose largest logit is their label.
func accuracy(params Params[*tensor.Array], d dataset) (float64, error) {
	f := kiln.Jit(func(p Params[kiln.Value], x, y kiln.Value) kiln.Value {
		pre := x.MatMul(p.W1).Add(p.B1)
		z := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0)).MatMul(p.W2).Add(p.B2)
		return z.ArgMax(1).Eq(y.ArgMax(1)).Astype(tensor.F64).Mean()
	})
	x, y := d.batchOf(0, d.n)
	out, err := f.Run(&params, x, y)
	if err != nil {
		return 0, err
	}
	return out.Data().([]float64)[0], nil
}

// train runs c's DP-SGD on d, calling report after every step with the
// step number and the batch's mean per-example gradient norm.
func train(c config, d dataset, report func(step int, norm float64)) (Params[*tensor.Array], error) {
	params := initParams(c.seed)
	step := kiln.Jit(stepFunc(c))
	key := random.Key(int64(c.seed))
	for s := range c.steps {
		i := (s * c.batch) % (d.n - c.batch + 1)
		x, y := d.batchOf(i, c.batch)
		k, err := kiln.Eval(random.FoldIn(key, kiln.Int(int64(s))))
		if err != nil {
			return params, err
		}
		var next Params[*tensor.Array]
		var norm *tensor.Array
		if err := step.RunTree([]any{&next, &norm}, &params, x, y, k); err != nil {
			return params, err
		}
		params = next
		if report != nil {
			report(s, float64(norm.Data().([]float32)[0]))
		}
	}
	return params, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

func main() {
	var c config
	flag.IntVar(&c.steps, "steps", 300, "training steps")
	flag.IntVar(&c.batch, "batch", 64, "examples per step")
	flag.Float64Var(&c.lr, "lr", 0.1, "learning rate")
	flag.Float64Var(&c.clip, "clip", 1, "each example's gradient is clipped to this L2 norm")
	flag.Float64Var(&c.noise, "noise", 0.5, "noise multiplier σ: the noise's standard deviation is σ·clip")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the data, weights and noise")
	flag.Parse()
	trainSet, testSet := blobs(2048, 1.2, c.seed), blobs(512, 1.2, c.seed+100)
	params, err := train(c, trainSet, func(s int, norm float64) {
		if s%50 == 0 || s == c.steps-1 {
			fmt.Printf("step %3d  mean per-example gradient norm %.3f\n", s, norm)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	acc, err := accuracy(params, testSet)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("test accuracy %.3f (clip %g, noise σ %g, %d steps of %d)\n", acc, c.clip, c.noise, c.steps, c.batch)
}
