package kiln_test

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// naiveLSE is log Σ exp(x) as written: its own derivative, exp(x)/Σexp(x),
// is inf/inf = NaN where exp overflows.
func naiveLSE(x kiln.Value) kiln.Value { return x.Exp().Sum().Log() }

// customLSE is naiveLSE with a custom VJP whose fwd is the stable
// logsumexp and whose bwd is the stable softmax; bwdCalls counts the
// traces of bwd.
func customLSE(bwdCalls *int) func(args ...kiln.Value) []kiln.Value {
	return kiln.CustomVJP(naiveLSE,
		func(p []kiln.Value) ([]kiln.Value, []kiln.Value) {
			m := kiln.StopGradient(p[0].Max())
			lse := p[0].Sub(m).Exp().Sum().Log().Add(m)
			return []kiln.Value{lse}, []kiln.Value{p[0], lse}
		},
		func(res, cts []kiln.Value) []kiln.Value {
			*bwdCalls++
			x, lse := res[0], res[1]
			return []kiln.Value{x.Sub(lse).Exp().Mul(cts[0])}
		})
}

func f64Array(t *testing.T, xs ...float64) *tensor.Array {
	t.Helper()
	return tensor.Must(tensor.FromSlice(xs, len(xs)))
}

// TestCustomVJPLogSumExp: the gradient of a logsumexp with a custom VJP
// is its bwd's — finite softmax weights where the naive function's own
// derivative overflows to NaN — under Grad, ValueAndGrad, VJP and Jit, and
// fn's value stands outside derivatives.
func TestCustomVJPLogSumExp(t *testing.T) {
	x := f64Array(t, 1000, 999, 998)
	naive, err := kiln.Jit(kiln.Grad(naiveLSE)).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	if g := f64s(t, naive); !math.IsNaN(g[0]) {
		t.Fatalf("the naive gradient is %v; the test needs it to overflow to NaN", g)
	}
	calls := 0
	lse := customLSE(&calls)
	z := math.Exp(0) + math.Exp(-1) + math.Exp(-2)
	want := []float64{1 / z, math.Exp(-1) / z, math.Exp(-2) / z}
	check := func(name string, got *tensor.Array, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, g := range f64s(t, got) {
			if !near(g, want[i], 1e-12) { // exp(x − lse) with lse ≈ 1000.4: ulp(1000) ≈ 1e-13
				t.Errorf("%s[%d] = %v, want %v (softmax)", name, i, g, want[i])
			}
		}
	}
	g, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return lse(x)[0] })).Run(x)
	check("Jit(Grad)", g, err)
	if calls != 1 {
		t.Errorf("bwd traced %d times, want 1", calls)
	}
	outs, err := kiln.Jit(kiln.ValueAndGrad(func(x kiln.Value) kiln.Value { return lse(x)[0] })).RunAll(x)
	if err != nil {
		t.Fatal(err)
	}
	if v := f64s(t, outs[0])[0]; !near(v, 1000+math.Log(z), 1e-15) {
		t.Errorf("ValueAndGrad's value %v, want fwd's stable %v", v, 1000+math.Log(z))
	}
	check("ValueAndGrad", outs[1], nil)
	vjp := func(x kiln.Value) kiln.Value {
		_, pb := kiln.VJP(func(x kiln.Value) kiln.Value { return lse(x)[0] }, x)
		return pb(kiln.Float(1))[0]
	}
	g, err = kiln.Jit(vjp).Run(x)
	check("VJP", g, err)
	// Outside derivatives fn itself runs: naive, it overflows.
	v, err := kiln.Jit(func(x kiln.Value) kiln.Value { return lse(x)[0] }).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := f64s(t, v)[0]; !math.IsInf(got, 1) {
		t.Errorf("the custom function's value outside derivatives is %v, want fn's (+Inf)", got)
	}
}

// customSoftplus is log(1 + exp(x)) with the custom JVP t·σ(x), which
// stays finite where exp overflows.
func customSoftplus(x kiln.Value) kiln.Value {
	return kiln.CustomJVP(func(x kiln.Value) kiln.Value { return x.Exp().Add(kiln.Float(1)).Log() },
		func(p, t []kiln.Value) ([]kiln.Value, []kiln.Value) {
			x := p[0]
			y := x.Maximum(kiln.Float(0)).Add(x.Abs().Neg().Exp().Log1p())
			return []kiln.Value{y}, []kiln.Value{t[0].Mul(x.Logistic())}
		})(x)[0]
}

