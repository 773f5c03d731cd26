package main

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestPerExampleGradsMatchLoop: the vmapped per-example gradients equal a
// Go loop of jitted GradTree calls, one example at a time, bit for bit.
func TestPerExampleGradsMatchLoop(t *testing.T) {
	const b = 24
	d := blobs(b, 1.2, 7)
	params := initParams(7)
	x, y := d.batchOf(0, b)
	var tree Params[*tensor.Array]
	if err := kiln.Jit(perExampleGrads).RunTree([]any{&tree}, &params, x, y); err != nil {
		t.Fatal(err)
	}
	vmapped := leaves(t, &tree)
	one := kiln.Jit(kiln.GradTree(lossOne))
	for i := range b {
		xi := must(tensor.FromSlice(d.x[i*dim:(i+1)*dim], dim))
		yi := must(tensor.FromSlice(d.y[i*classes:(i+1)*classes], classes))
		var g Params[*tensor.Array]
		if err := one.RunTree([]any{&g}, &params, xi, yi); err != nil {
			t.Fatal(err)
		}
		gs := leaves(t, &g)
		if len(gs) != 4 || len(vmapped) != 4 {
			t.Fatalf("%d and %d gradients, want 4", len(gs), len(vmapped))
		}
		for k, g := range gs {
			want := g.Data().([]float32)
			got := vmapped[k].Data().([]float32)[i*len(want) : (i+1)*len(want)]
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("example %d, gradient %d, element %d: vmapped %v (%#x), loop %v (%#x)",
						i, k, j, got[j], math.Float32bits(got[j]), want[j], math.Float32bits(want[j]))
				}
			}
		}
	}
}

// leaves are a Params' arrays in order: W1, B1, W2, B2.
func leaves(t *testing.T, p *Params[*tensor.Array]) []*tensor.Array {
	t.Helper()
	l, err := kiln.TreeLeaves[*tensor.Array](p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestClippedNormsBounded: after clipping, every example's gradient norm is
// at most the bound (and unclipped ones are unchanged).
func TestClippedNormsBounded(t *testing.T) {
	const b, clip = 32, 0.05
	d := blobs(b, 1.2, 9)
	params := initParams(9)
	x, y := d.batchOf(0, b)
	f := kiln.Jit(func(p Params[kiln.Value], x, y kiln.Value) (kiln.Value, kiln.Value) {
		grads := perExampleGrads(p, x, y)
		norms := globalNorms(grads)
		scale := kiln.Float(clip).Div(norms.Add(kiln.Float(1e-12))).Minimum(kiln.Float(1))
		clipped := kiln.TreeMap(grads, func(g kiln.Value) kiln.Value {
			return g.Mul(scale.Reshape(append([]int{b}, ones(len(g.Shape())-1)...)...))
		})
		return norms, globalNorms(clipped)
	})
	outs, err := f.RunAll(&params, x, y)
	if err != nil {
		t.Fatal(err)
	}
	before, after := outs[0].Data().([]float32), outs[1].Data().([]float32)
	clippedAny := false
	for i := range before {
		if after[i] > clip*(1+1e-5) {
			t.Errorf("example %d: norm %g after clipping to %g", i, after[i], clip)
		}
		if before[i] > clip {
			clippedAny = true
		}
	}
	if !clippedAny {
		t.Fatalf("no example's norm exceeded %g (norms %v): the test checks nothing", clip, before)
	}
}

// TestTrainLearns: DP-SGD with clipping and noise still learns the blobs.
func TestTrainLearns(t *testing.T) {
	c := config{steps: 200, batch: 64, lr: 0.1, clip: 1, noise: 0.5, seed: 1}
	norms := 0
	params, err := train(c, blobs(2048, 1.2, 1), func(int, float64) { norms++ })
	if err != nil {
		t.Fatal(err)
	}
	if norms != c.steps {
		t.Fatalf("report called %d times, want %d", norms, c.steps)
	}
	acc, err := accuracy(params, blobs(512, 1.2, 101))
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.9 {
		t.Fatalf("test accuracy %.3f, want ≥ 0.9", acc)
	}
}
