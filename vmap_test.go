package kiln_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
)

// mlpLoss is E7's loss (bench/e7.go): an MLP's mean softmax
// cross-entropy, for a batch x of rows and one-hot labels y.
func mlpLoss(w1, b1, w2, b2, x, y kiln.Value) kiln.Value {
	pre := x.MatMul(w1).Add(b1)
	h := kiln.Where(pre.Gt(kiln.Int(0)), pre, kiln.Int(0))
	z := h.MatMul(w2).Add(b2)
	m := kiln.StopGradient(z.Max(1)).Reshape(-1, 1)
	lse := z.Sub(m).Exp().Sum(1).Log().Add(m.Reshape(-1))
	return lse.Sub(z.Mul(y).Sum(1)).Mean()
}

func randF32(r *rand.Rand, scale float64, shape ...int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(r.NormFloat64() * scale)
	}
	return tensor.Must(tensor.FromSlice(xs, shape...))
}

// mlpData are the MLP's weights and a batch of n examples, each a [1,in]
// row and its one-hot label.
func mlpData(r *rand.Rand, n, in, hidden, classes int) (params []*tensor.Array, x, y *tensor.Array) {
	params = []*tensor.Array{randF32(r, 0.2, in, hidden), randF32(r, 0.1, hidden), randF32(r, 0.2, hidden, classes), randF32(r, 0.1, classes)}
	x = randF32(r, 1, n, 1, in)
	ys := make([]float32, n*classes)
	for i := range n {
		ys[i*classes+r.Intn(classes)] = 1
	}
	return params, x, tensor.Must(tensor.FromSlice(ys, n, 1, classes))
}

func equalArrays(t *testing.T, what string, got, want *tensor.Array) {
	t.Helper()
	if d := diffArrays(got, want, false); d != "" {
		t.Errorf("%s: %s\ngot  %s\nwant %s", what, d, formatArray(got), formatArray(want))
	}
}

// TestVmapPerExampleGradients: Jit(Vmap(Grad(loss))) equals a Go loop of
// Jit(Grad(loss)) calls, one per example, bit for bit.
func TestVmapPerExampleGradients(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const n = 16
	params, x, y := mlpData(r, n, 8, 16, 5)
	grad := kiln.Grad(mlpLoss, 0, 1, 2, 3)
	perExample := kiln.Jit(kiln.Vmap(grad, kiln.InAxes(kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, 0, 0)))
	got, err := perExample.RunAll(params[0], params[1], params[2], params[3], x, y)
	if err != nil {
		t.Fatal(err)
	}
	one := kiln.Jit(grad)
	for b := range n {
		want, err := one.RunAll(params[0], params[1], params[2], params[3], takeAxis(x, 0, b), takeAxis(y, 0, b))
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			equalArrays(t, fmt.Sprintf("example %d, gradient %d", b, k), takeAxis(got[k], 0, b), want[k])
		}
	}
}

