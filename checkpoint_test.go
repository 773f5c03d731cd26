package kiln_test

import (
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// deepMLP is a residual MLP of depth blocks, each x + tanh(tanh(x·w1)·w2)
// with a hidden layer four times as wide as x; its loss is Σ out². With
// remat every block is checkpointed.
func deepMLP(depth int, remat bool) func(args []kiln.Value) []kiln.Value {
	block := func(a []kiln.Value) []kiln.Value {
		x, w1, w2 := a[0], a[1], a[2]
		return []kiln.Value{x.Add(x.MatMul(w1).Tanh().MatMul(w2).Tanh())}
	}
	if remat {
		ck := kiln.Checkpoint(block)
		block = func(a []kiln.Value) []kiln.Value { return ck(a...) }
	}
	loss := func(a []kiln.Value) []kiln.Value {
		x := a[0]
		for i := range depth {
			x = block([]kiln.Value{x, a[1+2*i], a[2+2*i]})[0]
		}
		return []kiln.Value{x.Mul(x).Sum()}
	}
	return func(a []kiln.Value) []kiln.Value {
		argnums := make([]int, 2*depth)
		for i := range argnums {
			argnums[i] = i + 1
		}
		return kiln.Grad(loss, argnums...)(a...)
	}
}

func mlpArgs(depth, batch, width int) []any {
	r := randv2.New(randv2.NewPCG(1, 2))
	randn := func(scale float32, shape ...int) *tensor.Array {
		n := 1
		for _, d := range shape {
			n *= d
		}
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(r.NormFloat64()) * scale
		}
		return tensor.Must(tensor.FromSlice(xs, shape...))
	}
	args := []any{randn(1, batch, width)}
	for range depth {
		args = append(args, randn(0.2, width, 4*width), randn(0.1, 4*width, width))
	}
	return args
}

