package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
)

var xs = []float64{-3, -1, -0.5, 0, 0.25, 1, 2.5, 6}

func run(t *testing.T, f func(kiln.Value) kiln.Value, x []float64) []float64 {
	t.Helper()
	a, _ := tensor.FromSlice(x)
	out, err := kiln.Jit(f).Run(a)
	if err != nil {
		t.Fatal(err)
	}
	return out.Astype(tensor.F64).Data().([]float64)
}

// Each activation against its definition in float64 (the composition is
// JAX's, the transcendentals Kiln's: within a few ulps).
func TestActivations(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(kiln.Value) kiln.Value
		want func(x float64) float64
	}{
		{"relu", nn.Relu, func(x float64) float64 { return math.Max(x, 0) }},
		{"gelu tanh", func(x kiln.Value) kiln.Value { return nn.Gelu(x, true) }, func(x float64) float64 {
			return x * (0.5 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x))))
		}},
		{"gelu exact", func(x kiln.Value) kiln.Value { return nn.Gelu(x, false) }, func(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) }},
		{"softplus", nn.Softplus, func(x float64) float64 { return math.Log1p(math.Exp(x)) }},
		{"silu", nn.Silu, func(x float64) float64 { return x / (1 + math.Exp(-x)) }},
	} {
		got := run(t, c.f, xs)
		for i, x := range xs {
			if w := c.want(x); math.Abs(got[i]-w) > 1e-15*math.Max(1, math.Abs(w)) {
				t.Errorf("%s(%v) = %v, want %v", c.name, x, got[i], w)
			}
		}
	}
}

// softmax sums to 1 along its axis and log_softmax is its log; both are
// unchanged by a shift of x, and do not overflow.
func TestSoftmax(t *testing.T) {
	x := []float64{1, 2, 3, 1000, 1001, 1002}
	a, _ := tensor.FromSlice(x, 2, 3)
	f := kiln.Jit(func(x kiln.Value) (kiln.Value, kiln.Value) { return nn.Softmax(x, -1), nn.LogSoftmax(x, 1) })
	outs, err := f.RunAll(a)
	if err != nil {
		t.Fatal(err)
	}
	s, l := outs[0].Data().([]float64), outs[1].Data().([]float64)
	for r := range 2 {
		sum := 0.0
		for c := range 3 {
			i := 3*r + c
			sum += s[i]
			if math.Abs(math.Log(s[i])-l[i]) > 1e-15 || math.Abs(s[i]-s[c]) > 1e-15 {
				t.Errorf("row %d col %d: softmax %v, log_softmax %v", r, c, s[i], l[i])
			}
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("row %d sums to %v", r, sum)
		}
	}
}

// The derivatives are JAX's: relu's slope is 0 at 0, and softmax's
// gradient flows through the exponentials, not the stop_gradient'd max.
func TestActivationGradients(t *testing.T) {
	g := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value { return nn.Relu(x).Sum() }))
	a, _ := tensor.FromSlice([]float64{-1, 0, 2})
	outs, err := g.RunAll(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].String(); got != "f64[3] [0 0 1]" {
		t.Errorf("grad of sum(relu(x)) at [-1 0 2] = %s, want [0 0 1]", got)
	}
	// d/dx sum(softmax(x) * w) = s * (w - sum(s*w)).
	w := []float64{1, -2, 3}
	wa, _ := tensor.FromSlice(w)
	sg := kiln.Jit(kiln.Grad(func(x, w kiln.Value) kiln.Value { return nn.Softmax(x, 0).Mul(w).Sum() }))
	x, _ := tensor.FromSlice([]float64{0.5, -1, 2})
	outs, err = sg.RunAll(x, wa)
	if err != nil {
		t.Fatal(err)
	}
	got := outs[0].Data().([]float64)
	e := []float64{math.Exp(0.5), math.Exp(-1), math.Exp(2)}
	z := e[0] + e[1] + e[2]
	sw := 0.0
	for i := range e {
		sw += e[i] / z * w[i]
	}
	for i := range e {
		if want := e[i] / z * (w[i] - sw); math.Abs(got[i]-want) > 1e-14 {
			t.Errorf("grad[%d] = %v, want %v", i, got[i], want)
		}
	}
}

func ExampleGelu() {
	x, _ := tensor.FromSlice([]float32{-1, 0, 1})
	f := kiln.Jit(func(x kiln.Value) (kiln.Value, kiln.Value) { return nn.Gelu(x, true), nn.Gelu(x, false) })
	outs, _ := f.RunAll(x)
	fmt.Println(outs[0])
	fmt.Println(outs[1])
	// Output:
	// f32[3] [-0.158808 0 0.841192]
	// f32[3] [-0.15865526 0 0.8413447]
}

func ExampleSoftmax() {
	x, _ := tensor.FromSlice([]float32{1, 2, 3})
	out, _ := kiln.Jit(func(x kiln.Value) kiln.Value { return nn.Softmax(x, -1) }).Run(x)
	fmt.Println(out)
	// Output:
	// f32[3] [0.09003057 0.24472848 0.66524094]
}
