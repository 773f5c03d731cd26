package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func run1(t *testing.T, f *kiln.Func, args ...any) []*tensor.Array {
	t.Helper()
	out, err := f.RunAll(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantValues(t *testing.T, name string, got *tensor.Array, want ...float64) {
	t.Helper()
	vals := f64s(t, got)
	if len(vals) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(vals), len(want))
	}
	for i := range want {
		if vals[i] != want[i] {
			t.Errorf("%s = %v, want %v", name, vals, want)
			return
		}
	}
}

// TestGradTies checks that ties split as JAX splits them: maximum and
// minimum give each operand half, reduce_max and reduce_min share the
// tangent among all the extrema, and abs has slope +1 at 0.
func TestGradTies(t *testing.T) {
	x, _ := tensor.FromSlice([]float64{1, 2, 3})
	y, _ := tensor.FromSlice([]float64{1, 5, 0})
	for name, fn := range map[string]func(x, y kiln.Value) kiln.Value{
		"maximum": func(x, y kiln.Value) kiln.Value { return x.Maximum(y).Sum() },
		"minimum": func(x, y kiln.Value) kiln.Value { return x.Minimum(y).Sum() },
	} {
		g := run1(t, kiln.Jit(kiln.Grad(fn, 0, 1)), x, y)
		if name == "maximum" {
			wantValues(t, name+" dx", g[0], 0.5, 0, 1)
			wantValues(t, name+" dy", g[1], 0.5, 1, 0)
		} else {
			wantValues(t, name+" dx", g[0], 0.5, 1, 0)
			wantValues(t, name+" dy", g[1], 0.5, 0, 1)
		}
	}
	v, _ := tensor.FromSlice([]float64{3, 1, 3, 2, 3, -1})
	g := run1(t, kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return x.Max() })), v)
	wantValues(t, "reduce_max", g[0], 1.0/3, 0, 1.0/3, 0, 1.0/3, 0)
	m, _ := tensor.FromSlice([]float64{0, 0, 1, 5}, 2, 2)
	g = run1(t, kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return x.Min(1).Sum() })), m)
	wantValues(t, "reduce_min rows", g[0], 0.5, 0.5, 1, 0)
	z, _ := tensor.FromSlice([]float64{0, -2, 2})
	g = run1(t, kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return x.Abs().Sum() })), z)
	wantValues(t, "abs", g[0], 1, -1, 1)
}

// TestGradDTypes checks that a cotangent has its primal's dtype and weak
// flag, for every inexact dtype, weak or not.
func TestGradDTypes(t *testing.T) {
	f := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return x.Mul(x).Sin().Real().Sum() }))
	for _, d := range []tensor.DType{tensor.F16, tensor.BF16, tensor.F32, tensor.F64, tensor.C64, tensor.C128} {
		for _, weak := range []bool{false, true} {
			var arg any = tensor.Must(tensor.Arange(d, 3))
			want := promote.Strong(d)
			if weak {
				arg, want = kiln.Weak(tensor.Must(tensor.Arange(d, 3))), promote.WeakOf(d)
			}
			p, err := f.Trace(arg)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Outputs[0].Type; got != want {
				t.Errorf("grad of a %s argument is %s", want, got)
			}
		}
	}
	// A Go float64 is a weak f64 scalar, as a Python float: its gradient
	// stays weak.
	p, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return x.Mul(x) })).Trace(3.0)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Outputs[0].TypeString(); got != "f64*[]" {
		t.Errorf("grad of a weak scalar is %s, want f64*[]", got)
	}
}

