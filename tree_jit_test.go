package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// A jitted function of trees takes them by pointer or by value, returns
// trees that RunTree fills, and gives the leaves Run's results.
func TestJitTree(t *testing.T) {
	f := kiln.Jit(func(n net[kiln.Value], x kiln.Value) (kiln.Value, layer[kiln.Value]) {
		s := n.In.W.Add(n.In.B)
		for _, h := range n.Hidden {
			s = s.Add(h.W.Mul(h.B))
		}
		for _, v := range n.Extra { // any order: addition of exact small integers
			s = s.Add(v)
		}
		return s.Mul(x), layer[kiln.Value]{W: n.Pair[0].Sub(n.Pair[1]), B: n.Out.W.Add(n.Out.B)}
	})
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
	in := testNet()
	var s *tensor.Array
	var l layer[*tensor.Array]
	for _, arg := range []any{&in, in} {
		if err := f.RunTree([]any{&s, &l}, arg, tensor.Scalar(float32(2))); err != nil {
			t.Fatal(err)
		}
		// (1+2 + 3·4 + 5·6 + 7+8+9)·2 = 138
		if s.String() != "f32[1] [138]" || l.W.String() != "f32[1] [-1]" || l.B.String() != "f32[1] [25]" {
			t.Errorf("RunTree: %v %v %v", s, l.W, l.B)
		}
	}
	all, err := f.RunAll(&in, tensor.Scalar(float32(2)))
	if err != nil || len(all) != 3 || !tensor.Equal(all[0], s) || !tensor.Equal(all[2], l.B) {
		t.Errorf("RunAll: %v %v", all, err)
	}
	if st := f.Stats(); st.Misses != 1 {
		t.Errorf("%d misses for one structure", st.Misses)
	}
	// RunTreeInto writes the results into the arrays of the trees given.
	s2 := tensor.Must(tensor.Zeros(tensor.F32, 1))
	l2 := layer[*tensor.Array]{W: tensor.Must(tensor.Zeros(tensor.F32, 1)), B: tensor.Must(tensor.Zeros(tensor.F32, 1))}
	if err := f.RunTreeInto([]any{&s2, &l2}, &in, tensor.Scalar(float32(2))); err != nil {
		t.Fatal(err)
	}
	if !tensor.Equal(s2, s) || !tensor.Equal(l2.W, l.W) || !tensor.Equal(l2.B, l.B) {
		t.Errorf("RunTreeInto: %v %v %v", s2, l2.W, l2.B)
	}
}

