package kiln_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/optim"
	"github.com/kiln-go/kiln/tensor"
)

type reviewModel[T kiln.Leaf] struct {
	W T
	B map[string]T
}

type reviewState = optim.State[reviewModel[kiln.Value], kiln.Value]

// TestReviewVmapEnsembleAdam: an ensemble of 3 models trained by one
// vmapped Adam step (VmapTree over parameters, state and data) equals
// each model's own step, bit for bit — the parameters (a struct with a
// map), Adam's slots and its step count all batched.
func TestReviewVmapEnsembleAdam(t *testing.T) {
	opt := optim.Adam{LR: 1e-2}
	loss := func(p reviewModel[kiln.Value], xy ...kiln.Value) kiln.Value {
		z := xy[0].MatMul(p.W).Add(p.B["b"]).Tanh()
		return z.Sub(xy[1]).Square().Mean()
	}
	step := func(p reviewModel[kiln.Value], s reviewState, x, y kiln.Value) (kiln.Value, reviewModel[kiln.Value], reviewState) {
		l, g := kiln.ValueAndGradTree(loss)(p, x, y)
		p, s = optim.StepTree(opt, p, g, s)
		return l, p, s
	}
	init := kiln.Jit(func(p reviewModel[kiln.Value]) reviewState { return optim.InitTree(opt, p) })
	r := rand.New(rand.NewSource(3))
	const n = 3
	models := make([]reviewModel[*tensor.Array], n)
	for i := range models {
		models[i] = reviewModel[*tensor.Array]{W: randF32(r, 0.5, 4, 2), B: map[string]*tensor.Array{"b": randF32(r, 0.1, 2)}}
	}
	x, y := randF32(r, 1, n, 5, 4), randF32(r, 1, n, 5, 2)
	stack := func(get func(i int) *tensor.Array) *tensor.Array {
		var xs []*tensor.Array
		for i := range n {
			xs = append(xs, get(i))
		}
		return stackAxis(xs, 0)
	}
	// Per model.
	one := kiln.Jit(step)
	var wantL []*tensor.Array
	var wantP []reviewModel[*tensor.Array]
	for i := range n {
		var s optim.State[reviewModel[*tensor.Array], *tensor.Array]
		if err := init.RunTree([]any{&s}, models[i]); err != nil {
			t.Fatal(err)
		}
		var l *tensor.Array
		var p reviewModel[*tensor.Array]
		var s2 optim.State[reviewModel[*tensor.Array], *tensor.Array]
		if err := one.RunTree([]any{&l, &p, &s2}, models[i], s, takeAxis(x, 0, i), takeAxis(y, 0, i)); err != nil {
			t.Fatal(err)
		}
		wantL, wantP = append(wantL, l), append(wantP, p)
	}
	// The ensemble.
	bp := reviewModel[*tensor.Array]{W: stack(func(i int) *tensor.Array { return models[i].W }),
		B: map[string]*tensor.Array{"b": stack(func(i int) *tensor.Array { return models[i].B["b"] })}}
	var bs optim.State[reviewModel[*tensor.Array], *tensor.Array]
	vinit := kiln.Jit(kiln.VmapTree(func(p reviewModel[kiln.Value]) reviewState { return optim.InitTree(opt, p) }))
	if err := vinit.RunTree([]any{&bs}, bp); err != nil {
		t.Fatal(err)
	}
	var l *tensor.Array
	var p reviewModel[*tensor.Array]
	var s2 optim.State[reviewModel[*tensor.Array], *tensor.Array]
	if err := kiln.Jit(kiln.VmapTree(step)).RunTree([]any{&l, &p, &s2}, bp, bs, x, y); err != nil {
		t.Fatal(err)
	}
	equalArrays(t, "losses", l, stackAxis(wantL, 0))
	equalArrays(t, "W", p.W, stack(func(i int) *tensor.Array { return wantP[i].W }))
	equalArrays(t, "b", p.B["b"], stack(func(i int) *tensor.Array { return wantP[i].B["b"] }))
	if len(s2.Scalars) == 0 || s2.Scalars[0].Dim(0) != n {
		t.Errorf("the step count is not batched: %v", fmt.Sprint(s2.Scalars))
	}
}