// TestGradConvertBack checks that convert transposes back to the source
// dtype: an f16 input used in f32 gets an f16 gradient, through an
// explicit convert the printed program explains.
func TestGradConvertBack(t *testing.T) {
	f := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return x.Astype(tensor.F32).Exp().Sum() }))
	x := tensor.Must(tensor.Arange(tensor.F16, 4))
	p, err := f.Trace(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Outputs[0].TypeString(); got != "f16[4]" {
		t.Fatalf("gradient is %s, want f16[4]", got)
	}
	if s := p.String(); !strings.Contains(s, "= convert[f16] ") || !strings.Contains(s, "cotangent of convert f16 -> f32 goes back to f16") {
		t.Errorf("the backward convert is not shown:\n%s", s)
	}
	g := run1(t, f, x)
	// exp computed in f32, its product with the cotangent rounded once to f16.
	want := tensor.Must(tensor.Arange(tensor.F32, 4))
	wv, _ := kiln.Eval(kiln.Const(want).Exp().Astype(tensor.F16))
	if !tensor.Equal(g[0], wv) {
		t.Errorf("grad = %v, want %v", g[0], wv)
	}
}

// TestGradHalfRounding checks that an f16 or bf16 gradient rounds after
// every op exactly as the same backward pass written out by hand in that
// dtype: tanh's JAX rule (t + t·y)·(1 − y) and mul's, op by op.
func TestGradHalfRounding(t *testing.T) {
	for _, d := range []tensor.DType{tensor.F16, tensor.BF16} {
		xa, _ := tensor.FromSlice([]float64{-1.3, -0.4, 0.1, 0.7, 1.9})
		x := xa.Astype(d)
		w := xa.Astype(d)
		grad := kiln.Jit(kiln.Grad(func(x, w kiln.Value) kiln.Value { return x.Tanh().Mul(w).Astype(tensor.F32).Sum() }))
		// The transpose of tanh's JVP (t + t·y)·(1 − y), as JAX's: c =
		// g·(1 − y), then c + c·y, where g = 1 (f32) → f16, times w.
		byHand := kiln.Jit(func(x, w kiln.Value) kiln.Value {
			y := x.Tanh()
			c := w.Mul(kiln.Int(1).Sub(y))
			return c.Add(c.Mul(y))
		})
		got := run1(t, grad, x, w)[0]
		want := run1(t, byHand, x, w)[0]
		if got.DType() != d || !tensor.Equal(got, want) {
			t.Errorf("%s: grad %v, by hand %v", d, got, want)
		}
	}
}

// TestGradAllowInt checks AllowInt: integer and bool arguments get JAX's
// float0 gradient — bool zeros of their shape — and float ones theirs.
func TestGradAllowInt(t *testing.T) {
	f := kiln.Jit(kiln.GradWith(func(x, n kiln.Value) kiln.Value { return x.Mul(n.Astype(tensor.F32)).Sum() },
		kiln.GradOptions{Argnums: []int{0, 1}, AllowInt: true}))
	x, _ := tensor.FromSlice([]float32{1, 2})
	n, _ := tensor.FromSlice([]int32{3, 4})
	g := run1(t, f, x, n)
	wantValues(t, "dx", g[0], 3, 4)
	if g[1].DType() != tensor.Bool || !g[1].HasShape([]int{2}) || g[1].String() != "bool[2] [false false]" {
		t.Errorf("float0 gradient is %v, want bool[2] zeros", g[1])
	}
}

// TestGradHolomorphic checks Holomorphic: f'(z) for a complex function of
// complex arguments, and JAX's refusals of real inputs and outputs.
func TestGradHolomorphic(t *testing.T) {
	f := kiln.Jit(kiln.GradWith(func(z kiln.Value) kiln.Value { return z.Mul(z).Mul(z) }, kiln.GradOptions{Holomorphic: true}))
	g := run1(t, f, complex128(1+2i))[0]
	if got := tensor.Index(g.Data(), 0).(complex128); got != 3*(1+2i)*(1+2i) {
		t.Errorf("d(z³)/dz at 1+2i = %v, want %v", got, 3*(1+2i)*(1+2i))
	}
	for _, c := range []struct {
		fn  func(z kiln.Value) kiln.Value
		arg any
		msg string
	}{
		{func(z kiln.Value) kiln.Value { return z.Mul(z) }, 2.0, "grad with holomorphic=True requires inputs with complex dtype, but got float64"},
		{func(z kiln.Value) kiln.Value { return z.Abs() }, complex128(1), "grad with holomorphic=True requires outputs with complex dtype, but got float64"},
	} {
		_, err := kiln.Jit(kiln.GradWith(c.fn, kiln.GradOptions{Holomorphic: true})).Run(c.arg)
		var de *trace.DTypeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("error %v, want a *trace.DTypeError saying %q", err, c.msg)
		}
	}
	// Without Holomorphic, a real function of a complex argument has JAX's
	// gradient ∂f/∂x − i·∂f/∂y: for |z|², 2·conj(z).
	g = run1(t, kiln.Jit(kiln.Grad(func(z kiln.Value) kiln.Value { return z.Mul(z.Conj()).Real() })), complex128(3+4i))[0]
	if got := tensor.Index(g.Data(), 0).(complex128); got != 6-8i {
		t.Errorf("grad |z|² at 3+4i = %v, want 6-8i", got)
	}
}