// The cache key includes the trees' structure: the same leaves split
// otherwise between two slices, or a map with other keys, trace again;
// the same structure hits.
func TestJitTreeCacheKey(t *testing.T) {
	type two[T kiln.Leaf] struct{ A, B []T }
	f := kiln.Jit(func(p two[kiln.Value]) kiln.Value {
		s := kiln.Float(0)
		for _, a := range p.A {
			s = s.Add(a)
		}
		for _, b := range p.B {
			s = s.Sub(b)
		}
		return s
	})
	one := tv(1)
	run := func(a, b int) string {
		t.Helper()
		p := two[*tensor.Array]{A: make([]*tensor.Array, a), B: make([]*tensor.Array, b)}
		for i := range p.A {
			p.A[i] = one
		}
		for i := range p.B {
			p.B[i] = one
		}
		out, err := f.Run(&p)
		if err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if a, b := run(2, 1), run(1, 2); a != "f32[1] [1]" || b != "f32[1] [-1]" {
		t.Errorf("A 2, B 1: %s; A 1, B 2: %s", a, b)
	}
	run(2, 1)
	if st := f.Stats(); st.Misses != 2 || st.Hits != 1 {
		t.Errorf("stats %+v, want 2 misses and 1 hit", st)
	}
	g := kiln.Jit(func(m map[string]kiln.Value) kiln.Value { return m["a"].Sub(m["b"].Add(m["c"])) })
	x, y := tv(10), tv(3)
	r1, err1 := g.Run(map[string]*tensor.Array{"a": x, "b": y})
	r2, err2 := g.Run(map[string]*tensor.Array{"a": x, "c": y})
	if err1 == nil || err2 == nil {
		// m["c"] (or m["b"]) is the zero Value: an operand error, per structure.
		t.Fatalf("missing keys: %v %v %v %v", r1, err1, r2, err2)
	}
	why, err := g.ExplainMiss(map[string]*tensor.Array{"a": x, "d": y})
	if err != nil || !strings.Contains(why, "structure") {
		t.Errorf("ExplainMiss: %q %v", why, err)
	}
	if st := g.Stats(); st.Misses != 2 {
		t.Errorf("map keys: %d misses, want 2", st.Misses)
	}
}

// A Run argument of another structure than the parameter is an
// *ArgError wrapping a *TreeError; a function over ...Value takes trees
// flattened into their leaves.
func TestJitTreeArgs(t *testing.T) {
	f := kiln.Jit(func(p layer[kiln.Value]) kiln.Value { return p.W.Add(p.B) })
	_, err := f.Run(&[2]*tensor.Array{tv(1), tv(2)})
	var ae *kiln.ArgError
	var te *kiln.TreeError
	if !errors.As(err, &ae) || ae.Index != 0 || !errors.As(err, &te) || !strings.Contains(err.Error(), "for a parameter of type kiln_test.layer[github.com/kiln-go/kiln/trace.Value]") {
		t.Errorf("wrong tree: %v", err)
	}
	_, err = f.Run(&layer[*tensor.Array]{W: tv(1)})
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "argument 0: leaf .B: nil *tensor.Array") {
		t.Errorf("nil leaf: %v", err)
	}
	bad := kiln.Jit(func(p struct{ N int }) kiln.Value { return kiln.Int(1) })
	var fe *kiln.FuncError
	if !errors.As(bad.Err(), &fe) || !strings.Contains(fe.Error(), "parameter 0 is not a tree of kiln.Values: field struct { N int }.N: int is not a kiln.Value") {
		t.Errorf("a parameter that is no tree: %v", bad.Err())
	}
	flat := kiln.Jit(func(a ...kiln.Value) kiln.Value { return a[0].Sub(a[1]).Mul(a[2]) })
	out, err := flat.Run(&layer[*tensor.Array]{W: tv(5), B: tv(2)}, tv(3))
	if err != nil || out.String() != "f32[1] [9]" {
		t.Errorf("flat function of a tree: %v %v", out, err)
	}
}

// GradTree is Grad with respect to the leaves, bit for bit, and returns
// the gradient in the parameters' type.
func TestGradTreeIsGrad(t *testing.T) {
	loss := func(w1, b1, w2 kiln.Value, x kiln.Value) kiln.Value {
		return x.MatMul(w1).Add(b1).Tanh().MatMul(w2).Sum()
	}
	type mlp[T kiln.Leaf] struct {
		L1 layer[T]
		W2 []T
	}
	tree := kiln.Jit(func(p mlp[kiln.Value], x kiln.Value) (kiln.Value, mlp[kiln.Value]) {
		return kiln.ValueAndGradTree(func(p mlp[kiln.Value], a ...kiln.Value) kiln.Value {
			return loss(p.L1.W, p.L1.B, p.W2[0], a[0])
		})(p, x)
	})
	flat := kiln.Jit(func(w1, b1, w2, x kiln.Value) []kiln.Value {
		return kiln.ValueAndGrad(loss, 0, 1, 2)(w1, b1, w2, x)
	})
	mk := func(n int, shape ...int) *tensor.Array {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%7)*0.1 - 0.3
		}
		return tensor.Must(tensor.FromSlice(v, shape...))
	}
	w1, b1, w2, x := mk(12, 3, 4), mk(4, 4), mk(8, 4, 2), mk(15, 5, 3)
	var val *tensor.Array
	var g mlp[*tensor.Array]
	if err := tree.RunTree([]any{&val, &g}, &mlp[*tensor.Array]{L1: layer[*tensor.Array]{W: w1, B: b1}, W2: []*tensor.Array{w2}}, x); err != nil {
		t.Fatal(err)
	}
	want, err := flat.RunAll(w1, b1, w2, x)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.Equal(val, want[0]) || !tensor.Equal(g.L1.W, want[1]) || !tensor.Equal(g.L1.B, want[2]) || len(g.W2) != 1 || !tensor.Equal(g.W2[0], want[3]) {
		t.Errorf("tree gradients %v %v %v %v, flat %v", val, g.L1.W, g.L1.B, g.W2, want)
	}
}

