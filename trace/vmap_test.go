package trace_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

type V = trace.Value

// takeAxis is a's slice at index i of axis, that axis removed.
func takeAxis(a *tensor.Array, axis, i int) *tensor.Array {
	shape := a.Shape()
	outer, inner := 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	src := reflect.ValueOf(a.Data())
	dst := reflect.MakeSlice(src.Type(), outer*inner, outer*inner)
	for o := range outer {
		reflect.Copy(dst.Slice(o*inner, (o+1)*inner), src.Slice((o*shape[axis]+i)*inner, (o*shape[axis]+i+1)*inner))
	}
	out := append(append([]int{}, shape[:axis]...), shape[axis+1:]...)
	return tensor.Must(tensor.New(a.DType(), out, dst.Interface()))
}

// randArray is an array of dtype d with small random values.
func randArray(r *rand.Rand, d tensor.DType, shape ...int) *tensor.Array {
	n := 1
	for _, s := range shape {
		n *= s
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(r.IntN(41)-20) / 4
	}
	return tensor.Must(tensor.New(tensor.F64, shape, xs)).Astype(d)
}

func abstractsOf(xs []*tensor.Array) []trace.Abstract {
	abs := make([]trace.Abstract, len(xs))
	for i, x := range xs {
		abs[i] = trace.AbstractOf(x.DType(), x.Shape())
	}
	return abs
}

