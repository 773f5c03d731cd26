package kiln_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewVmapMore: scan with a batched xs and an unbatched init, top_k
// with ties and NaNs, take in every mode with out-of-range batched
// indices, argsort of -0/+0, a closed-over Jit argument in a scan body,
// per example.
func TestReviewVmapMore(t *testing.T) {
	nan := float32(math.NaN())
	x := rf32([]int{3, 5}, 1, 3, 3, nan, 2, 0, float32(math.Copysign(0, -1)), 0, -1, 5, 7, 7, 7, 7, 7)
	idx := ri32([]int{3, 4}, -1, 7, 2, 0, 4, -6, 5, 1, 100, -100, 3, 3)
	scanF := func(x, c0 kiln.Value) []kiln.Value {
		c, ys := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
			n := c[0].Mul(kiln.Float(0.5)).Add(xs[0])
			return []kiln.Value{n}, []kiln.Value{n.Mul(c0)}
		}, []kiln.Value{kiln.ZerosLike(c0)}, []kiln.Value{x})
		return append(c, ys...)
	}
	reviewPerExample(t, "scan", scanF, []int{0, kiln.NoAxis}, nil, x, tensor.Scalar(float32(2)))
	reviewPerExample(t, "scan reverse", func(x, c0 kiln.Value) []kiln.Value {
		c, ys := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
			n := c[0].Add(xs[0]).Mul(c0)
			return []kiln.Value{n}, []kiln.Value{n}
		}, []kiln.Value{c0}, []kiln.Value{x}, kiln.ScanOptions{Reverse: true})
		return append(c, ys...)
	}, []int{1, 0}, nil, x, rf32([]int{5}, 1, 2, 3, 4, 5))
	reviewPerExample(t, "top_k", func(x kiln.Value) []kiln.Value {
		v, i := kiln.TopK(x, 3)
		return []kiln.Value{v, i}
	}, []int{0}, nil, x)
	reviewPerExample(t, "argsort", func(x kiln.Value) kiln.Value { return x.Argsort(0) }, []int{0}, nil, x)
	reviewPerExample(t, "sort axis 0 of a batch on axis 1", func(x kiln.Value) kiln.Value { return x.Sort(0) }, []int{1}, nil, x)
	for _, m := range []kiln.IndexMode{kiln.ModeClip, kiln.ModeFill} {
		reviewPerExample(t, fmt.Sprint("take ", m), func(x, i kiln.Value) kiln.Value {
			return kiln.Take(x, i, 0, kiln.WithMode(m))
		}, []int{0, 0}, nil, x, idx)
		reviewPerExample(t, fmt.Sprint("take, x shared ", m), func(x, i kiln.Value) kiln.Value {
			return kiln.Take(x, i, 0, kiln.WithMode(m))
		}, []int{kiln.NoAxis, 0}, nil, takeAxis(x, 0, 2), idx)
		reviewPerExample(t, fmt.Sprint("scatter add ", m), func(x, i kiln.Value) kiln.Value {
			return x.At(i).Add(kiln.Float(1), kiln.WithMode(m))
		}, []int{0, 0}, nil, x, idx)
	}
	// A Jit argument closed over in a vmapped scan body.
	f := kiln.Jit(func(w, xs kiln.Value) kiln.Value {
		return kiln.Vmap(func(x kiln.Value) kiln.Value {
			_, ys := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return c, []kiln.Value{xs[0].Mul(w)}
			}, []kiln.Value{kiln.Int(0)}, []kiln.Value{x}) // lax.scan takes an empty carry; Kiln does not
			return ys[0]
		})(xs)[0]
	})
	got, err := f.Run(tensor.Scalar(float32(3)), rf32([]int{2, 2}, 1, 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Data()) != "[3 6 9 12]" {
		t.Errorf("closed-over w in a vmapped scan: %v", got)
	}
}

// TestReviewVmapAxisErrors: axis_size that disagrees with the batch, a
// batch axis out of range and an OutAxes NoAxis for a batched result are
// *VmapErrors from Run.
func TestReviewVmapAxisErrors(t *testing.T) {
	x := rf32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	id := func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(2)) }
	for name, fn := range map[string]any{
		"axis_size 3 for a batch of 2":  kiln.Vmap(id, kiln.AxisSize(3)),
		"in_axes 2 of a rank-2 array":   kiln.Vmap(id, kiln.InAxes(2)),
		"in_axes -3":                    kiln.Vmap(id, kiln.InAxes(-3)),
		"out_axes 2 of a rank-2 result": kiln.Vmap(id, kiln.OutAxes(2)),
		"out_axes None, batched":        kiln.Vmap(id, kiln.OutAxes(kiln.NoAxis)),
		"two in_axes for one argument":  kiln.Vmap(id, kiln.InAxes(0, 0)),
		"no batched argument, no size":  kiln.Vmap(id, kiln.InAxes(kiln.NoAxis)),
		"negative axis_size":            kiln.Vmap(id, kiln.InAxes(kiln.NoAxis), kiln.AxisSize(-1)),
	} {
		_, err := kiln.Jit(fn).Run(x)
		var ve *kiln.VmapError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a *VmapError", name, err)
		}
	}
}
