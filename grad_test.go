package kiln_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func f64s(t *testing.T, a *tensor.Array) []float64 {
	t.Helper()
	out := make([]float64, a.Size())
	for i := range out {
		out[i] = tensor.Index(a.Astype(tensor.F64).Data(), i).(float64)
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

// TestGradComposes checks that Grad is an ordinary function over Values:
// jitted, of a jitted function, of itself (the second derivative of an
// elementwise + reduction program), and eagerly on constants.
func TestGradComposes(t *testing.T) {
	f := func(x kiln.Value) kiln.Value { return x.Mul(x).Mul(x).Sin().Sum() } // Σ sin(x³)
	x, _ := tensor.FromSlice([]float64{0.3, -0.7, 1.1})
	xs := f64s(t, x)
	d1 := func(v float64) float64 { return 3 * v * v * math.Cos(v*v*v) }
	d2 := func(v float64) float64 { return 6*v*math.Cos(v*v*v) - 9*math.Pow(v, 4)*math.Sin(v*v*v) }
	check := func(name string, got *tensor.Array, err error, want func(float64) float64) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.DType() != tensor.F64 || !got.HasShape([]int{3}) {
			t.Fatalf("%s: got %s%v, want f64[3]", name, got.DType(), got.Shape())
		}
		for i, g := range f64s(t, got) {
			if !near(g, want(xs[i]), 1e-12) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g, want(xs[i]))
			}
		}
	}
	out, err := kiln.Jit(kiln.Grad(f)).Run(x)
	check("Jit(Grad(f))", out, err, d1)
	out, err = kiln.Jit(kiln.Grad(kiln.Jit(f))).Run(x)
	check("Jit(Grad(Jit(f)))", out, err, d1)
	// The second derivative: the gradient of Σ grad(f) is the diagonal of
	// the Hessian, since f is a sum of functions of one element each.
	sumGrad := func(x kiln.Value) kiln.Value { return kiln.Grad(f)(x)[0].Sum() }
	out, err = kiln.Jit(kiln.Grad(sumGrad)).Run(x)
	check("Grad(Grad(f))", out, err, d2)
	out, err = kiln.Eval(kiln.Grad(f)(kiln.Const(x))[0])
	check("Eval(Grad(f)(x))", out, err, d1)
}

// TestHessianVectorProduct checks forward-over-reverse (JVP of Grad) and
// reverse-over-reverse against the analytic Hessian of Σ xᵢ²·xⱼ-style
// coupling: f(x) = (Σx)² · Σ exp(x).
func TestHessianVectorProduct(t *testing.T) {
	f := func(x kiln.Value) kiln.Value { s := x.Sum(); return s.Mul(s).Mul(x.Exp().Sum()) }
	x, _ := tensor.FromSlice([]float64{0.1, 0.2, -0.3})
	v, _ := tensor.FromSlice([]float64{1, -2, 0.5})
	xs, vs := f64s(t, x), f64s(t, v)
	s, e := 0.0, 0.0
	for _, xi := range xs {
		s += xi
		e += math.Exp(xi)
	}
	// H_ij = 2e + 2s(exp(x_i) + exp(x_j)) + s² exp(x_i) δij
	want := make([]float64, 3)
	for i := range 3 {
		for j := range 3 {
			h := 2*e + 2*s*(math.Exp(xs[i])+math.Exp(xs[j]))
			if i == j {
				h += s * s * math.Exp(xs[i])
			}
			want[i] += h * vs[j]
		}
	}
	fwdRev := kiln.Jit(func(x, v kiln.Value) kiln.Value {
		_, tans := kiln.JVP(kiln.Grad(f), []kiln.Value{x}, []kiln.Value{v})
		return tans[0]
	})
	revRev := kiln.Jit(func(x, v kiln.Value) kiln.Value {
		return kiln.Grad(func(x kiln.Value) kiln.Value { return kiln.Grad(f)(x)[0].Mul(v).Sum() })(x)[0]
	})
	for name, fn := range map[string]*kiln.Func{"jvp(grad)": fwdRev, "grad(grad·v)": revRev} {
		out, err := fn.Run(x, v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, g := range f64s(t, out) {
			if !near(g, want[i], 1e-12) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g, want[i])
			}
		}
	}
}