// TestCustomJVPSoftplus: a softplus with a custom JVP is differentiated
// by its rule in forward mode (JVP), in reverse mode (Grad transposes the
// rule's tangent) and to second order (the rule differentiated: σ'(x) =
// σ(x)(1 − σ(x))), where the function's own derivative is NaN.
func TestCustomJVPSoftplus(t *testing.T) {
	x := f64Array(t, 1000, 0, -3)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	xs := []float64{1000, 0, -3}
	check := func(name string, got *tensor.Array, err error, want func(float64) float64) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, g := range f64s(t, got) {
			if !near(g, want(xs[i]), 1e-14) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g, want(xs[i]))
			}
		}
	}
	jvp := func(x kiln.Value) []kiln.Value {
		_, ts := kiln.JVP(customSoftplus, []kiln.Value{x}, []kiln.Value{kiln.OnesLike(x)})
		return ts
	}
	g, err := kiln.Jit(func(x kiln.Value) kiln.Value { return jvp(x)[0] }).Run(x)
	check("JVP", g, err, sig)
	sum := func(x kiln.Value) kiln.Value { return customSoftplus(x).Sum() }
	g, err = kiln.Jit(kiln.Grad(sum)).Run(x)
	check("Grad", g, err, sig)
	g, err = kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(sum)(x)[0].Sum() })).Run(x)
	check("Grad(Grad)", g, err, func(v float64) float64 { return sig(v) * (1 - sig(v)) })
	// The value under a derivative is the rule's (stable); the naive
	// function's overflows.
	outs, err := kiln.Jit(kiln.ValueAndGrad(sum)).RunAll(x)
	if err != nil {
		t.Fatal(err)
	}
	if v, want := f64s(t, outs[0])[0], 1000+math.Log(2)+math.Log1p(math.Exp(-3)); !near(v, want, 1e-15) {
		t.Errorf("value %v, want %v", v, want)
	}
}

// derivErr traces fn's Jit at args and returns its *trace.DerivError.
func derivErr(t *testing.T, fn any, args ...any) *trace.DerivError {
	t.Helper()
	_, err := kiln.Jit(fn).RunAll(args...)
	var de *trace.DerivError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *trace.DerivError", err)
	}
	if !strings.Contains(err.Error(), "custom_test.go:") {
		t.Errorf("%v: does not name this file", err)
	}
	return de
}