// TestVmapCompositions checks Vmap under and over the other
// transformations against Go loops of per-example calls.
func TestVmapCompositions(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	w, xs := randF32(r, 1, 3, 2), randF32(r, 1, 4, 3) // 4 examples of [3]
	f := func(w, x kiln.Value) kiln.Value { return x.MatMul(w).Tanh().Sum() }
	loop := func(fn any, w, xs *tensor.Array) [][]*tensor.Array {
		j := kiln.Jit(fn)
		var outs [][]*tensor.Array
		for b := range xs.Dim(0) {
			o, err := j.RunAll(w, takeAxis(xs, 0, b))
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, o)
		}
		return outs
	}
	run := func(fn any, args ...any) []*tensor.Array {
		out, err := kiln.Jit(fn).RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	t.Run("grad of vmap", func(t *testing.T) {
		// With respect to the batched argument, each example's gradient is
		// its own: bit for bit the per-example gradient.
		total := func(w, xs kiln.Value) kiln.Value { return kiln.Vmap(f, kiln.InAxes(kiln.NoAxis, 0))(w, xs)[0].Sum() }
		got := run(kiln.Grad(total, 0, 1), w, xs)
		want := loop(kiln.Grad(f, 0, 1), w, xs)
		var sum float64
		for b := range want {
			equalArrays(t, "dx", takeAxis(got[1], 0, b), want[b][1])
		}
		// With respect to the shared w, the sum of the examples'
		// gradients (summed in another order: close, not equal).
		for i := range 6 {
			sum = 0
			for b := range want {
				sum += float64(want[b][0].Data().([]float32)[i])
			}
			if g := float64(got[0].Data().([]float32)[i]); math.Abs(g-sum) > 1e-5*(1+math.Abs(sum)) {
				t.Errorf("dw[%d] = %v, the examples' sum %v", i, g, sum)
			}
		}
	})
	t.Run("grad of vmap closing over the variable", func(t *testing.T) {
		// The vmapped function closes over w, which Grad differentiates:
		// the same gradient as with w passed as an unbatched argument.
		closing := func(w, xs kiln.Value) kiln.Value {
			return kiln.Vmap(func(x kiln.Value) kiln.Value { return f(w, x) })(xs)[0].Sum()
		}
		passing := func(w, xs kiln.Value) kiln.Value { return kiln.Vmap(f, kiln.InAxes(kiln.NoAxis, 0))(w, xs)[0].Sum() }
		got, want := run(kiln.Grad(closing), w, xs), run(kiln.Grad(passing), w, xs)
		equalArrays(t, "dw", got[0], want[0])
	})
	t.Run("vmap of vmap", func(t *testing.T) {
		// Every pair (x_i, y_j): the inner vmap over y, the outer over x.
		d := func(x, y kiln.Value) kiln.Value { return x.Sub(y).Mul(x.Sub(y)).Sum().Sqrt() }
		ys := randF32(r, 1, 5, 3)
		pair := kiln.Vmap(kiln.Vmap(d, kiln.InAxes(kiln.NoAxis, 0)), kiln.InAxes(0, kiln.NoAxis))
		got := run(pair, xs, ys)[0]
		one := kiln.Jit(d)
		for i := range 4 {
			for j := range 5 {
				want, err := one.Run(takeAxis(xs, 0, i), takeAxis(ys, 0, j))
				if err != nil {
					t.Fatal(err)
				}
				equalArrays(t, "distance", takeAxis(takeAxis(got, 0, i), 0, j), want)
			}
		}
	})
	t.Run("jvp of vmap", func(t *testing.T) {
		ts := randF32(r, 1, 4, 3)
		fn := func(w, xs, ts kiln.Value) []kiln.Value {
			vf := kiln.Vmap(f, kiln.InAxes(kiln.NoAxis, 0))
			o, tan := kiln.JVP(func(xs kiln.Value) []kiln.Value { return vf(w, xs) }, []kiln.Value{xs}, []kiln.Value{ts})
			return append(o, tan...)
		}
		got := run(fn, w, xs, ts)
		one := kiln.Jit(func(w, x, t kiln.Value) []kiln.Value {
			o, tan := kiln.JVP(func(x kiln.Value) kiln.Value { return f(w, x) }, []kiln.Value{x}, []kiln.Value{t})
			return append(o, tan...)
		})
		for b := range 4 {
			want, err := one.RunAll(w, takeAxis(xs, 0, b), takeAxis(ts, 0, b))
			if err != nil {
				t.Fatal(err)
			}
			equalArrays(t, "value", takeAxis(got[0], 0, b), want[0])
			equalArrays(t, "tangent", takeAxis(got[1], 0, b), want[1])
		}
	})
	t.Run("vjp of vmap", func(t *testing.T) {
		cts := randF32(r, 1, 4)
		fn := func(w, xs, cts kiln.Value) []kiln.Value {
			_, pb := kiln.VJP(func(xs kiln.Value) []kiln.Value { return kiln.Vmap(f, kiln.InAxes(kiln.NoAxis, 0))(w, xs) }, xs)
			return pb(cts)
		}
		got := run(fn, w, xs, cts)[0]
		one := kiln.Jit(func(w, x, ct kiln.Value) []kiln.Value {
			_, pb := kiln.VJP(func(x kiln.Value) kiln.Value { return f(w, x) }, x)
			return pb(ct)
		})
		for b := range 4 {
			want, err := one.Run(w, takeAxis(xs, 0, b), takeAxis(cts, 0, b))
			if err != nil {
				t.Fatal(err)
			}
			equalArrays(t, "cotangent", takeAxis(got, 0, b), want)
		}
	})
	t.Run("vmap of jvp and vjp", func(t *testing.T) {
		ts := randF32(r, 1, 4, 3)
		jvpOf := func(w, x, t kiln.Value) []kiln.Value {
			o, tan := kiln.JVP(func(x kiln.Value) kiln.Value { return f(w, x) }, []kiln.Value{x}, []kiln.Value{t})
			return append(o, tan...)
		}
		got := run(kiln.Vmap(jvpOf, kiln.InAxes(kiln.NoAxis, 0, 0)), w, xs, ts)
		one := kiln.Jit(jvpOf)
		for b := range 4 {
			want, err := one.RunAll(w, takeAxis(xs, 0, b), takeAxis(ts, 0, b))
			if err != nil {
				t.Fatal(err)
			}
			equalArrays(t, "tangent", takeAxis(got[1], 0, b), want[1])
		}
		vjpOf := func(w, x kiln.Value) []kiln.Value {
			_, pb := kiln.VJP(func(w kiln.Value) kiln.Value { return f(w, x) }, w)
			return pb(kiln.Float(1))
		}
		gotW := run(kiln.Vmap(vjpOf, kiln.InAxes(kiln.NoAxis, 0)), w, xs)[0]
		for b, want := range loop(vjpOf, w, xs) {
			equalArrays(t, "vjp", takeAxis(gotW, 0, b), want[0])
		}
	})
	t.Run("vmap of a Func", func(t *testing.T) {
		got := run(kiln.Vmap(kiln.Jit(f), kiln.InAxes(kiln.NoAxis, 0)), w, xs)[0]
		for b, want := range loop(f, w, xs) {
			equalArrays(t, "value", takeAxis(got, 0, b), want[0])
		}
	})
	t.Run("out axes and closures", func(t *testing.T) {
		// The vmapped function closes over the jitted function's w; the
		// result goes out along its last axis.
		fn := func(w, xs kiln.Value) []kiln.Value {
			g := func(x kiln.Value) kiln.Value { return x.MatMul(w) }
			return kiln.Vmap(g, kiln.OutAxes(-1))(xs)
		}
		got := run(fn, w, xs)[0]
		for b, want := range loop(func(w, x kiln.Value) kiln.Value { return x.MatMul(w) }, w, xs) {
			equalArrays(t, "value", takeAxis(got, 1, b), want[0])
		}
	})
}

