package optim_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

// stepFunc jits one optimizer step of loss(p) = Σ c·p² over two
// parameters: arguments p0, p1, state…; results p0, p1, state….
func stepFunc(opt optim.Optimizer, c float64) *kiln.Func {
	loss := func(p0, p1 kiln.Value) kiln.Value {
		return p0.Mul(p0).Sum().Add(p1.Mul(p1).Sum()).Mul(kiln.Float(c))
	}
	return kiln.Jit(func(a ...kiln.Value) []kiln.Value {
		g := kiln.Grad(loss, 0, 1)(a[0], a[1])
		p, s := opt.Step(a[:2], g, a[2:])
		return append(p, s...)
	})
}

func vals(t *testing.T, a *tensor.Array) []float64 {
	t.Helper()
	d, err := tensor.Data[float64](a.Astype(tensor.F64))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run takes n steps from p0, p1 and returns the parameters after each.
func run(t *testing.T, opt optim.Optimizer, c float64, n int, p0, p1 []float64) [][]float64 {
	t.Helper()
	a0, _ := tensor.FromSlice(append([]float64{}, p0...))
	a1, _ := tensor.FromSlice(append([]float64{}, p1...))
	state, err := kiln.EvalAll(append(opt.Init([]kiln.Value{kiln.Const(a0), kiln.Const(a1)}), kiln.Float(0)))
	if err != nil {
		t.Fatal(err)
	}
	state = state[:len(state)-1]
	args := append([]any{a0, a1}, anys(state)...)
	f := stepFunc(opt, c)
	var out [][]float64
	for range n {
		res, err := f.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append(vals(t, res[0]), vals(t, res[1])...))
		args = anys(res)
	}
	return out
}

func anys(xs []*tensor.Array) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// TestSGD checks plain SGD and momentum (plain and Nesterov) against the
// formulas, step by step, in float64.
func TestSGD(t *testing.T) {
	p := []float64{1, -2}
	q := []float64{0.5}
	for _, o := range []optim.SGD{{LR: 0.1}, {LR: 0.1, Momentum: 0.9}, {LR: 0.05, Momentum: 0.8, Nesterov: true}} {
		got := run(t, o, 1.5, 5, p, q)
		x := append(append([]float64{}, p...), q...)
		buf := make([]float64, len(x))
		for s := range 5 {
			for i := range x {
				g := 3 * x[i] // d(1.5·x²)/dx
				u := g
				if o.Momentum != 0 {
					buf[i] = o.Momentum*buf[i] + g
					u = buf[i]
					if o.Nesterov {
						u = g + o.Momentum*buf[i]
					}
				}
				x[i] -= o.LR * u
				if math.Abs(got[s][i]-x[i]) > 1e-15*math.Abs(x[i]) {
					t.Fatalf("%+v step %d: p[%d] = %v, want %v", o, s, i, got[s][i], x[i])
				}
			}
		}
	}
}

// TestAdam checks Adam and AdamW against the formulas in float64.
func TestAdam(t *testing.T) {
	p := []float64{1, -2}
	q := []float64{0.25}
	for _, o := range []optim.Adam{{LR: 0.1}, {LR: 0.01, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, WeightDecay: 0.1}} {
		got := run(t, o, 0.5, 6, p, q)
		d := o
		if d.Beta1 == 0 {
			d.Beta1, d.Beta2, d.Eps = 0.9, 0.999, 1e-8
		}
		x := append(append([]float64{}, p...), q...)
		m, v := make([]float64, 3), make([]float64, 3)
		for s := range 6 {
			tt := float64(s + 1)
			c1, c2 := 1-math.Pow(d.Beta1, tt), 1-math.Pow(d.Beta2, tt)
			for i := range x {
				g := x[i]
				m[i] = d.Beta1*m[i] + (1-d.Beta1)*g
				v[i] = d.Beta2*v[i] + (1-d.Beta2)*g*g
				u := (m[i] / c1) / (math.Sqrt(v[i]/c2) + d.Eps)
				x[i] -= d.LR * (u + d.WeightDecay*x[i])
				if math.Abs(got[s][i]-x[i]) > 1e-13*math.Abs(x[i]) {
					t.Fatalf("%+v step %d: p[%d] = %v, want %v", o, s, i, got[s][i], x[i])
				}
			}
		}
	}
}

// TestLossScale checks dynamic loss scaling: a step with an infinite
// gradient is skipped and halves the scale; Period finite steps double it.
func TestLossScale(t *testing.T) {
	ls := optim.LossScale{Initial: 1024, Period: 2}
	f := kiln.Jit(func(p, g, scale, count kiln.Value) []kiln.Value {
		state := []kiln.Value{scale, count}
		gs, finite := ls.Unscale([]kiln.Value{g}, state)
		newP := optim.Select(finite, []kiln.Value{p.Sub(gs[0])}, []kiln.Value{p})
		return append(newP, ls.Next(state, finite)...)
	})
	init, err := kiln.EvalAll(ls.Init())
	if err != nil {
		t.Fatal(err)
	}
	p := tensor.Scalar(float32(10))
	scale, count := init[0], init[1]
	for i, g := range []float32{2048, float32(math.Inf(1)), 512, 512, 512} {
		out, err := f.RunAll(p, tensor.Scalar(g), scale, count)
		if err != nil {
			t.Fatal(err)
		}
		p, scale, count = out[0], out[1], out[2]
		want := [][3]float32{{8, 1024, 1}, {8, 512, 0}, {7, 512, 1}, {6, 1024, 0}, {5.5, 1024, 1}}[i]
		got := [3]float32{tensor.Index(p.Data(), 0).(float32), tensor.Index(scale.Data(), 0).(float32), tensor.Index(count.Data(), 0).(float32)}
		if got != want {
			t.Fatalf("step %d: (p, scale, count) = %v, want %v", i, got, want)
		}
	}
}