// TestCustomRuleErrors: rules that break their contract, forward mode
// through a custom VJP, and a closure over a differentiated value are
// *trace.DerivErrors naming the op and the line applying the function.
func TestCustomRuleErrors(t *testing.T) {
	x := f64Array(t, 1, 2, 3)
	sq := func(x kiln.Value) kiln.Value { return x.Mul(x).Sum() }
	fwd := func(p []kiln.Value) ([]kiln.Value, []kiln.Value) { return []kiln.Value{sq(p[0])}, p }
	bwds := map[string]struct {
		bwd  func(res, cts []kiln.Value) []kiln.Value
		want string
	}{
		"count": {func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{res[0], res[0]} }, "bwd returned 2 cotangents for a function of 1 arguments"},
		"shape": {func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{res[0].Sum()} }, "bwd's cotangent 0 is f64[], but f64[3] is due"},
		"dtype": {func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{res[0].Astype(tensor.F32)} }, "bwd's cotangent 0 is f32[3], but f64[3] is due"},
	}
	for name, c := range bwds {
		f := kiln.CustomVJP(sq, fwd, c.bwd)
		de := derivErr(t, kiln.Grad(func(x kiln.Value) kiln.Value { return f(x)[0] }), x)
		if de.Op != "custom_vjp" || !strings.Contains(de.Msg, c.want) {
			t.Errorf("%s: %v; want custom_vjp: %s", name, de, c.want)
		}
	}
	f := kiln.CustomVJP(sq, fwd, func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{res[0].Mul(cts[0])} })
	de := derivErr(t, func(x kiln.Value) []kiln.Value {
		_, ts := kiln.JVP(func(x kiln.Value) kiln.Value { return f(x)[0] }, []kiln.Value{x}, []kiln.Value{x})
		return ts
	}, x)
	if !strings.Contains(de.Msg, "forward-mode") {
		t.Errorf("JVP of a custom_vjp: %v", de)
	}
	badJVP := kiln.CustomJVP(sq, func(p, ts []kiln.Value) ([]kiln.Value, []kiln.Value) {
		return []kiln.Value{sq(p[0])}, []kiln.Value{ts[0]}
	})
	de = derivErr(t, kiln.Grad(func(x kiln.Value) kiln.Value { return badJVP(x)[0] }), x)
	if de.Op != "custom_jvp" || !strings.Contains(de.Msg, "jvp rule's tangent 0 is f64[3], but f64[] is due") {
		t.Errorf("a tangent of the wrong shape: %v", de)
	}
	// The rule knows only fn's arguments: a closure over a value being
	// differentiated would get no derivative from it.
	de = derivErr(t, kiln.Grad(func(x kiln.Value) kiln.Value {
		y := x.Mul(kiln.Float(2))
		g := kiln.CustomVJP(func(z kiln.Value) kiln.Value { return z.Mul(y).Sum() }, fwd, f64Bwd)
		return g(x)[0]
	}), x)
	if !strings.Contains(de.Msg, "closes over a value being differentiated") {
		t.Errorf("a closure: %v", de)
	}
	// Returning a closed-over value being differentiated is a closure too.
	de = derivErr(t, kiln.Grad(func(x kiln.Value) kiln.Value {
		y := x.Mul(kiln.Float(2))
		g := kiln.CustomVJP(func(z kiln.Value) []kiln.Value { return []kiln.Value{z.Sum(), y} }, func(p []kiln.Value) ([]kiln.Value, []kiln.Value) {
			return []kiln.Value{p[0].Sum(), p[0].Mul(kiln.Float(2))}, p // rules see only their arguments
		}, func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{kiln.OnesLike(res[0]).Mul(cts[0])} })
		r := g(x)
		return r[0].Add(r[1].Sum())
	}), x)
	if !strings.Contains(de.Msg, "closes over a value being differentiated") {
		t.Errorf("a closed-over result: %v", de)
	}
	// A value of the function leaving it through a Go variable has no
	// derivative once the rule replaced the function's.
	de = derivErr(t, kiln.Grad(func(x kiln.Value) kiln.Value {
		var leaked kiln.Value
		g := kiln.CustomVJP(func(z kiln.Value) kiln.Value { leaked = z.Sin(); return z.Mul(z).Sum() }, fwd, f64Bwd)
		return g(x)[0].Add(leaked.Sum())
	}), x)
	if !strings.Contains(de.Msg, "used outside it other than as its result") {
		t.Errorf("a leaked value: %v", de)
	}
	// Without a tangent reaching the function, nothing was replaced: a
	// leaked value is an ordinary one (its derivative is zero).
	var leaked kiln.Value
	g := kiln.CustomVJP(func(z kiln.Value) kiln.Value { leaked = z.Sin(); return z.Mul(z).Sum() }, fwd, f64Bwd)
	out, err := kiln.Jit(kiln.Grad(func(x, w kiln.Value) kiln.Value { return g(x)[0].Add(leaked.Mul(w).Sum()) }, 1)).Run(x, x)
	if err != nil {
		t.Fatalf("a leaked value with no tangent: %v", err)
	}
	for i, v := range f64s(t, out) {
		if want := math.Sin(float64(i + 1)); !near(v, want, 1e-15) {
			t.Errorf("gradient[%d] = %v, want sin(x) = %v", i, v, want)
		}
	}
}

func f64Bwd(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{res[0].Mul(cts[0])} }