// checkVmap checks that Vmap(fn, o) on ins equals fn on every example,
// stacked, bit for bit, through the reference evaluator.
func checkVmap(t *testing.T, fn func([]V) []V, o trace.VmapOptions, ins ...*tensor.Array) {
	t.Helper()
	cfg := promote.Config{}
	p, err := trace.Trace(cfg, abstractsOf(ins), func(a []V) []V { return trace.Vmap(fn, o)(a...) })
	if err != nil {
		t.Fatalf("vmap trace: %v", err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("vmapped program: %v\n%v", err, p)
	}
	got, err := reference.Eval(p, ins, reference.Options{})
	if err != nil {
		t.Fatalf("vmapped eval: %v", err)
	}
	axes := make([]int, len(ins))
	size := o.AxisSize
	for i, x := range ins {
		switch {
		case len(o.InAxes) == 1:
			axes[i] = o.InAxes[0]
		case len(o.InAxes) > 1:
			axes[i] = o.InAxes[i]
		}
		if axes[i] != trace.NoAxis {
			if axes[i] < 0 {
				axes[i] += x.Rank()
			}
			size = x.Dim(axes[i])
		}
	}
	var pe *trace.Program
	for b := range size {
		ex := make([]*tensor.Array, len(ins))
		for i, x := range ins {
			ex[i] = x
			if axes[i] != trace.NoAxis {
				ex[i] = takeAxis(x, axes[i], b)
			}
		}
		if pe == nil {
			if pe, err = trace.Trace(cfg, abstractsOf(ex), fn); err != nil {
				t.Fatalf("per-example trace: %v", err)
			}
		}
		want, err := reference.Eval(pe, ex, reference.Options{})
		if err != nil {
			t.Fatalf("per-example eval: %v", err)
		}
		for k, w := range want {
			a := 0
			switch {
			case len(o.OutAxes) == 1:
				a = o.OutAxes[0]
			case len(o.OutAxes) > 1:
				a = o.OutAxes[k]
			}
			g := got[k]
			if a != trace.NoAxis {
				if a < 0 {
					a += g.Rank()
				}
				g = takeAxis(g, a, b)
			}
			if !tensor.Equal(g, w) {
				t.Fatalf("result %d, example %d: vmap gives %v, the example %v\n%v", k, b, g, w, p)
			}
		}
	}
}

func TestVmapOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
	one := func(f func(a []V) V) func([]V) []V { return func(a []V) []V { return []V{f(a)} } }
	ax := func(a ...int) trace.VmapOptions { return trace.VmapOptions{InAxes: a} }
	cases := []struct {
		name string
		fn   func([]V) []V
		o    trace.VmapOptions
		ins  []*tensor.Array
	}{
		{"add broadcast", one(func(a []V) V { return a[0].Add(a[1]).Tanh() }), ax(0, trace.NoAxis), []*tensor.Array{f32(3, 4), f32(4)}},
		{"add low rank batched", one(func(a []V) V { return a[0].Mul(a[1]) }), ax(1, 0), []*tensor.Array{f32(4, 3), f32(3, 2, 4)}},
		{"select", one(func(a []V) V { return trace.Where(a[0].Gt(trace.Float(0)), a[1], trace.Float(7)) }), ax(0, -1), []*tensor.Array{f32(2, 5), f32(5, 2)}},
		{"literal", one(func(a []V) V { return a[0].Mul(trace.Float(2)).Add(trace.Int(1)) }), ax(-1), []*tensor.Array{f32(3, 2)}},
		{"convert", one(func(a []V) V { return a[0].Astype(tensor.I32).Add(trace.Int(1)) }), ax(0), []*tensor.Array{f32(3, 2)}},
		{"sum", one(func(a []V) V { return a[0].Sum(1) }), ax(1), []*tensor.Array{f32(2, 3, 4)}},
		{"mean keepdims", one(func(a []V) V { return trace.ReduceMean(a[0], []int{0}, true) }), ax(2), []*tensor.Array{f32(2, 3, 4)}},
		{"argmax", one(func(a []V) V { return a[0].ArgMax(0) }), ax(1), []*tensor.Array{f32(5, 3)}},
		{"max", one(func(a []V) V { return a[0].Max() }), ax(0), []*tensor.Array{f32(3, 4)}},
		{"reshape transpose", one(func(a []V) V { return a[0].Reshape(2, 6).Transpose(1, 0) }), ax(0), []*tensor.Array{f32(2, 3, 4)}},
		{"broadcast_to", one(func(a []V) V { return a[0].BroadcastTo(3, 4) }), ax(0), []*tensor.Array{f32(2, 4)}},
		{"slice rev", one(func(a []V) V { return a[0].Slice(0, 4, 0, -2) }), ax(1), []*tensor.Array{f32(6, 3)}},
		{"concat", one(func(a []V) V { return trace.Concatenate(0, a[0], a[1], a[0]) }), ax(0, trace.NoAxis), []*tensor.Array{f32(2, 3), f32(4)}},
		{"matmul both", one(func(a []V) V { return a[0].MatMul(a[1]) }), ax(0, 2), []*tensor.Array{f32(3, 2, 4), f32(4, 5, 3)}},
		{"matmul lhs", one(func(a []V) V { return a[0].MatMul(a[1]) }), ax(1, trace.NoAxis), []*tensor.Array{f32(2, 3, 4), f32(4, 5)}},
		{"matmul rhs", one(func(a []V) V { return a[0].MatMul(a[1]) }), ax(trace.NoAxis, 0), []*tensor.Array{f32(2, 4), f32(3, 4, 5)}},
		{"dot_general batch", one(func(a []V) V {
			return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{0}, LhsContract: []int{0}, RhsContract: []int{2}})
		}), ax(trace.NoAxis, 1), []*tensor.Array{f32(4, 2, 3), f32(2, 3, 5, 4)}},
		{"dot_general lhs", one(func(a []V) V {
			return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{0}, LhsContract: []int{0}, RhsContract: []int{2}})
		}), ax(2, trace.NoAxis), []*tensor.Array{f32(4, 2, 3, 3), f32(2, 5, 4)}},
		{"dot preferred", one(func(a []V) V { return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F64)) }),
			ax(0, trace.NoAxis), []*tensor.Array{randArray(r, tensor.BF16, 3, 2, 4), randArray(r, tensor.BF16, 4, 2)}},
		{"sort many", func(a []V) []V { return trace.SortMany([]V{a[0], a[1], a[0].Neg()}, 1, 2, true) }, ax(0, trace.NoAxis),
			[]*tensor.Array{randArray(r, tensor.I32, 2, 3, 5), randArray(r, tensor.F32, 3, 5)}},
		{"sort argsort", func(a []V) []V { return []V{a[0].Sort(0), a[0].Argsort(0, trace.Descending()), trace.Sort(a[0], -1)} }, ax(1), []*tensor.Array{f32(4, 3, 5)}},
		{"iota", one(func(a []V) V { return a[0].Add(trace.Iota(tensor.F32, []int{3}, 0)) }), ax(0), []*tensor.Array{f32(2, 3)}},
		{"unbatched result", func(a []V) []V { return []V{a[1].Exp(), a[0]} }, trace.VmapOptions{InAxes: []int{0, trace.NoAxis}, OutAxes: []int{1, -1}}, []*tensor.Array{f32(2, 3), f32(4)}},
		{"out none", func(a []V) []V { return []V{a[1].Exp(), a[0]} }, trace.VmapOptions{InAxes: []int{0, trace.NoAxis}, OutAxes: []int{trace.NoAxis, 0}}, []*tensor.Array{f32(2, 3), f32(4)}},
		{"axis size", one(func(a []V) V { return a[0].Mul(trace.Float(2)) }), trace.VmapOptions{InAxes: []int{trace.NoAxis}, AxisSize: 3}, []*tensor.Array{f32(2)}},
		{"random", one(func(a []V) V {
			return trace.Threefry2x32(a[0].BitcastConvert(tensor.U32).Astype(tensor.U64), trace.Iota(tensor.U64, []int{4}, 0))
		}), ax(0), []*tensor.Array{f32(3, 4)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkVmap(t, tc.fn, tc.o, tc.ins...) })
		t.Run(tc.name+"/empty", func(t *testing.T) { checkVmapEmpty(t, tc.fn, tc.o, tc.ins...) })
	}
}

