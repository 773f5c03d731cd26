package kiln_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// whileSquare squares x until it exceeds limit (at most 6 times): a loop
// whose trip count depends on x, so a batch of x is a batched predicate.
func whileSquare(x, limit kiln.Value) kiln.Value {
	out := kiln.WhileLoop(func(c []kiln.Value) kiln.Value {
		return c[0].Lt(limit).And(c[1].Lt(kiln.Int(6)))
	}, func(c []kiln.Value) []kiln.Value {
		return []kiln.Value{c[0].Mul(c[0]).Add(kiln.Float(0.5)), c[1].Add(kiln.Int(1))}
	}, x, kiln.Const(tensor.Scalar(int32(0))))
	return out[0]
}

// TestReviewVmapWhileGrad: reverse mode through a while loop is refused
// (JAX's "Reverse-mode differentiation does not work for lax.while_loop"),
// batched or not, as a *DerivError, never a panic; forward mode works and
// equals the per-example JVP.
func TestReviewVmapWhileGrad(t *testing.T) {
	x := rf32([]int{4}, 1.1, 0.3, 2, 1.5)
	lim := tensor.Scalar(float32(10))
	for name, fn := range map[string]any{
		"vmap(grad)": kiln.Vmap(kiln.Grad(whileSquare), kiln.InAxes(0, kiln.NoAxis)),
		"grad(sum(vmap))": kiln.Grad(func(x, l kiln.Value) kiln.Value {
			return kiln.Vmap(whileSquare, kiln.InAxes(0, kiln.NoAxis))(x, l)[0].Sum()
		}),
	} {
		_, err := kiln.Jit(fn).RunAll(x, lim)
		var de *kiln.DerivError
		if !errors.As(err, &de) {
			t.Errorf("%s: err = %v, want a *DerivError", name, err)
		}
	}
	jvp := func(x, l kiln.Value) []kiln.Value {
		p, tg := kiln.JVP(whileSquare, []kiln.Value{x, l}, []kiln.Value{kiln.OnesLike(x), kiln.ZerosLike(l)})
		return append(p, tg...)
	}
	reviewPerExample(t, "vmap(jvp)", jvp, []int{0, kiln.NoAxis}, nil, x, lim)
	// A batched limit too.
	lims := rf32([]int{4}, 10, 1e6, 0.1, 3)
	reviewPerExample(t, "vmap(jvp) batched limit", jvp, []int{0, 0}, nil, x, lims)
}

// TestReviewVmapNested: vmap of vmap with in_axes mixing axes and NoAxis,
// against the doubly nested loop.
func TestReviewVmapNested(t *testing.T) {
	// f(a, b) = a·b + sum(a), a [3], b [3]
	f := func(a, b kiln.Value) kiln.Value { return a.Mul(b).Sum().Add(a.Sum()) }
	a := rf32([]int{2, 3, 4}, make([]float32, 24)...) // outer batch on axis 0, inner on -1
	for i := range 24 {
		a.Data().([]float32)[i] = float32(i)*0.25 - 2
	}
	b := rf32([]int{3, 5}, make([]float32, 15)...) // only the inner batch, on axis 1
	for i := range 15 {
		b.Data().([]float32)[i] = float32(i*i) * 0.125
	}
	inner := kiln.Vmap(f, kiln.InAxes(-1, NoAxisT))
	_ = inner
	g := kiln.Vmap(kiln.Vmap(f, kiln.InAxes(-1, 1), kiln.OutAxes(0)), kiln.InAxes(0, kiln.NoAxis), kiln.OutAxes(1))
	// a's inner batch (4) and b's (5) differ: a *VmapError, not a panic.
	_, err := kiln.Jit(g).Run(a, b)
	var ve *kiln.VmapError
	if !errors.As(err, &ve) {
		t.Fatalf("inner batch sizes 4 and 5: err = %v, want a *VmapError", err)
	}
	b4 := rf32([]int{3, 4}, make([]float32, 12)...)
	for i := range 12 {
		b4.Data().([]float32)[i] = float32(i*i) * 0.125
	}
	got, err := kiln.Jit(g).Run(a, b4)
	if err != nil {
		t.Fatal(err)
	}
	// got[j, i] = f(a[i, :, j], b4[:, j])
	one := kiln.Jit(f)
	if s := got.Shape(); len(s) != 2 || s[0] != 4 || s[1] != 2 {
		t.Fatalf("shape %v, want [4 2]", s)
	}
	for i := range 2 {
		for j := range 4 {
			w, err := one.Run(takeAxis(takeAxis(a, 0, i), 1, j), takeAxis(b4, 1, j))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := got.Data().([]float32)[j*2+i], w.Data().([]float32)[0]; g != w {
				t.Errorf("[%d,%d] = %v, want %v", j, i, g, w)
			}
		}
	}
}