// TestCustomNested: custom rules compose with each other and with
// Checkpoint — a custom VJP inside a checkpointed function, a checkpoint
// inside a custom JVP's function — and with Grad of Grad.
func TestCustomNested(t *testing.T) {
	x := f64Array(t, 1000, 999, 998)
	calls := 0
	lse := customLSE(&calls)
	ck := kiln.Checkpoint(func(x kiln.Value) kiln.Value { return lse(x.Mul(kiln.Float(2)))[0].Mul(kiln.Float(3)) })
	g, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return ck(x)[0] })).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	z := 1 + math.Exp(-2) + math.Exp(-4)
	for i, gi := range f64s(t, g) {
		if want := 6 * math.Exp(-2*float64(i)) / z; !near(gi, want, 1e-12) {
			t.Errorf("Grad(Checkpoint(custom_vjp))[%d] = %v, want %v", i, gi, want)
		}
	}
	// The custom function's result carried by a loop: the loop's
	// transposition hands its cotangent to bwd.
	g, err = kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(kiln.Float(2))}
		}, lse(x)[0])[0]
	})).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	z1 := 1 + math.Exp(-1) + math.Exp(-2)
	for i, gi := range f64s(t, g) {
		if want := 8 * math.Exp(-float64(i)) / z1; !near(gi, want, 1e-12) {
			t.Errorf("Grad(loop(custom_vjp))[%d] = %v, want %v", i, gi, want)
		}
	}
	inner := kiln.CustomJVP(func(x kiln.Value) kiln.Value {
		return kiln.Checkpoint(func(x kiln.Value) kiln.Value { return x.Sin() })(x)[0]
	}, func(p, t []kiln.Value) ([]kiln.Value, []kiln.Value) {
		return []kiln.Value{p[0].Sin()}, []kiln.Value{t[0].Mul(p[0].Cos())}
	})
	y := f64Array(t, 0.5, -1)
	g, err = kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value {
		return kiln.Grad(func(x kiln.Value) kiln.Value { return inner(x)[0].Sum() })(x)[0].Sum()
	})).Run(y)
	if err != nil {
		t.Fatal(err)
	}
	for i, gi := range f64s(t, g) {
		if want := -math.Sin([]float64{0.5, -1}[i]); !near(gi, want, 1e-15) {
			t.Errorf("Grad(Grad(custom_jvp(checkpoint(sin))))[%d] = %v, want %v", i, gi, want)
		}
	}
}

// TestCustomVJPArity: a custom VJP of two arguments (one an integer,
// which gets no cotangent) and two results; bwd gets zeros for the result
// the loss does not use and may return the zero Value for "none"; Grad
// with respect to the float argument gives bwd's cotangent.
func TestCustomVJPArity(t *testing.T) {
	var seen []string
	f := kiln.CustomVJP(func(x, n kiln.Value) []kiln.Value {
		s := x.Mul(n.Astype(tensor.F64))
		return []kiln.Value{s.Sum(), n.Add(kiln.Int(1))}
	}, func(p []kiln.Value) ([]kiln.Value, []kiln.Value) {
		s := p[0].Mul(p[1].Astype(tensor.F64))
		return []kiln.Value{s.Sum(), p[1].Add(kiln.Int(1))}, p
	}, func(res, cts []kiln.Value) []kiln.Value {
		seen = append(seen, cts[0].Type().String()+"/"+cts[1].Type().String())
		return []kiln.Value{kiln.OnesLike(res[0]).Mul(cts[0]).Mul(res[1].Astype(tensor.F64)).Mul(kiln.Float(2)), {}}
	})
	g, err := kiln.Jit(kiln.GradWith(func(x, n kiln.Value) []kiln.Value {
		r := f(x, n)
		return []kiln.Value{r[0], r[1]}
	}, kiln.GradOptions{HasAux: true})).RunAll(f64Array(t, 1, 2, 3), tensor.Must(tensor.FromSlice([]int32{5})))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f64s(t, g[0]) {
		if v != 10 { // bwd's 2·n, not the true derivative n
			t.Errorf("gradient[%d] = %v, want bwd's 10", i, v)
		}
	}
	if got := f64s(t, g[1]); len(got) != 1 || got[0] != 6 {
		t.Errorf("aux = %v, want [6]", got)
	}
	if len(seen) != 1 || seen[0] != "f64/bool" {
		t.Errorf("bwd got cotangents of types %v, want [f64/bool] (the integer result's is float0: bool zeros)", seen)
	}
}

// TestCustomPrograms: over random programs (package progen, with and
// without loops and branches), a CustomJVP
// whose rule is the program's own JVP and a CustomVJP whose fwd and bwd
// are its own VJP give the plain gradient, bit for bit, fused with the
// verifiers on: the regions' plumbing (marks, stand-ins, transposition)
// changes nothing when the rules restate the derivative.
func TestCustomPrograms(t *testing.T) {
	for _, mode := range []string{"plain", "control"} {
		testCustomPrograms(t, mode)
	}
}

