package kiln_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// twoLayer is an MLP's parameters as a tree (E7's MLP).
type twoLayer[T kiln.Leaf] struct {
	L1, L2 layer[T]
}

// treeLoss is mlpLoss of a tree of parameters and x, y.
func treeLoss(p twoLayer[kiln.Value], xy ...kiln.Value) kiln.Value {
	return mlpLoss(p.L1.W, p.L1.B, p.L2.W, p.L2.B, xy[0], xy[1])
}

// VmapTree of a function of a struct (shared: NoAxis) and a batched x
// returning a struct and a Value is, bit for bit, the function applied
// to each example, every leaf of the results stacked along its result's
// out axis.
func TestVmapTreeStruct(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	fn := func(p layer[kiln.Value], x kiln.Value) (layer[kiln.Value], kiln.Value) {
		h := x.MatMul(p.W).Add(p.B)
		return layer[kiln.Value]{W: h.Tanh(), B: h.Sum(0)}, x.Mul(p.B.Sum())
	}
	p := layer[*tensor.Array]{W: randF32(r, 1, 3, 2), B: randF32(r, 1, 2)}
	xs := randF32(r, 1, 4, 5, 3) // 4 examples of [5,3]
	one := kiln.Jit(fn)
	for _, tc := range []struct {
		name    string
		in, out []int
		xAxis   int
		outAxis [2]int
	}{
		{"default axes", nil, nil, 0, [2]int{0, 0}},
		{"x batched along 1", []int{kiln.NoAxis, 1}, []int{0}, 1, [2]int{0, 0}},
		{"per-result out axes", []int{kiln.NoAxis, -1}, []int{1, -1}, 2, [2]int{1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := xs
			if tc.xAxis != 0 {
				x = moveAxisArray(t, xs, 0, tc.xAxis)
			}
			in := tc.in
			args := []any{&p, x}
			if in == nil { // every argument batched: p's leaves too
				pb := layer[*tensor.Array]{W: stackN(t, p.W, 4), B: stackN(t, p.B, 4)}
				args[0] = &pb
			}
			batched := kiln.Jit(kiln.VmapTree(fn, kiln.InAxes(in...), kiln.OutAxes(tc.out...)))
			var gl layer[*tensor.Array]
			var gv *tensor.Array
			if err := batched.RunTree([]any{&gl, &gv}, args...); err != nil {
				t.Fatal(err)
			}
			ax := func(a, rank int) int {
				if a < 0 {
					return a + rank
				}
				return a
			}
			for b := range 4 {
				var wl layer[*tensor.Array]
				var wv *tensor.Array
				if err := one.RunTree([]any{&wl, &wv}, &p, takeAxis(xs, 0, b)); err != nil {
					t.Fatal(err)
				}
				o := tc.outAxis
				equalArrays(t, fmt.Sprintf("example %d: W", b), takeAxis(gl.W, ax(o[0], gl.W.Rank()), b), wl.W)
				equalArrays(t, fmt.Sprintf("example %d: B", b), takeAxis(gl.B, ax(o[0], gl.B.Rank()), b), wl.B)
				equalArrays(t, fmt.Sprintf("example %d: value", b), takeAxis(gv, ax(o[1], gv.Rank()), b), wv)
			}
		})
	}
}

// moveAxisArray moves axis from of a to position to, by jitting a
// transpose.
func moveAxisArray(t *testing.T, a *tensor.Array, from, to int) *tensor.Array {
	t.Helper()
	perm := []int{}
	for i := range a.Rank() {
		if i != from {
			perm = append(perm, i)
		}
	}
	perm = append(perm[:to], append([]int{from}, perm[to:]...)...)
	out, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Transpose(perm...) }).Run(a)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stackN is n copies of a stacked along a new leading axis.
