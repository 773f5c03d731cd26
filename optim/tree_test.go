package optim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

type params[T kiln.Leaf] struct {
	W      T
	Layers []struct{ B T }
}

// StepTree is Step on the trees' leaves: the same program, so the same
// bits, for Adam and for SGD with momentum.
func TestStepTreeIsStep(t *testing.T) {
	w := tensor.Must(tensor.FromSlice([]float32{0.5, -1, 2}))
	b0 := tensor.Must(tensor.FromSlice([]float32{0.25}))
	b1 := tensor.Must(tensor.FromSlice([]float32{3, 4}))
	loss := func(w, b0, b1 kiln.Value) kiln.Value {
		return w.Mul(w).Sum().Add(b0.Sin().Sum()).Add(b1.Exp().Sum())
	}
	for _, opt := range []optim.Optimizer{optim.Adam{LR: 0.1}, optim.SGD{LR: 0.1, Momentum: 0.9}} {
		tree := kiln.Jit(func(p params[kiln.Value]) []kiln.Value {
			f := func(p params[kiln.Value], _ ...kiln.Value) kiln.Value { return loss(p.W, p.Layers[0].B, p.Layers[1].B) }
			s := optim.InitTree(opt, p)
			for range 3 {
				p, s = optim.StepTree(opt, p, kiln.GradTree(f)(p), s)
			}
			return []kiln.Value{p.W, p.Layers[0].B, p.Layers[1].B}
		})
		flat := kiln.Jit(func(p ...kiln.Value) []kiln.Value {
			s := opt.Init(p)
			for range 3 {
				p, s = opt.Step(p, kiln.Grad(loss, 0, 1, 2)(p...), s)
			}
			return p
		})
		in := params[*tensor.Array]{W: w, Layers: []struct{ B *tensor.Array }{{b0}, {b1}}}
		got, err := tree.RunAll(&in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := flat.RunAll(w, b0, b1)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !tensor.Equal(got[i], want[i]) {
				t.Errorf("%T: leaf %d: tree %v, flat %v", opt, i, got[i], want[i])
			}
		}
	}
}

// Gradients of another structure are a *kiln.TreeError at the caller's
// line, returned by Jit.
func TestStepTreeMismatch(t *testing.T) {
	f := kiln.Jit(func(w kiln.Value) kiln.Value {
		p := params[kiln.Value]{W: w, Layers: []struct{ B kiln.Value }{{w}}}
		g := params[kiln.Value]{W: w}
		p, _ = optim.StepTree(optim.SGD{LR: 1}, p, g, optim.InitTree(optim.SGD{LR: 1}, p))
		return p.W
	})
	_, err := f.Run(tensor.Scalar(float32(1)))
	var te *kiln.TreeError
	if !errors.As(err, &te) || te.Op != "optim.step" || !strings.Contains(te.Pos.File, "tree_test.go") ||
		!strings.Contains(err.Error(), "the gradients have structure {W:*, Layers:[]}, the parameters {W:*, Layers:[{B:*}]}") {
		t.Fatalf("got %v", err)
	}
}