// TestGradOptions checks argnums (several, negative), HasAux and
// ValueAndGrad's layout.
func TestGradOptions(t *testing.T) {
	fn := func(x, y kiln.Value) (kiln.Value, kiln.Value) { return x.Mul(y).Sum(), x.Add(y) }
	f := kiln.Jit(kiln.ValueAndGradWith(fn, kiln.GradOptions{Argnums: []int{-1, 0}, HasAux: true}))
	x, _ := tensor.FromSlice([]float64{1, 2})
	y, _ := tensor.FromSlice([]float64{3, 5})
	out := run1(t, f, x, y)
	if len(out) != 4 {
		t.Fatalf("%d results, want value, aux, dy, dx", len(out))
	}
	wantValues(t, "value", out[0], 13)
	wantValues(t, "aux", out[1], 4, 7)
	wantValues(t, "dy", out[2], 1, 2)
	wantValues(t, "dx", out[3], 3, 5)
	g := run1(t, kiln.Jit(kiln.GradWith(fn, kiln.GradOptions{HasAux: true})), x, y)
	wantValues(t, "grad dx", g[0], 3, 5)
	wantValues(t, "grad aux", g[1], 4, 7)
}

// TestVJPRefusals checks the pullback's and JVP's checks of cotangents and
// tangents, and VJP's float0 cotangents of integer primals.
func TestVJPRefusals(t *testing.T) {
	x := tensor.Must(tensor.Arange(tensor.F32, 3))
	bad := []struct {
		name string
		fn   func(x kiln.Value) kiln.Value
		kind any
		msg  string
	}{
		{"ct dtype", func(x kiln.Value) kiln.Value {
			_, pb := kiln.VJP(func(x kiln.Value) kiln.Value { return x.Sin() }, x)
			return pb(x.Astype(tensor.F64))[0]
		}, new(*trace.DTypeError), "cotangent 0 has dtype f64"},
		{"ct shape", func(x kiln.Value) kiln.Value {
			_, pb := kiln.VJP(func(x kiln.Value) kiln.Value { return x.Sum() }, x)
			return pb(x)[0]
		}, new(*trace.ShapeError), "cotangent 0 has shape [3], its primal []"},
		{"ct count", func(x kiln.Value) kiln.Value {
			_, pb := kiln.VJP(func(x kiln.Value) kiln.Value { return x }, x)
			return pb(x, x)[0]
		}, new(*trace.OpError), "2 cotangents for 1 results"},
		{"tangent dtype", func(x kiln.Value) kiln.Value {
			_, ts := kiln.JVP(func(x kiln.Value) kiln.Value { return x }, []kiln.Value{x}, []kiln.Value{x.Astype(tensor.F16)})
			return ts[0]
		}, new(*trace.DTypeError), "tangent 0 has dtype f16"},
	}
	for _, c := range bad {
		_, err := kiln.Jit(c.fn).Run(x)
		if !errors.As(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want a %T saying %q", c.name, err, c.kind, c.msg)
		}
	}
	f := kiln.Jit(func(x, n kiln.Value) []kiln.Value {
		_, pb := kiln.VJP(func(x, n kiln.Value) kiln.Value { return x.Mul(n.Astype(tensor.F32)) }, x, n)
		return pb(kiln.Float(1)) // a literal cotangent takes the result's type
	})
	out := run1(t, f, x, tensor.Must(tensor.Arange(tensor.I8, 3)))
	wantValues(t, "ct x", out[0], 0, 1, 2)
	if out[1].String() != "bool[3] [false false false]" {
		t.Errorf("cotangent of an int primal is %v, want float0 (bool zeros)", out[1])
	}
}