func testCustomPrograms(t *testing.T, mode string) {
	var next, compared atomic.Int64
	next.Store(8_000_000)
	const n = 300
	forSeeds(t, func() (int64, bool) {
		seed := next.Add(1) - 1
		return seed, compared.Load() < n && seed-8_000_000 < 10*n
	}, func(seed int64) string {
		c := progen.Generate(rand.New(rand.NewSource(seed)), withMode(progen.Options{Ops: differentiableOps()}, mode))
		var pullbacks []func(...kiln.Value) []kiln.Value // fwd's, for bwd: a closure, as residuals need not be Values
		viaJVP := kiln.CustomJVP(c.Fn, func(p, ts []kiln.Value) ([]kiln.Value, []kiln.Value) { return kiln.JVP(c.Fn, p, ts) })
		viaVJP := kiln.CustomVJP(c.Fn, func(p []kiln.Value) ([]kiln.Value, []kiln.Value) {
			outs, pb := kiln.VJP(c.Fn, p...)
			pullbacks = append(pullbacks, pb)
			return outs, nil
		}, func(_, cts []kiln.Value) []kiln.Value {
			pb := pullbacks[len(pullbacks)-1]
			return pb(cts...)
		})
		loss, argnums, ok := gradSetup(c, rand.New(rand.NewSource(^seed)))
		if !ok {
			return ""
		}
		args, opts := caseArgs(c), append(caseOptions(c), kiln.Verify())
		want, err := kiln.Jit(kiln.Grad(loss, argnums...), opts...).RunAll(args...)
		if err != nil {
			return ""
		}
		report := func(what string) string {
			return fmt.Sprintf("custom seed %d mode %s: %s\ncase:\n%s", seed, mode, what, c)
		}
		// A value returned twice gets the sum of its results' cotangents:
		// the plain gradient adds them in the loss's backward order, the
		// rules in result order — the same to rounding only.
		p, _ := c.Trace()
		repeats := false
		for i, o := range p.Outputs {
			repeats = repeats || slices.Contains(p.Outputs[:i], o)
		}
		for name, fn := range map[string]func(...kiln.Value) []kiln.Value{"custom_jvp": viaJVP, "custom_vjp": viaVJP} {
			cc := *c
			cc.Fn = func(xs []kiln.Value) []kiln.Value { return fn(xs...) }
			l, _, _ := gradSetup(&cc, rand.New(rand.NewSource(^seed)))
			got, err := kiln.Jit(kiln.Grad(l, argnums...), opts...).RunAll(args...)
			if err != nil {
				return report(name + ": " + err.Error())
			}
			if d := diffResults(got, want, false); d != "" && (!repeats || closeResults(got, want) != "") {
				return report(name + " gradient differs: " + d)
			}
		}
		compared.Add(1)
		return ""
	})
	if compared.Load() < n {
		t.Errorf("%s: only %d programs compared, want %d", mode, compared.Load(), n)
	}
}

// closeResults compares results to a few roundings of their dtype (a
// relative 1e-5 for f32 and c64, 1e-2 for f16 and bf16), NaN equal to NaN,
// or says where they differ.
func closeResults(got, want []*tensor.Array) string {
	for i := range got {
		tol := 1e-5
		if d := want[i].DType(); d == tensor.F16 || d == tensor.BF16 {
			tol = 1e-2
		}
		g, w := got[i].Astype(tensor.C128), want[i].Astype(tensor.C128)
		for k := range g.Size() {
			a, b := tensor.Index(g.Data(), k).(complex128), tensor.Index(w.Data(), k).(complex128)
			if cmplx.IsNaN(a) && cmplx.IsNaN(b) || a == b {
				continue
			}
			if cmplx.Abs(a-b) > tol*(cmplx.Abs(b)+1e-30) {
				return fmt.Sprintf("result %d element %d: %v, want %v", i, k, a, b)
			}
		}
	}
	return ""
}