func stackN(t *testing.T, a *tensor.Array, n int) *tensor.Array {
	t.Helper()
	out, err := kiln.Jit(func(x kiln.Value) kiln.Value {
		return x.ExpandDims(0).BroadcastTo(append([]int{n}, a.Shape()...)...)
	}).Run(a)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Per-example gradients of a loss of a tree of parameters:
// Jit(VmapTree(GradTree(loss), InAxes(NoAxis, 0, 0))) equals a Go loop of
// Jit(GradTree(loss)) calls, bit for bit, and returns the gradients as
// the parameters' struct, each leaf with a leading batch axis.
func TestVmapTreePerExampleGradients(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const n = 16
	flat, x, y := mlpData(r, n, 8, 16, 5)
	p := twoLayer[*tensor.Array]{L1: layer[*tensor.Array]{W: flat[0], B: flat[1]}, L2: layer[*tensor.Array]{W: flat[2], B: flat[3]}}
	perExample := kiln.Jit(kiln.VmapTree(kiln.GradTree(treeLoss), kiln.InAxes(kiln.NoAxis, 0, 0)))
	var got twoLayer[*tensor.Array]
	if err := perExample.RunTree([]any{&got}, &p, x, y); err != nil {
		t.Fatal(err)
	}
	one := kiln.Jit(kiln.GradTree(treeLoss)) // a ...Value function of trees: Jit takes it
	for b := range n {
		var want twoLayer[*tensor.Array]
		if err := one.RunTree([]any{&want}, &p, takeAxis(x, 0, b), takeAxis(y, 0, b)); err != nil {
			t.Fatal(err)
		}
		equalArrays(t, fmt.Sprintf("example %d: L1.W", b), takeAxis(got.L1.W, 0, b), want.L1.W)
		equalArrays(t, fmt.Sprintf("example %d: L1.B", b), takeAxis(got.L1.B, 0, b), want.L1.B)
		equalArrays(t, fmt.Sprintf("example %d: L2.W", b), takeAxis(got.L2.W, 0, b), want.L2.W)
		equalArrays(t, fmt.Sprintf("example %d: L2.B", b), takeAxis(got.L2.B, 0, b), want.L2.B)
	}
	// The flat form over the same leaves gives the same gradients.
	grad := kiln.Grad(mlpLoss, 0, 1, 2, 3)
	flatOut, err := kiln.Jit(kiln.Vmap(grad, kiln.InAxes(kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, kiln.NoAxis, 0, 0))).RunAll(flat[0], flat[1], flat[2], flat[3], x, y)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range []*tensor.Array{got.L1.W, got.L1.B, got.L2.W, got.L2.B} {
		equalArrays(t, fmt.Sprintf("flat gradient %d", i), g, flatOut[i])
	}
}

// Axes that fit neither the arguments nor the results are a
// *kiln.VmapError at the caller's line; a function that is not one of
// trees a *kiln.FuncError.
func TestVmapTreeErrors(t *testing.T) {
	fn := func(p layer[kiln.Value], x kiln.Value) (layer[kiln.Value], kiln.Value) {
		return layer[kiln.Value]{W: p.W.Mul(x), B: p.B}, x
	}
	p := layer[*tensor.Array]{W: tv(1, 2), B: tv(3)}
	x := tv(1, 2, 3)
	for _, tc := range []struct {
		name string
		opts []kiln.VmapOption
		want string
	}{
		{"in_axes count", []kiln.VmapOption{kiln.InAxes(kiln.NoAxis, 0, 0)}, "len(in_axes)=3, len(args)=2"},
		{"out_axes count", []kiln.VmapOption{kiln.InAxes(kiln.NoAxis, 0), kiln.OutAxes(0, 0, 0)}, "len(out_axes)=3 for 2 results"},
		{"mapped result with out_axes None", []kiln.VmapOption{kiln.InAxes(kiln.NoAxis, 0), kiln.OutAxes(0, kiln.NoAxis)}, "out_axes is None"},
		{"in_axes out of range", []kiln.VmapOption{kiln.InAxes(kiln.NoAxis, 1)}, "rank should be at least 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := kiln.Jit(func(p layer[kiln.Value], x kiln.Value) (layer[kiln.Value], kiln.Value) {
				return kiln.VmapTree(fn, tc.opts...)(p, x)
			})
			var l layer[*tensor.Array]
			var v *tensor.Array
			err := f.RunTree([]any{&l, &v}, &p, x)
			var ve *kiln.VmapError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "vmap_tree_test.go:") {
				t.Errorf("error %v, want a *kiln.VmapError at vmap_tree_test.go saying %q", err, tc.want)
			}
		})
	}
	var fe *kiln.FuncError
	bad := func(p struct{ N int }) kiln.Value { return kiln.Int(1) }
	_, err := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.VmapTree(bad)(struct{ N int }{})
	}).Run(x)
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a tree of kiln.Values") {
		t.Errorf("a function of a struct that is no tree: %v", err)
	}
	jitted := kiln.VmapTree(kiln.Jit(fn))
	if _, err := jitted.Run(&p, x); !errors.As(err, &fe) || !errors.As(jitted.Err(), &fe) {
		t.Errorf("VmapTree of a *Func: Err %v, Run %v; want *kiln.FuncError", jitted.Err(), err)
	}
	if err := kiln.Jit(func(p layer[kiln.Value], n ...int) kiln.Value { return p.W }).Err(); !errors.As(err, &fe) {
		t.Errorf("Jit of a function of a tree and ...int: %v, want a *kiln.FuncError", err)
	}
	var f any = fn // F is any: fn's own type is used
	g, ok := kiln.VmapTree(f, kiln.InAxes(kiln.NoAxis, 0)).(func(layer[kiln.Value], kiln.Value) (layer[kiln.Value], kiln.Value))
	if !ok {
		t.Fatalf("VmapTree of an any holding %T returned another type", fn)
	}
	var l layer[*tensor.Array]
	var v *tensor.Array
	err = kiln.Jit(g).RunTree([]any{&l, &v}, &p, tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2)))
	if err != nil || l.W.String() != "f32[2,2] [[1 4] [3 8]]" || l.B.String() != "f32[2,1] [[3] [3]]" {
		t.Errorf("VmapTree of an any: %v %v %v", l.W, l.B, err)
	}
}

