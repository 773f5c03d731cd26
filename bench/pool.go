package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
)

// poolSizes are E6p's max pooling: batch, spatial size (square), features,
// window and stride (SAME padding).
type poolSizes struct{ n, h, c, k, s int }

// out is the pooled spatial size, SAME: ⌈h/s⌉.
func (p poolSizes) out() int { return (p.h + p.s - 1) / p.s }

// The pooling rows' sizes: a ResNet stem's max_pool (3×3, stride 2) on
// E6k's activations, and -quick's (odd, so SAME pads both ends).
var (
	fullPool  = poolSizes{n: 8, h: 56, c: 64, k: 3, s: 2}
	quickPool = poolSizes{n: 2, h: 9, c: 8, k: 3, s: 2}
)

// maxPoolNHWC is E6p: flax's max_pool, window k×k, stride s, SAME, on an
// NHWC input (Kiln's reduce_window composition, trace/pool.go).
func maxPoolNHWC(p poolSizes) func(x kiln.Value) kiln.Value {
	return func(x kiln.Value) kiln.Value { return nn.MaxPool(x, []int{p.k, p.k}, []int{p.s, p.s}, "SAME") }
}

// newPoolRow is E6p, max pooling's forward pass. Its peer is PyTorch's
// F.max_pool2d on channels-last tensors (peer_torch.py); the result is the
// maximum of each window, the same bits in any order (the inputs hold no
// NaN), so the peers must agree exactly. It counts the bytes of one read
// of the input and one write of the output.
func newPoolRow(id string, p poolSizes) *workload {
	x := uniform32(17, p.n*p.h*p.h*p.c, -1, 1)
	o := p.out()
	dims := []int32{int32(p.n), int32(p.h), int32(p.c), int32(p.k), int32(p.s)}
	return &workload{id: id, size: p.h, ext: "E6pool", dtype: tensor.F32, bytes: 4 * float64(len(x)+p.n*o*o*p.c),
		title: fmt.Sprintf("max_pool %d×%d, stride %d, SAME (flax `nn.max_pool`: `reduce_window` max), f32 NHWC [%d, %d, %d, %d]", p.k, p.k, p.s, p.n, p.h, p.h, p.c),
		fn:    maxPoolNHWC(p), args: []any{mustArray(x, p.n, p.h, p.h, p.c)},
		files: map[string][]byte{"x.bin": bytesOf(x), "dims.bin": bytesOf(dims)}}
}

// newPoolGradRow is E6pb, E6p's forward and backward pass: jax.vjp of
// the max_pool at x pulled back through the output cotangent g — the
// pooled output, then the input cotangent (each window's g to the first
// element of the window equal to its maximum, summed where windows
// overlap: JAX's select_and_scatter_add). PyTorch's peer is
// max_pool2d_with_indices and its backward on channels-last tensors, as
// autograd runs them. The outputs are checked part by part; the input
// cotangent within the f32 tolerance, as the peers may add the up to
// four windows' shares of an element in another order.
func newPoolGradRow(id string, p poolSizes) *workload {
	x := uniform32(17, p.n*p.h*p.h*p.c, -1, 1)
	o := p.out()
	g := uniform32(18, p.n*o*o*p.c, -1, 1)
	dims := []int32{int32(p.n), int32(p.h), int32(p.c), int32(p.k), int32(p.s)}
	pool := maxPoolNHWC(p)
	fn := func(x, g kiln.Value) (kiln.Value, kiln.Value) {
		y, pull := kiln.VJP(pool, x)
		return y[0], pull(g)[0]
	}
	return &workload{id: id, size: p.h, ext: "E6poolgrad", dtype: tensor.F32, tol: e6Tol[float32](),
		bytes: 4 * float64(2*len(x)+2*len(g)), parts: []int{len(g), len(x)},
		title: fmt.Sprintf("max_pool forward and backward (`jax.vjp`: the output and the input cotangent) of E6p's %d×%d, stride %d, SAME, f32 NHWC [%d, %d, %d, %d]", p.k, p.k, p.s, p.n, p.h, p.h, p.c),
		fn:    fn, args: []any{mustArray(x, p.n, p.h, p.h, p.c), mustArray(g, p.n, o, o, p.c)},
		files: map[string][]byte{"x.bin": bytesOf(x), "g.bin": bytesOf(g), "dims.bin": bytesOf(dims)}}
}