// TestCustomVJPInControlFlow: a custom VJP inside a loop body and a cond
// branch is used by reverse mode through them. The function is |x| written
// as √(x²), whose own derivative x/√(x²) is NaN at 0, with bwd sign(x)·ct:
// the gradients equal those of x·sign(x) with the sign held constant
// (derivative sign(x), 0 at 0), and bwd was traced.
func TestCustomVJPInControlFlow(t *testing.T) {
	x := f64Array(t, 0, 1.5, -2)
	calls := 0
	naiveAbs := func(x kiln.Value) kiln.Value { return x.Mul(x).Sqrt() }
	abs := kiln.CustomVJP(naiveAbs,
		func(p []kiln.Value) ([]kiln.Value, []kiln.Value) { return []kiln.Value{naiveAbs(p[0])}, p },
		func(res, cts []kiln.Value) []kiln.Value { calls++; return []kiln.Value{res[0].Sign().Mul(cts[0])} })
	shapes := map[string]func(f func(kiln.Value) kiln.Value) func(x kiln.Value) kiln.Value{
		"fori_loop": func(f func(kiln.Value) kiln.Value) func(x kiln.Value) kiln.Value {
			return func(x kiln.Value) kiln.Value {
				return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(f(c[0]))}
				}, x)[0].Sum()
			}
		},
		"cond": func(f func(kiln.Value) kiln.Value) func(x kiln.Value) kiln.Value {
			return func(x kiln.Value) kiln.Value {
				return kiln.Cond(x.Sum().Lt(kiln.Float(0)), func(o []kiln.Value) []kiln.Value { return []kiln.Value{f(o[0].Mul(kiln.Float(3))).Sum()} },
					func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Sum()} }, x)[0]
			}
		},
	}
	for name, shape := range shapes {
		calls = 0
		got, err := kiln.Jit(kiln.Grad(shape(func(x kiln.Value) kiln.Value { return abs(x)[0] }))).Run(x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := kiln.Jit(kiln.Grad(shape(func(x kiln.Value) kiln.Value { return x.Mul(kiln.StopGradient(x.Sign())) }))).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		naive, err := kiln.Jit(kiln.Grad(shape(naiveAbs))).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(f64s(t, naive)[0]) {
			t.Errorf("%s: the naive gradient is %v; the test needs NaN", name, naive)
		}
		if !tensor.Equal(got, want) {
			t.Errorf("%s: gradient %v, want %v", name, got, want)
		}
		if calls == 0 {
			t.Errorf("%s: bwd was never traced", name)
		}
	}
}

// TestCustomVJPInLoopSecondOrder: the gradient and the gradient of the
// gradient's sum through a loop whose body applies sin(x²) with a custom
// VJP that restates its derivative (2x·cos(x²)) agree with the plain
// function's, with the verifiers on: the stand-ins a loop body's tangent
// program holds are linearized again, and never reach a program that runs.
func TestCustomVJPInLoopSecondOrder(t *testing.T) {
	x := f64Array(t, 0.3, 1.5, -2)
	plain := func(x kiln.Value) kiln.Value { return x.Mul(x).Sin() }
	custom := kiln.CustomVJP(plain,
		func(p []kiln.Value) ([]kiln.Value, []kiln.Value) { return []kiln.Value{plain(p[0])}, p },
		func(res, cts []kiln.Value) []kiln.Value {
			return []kiln.Value{res[0].Mul(res[0]).Cos().Mul(res[0]).Mul(kiln.Float(2)).Mul(cts[0])}
		})
	loop := func(f func(kiln.Value) kiln.Value) func(x kiln.Value) kiln.Value {
		return func(x kiln.Value) kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(2), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(f(c[0]))}
			}, x)[0].Sum()
		}
	}
	first := func(f func(kiln.Value) kiln.Value) *kiln.Func { return kiln.Jit(kiln.Grad(loop(f)), kiln.Verify()) }
	second := func(f func(kiln.Value) kiln.Value) *kiln.Func {
		return kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(loop(f))(x)[0].Sum() }), kiln.Verify())
	}
	for name, order := range map[string]func(func(kiln.Value) kiln.Value) *kiln.Func{"grad": first, "grad of grad": second} {
		got, err := order(func(x kiln.Value) kiln.Value { return custom(x)[0] }).Run(x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := order(plain).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range f64s(t, want) {
			if g := f64s(t, got)[i]; !near(g, w, 1e-13) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g, w)
			}
		}
	}
}