const NoAxisT = kiln.NoAxis

// TestReviewVmapEmptyBatch: a batch of 0 examples, through an op of every
// family, gives results with a batch axis of size 0.
func TestReviewVmapEmptyBatch(t *testing.T) {
	x := rf32([]int{0, 3}, nil...)
	w := rf32([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	f := func(x, w kiln.Value) []kiln.Value {
		s := x.Sort(-1)
		y := x.MatMul(w)
		l := kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Sum().Lt(kiln.Int(100)) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Int(1))} }, x)[0]
		c := kiln.Cond(x.Sum().Gt(kiln.Int(0)), func(o []kiln.Value) []kiln.Value { return o }, func(o []kiln.Value) []kiln.Value {
			return []kiln.Value{o[0].Neg()}
		}, x)[0]
		return []kiln.Value{s, y, l, c, x.Index(kiln.Const(tensor.Scalar(int32(1))))}
	}
	got, err := kiln.Jit(kiln.Vmap(f, kiln.InAxes(0, kiln.NoAxis))).RunAll(x, w)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 3}, {0, 2}, {0, 3}, {0, 3}, {0}}
	for k, g := range got {
		if !slicesEqual(g.Shape(), want[k]) {
			t.Errorf("result %d: shape %v, want %v", k, g.Shape(), want[k])
		}
	}
	// With out_axes 1.
	got, err = kiln.Jit(kiln.Vmap(f, kiln.InAxes(0, kiln.NoAxis), kiln.OutAxes(-1))).RunAll(x, w)
	if err != nil {
		t.Fatal(err)
	}
	want = [][]int{{3, 0}, {2, 0}, {3, 0}, {3, 0}, {0}}
	for k, g := range got {
		if !slicesEqual(g.Shape(), want[k]) {
			t.Errorf("out_axes -1: result %d: shape %v, want %v", k, g.Shape(), want[k])
		}
	}
	// Grad of an empty batch's sum: zeros of w's shape.
	gw, err := kiln.Jit(kiln.Grad(func(w, x kiln.Value) kiln.Value {
		return kiln.Vmap(func(x kiln.Value) kiln.Value { return x.MatMul(w).Sum() })(x)[0].Sum()
	})).Run(w, x)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range gw.Data().([]float32) {
		if v != 0 {
			t.Errorf("grad element %d = %v, want 0", i, v)
		}
	}
}

// TestReviewVmapNarrowAndComplex: f16, bf16 and complex arguments.
func TestReviewVmapNarrowAndComplex(t *testing.T) {
	h := make([]tensor.Float16, 12)
	bh := make([]tensor.BFloat16, 12)
	c := make([]complex64, 12)
	for i := range h {
		h[i] = tensor.Float32ToF16(float32(i)*0.37 - 2)
		bh[i] = tensor.BFloat16FromFloat32(float32(i)*1.37 - 5)
		c[i] = complex(float32(i)*0.5-1, float32(i*i)*0.1)
	}
	H := tensor.Must(tensor.FromSlice(h, 3, 4))
	B := tensor.Must(tensor.FromSlice(bh, 3, 4))
	C := tensor.Must(tensor.FromSlice(c, 3, 4))
	f := func(h, b, c kiln.Value) []kiln.Value {
		return []kiln.Value{
			h.Exp().Mul(b).Sum(),
			h.Mul(kiln.Float(0.1)).Tanh().Cumsum(0),
			c.Mul(c.Conj()).Add(h).Sum(),
			c.Exp().MatMul(c.Reshape(4, 1)),
			b.Sort(0),
			c.Real().Add(c.Imag()).Max(),
		}
	}
	for _, ax := range [][]int{{0, 0, 0}, {1, 1, -1}, {kiln.NoAxis, 0, 1}, {0, kiln.NoAxis, kiln.NoAxis}} {
		args := []*tensor.Array{H, B, C}
		if ax[0] == 1 {
			args = []*tensor.Array{moveAxisArray(t, H, 0, 1), moveAxisArray(t, B, 0, 1), moveAxisArray(t, C, 0, 1)}
		}
		if ax[0] == kiln.NoAxis {
			args[0] = takeAxis(H, 0, 1)
			args[2] = moveAxisArray(t, C, 0, 1)
		}
		if ax[1] == kiln.NoAxis {
			args[1], args[2] = takeAxis(B, 0, 2), takeAxis(C, 0, 0)
		}
		reviewPerExample(t, "narrow/complex", f, ax, nil, args...)
	}
	// Gradient per example through f16.
	g := kiln.Grad(func(h, b kiln.Value) kiln.Value { return h.Exp().Mul(b).Sum() })
	reviewPerExample(t, "grad f16", g, []int{0, 0}, nil, H, B)
}