// checkVmapEmpty checks Vmap(fn, o) on an empty batch (JAX allows one):
// ins with their batch axes resized to 0, or axis_size=0 when none is
// batched. Every result must have one example's type with a batch axis of
// size 0 where o.OutAxes puts it (none for NoAxis), in a well-formed
// program the reference evaluator runs.
func checkVmapEmpty(t *testing.T, fn func([]V) []V, o trace.VmapOptions, ins ...*tensor.Array) {
	t.Helper()
	cfg := promote.Config{}
	empty := make([]*tensor.Array, len(ins))
	example := make([]trace.Abstract, len(ins))
	batched := false
	for i, x := range ins {
		a := 0
		switch {
		case len(o.InAxes) == 1:
			a = o.InAxes[0]
		case len(o.InAxes) > 1:
			a = o.InAxes[i]
		}
		shape := x.Shape()
		empty[i], example[i] = x, trace.AbstractOf(x.DType(), shape)
		if a == trace.NoAxis {
			continue
		}
		if a < 0 {
			a += len(shape)
		}
		batched = true
		example[i].Shape = append(append([]int{}, shape[:a]...), shape[a+1:]...)
		shape[a] = 0
		empty[i] = tensor.Must(tensor.Zeros(x.DType(), shape...))
	}
	if !batched {
		o.AxisSize, o.HasAxisSize = 0, true
	}
	pe, err := trace.Trace(cfg, example, fn)
	if err != nil {
		t.Fatalf("per-example trace: %v", err)
	}
	p, err := trace.Trace(cfg, abstractsOf(empty), func(a []V) []V { return trace.Vmap(fn, o)(a...) })
	if err != nil {
		t.Fatalf("vmap trace of an empty batch: %v", err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("vmapped program: %v\n%v", err, p)
	}
	got, err := reference.Eval(p, empty, reference.Options{})
	if err != nil {
		t.Fatalf("vmapped eval: %v\n%v", err, p)
	}
	if len(got) != len(pe.Outputs) {
		t.Fatalf("%d results, one example gives %d", len(got), len(pe.Outputs))
	}
	for k, w := range pe.Outputs {
		a := 0
		switch {
		case len(o.OutAxes) == 1:
			a = o.OutAxes[0]
		case len(o.OutAxes) > 1:
			a = o.OutAxes[k]
		}
		want := append([]int{}, w.Shape...)
		if a != trace.NoAxis {
			if a < 0 {
				a += len(want) + 1
			}
			want = append(want[:a], append([]int{0}, want[a:]...)...)
		}
		if g := got[k]; g.DType() != w.Type.DType || !trace.ShapeEqual(g.Shape(), want) {
			t.Errorf("result %d: %s%v, want %s%v", k, g.DType(), g.Shape(), w.Type.DType, want)
		}
	}
}

// TestVmapCompose checks Vmap inside and around Grad, JVP and VJP, and
// Vmap of Vmap.
func TestVmapCompose(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	loss := func(a []V) []V { return []V{a[1].MatMul(a[0]).Tanh().Sum()} }
	w, x := randArray(r, tensor.F64, 3, 2), randArray(r, tensor.F64, 4, 3)
	grad := trace.Grad(loss, trace.GradOptions{Argnums: []int{0}})
	gradFn := func(a []V) []V { return grad(a...) }
	t.Run("vmap grad", func(t *testing.T) {
		checkVmap(t, gradFn, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0}}, w, x)
	})
	t.Run("grad vmap", func(t *testing.T) {
		total := func(a []V) []V {
			return []V{trace.Vmap(loss, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0}})(a...)[0].Sum()}
		}
		g := trace.Grad(total, trace.GradOptions{})
		checkVmap(t, func(a []V) []V { return g(a...) }, trace.VmapOptions{InAxes: []int{0, trace.NoAxis}}, randArray(r, tensor.F64, 2, 3, 2), x)
	})
	t.Run("vmap vmap", func(t *testing.T) {
		inner := func(a []V) []V { return trace.Vmap(loss, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0}})(a...) }
		checkVmap(t, inner, trace.VmapOptions{InAxes: []int{0, 1}}, randArray(r, tensor.F64, 2, 3, 2), randArray(r, tensor.F64, 4, 2, 3))
	})
	t.Run("jvp vmap", func(t *testing.T) {
		f := func(a []V) []V {
			outs, ts := trace.JVP(func(b []V) []V { return trace.Vmap(loss, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0}})(b...) }, a[:2], a[2:])
			return append(outs, ts...)
		}
		checkVmap(t, f, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0, trace.NoAxis, 0}}, w, randArray(r, tensor.F64, 2, 4, 3), w, randArray(r, tensor.F64, 2, 4, 3))
	})
	t.Run("vjp vmap", func(t *testing.T) {
		f := func(a []V) []V {
			_, pb := trace.VJP(func(b []V) []V { return trace.Vmap(loss, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0}})(b...) }, a[0], a[1])
			return pb(trace.Float(1).Add(a[1].Sum(1, 2)))
		}
		checkVmap(t, f, trace.VmapOptions{InAxes: []int{trace.NoAxis, 0}}, w, randArray(r, tensor.F64, 2, 5, 4, 3))
	})
}