// TestVmapErrors checks Vmap's refusals: *VmapErrors (errors.As through
// Run) at the caller's line, with JAX's wording.
func TestVmapErrors(t *testing.T) {
	f := func(x, y kiln.Value) kiln.Value { return x.Add(y) }
	x3, x4 := randF32(rand.New(rand.NewSource(3)), 1, 3, 2), randF32(rand.New(rand.NewSource(4)), 1, 4, 2)
	cases := []struct {
		name string
		fn   func(kiln.Value, kiln.Value) []kiln.Value
		want string
	}{
		{"inconsistent sizes", func(x, y kiln.Value) []kiln.Value { return kiln.Vmap(f)(x, y) }, "inconsistent sizes"},
		{"axis out of range", func(x, y kiln.Value) []kiln.Value { return kiln.Vmap(f, kiln.InAxes(2, 0))(x, x) }, "rank should be at least 3"},
		{"no batched argument", func(x, y kiln.Value) []kiln.Value { return kiln.Vmap(f, kiln.InAxes(kiln.NoAxis))(x, y) }, "at least one non-None"},
		{"axis size", func(x, y kiln.Value) []kiln.Value { return kiln.Vmap(f, kiln.AxisSize(5))(x, x) }, "axis_size is 5"},
		{"mapped result out_axes None", func(x, y kiln.Value) []kiln.Value { return kiln.Vmap(f, kiln.OutAxes(kiln.NoAxis))(x, x) }, "out_axes is None"},
		{"in_axes length", func(x, y kiln.Value) []kiln.Value { return kiln.Vmap(f, kiln.InAxes(0, 0, 0))(x, y) }, "len(in_axes)=3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kiln.Jit(tc.fn).RunAll(x3, x4)
			var ve *kiln.VmapError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "vmap_test.go:") {
				t.Errorf("error %v, want a *kiln.VmapError at vmap_test.go saying %q", err, tc.want)
			}
		})
	}
	// A function Vmap cannot adapt fails the trace it is used in.
	_, err := kiln.Jit(func(x kiln.Value) []kiln.Value { return kiln.Vmap(42)(x) }).RunAll(x3)
	var fe *kiln.FuncError
	if !errors.As(err, &fe) {
		t.Errorf("Vmap(42): error %v, want a *kiln.FuncError", err)
	}
}