// TestReviewVmapWeak: a weak argument keeps its weak type per example
// (Weak(array) batched), and a weak scalar literal cannot be batched (it
// has no axis): a *VmapError.
func TestReviewVmapWeak(t *testing.T) {
	f := func(x, y kiln.Value) kiln.Value { return x.Mul(y) }
	x := tensor.Must(tensor.FromSlice([]tensor.Float16{tensor.Float32ToF16(1.5), tensor.Float32ToF16(2.5)}, 2))
	y := rf32([]int{2}, 3, 4) // weak f32 times strong f16 is f16
	got, err := kiln.Jit(kiln.Vmap(f)).Run(x, kiln.Weak(y))
	if err != nil {
		t.Fatal(err)
	}
	if got.DType() != tensor.F16 {
		t.Errorf("f16 × weak f32 batched: dtype %s, want float16 (the weak type survives vmap)", got.DType())
	}
	// A weak literal as a batched argument: rank 0, axis 0 out of range
	// (outside Jit the error surfaces at Eval, as every eager op's).
	_, err = kiln.Eval(kiln.Vmap(f)(kiln.Float(2), kiln.Const(y))[0])
	var ve *kiln.VmapError
	if !errors.As(err, &ve) {
		t.Errorf("a weak literal batched along axis 0: err = %v, want a *VmapError", err)
	}
	// Unbatched, it is shared and stays weak.
	out := kiln.Vmap(f, kiln.InAxes(kiln.NoAxis, 0))(kiln.Float(2), kiln.Const(x))[0]
	if out.Err() != nil || out.DType() != tensor.F16 {
		t.Errorf("weak literal shared: %v %v, want float16", out.DType(), out.Err())
	}
}

// TestReviewVmapCache: one jitted Vmap caches a program per batch size.
func TestReviewVmapCache(t *testing.T) {
	sq := kiln.Jit(kiln.Vmap(func(x kiln.Value) kiln.Value { return x.Mul(x).Sum() }))
	for _, n := range []int{3, 5, 3, 1, 5} {
		xs := make([]float32, 2*n)
		for i := range xs {
			xs[i] = float32(i)
		}
		got, err := sq.Run(tensor.Must(tensor.FromSlice(xs, n, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if got.Shape()[0] != n {
			t.Fatalf("batch %d: shape %v", n, got.Shape())
		}
		for b := range n {
			a, c := xs[2*b], xs[2*b+1]
			if w := a*a + c*c; got.Data().([]float32)[b] != w {
				t.Errorf("batch %d, example %d: %v, want %v", n, b, got.Data().([]float32)[b], w)
			}
		}
	}
	if s := sq.Stats(); s.Misses != 3 {
		t.Errorf("3 batch sizes: %d misses, want 3 (%+v)", s.Misses, s)
	}
}

// TestReviewVmapConcurrent: one vmapped Func run from 8 goroutines gives
// every goroutine the per-example answer (run it with -race).
func TestReviewVmapConcurrent(t *testing.T) {
	f := kiln.Jit(kiln.Vmap(kiln.Grad(func(w, x kiln.Value) kiln.Value { return x.MatMul(w).Tanh().Sum() }), kiln.InAxes(kiln.NoAxis, 0)))
	w := rf32([]int{3, 2}, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6)
	var wg sync.WaitGroup
	res := make([]*tensor.Array, 8)
	errs := make([]error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 1 + g%3
			x := make([]float32, n*3)
			for i := range x {
				x[i] = float32(i) * 0.3
			}
			for range 20 {
				res[g], errs[g] = f.Run(w, tensor.Must(tensor.FromSlice(x, n, 1, 3)))
				if errs[g] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range 8 {
		if errs[g] != nil {
			t.Fatal(errs[g])
		}
		if d := diffArrays(res[g], res[g%3], false); d != "" {
			t.Errorf("goroutine %d differs from goroutine %d: %s", g, g%3, d)
		}
	}
}