// TestVmapClosure checks a vmapped function closing over values of
// enclosing traces: the outer program's input and a loop's induction
// variable.
func TestVmapClosure(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x, y := randArray(r, tensor.F64, 3, 2), randArray(r, tensor.F64, 2)
	p, err := trace.Trace(promote.Config{}, abstractsOf([]*tensor.Array{x, y}), func(a []V) []V {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, c []V) []V {
			f := func(e []V) []V { return []V{e[0].Mul(a[1]).Add(i.Astype(tensor.F64)).Add(c[0].Sum())} }
			return []V{trace.Vmap(f, trace.VmapOptions{})(a[0])[0]}
		}, a[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reference.Eval(p, []*tensor.Array{x, y}, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// the same loop, written with the batch axis by hand
	q, err := trace.Trace(promote.Config{}, abstractsOf([]*tensor.Array{x, y}), func(a []V) []V {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, c []V) []V {
			return []V{a[0].Mul(a[1]).Add(i.Astype(tensor.F64)).Add(c[0].Sum())}
		}, a[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := reference.Eval(q, []*tensor.Array{x, y}, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.Equal(got[0], want[0]) {
		t.Errorf("vmap in a loop gives %v, by hand %v", got[0], want[0])
	}
}

// TestVmapFreeArguments checks Vmap of constants (no trace yet) whose
// function uses a traced value: the vmap is traced where that value is.
func TestVmapFreeArguments(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x, c := randArray(r, tensor.F64, 2), randArray(r, tensor.F64, 3, 2)
	p, err := trace.Trace(promote.Config{}, abstractsOf([]*tensor.Array{x}), func(a []V) []V {
		return trace.Vmap(func(e []V) []V { return []V{e[0].Mul(a[0])} }, trace.VmapOptions{InAxes: []int{1}})(trace.Const(c).Transpose())
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reference.Eval(p, []*tensor.Array{x}, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for b := range 3 {
		want := takeAxis(c, 0, b)
		wd, xd := want.Data().([]float64), x.Data().([]float64)
		for i := range wd {
			wd[i] *= xd[i]
		}
		if g := takeAxis(got[0], 0, b); !tensor.Equal(g, want) {
			t.Errorf("example %d: %v, want %v", b, g, want)
		}
	}
}

func TestVmapErrors(t *testing.T) {
	f := func(a []V) []V { return []V{a[0].Add(a[len(a)-1])} }
	cases := []struct {
		name   string
		o      trace.VmapOptions
		inputs []string
		fn     func([]V) []V
		want   string
	}{
		{"inconsistent", trace.VmapOptions{}, []string{"f32[3,2]", "f32[4,2]"}, f, "inconsistent sizes"},
		{"axis out of range", trace.VmapOptions{InAxes: []int{2}}, []string{"f32[3,2]"}, f, "rank should be at least 3"},
		{"negative out of range", trace.VmapOptions{InAxes: []int{-3}}, []string{"f32[3,2]"}, f, "rank should be at least 3"},
		{"scalar", trace.VmapOptions{}, []string{"f32[]"}, f, "rank should be at least 1"},
		{"in_axes length", trace.VmapOptions{InAxes: []int{0, 0}}, []string{"f32[3]", "f32[3]", "f32[3]"}, f, "len(in_axes)=2, len(args)=3"},
		{"no batched", trace.VmapOptions{InAxes: []int{trace.NoAxis}}, []string{"f32[3]"}, f, "at least one non-None"},
		{"axis size differs", trace.VmapOptions{AxisSize: 4}, []string{"f32[3]"}, f, "axis_size is 4"},
		{"axis size 0 differs", trace.VmapOptions{AxisSize: 0, HasAxisSize: true}, []string{"f32[3]"}, f, "axis_size is 0"},
		{"axis size 0 not given", trace.VmapOptions{InAxes: []int{trace.NoAxis}, AxisSize: 0}, []string{"f32[3]"}, f, "or an axis_size"},
		{"negative axis size", trace.VmapOptions{InAxes: []int{trace.NoAxis}, AxisSize: -1, HasAxisSize: true}, []string{"f32[3]"}, f, "axis_size -1 is negative"},
		{"mapped out none", trace.VmapOptions{OutAxes: []int{trace.NoAxis}}, []string{"f32[3]"}, f, "out_axes is None"},
		{"out axis range", trace.VmapOptions{OutAxes: []int{2}}, []string{"f32[3]"}, f, "out_axes 2 is out of range"},
		{"out_axes length", trace.VmapOptions{OutAxes: []int{0, 0}}, []string{"f32[3]"}, f, "len(out_axes)=2"},
		{"nil fn", trace.VmapOptions{}, []string{"f32[3]"}, nil, "nil function"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			abs := make([]trace.Abstract, len(tc.inputs))
			for i, s := range tc.inputs {
				abs[i] = in(t, s)
			}
			_, err := trace.Trace(promote.Config{}, abs, func(a []V) []V { return trace.Vmap(tc.fn, tc.o)(a...) })
			var ve *trace.VmapError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "vmap_test.go:") {
				t.Errorf("error %v, want a *VmapError at this file saying %q", err, tc.want)
			}
		})
	}
	// Under WithPos (kiln eval's expression columns), the error is at
	// that position, as the equations built there are.
	at := trace.Pos{File: "<expr>", Line: 1, Col: 7}
	_, err := trace.Trace(promote.Config{}, []trace.Abstract{in(t, "f32[3]")}, func(a []V) []V {
		return []V{trace.WithPos(a[0], at, func() V { return trace.Vmap(f, trace.VmapOptions{InAxes: []int{2}})(a...)[0] })}
	})
	if ve := (*trace.VmapError)(nil); !errors.As(err, &ve) || ve.Pos != at {
		t.Errorf("error %v under WithPos(%v): want a *VmapError at %v", err, at, at)
	}
	// An error inside the function is the function's own.
	_, err = trace.Trace(promote.Config{}, []trace.Abstract{in(t, "f32[3,2]")}, func(a []V) []V {
		return trace.Vmap(func(e []V) []V { return []V{e[0].Reshape(5)} }, trace.VmapOptions{})(a...)
	})
	var se *trace.ShapeError
	if !errors.As(err, &se) {
		t.Errorf("error %v, want the reshape's *ShapeError", err)
	}
	_ = fmt.Sprint
}

// TestVmapReplayInLoop checks the replay of a sub-program inside the
// function of a loop (what a while's batching rule does), with a minimal
// while rule, the loop's body closing over a batched value and an
// unbatched one of the enclosing trace.
func TestVmapReplayInLoop(t *testing.T) {
	defer trace.SetLoopRuleForTest()()
	r := rand.New(rand.NewPCG(9, 10))
	f := func(a []V) []V {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i V, c []V) []V {
			return []V{c[0].Mul(a[0]).Add(a[1]).Add(i.Astype(tensor.F64)), c[1].Add(a[0].Sum())}
		}, a[1], trace.Float(0))
	}
	checkVmap(t, f, trace.VmapOptions{InAxes: []int{0, trace.NoAxis}}, randArray(r, tensor.F64, 3, 2), randArray(r, tensor.F64, 2))
	checkVmap(t, f, trace.VmapOptions{InAxes: []int{trace.NoAxis, 1}}, randArray(r, tensor.F64, 2), randArray(r, tensor.F64, 2, 4))
}