// The tree forms of the loops, Scan and Cond compute what the flat forms
// do, and a body that changes its carry's structure is a *TreeError.
func TestControlTrees(t *testing.T) {
	type c2[T kiln.Leaf] struct{ A, B T }
	f := kiln.Jit(func(x kiln.Value) []kiln.Value {
		fori := kiln.ForiLoopTree(kiln.Int(0), kiln.Int(5), func(i kiln.Value, c c2[kiln.Value]) c2[kiln.Value] {
			return c2[kiln.Value]{A: c.A.Mul(kiln.Int(2)), B: c.B.Add(i)}
		}, c2[kiln.Value]{A: x, B: kiln.Int(0)})
		while := kiln.WhileLoopTree(func(c []kiln.Value) kiln.Value { return c[0].Sum().Lt(kiln.Int(100)) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(kiln.Int(3)), c[1].Add(kiln.Int(1))} },
			[]kiln.Value{x, kiln.Int(0)})
		carry, ys := kiln.ScanTree(func(c kiln.Value, xs c2[kiln.Value]) (kiln.Value, map[string]kiln.Value) {
			s := c.Add(xs.A.Mul(xs.B))
			return s, map[string]kiln.Value{"sum": s, "a": xs.A}
		}, kiln.Float(0), c2[kiln.Value]{A: x, B: x})
		cond := kiln.CondTree(x.Sum().Gt(kiln.Int(0)),
			func(o c2[kiln.Value]) kiln.Value { return o.A.Sub(o.B) },
			func(o c2[kiln.Value]) kiln.Value { return o.A.Add(o.B) }, c2[kiln.Value]{A: x, B: kiln.Float(1)})
		return []kiln.Value{fori.A, fori.B, while[0], while[1], carry, ys["sum"], ys["a"], cond}
	})
	out, err := f.RunAll(tensor.Must(tensor.FromSlice([]float32{1, 2})))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"f32[2] [32 64]", "i64[] 10", "f32[2] [81 162]", "i64[] 4", "f32[] 5", "f32[2] [1 5]", "f32[2] [1 2]", "f32[2] [0 1]"}
	for i, w := range want {
		if out[i].String() != w {
			t.Errorf("result %d: %v, want %s", i, out[i], w)
		}
	}
	g := kiln.Jit(func(x kiln.Value) kiln.Value {
		return kiln.ForiLoopTree(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return append(c, i.Astype(tensor.F32))
		}, []kiln.Value{x})[0]
	})
	_, err = g.Run(tensor.Scalar(float32(1)))
	var te *kiln.TreeError
	if !errors.As(err, &te) || te.Op != "fori_loop" || !strings.Contains(te.Pos.File, "tree_jit_test.go") || !strings.Contains(err.Error(), "the body returns a carry of structure [*, *], the loop's is [*]") {
		t.Errorf("a carry that grows: %v", err)
	}
}

// Grad and VJP take a function of fixed-shape trees (or a Func of one)
// over its leaves, in order.
func TestGradOfTreeFunc(t *testing.T) {
	fn := func(p layer[kiln.Value]) kiln.Value { return p.W.Mul(p.B).Sum() }
	f := kiln.Jit(func(w, b kiln.Value) []kiln.Value {
		g1 := kiln.Grad(fn, 0, 1)(w, b)
		g2 := kiln.Grad(kiln.Jit(fn), 0, 1)(w, b)
		_, pull := kiln.VJP(fn, w, b)
		return append(append(g1, g2...), pull(kiln.Float(1))...)
	})
	out, err := f.RunAll(tv(2, 3), tv(5, 7))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"f32[2] [5 7]", "f32[2] [2 3]"} {
		for k := 0; k < 3; k++ {
			if got := out[2*k+i].String(); got != want {
				t.Errorf("form %d, gradient %d: %s, want %s", k, i, got, want)
			}
		}
	}
}
