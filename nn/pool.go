package nn

import (
	"fmt"

	"github.com/kiln-go/kiln/trace"
)

// Pooling as flax.linen's max_pool, avg_pool and sum_pool: x is [batch,
// spatial…, features], window and strides (nil: 1) cover the spatial
// dims, padding is "SAME" or "VALID" (lax.padtype_to_pads). They are
// lax.reduce_window compositions (trace.ReduceWindowMax/Sum): see
// trace/pool.go for their order of summation and their derivative at ties.

// MaxPool is the maximum over each window (flax.linen.max_pool); SAME
// padding never wins (it is −∞, or the dtype's lowest integer).
func MaxPool(x trace.Value, window, strides []int, padding string) trace.Value {
	w, o, err := poolWindow("max_pool", x, window, strides, padding)
	if err != nil {
		return trace.Failure(err)
	}
	return trace.ReduceWindowMax(x, w, o)
}

// SumPool is the sum over each window, in x's dtype (flax.linen.sum_pool).
func SumPool(x trace.Value, window, strides []int, padding string) trace.Value {
	w, o, err := poolWindow("sum_pool", x, window, strides, padding)
	if err != nil {
		return trace.Failure(err)
	}
	return trace.ReduceWindowSum(x, w, o)
}

// AvgPool is the mean over each window (flax.linen.avg_pool): the window
// sum divided by the window's size when countIncludePad (flax's default:
// SAME padding counts as zeros), else by the number of x's elements in
// the window. Integer inputs are summed in their dtype, then divided as
// jnp's true division does (in the default float).
func AvgPool(x trace.Value, window, strides []int, padding string, countIncludePad bool) trace.Value {
	w, o, err := poolWindow("avg_pool", x, window, strides, padding)
	if err != nil {
		return trace.Failure(err)
	}
	sum := trace.ReduceWindowSum(x, w, o)
	if countIncludePad {
		n := 1
		for _, k := range window {
			n *= k
		}
		return sum.Div(trace.Int(int64(n)))
	}
	// The count depends on the spatial position only: summed over ones of
	// shape [1, spatial…, 1] (the same window over the same ones and
	// padding, added in the same order, so the same bits at every batch
	// element and feature) and broadcast by the division, not a second
	// window sum over an array of x's size.
	shape := x.Shape()
	shape[0], shape[len(shape)-1] = 1, 1
	return sum.Div(trace.ReduceWindowSum(trace.Full(shape, trace.Scalar(x, 1)), w, o))
}

// poolWindow turns flax's spatial window and strides into reduce_window's
// per-dim ones.
func poolWindow(op string, x trace.Value, window, strides []int, padding string) ([]int, trace.WindowOptions, error) {
	rank := len(x.Shape())
	if len(window) != rank-2 || strides != nil && len(strides) != len(window) {
		return nil, trace.WindowOptions{}, &trace.ShapeError{Op: op, Pos: trace.CallerPos(), Shapes: [][]int{x.Shape()},
			Msg: fmt.Sprintf("window %v and strides %v must have one entry per spatial dim of a [batch, spatial…, features] input of shape %v", window, strides, x.Shape())}
	}
	w := append(append([]int{1}, window...), 1)
	o := trace.WindowOptions{PaddingMode: padding}
	if padding == "" {
		o.PaddingMode = "VALID"
	}
	if strides != nil {
		o.Strides = append(append([]int{1}, strides...), 1)
	}
	return w, o, nil
}