// Jit of a VmapTree'd function keys its cache on the trees' structure:
// a slice argument of another length traces again, the same length hits.
func TestVmapTreeCacheKey(t *testing.T) {
	sum := func(xs []kiln.Value, w kiln.Value) kiln.Value {
		s := kiln.Float(0)
		for i, x := range xs {
			s = s.Add(x.Mul(kiln.Int(int64(i + 1))))
		}
		return s.Mul(w)
	}
	f := kiln.Jit(kiln.VmapTree(sum, kiln.InAxes(0, kiln.NoAxis)))
	run := func(n int) string {
		t.Helper()
		xs := make([]*tensor.Array, n)
		for i := range xs {
			xs[i] = tv(1, 2)
		}
		out, err := f.Run(xs, tv(10))
		if err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if a, b := run(2), run(3); a != "f32[2,1] [[30] [60]]" || b != "f32[2,1] [[60] [120]]" {
		t.Errorf("two leaves: %s; three: %s", a, b)
	}
	run(2)
	if st := f.Stats(); st.Misses != 2 || st.Hits != 1 {
		t.Errorf("stats %+v, want 2 misses and 1 hit", st)
	}
}

// VmapTree of a function of Values alone is Vmap of it, bit for bit.
func TestVmapTreeOfValues(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	dot := func(x, y kiln.Value) kiln.Value { return x.Mul(y).Sum().Tanh() }
	x, y := randF32(r, 1, 3, 5), randF32(r, 1, 5, 3)
	got, err := kiln.Jit(kiln.VmapTree(dot, kiln.InAxes(0, 1))).Run(x, y)
	if err != nil {
		t.Fatal(err)
	}
	want, err := kiln.Jit(kiln.Vmap(dot, kiln.InAxes(0, 1))).Run(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rank() != 1 || got.Dim(0) != 3 {
		t.Fatalf("shape %v, want [3]", got.Shape())
	}
	equalArrays(t, "VmapTree vs Vmap", got, want)
}