// TestVJPPullback checks VJP's pullback on a function of two arguments
// with two results, and JVP's tangents, against their closed forms.
func TestVJPPullback(t *testing.T) {
	f := func(x, y kiln.Value) (kiln.Value, kiln.Value) { return x.Mul(y), x.Sub(y).Exp() }
	fn := kiln.Jit(func(x, y, a, b kiln.Value) []kiln.Value {
		outs, pb := kiln.VJP(f, x, y)
		cts := pb(a, b)
		_, tans := kiln.JVP(f, []kiln.Value{x, y}, []kiln.Value{a, b})
		return append(append(outs, cts...), tans...)
	})
	x, y, a, b := 0.5, -1.5, 2.0, 3.0
	outs, err := fn.RunAll(tensor.Scalar(x), tensor.Scalar(y), tensor.Scalar(a), tensor.Scalar(b))
	if err != nil {
		t.Fatal(err)
	}
	e := math.Exp(x - y)
	want := []float64{x * y, e, a*y + b*e, a*x - b*e, a*y + x*b, e * (a - b)}
	for i, o := range outs {
		if g := f64s(t, o)[0]; !near(g, want[i], 1e-14) {
			t.Errorf("result %d = %v, want %v", i, g, want[i])
		}
	}
}

// TestGradClosure checks that a differentiated function may close over
// values of the enclosing trace (they are constants to it).
func TestGradClosure(t *testing.T) {
	fn := kiln.Jit(func(w, x kiln.Value) kiln.Value {
		return kiln.Grad(func(w kiln.Value) kiln.Value { return w.Mul(x).Tanh().Sum() })(w)[0]
	})
	w, _ := tensor.FromSlice([]float64{0.5, -1})
	x, _ := tensor.FromSlice([]float64{2, 3})
	out, err := fn.Run(w, x)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range f64s(t, out) {
		ws, xs := []float64{0.5, -1}, []float64{2, 3}
		th := math.Tanh(ws[i] * xs[i])
		if want := xs[i] * (1 - th*th); !near(g, want, 1e-14) {
			t.Errorf("grad[%d] = %v, want %v", i, g, want)
		}
	}
}

// TestGradRefusals checks JAX's refusals as typed errors.
func TestGradRefusals(t *testing.T) {
	sum := func(x kiln.Value) kiln.Value { return x.Astype(tensor.F32).Sum() }
	id := func(x kiln.Value) kiln.Value { return x }
	cases := []struct {
		name string
		fn   any
		arg  any
		kind any
		msg  string
	}{
		{"int input", kiln.Grad(sum), tensor.Must(tensor.Arange(tensor.I32, 3)), new(*trace.DTypeError), "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32"},
		{"vector output", kiln.Grad(id), tensor.Must(tensor.Arange(tensor.F32, 3)), new(*trace.ShapeError), "Gradient only defined for scalar-output functions. Output had shape: (3,)."},
		{"complex output", kiln.Grad(func(x kiln.Value) kiln.Value { return x.Astype(tensor.C64).Sum() }), tensor.Must(tensor.Arange(tensor.F32, 3)), new(*trace.DTypeError), "grad requires real-valued outputs"},
		{"int output", kiln.Grad(func(x kiln.Value) kiln.Value { return x.Sum().Astype(tensor.I32) }), tensor.Must(tensor.Arange(tensor.F32, 3)), new(*trace.DTypeError), "For differentiation of functions with integer outputs, use jax.vjp directly"},
		{"bad argnum", kiln.Grad(sum, 1), tensor.Must(tensor.Arange(tensor.F32, 3)), new(*trace.OpError), "argnums=[1] requires at least 2 positional arguments"},
		{"not a function", kiln.Grad(3), tensor.Must(tensor.Arange(tensor.F32, 3)), new(*kiln.FuncError), ""},
	}
	for _, c := range cases {
		_, err := kiln.Jit(c.fn).Run(c.arg)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.As(err, c.kind) {
			t.Errorf("%s: %T (%v), want %T", c.name, err, err, c.kind)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %q does not say %q", c.name, err, c.msg)
		}
	}
}
