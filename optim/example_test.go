package optim_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

// A jitted training step: loss, gradient and Adam update in one program.
func ExampleAdam() {
	opt := optim.Adam{LR: 0.1}
	loss := func(p kiln.Value) kiln.Value { return p.Sub(kiln.Int(3)).Pow(kiln.Int(2)).Sum() } // (p − 3)²
	step := kiln.Jit(func(p, m, v, t kiln.Value) []kiln.Value {
		vg := kiln.ValueAndGrad(loss)(p)
		ps, state := opt.Step([]kiln.Value{p}, vg[1:], []kiln.Value{m, v, t})
		return append(append(vg[:1], ps...), state...)
	})
	p, _ := tensor.FromSlice([]float32{0})
	state, _ := kiln.EvalAll(opt.Init([]kiln.Value{kiln.Const(p)}))
	args := []any{p, state[0], state[1], state[2]}
	var out []*tensor.Array
	for range 300 {
		out, _ = step.RunAll(args...)
		args = []any{out[1], out[2], out[3], out[4]}
	}
	fmt.Printf("p = %.3f, loss = %.1e\n", tensor.Index(out[1].Data(), 0), tensor.Index(out[0].Data(), 0))
	// Output: p = 3.000, loss = 5.1e-13
}

func ExampleSGD() {
	opt := optim.SGD{LR: 0.1, Momentum: 0.9}
	step := kiln.Jit(func(p, buf kiln.Value) []kiln.Value {
		g := kiln.Grad(func(p kiln.Value) kiln.Value { return p.Mul(p).Sum() })(p)
		ps, state := opt.Step([]kiln.Value{p}, g, []kiln.Value{buf})
		return append(ps, state...)
	})
	p, _ := tensor.FromSlice([]float64{1})
	out, _ := step.RunAll(p, tensor.Must(tensor.Zeros(tensor.F64, 1)))
	fmt.Println(out[0], out[1]) // buf = 0.9·0 + 2p; p − 0.1·buf
	// Output: f64[1] [0.8] f64[1] [2]
}

// A step whose f16 gradients overflow is skipped and the scale halved.
func ExampleLossScale() {
	ls := optim.LossScale{Initial: 1024}
	step := kiln.Jit(func(g, scale, count kiln.Value) []kiln.Value {
		state := []kiln.Value{scale, count}
		grads, finite := ls.Unscale([]kiln.Value{g}, state)
		return append([]kiln.Value{grads[0], finite}, ls.Next(state, finite)...)
	})
	init, _ := kiln.EvalAll(ls.Init())
	for _, g := range []float32{2048, 65504 * 2} {
		out, _ := step.RunAll(tensor.Scalar(g).Astype(tensor.F16), init[0], init[1])
		fmt.Println(out[0], out[1], out[2])
	}
	// Output:
	// f16[] 2 bool[] true f32[] 1024
	// f16[] inf bool[] false f32[] 512
}

// Parameters as a struct: the optimizer's state is a tree of the same
// structure, and Jit takes and returns both.
func ExampleStepTree() {
	type Params[T kiln.Leaf] struct{ W, B T }
	type State = optim.State[Params[kiln.Value], kiln.Value]
	opt := optim.Adam{LR: 0.1}
	loss := func(p Params[kiln.Value], _ ...kiln.Value) kiln.Value { // (w − 3)² + (b + 1)²
		return p.W.Sub(kiln.Int(3)).Pow(kiln.Int(2)).Add(p.B.Add(kiln.Int(1)).Pow(kiln.Int(2))).Sum()
	}
	init := kiln.Jit(func(p Params[kiln.Value]) State { return optim.InitTree(opt, p) })
	step := kiln.Jit(func(p Params[kiln.Value], s State) (kiln.Value, Params[kiln.Value], State) {
		l, g := kiln.ValueAndGradTree(loss)(p)
		p, s = optim.StepTree(opt, p, g, s)
		return l, p, s
	})
	p := Params[*tensor.Array]{W: tensor.Scalar(float32(0)), B: tensor.Scalar(float32(0))}
	var s optim.State[Params[*tensor.Array], *tensor.Array]
	if err := init.RunTree([]any{&s}, &p); err != nil {
		fmt.Println(err)
	}
	var l *tensor.Array
	for range 300 {
		if err := step.RunTree([]any{&l, &p, &s}, &p, &s); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Printf("w = %.3f, b = %.3f, %d moments, step %v\n", tensor.Index(p.W.Data(), 0), tensor.Index(p.B.Data(), 0), len(s.Slots), s.Scalars[0])
	// Output: w = 3.000, b = -1.000, 2 moments, step f32[] 300
}