// TestCheckpointMemory: the gradients of a deep MLP whose blocks are
// checkpointed equal the plain ones bit for bit, and the compiled backward
// pass holds less memory (lower.MemoryNeed: inputs, planned buffers,
// outputs), its scratch buffers less than half: the plain one stores both
// hidden activations of every block until the backward pass, the
// checkpointed one only each block's input.
func TestCheckpointMemory(t *testing.T) {
	const depth, batch, width = 8, 64, 32
	args := mlpArgs(depth, batch, width)
	plain, remat := kiln.Jit(deepMLP(depth, false)), kiln.Jit(deepMLP(depth, true))
	want, err := plain.RunAll(args...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remat.RunAll(args...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !tensor.Equal(got[i], want[i]) {
			t.Errorf("gradient %d differs with Checkpoint", i)
		}
	}
	mp, err := plain.Lower(args...)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := remat.Lower(args...)
	if err != nil {
		t.Fatal(err)
	}
	np, nr := lower.MemoryNeed(mp), lower.MemoryNeed(mr)
	sp, sr := scratchBytes(mp), scratchBytes(mr)
	t.Logf("MemoryNeed of the backward pass: %d bytes plain, %d with Checkpoint (%.0f%%); of which scratch %d and %d (%.0f%%); kernels %d and %d",
		np, nr, 100*float64(nr)/float64(np), sp, sr, 100*float64(sr)/float64(sp), len(mp.Fusions), len(mr.Fusions))
	if nr >= np || 2*sr > sp {
		t.Errorf("Checkpoint does not lower the memory enough: %d bytes plain, %d checkpointed; scratch %d and %d (want at most half)", np, nr, sp, sr)
	}
}

// scratchBytes is the size of a planned module's scratch buffers: what it
// holds besides its inputs, outputs and constants.
func scratchBytes(m *lower.Module) int {
	n := 0
	for _, b := range m.Plan.Buffers {
		if b.Param < 0 && b.Output < 0 {
			n += b.Size * b.DType.Size()
		}
	}
	return n
}

// TestCheckpointTransparent: Checkpoint changes no value and no first
// derivative, bit for bit — its value, forward mode (JVP), Grad, and Grad
// on constants outside any Jit (Eval); second derivatives agree to
// rounding (the recomputed values get cotangents of their own, summed in
// another order). The recomputation really is in the backward program:
// ValueAndGrad's has more instructions (Grad's alone does not, since the
// forward values, unread, are dead).
func TestCheckpointTransparent(t *testing.T) {
	f := func(x kiln.Value) kiln.Value { return x.Sin().Mul(x).Exp().Tanh().Sum() }
	ck := kiln.Checkpoint(f)
	g := func(x kiln.Value) kiln.Value { return ck(x)[0] }
	x := tensor.Must(tensor.FromSlice([]float64{0.3, -1.2, 2.5, 0.01}, 4))
	pairs := map[string][2]any{
		"value": {f, g},
		"jvp": {
			func(x kiln.Value) []kiln.Value { _, t := kiln.JVP(f, []kiln.Value{x}, []kiln.Value{x}); return t },
			func(x kiln.Value) []kiln.Value { _, t := kiln.JVP(g, []kiln.Value{x}, []kiln.Value{x}); return t },
		},
		"grad":           {kiln.Grad(f), kiln.Grad(g)},
		"value and grad": {kiln.ValueAndGrad(f), kiln.ValueAndGrad(g)},
	}
	for name, p := range pairs {
		want, err := kiln.Jit(p[0]).RunAll(x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := kiln.Jit(p[1]).RunAll(x)
		if err != nil {
			t.Fatalf("%s with Checkpoint: %v", name, err)
		}
		for i := range want {
			if !tensor.Equal(got[i], want[i]) {
				t.Errorf("%s: result %d is %v with Checkpoint, %v without", name, i, got[i], want[i])
			}
		}
	}
	want, err := kiln.Eval(kiln.Grad(f)(kiln.Const(x))[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := kiln.Eval(kiln.Grad(g)(kiln.Const(x))[0])
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.Equal(got, want) {
		t.Errorf("Eval(Grad): %v with Checkpoint, %v without", got, want)
	}
	gg := func(f any) *kiln.Func {
		return kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(f)(x)[0].Sum() }))
	}
	want, err = gg(f).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err = gg(g).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range f64s(t, want) {
		if g := f64s(t, got)[i]; !near(g, w, 1e-14) {
			t.Errorf("Grad(Grad)[%d] = %v with Checkpoint, %v without", i, g, w)
		}
	}
	mp, err := kiln.Jit(kiln.ValueAndGrad(f)).Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := kiln.Jit(kiln.ValueAndGrad(g)).Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := kiln.Jit(kiln.ValueAndGrad(g)).Trace(x); err != nil || !strings.Contains(p.String(), "# remat") {
		t.Errorf("the traced program prints no recomputation (%v):\n%s", err, p)
	}
	if len(mr.Instrs) <= len(mp.Instrs) {
		t.Errorf("the checkpointed ValueAndGrad has %d instructions, the plain one %d: nothing is recomputed", len(mr.Instrs), len(mp.Instrs))
	}
}

// TestCheckpointPrograms: for random programs (package progen, with and
// without loops and branches), the gradient of the program checkpointed —
// the program alone, and the whole loss around the checkpointed program
// (nested regions) — equals the plain gradient bit for bit, fused, with
// the verifiers on; most of the checkpointed gradients do recompute.
func TestCheckpointPrograms(t *testing.T) {
	for _, mode := range []string{"plain", "control"} {
		var next, compared, recomputed atomic.Int64
		next.Store(7_000_000)
		const n = 300
		forSeeds(t, func() (int64, bool) {
			seed := next.Add(1) - 1
			return seed, compared.Load() < n && seed-7_000_000 < 10*n
		}, func(seed int64) string {
			c := progen.Generate(rand.New(rand.NewSource(seed)), withMode(progen.Options{Ops: differentiableOps()}, mode))
			ck := *c
			whole := kiln.Checkpoint(c.Fn)
			ck.Fn = func(xs []kiln.Value) []kiln.Value { return whole(xs...) }
			loss, argnums, ok := gradSetup(c, rand.New(rand.NewSource(^seed)))
			if !ok {
				return ""
			}
			lossCk, _, _ := gradSetup(&ck, rand.New(rand.NewSource(^seed)))
			args, opts := caseArgs(c), append(caseOptions(c), kiln.Verify())
			want, err := kiln.Jit(kiln.Grad(loss, argnums...), opts...).RunAll(args...)
			if whileRefused(c, err) {
				return ""
			}
			report := func(what string) string {
				return fmt.Sprintf("checkpoint seed %d mode %s: %s\ncase:\n%s", seed, mode, what, c)
			}
			if err != nil {
				return report("plain gradient: " + err.Error())
			}
			outer := kiln.Checkpoint(func(xs []kiln.Value) []kiln.Value { return []kiln.Value{lossCk(xs...)} })
			nested := func(xs ...kiln.Value) kiln.Value { return outer(xs...)[0] }
			for name, l := range map[string]func(xs ...kiln.Value) kiln.Value{"checkpointed": lossCk, "nested": nested} {
				f := kiln.Jit(kiln.Grad(l, argnums...), opts...)
				got, err := f.RunAll(args...)
				if err != nil {
					return report(name + " gradient: " + err.Error())
				}
				if d := diffResults(got, want, false); d != "" {
					return report("the " + name + " gradient differs: " + d)
				}
				if p, _ := f.Trace(args...); name == "nested" && p != nil && strings.Contains(p.String(), "# remat") {
					recomputed.Add(1)
				}
			}
			compared.Add(1)
			return ""
		})
		if compared.Load() < n || 2*recomputed.Load() < compared.Load() {
			t.Errorf("%s: %d programs compared (want %d), %d recomputing (want most)", mode, compared.Load(), n, recomputed.Load())
		}
		t.Logf("%s: %d programs, %d recomputing", mode, compared.Load(), recomputed.Load())
	}
}