// TestVmapRandom checks jax.random's functions of a batched key: each
// example draws from its own key, as a loop over the keys does.
func TestVmapRandom(t *testing.T) {
	keys := tensor.Must(tensor.FromSlice([]uint32{0, 1, 0, 2, 7, 3, 1 << 31, 5}, 4, 2))
	f := func(k, x kiln.Value) []kiln.Value {
		return []kiln.Value{random.Normal(k, []int{3}), random.Split(k, 3), random.FoldIn(k, kiln.Int(7)), random.Uniform(k, []int{2, 2}).Add(x)}
	}
	x := randF32(rand.New(rand.NewSource(5)), 1, 2)
	got, err := kiln.Jit(kiln.Vmap(f, kiln.InAxes(0, kiln.NoAxis))).RunAll(keys, x)
	if err != nil {
		t.Fatal(err)
	}
	one := kiln.Jit(f)
	for b := range 4 {
		want, err := one.RunAll(takeAxis(keys, 0, b), x)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			equalArrays(t, fmt.Sprintf("key %d, result %d", b, k), takeAxis(got[k], 0, b), want[k])
		}
	}
}

// TestVmapInLoopClosesOverIndex runs, compiled, JAX's
//
//	jit(lambda x: fori_loop(0, 3, lambda i, c: c + vmap(lambda r: r * i)(x) + grad(lambda w: sum(w * w * i) / 2)(x), zeros(3)))
//
// Vmap and Grad are called inside the loop's body on x, a value of the
// outer trace, with functions closing over the body's i; the loop starts
// from a free value, so it is first traced in a probe.
func TestVmapInLoopClosesOverIndex(t *testing.T) {
	f := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			v := kiln.Vmap(func(r kiln.Value) kiln.Value { return r.Mul(i) })(x)[0]
			g := kiln.Grad(func(w kiln.Value) kiln.Value { return w.Mul(w).Mul(i).Sum().Div(kiln.Float(2)) })(x)[0]
			return []kiln.Value{c[0].Add(v).Add(g)}
		}, kiln.Zeros([]int{3}, tensor.F32))[0]
	})
	x, _ := tensor.FromSlice([]float32{1, 2, 3})
	out, err := f.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out); got != "f32[3] [6 12 18]" {
		t.Errorf("got %s, want f32[3] [6 12 18] (x·(0+1+2), twice)", got)
	}
}