// TestTransformsNeverPanic feeds the transformations what they cannot
// take: each is a typed error of the trace, never a panic.
func TestTransformsNeverPanic(t *testing.T) {
	sq := func(x kiln.Value) kiln.Value { return x.Mul(x).Sum() }
	cases := map[string]func(x kiln.Value) []kiln.Value{
		"nil function":       func(x kiln.Value) []kiln.Value { return kiln.Grad(nil)(x) },
		"no arguments":       func(x kiln.Value) []kiln.Value { return kiln.Grad(sq)() },
		"too many arguments": func(x kiln.Value) []kiln.Value { return kiln.Grad(sq)(x, x) },
		"returns nothing": func(x kiln.Value) []kiln.Value {
			return kiln.Grad(func(xs ...kiln.Value) []kiln.Value { return nil })(x)
		},
		"returns the zero Value": func(x kiln.Value) []kiln.Value {
			return kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Value{} })(x)
		},
		"zero Value argument": func(x kiln.Value) []kiln.Value { return kiln.Grad(sq)(kiln.Value{}) },
		"vjp of a zero Value": func(x kiln.Value) []kiln.Value {
			_, pb := kiln.VJP(sq, kiln.Value{})
			return pb(kiln.Float(1))
		},
		"zero Value cotangent": func(x kiln.Value) []kiln.Value {
			_, pb := kiln.VJP(sq, x)
			return pb(kiln.Value{})
		},
		"jvp tangent count": func(x kiln.Value) []kiln.Value {
			_, ts := kiln.JVP(sq, []kiln.Value{x}, nil)
			return ts
		},
		"jvp wrong shape": func(x kiln.Value) []kiln.Value {
			_, ts := kiln.JVP(sq, []kiln.Value{x}, []kiln.Value{x.Sum()})
			return ts
		},
	}
	for name, fn := range cases {
		_, err := kiln.Jit(fn).RunAll(tensor.Must(tensor.Arange(tensor.F32, 3)))
		var pe *kiln.PanicError
		if err == nil || errors.As(err, &pe) {
			t.Errorf("%s: error %v, want a typed error and no panic", name, err)
		}
	}
}

// TestStopGradient checks lax.stop_gradient's derivative: zero at every
// order and in both modes, with the value untouched and no trace of it in
// the lowered module.
func TestStopGradient(t *testing.T) {
	f := func(x kiln.Value) kiln.Value { return x.Mul(kiln.StopGradient(x)).Sum() } // d/dx = x, not 2x
	x, _ := tensor.FromSlice([]float64{1, -2, 3})
	g := run1(t, kiln.Jit(kiln.Grad(f)), x)
	wantValues(t, "grad", g[0], 1, -2, 3)
	jvp := kiln.Jit(func(x, v kiln.Value) []kiln.Value {
		outs, tans := kiln.JVP(f, []kiln.Value{x}, []kiln.Value{v})
		return append(outs, tans...)
	})
	out := run1(t, jvp, x, tensor.Must(tensor.FromSlice([]float64{1, 1, 1})))
	wantValues(t, "value", out[0], 14)
	wantValues(t, "jvp", out[1], 2) // Σ x·v
	// The gradient is stop_gradient(x) itself, so its own derivative is
	// zero, as in JAX.
	h := run1(t, kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(f)(x)[0].Sum() })), x)
	wantValues(t, "second derivative", h[0], 0, 0, 0)
	m, err := kiln.Jit(kiln.Grad(f)).Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.String(); strings.Contains(s, "stop_gradient") {
		t.Errorf("stop_gradient reaches the module:\n%s", s)
	}
}
