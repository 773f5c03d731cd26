package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewVmapRules: a vmapped function is traced with the rule set of
// the Func it runs in, as its examples are: f16 + i32 is f64 under NumPy,
// f16 under JAX.
func TestReviewVmapRules(t *testing.T) {
	h := make([]tensor.Float16, 6)
	for i := range h {
		h[i] = tensor.Float32ToF16(float32(i) * 0.3)
	}
	x := tensor.Must(tensor.FromSlice(h, 2, 3))
	y := ri32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	f := func(x, y kiln.Value) []kiln.Value {
		return []kiln.Value{x.Add(y), y.Mul(x), x.Add(kiln.Float(1.5)).Mul(y)}
	}
	for _, r := range []*promote.RuleSet{promote.JAX, promote.NumPy, promote.Torch} {
		reviewPerExample(t, "rules "+r.Name(), f, []int{0, 0}, []kiln.Option{kiln.Rules(r)}, x, y)
		reviewPerExample(t, "rules "+r.Name()+" grad", kiln.Grad(func(x, y kiln.Value) kiln.Value {
			return x.Mul(y).Sum().Astype(tensor.F32)
		}), []int{0, 0}, []kiln.Option{kiln.Rules(r)}, x, y)
	}
}

// TestReviewVmapProfiles: the profile's accumulator and float rules
// (sum, mean, cumsum, true division of integers, where with Python
// scalars) hold per example under vmap, for every rule set's profile.
func TestReviewVmapProfiles(t *testing.T) {
	x := tensor.Must(tensor.FromSlice([]int8{1, -2, 3, 100, 100, 100, -7, 8, 9}, 3, 3))
	y := tensor.Must(tensor.FromSlice([]uint8{1, 2, 0, 4, 5, 6, 7, 8, 9}, 3, 3))
	var torch bool // torch has no integer mean
	f := func(x, y kiln.Value) []kiln.Value {
		out := []kiln.Value{
			x.Sum(), x.Cumsum(0), x.Prod(), x.Div(y), x.Sqrt(),
			kiln.Where(x.Gt(kiln.Int(0)), y, kiln.Int(1)), x.Add(kiln.Float(0.5)),
		}
		if !torch {
			out = append(out, x.Mean())
		}
		return out
	}
	for _, r := range []*promote.RuleSet{promote.JAX, promote.NumPy, promote.Torch} {
		for _, ax := range [][]int{{0, 0}, {1, kiln.NoAxis}} {
			args := []*tensor.Array{x, y}
			if ax[1] == kiln.NoAxis {
				args[1] = takeAxis(y, 0, 1)
			}
			torch = r == promote.Torch
			reviewPerExample(t, "profile "+r.Name(), f, ax, []kiln.Option{kiln.Rules(r)}, args...)
		}
	}
}
