package kiln_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The derivatives of the indexing ops (trace/rules_index.go) against
// central finite differences: each case's function of two f64 arrays is
// reduced to a scalar with fixed random weights, so every element of the
// gradient is checked. Index arrays are constants with repeated and
// out-of-bounds entries.
func TestIndexGradients(t *testing.T) {
	idx := func(v ...int64) kiln.Value { a, _ := tensor.FromSlice(v); return kiln.Const(a) }
	rows := idx(2, 0, 2, -1, 7) // a repeat, a negative, an out-of-bounds row
	factors, _ := tensor.FromSlice([]float64{1.5, -2, 0.5}, 1, 3)
	cases := []struct {
		name   string
		xs, ys []int
		f      func(x, y kiln.Value) kiln.Value
	}{
		{"index", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value { return x.Index(rows, trace.Step(-1)) }},
		{"flip", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value { return x.Flip(0).Index(trace.RangeStep(3, 0, -2)) }},
		{"take-fill", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value { return trace.Take(x, rows, 0) }},
		{"take-along", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value {
			return trace.TakeAlongAxis(x, idx(2, 0, 0, 1, 3, 2).Reshape(2, 3), 0)
		}},
		{"dynamic-index", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value { return x.Index(trace.All, idx(1).Reshape()) }},
		{"set", []int{4, 3}, []int{5, 3}, func(x, y kiln.Value) kiln.Value { return x.At(rows).Set(y) }},
		{"set-scalar-index", []int{4}, []int{}, func(x, y kiln.Value) kiln.Value { return x.At(idx(2).Reshape()).Set(y) }},
		{"add", []int{4, 3}, []int{5, 3}, func(x, y kiln.Value) kiln.Value { return x.At(rows).Add(y.Mul(y)) }},
		{"add-clip", []int{4, 3}, []int{5, 3}, func(x, y kiln.Value) kiln.Value { return x.At(rows).Add(y, trace.WithMode(trace.ModeClip)) }},
		{"mul", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value { return x.At(rows).Mul(kiln.Const(factors)) }},
		{"min", []int{4, 3}, []int{5, 3}, func(x, y kiln.Value) kiln.Value { return x.At(rows).Min(y) }},
		{"max", []int{4, 3}, []int{5, 3}, func(x, y kiln.Value) kiln.Value {
			return x.At(rows, trace.Range(0, 2)).Max(y.Index(trace.All, trace.To(2)))
		}},
		{"dynamic-slice", []int{4, 3}, []int{1}, func(x, _ kiln.Value) kiln.Value {
			return trace.DynamicSlice(x, []kiln.Value{kiln.Int(3), kiln.Int(-2)}, []int{2, 2})
		}},
		{"dynamic-update-slice", []int{4, 3}, []int{2, 2}, func(x, y kiln.Value) kiln.Value {
			return trace.DynamicUpdateSlice(x, y, []kiln.Value{idx(3).Reshape(), kiln.Int(1)})
		}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	random := func(shape []int) *tensor.Array {
		v := make([]float64, trace.ShapeSize(shape))
		for i := range v {
			v[i] = r.Float64()*4 - 2
		}
		a, _ := tensor.FromSlice(v)
		a, _ = a.Reshape(shape...)
		return a
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := random(c.xs), random(c.ys)
			var w *tensor.Array
			scalar := func(x, y kiln.Value) kiln.Value {
				out := c.f(x, y)
				if w == nil {
					w = random(out.Shape())
				}
				return out.Mul(kiln.Const(w)).Sum()
			}
			if _, err := kiln.Jit(scalar).Run(x, y); err != nil {
				t.Fatal(err)
			}
			grads, err := kiln.Jit(kiln.Grad(scalar, 0, 1)).RunAll(x, y)
			if err != nil {
				t.Fatal(err)
			}
			f := kiln.Jit(scalar)
			for k, a := range []*tensor.Array{x, y} {
				got := f64s(t, grads[k])
				for i := range a.Size() {
					at := func(h float64) float64 {
						args := []*tensor.Array{x, y}
						p := a.Clone()
						d, _ := tensor.Data[float64](p)
						d[i] += h
						args[k] = p
						out, err := f.Run(args[0], args[1])
						if err != nil {
							t.Fatal(err)
						}
						return f64s(t, out)[0]
					}
					const h = 1e-6
					want := (at(h) - at(-h)) / (2 * h)
					if math.Abs(got[i]-want) > 1e-6*(1+math.Abs(want)) {
						t.Errorf("d/d%s[%d] = %v, finite difference %v", "xy"[k:k+1], i, got[i], want)
					}
				}
			}
		})
	}
}

// The updates of x.at[i].mul(y) have no derivative (JAX: only with unique
// indices): asking for it is a *trace.DerivError, not a wrong number.
func TestScatterMulUpdatesNotDifferentiable(t *testing.T) {
	x, _ := tensor.FromSlice([]float64{1, 2, 3})
	y, _ := tensor.FromSlice([]float64{4, 5})
	f := func(x, y kiln.Value) kiln.Value { return x.At([]int{0, 0}).Mul(y).Sum() }
	_, err := kiln.Jit(kiln.Grad(f, 1)).Run(x, y)
	var de *trace.DerivError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *trace.DerivError", err)
	}
}
