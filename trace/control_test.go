package trace_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func f64(shape ...int) trace.Abstract {
	return trace.Abstract{Type: promote.Strong(tensor.F64), Shape: shape}
}

func TestControlTraces(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{f64(3), f64()}, func(a []trace.Value) []trace.Value {
		r := trace.ForiLoop(trace.Int(0), trace.Int(10), func(i trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{c[0].Mul(a[1]), c[1].Add(trace.Int(1))}
		}, a[0], trace.Int(0))
		s := trace.Cond(a[1].Gt(trace.Float(0)), func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Sin()} },
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Cos()} }, r[0])
		c, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
			n := c[0].Add(x[0])
			return []trace.Value{n}, []trace.Value{n}
		}, []trace.Value{trace.Float(0)}, []trace.Value{a[0]})
		return []trace.Value{r[0], r[1], s[0], c[0], ys[0]}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("%v\n%s", err, p)
	}
	s := p.String()
	for _, want := range []string{"while[", "cond[", "body = { lambda", "branch1 = { lambda", "result[1]", "trips=10"} {
		if !strings.Contains(s, want) {
			t.Errorf("printed program lacks %q:\n%s", want, s)
		}
	}
	t.Log(s)
}

func TestControlTypeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(a []trace.Value) []trace.Value
		want string
	}{
		{"carry dtype", func(a []trace.Value) []trace.Value {
			return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[0].Sum().Lt(trace.Float(10)) },
				func(c []trace.Value) []trace.Value { return []trace.Value{c[0].Astype(tensor.F32)} }, a[0])
		}, "while_loop body function carry input and carry output must have equal types (e.g. shapes and dtypes of arrays), but they differ: the input carry component carry[0] has type f64[3] but the corresponding output carry component has type f32[3], so the dtypes do not match"},
		{"carry shape", func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value { return []trace.Value{c[0].Sum()} }, a[0])
		}, "carry[0] has type f64[3] but the corresponding output carry component has type f64[], so the shapes do not match"},
		{"cond not bool", func(a []trace.Value) []trace.Value {
			return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[0] },
				func(c []trace.Value) []trace.Value { return c }, a[0])
		}, "cond_fun must return a boolean scalar, but got output type f64[3]"},
		{"pred float", func(a []trace.Value) []trace.Value {
			return trace.Cond(a[1], func(o []trace.Value) []trace.Value { return o }, func(o []trace.Value) []trace.Value { return o }, a[0])
		}, "Pred type must be either boolean or number, got f64"},
		{"pred shape", func(a []trace.Value) []trace.Value {
			return trace.Cond(a[0].Gt(trace.Int(0)), func(o []trace.Value) []trace.Value { return o }, func(o []trace.Value) []trace.Value { return o }, a[0])
		}, "Pred must be a scalar, got a value of shape [3]"},
		{"branches differ", func(a []trace.Value) []trace.Value {
			return trace.Cond(a[1].Gt(trace.Int(0)), func(o []trace.Value) []trace.Value { return o },
				func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Astype(tensor.F32)} }, a[0])
		}, "true_fun and false_fun output must have identical types, got: output 0 is f32[3] in one and f64[3] in the other"},
		{"fori float bound", func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Float(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value { return c }, a[0])
		}, "lower and upper must be integer scalars"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trace.Trace(promote.Config{}, []trace.Abstract{f64(3), f64()}, tc.fn)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "control_test.go:") {
				t.Errorf("error does not name the caller's line: %v", err)
			}
			var ce *trace.ControlError
			var de *trace.DTypeError
			if !errors.As(err, &ce) && !errors.As(err, &de) {
				t.Errorf("%T is not a *ControlError", err)
			}
		})
	}
}

// A weak carry whose body makes it strong is promoted (JAX's
// _promote_weak_typed_inputs) and the body traced again.
func TestControlWeakCarry(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32)}}, func(a []trace.Value) []trace.Value {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{c[0].Mul(a[0])}
		}, trace.Float(1))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Outputs[0].TypeString(); got != "f32[]" {
		t.Errorf("carry type %s, want f32[] (the weak f64* carry promoted)\n%s", got, p)
	}
}

// A fori_loop's trip count is static only when the literal bounds'
// difference is: bounds whose difference overflows give a dynamic loop
// (reverse mode then refuses it), never a wrong count.
func TestForiLoopTrips(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int64
		want   string
	}{
		{0, 10, "trips=10"}, {5, 2, "trips=0"}, {math.MinInt64, math.MaxInt64, "while[cond_nconsts=1 body_nconsts=0]"},
	} {
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{f64()}, func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(tc.lo), trace.Int(tc.hi), func(i trace.Value, c []trace.Value) []trace.Value { return c }, a[0])
		})
		if err != nil {
			t.Fatal(err)
		}
		if s := p.String(); !strings.Contains(s, tc.want) {
			t.Errorf("fori_loop(%d, %d): %s", tc.lo, tc.hi, s)
		}
	}
}

// Reverse mode through a scan stores each step's carry, but not the
// stacked outputs being built (their value never reaches a tangent): no
// array of the gradient program grows with the square of the length.
func TestScanGradientMemoryIsLinear(t *testing.T) {
	const steps, width = 40, 8
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{f64(steps, width), f64(width)}, func(a []trace.Value) []trace.Value {
		return trace.Grad(func(x []trace.Value) []trace.Value {
			_, ys := trace.Scan(func(c, e []trace.Value) ([]trace.Value, []trace.Value) {
				h := c[0].Mul(x[1]).Add(e[0]).Tanh()
				return []trace.Value{h}, []trace.Value{h}
			}, []trace.Value{trace.Zeros([]int{width}, tensor.F64)}, []trace.Value{x[0]})
			return []trace.Value{ys[0].Sum()}
		}, trace.GradOptions{Argnums: []int{1}})(a...)
	})
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	var walk func(p *trace.Program)
	walk = func(p *trace.Program) {
		for _, e := range p.Eqns {
			largest = max(largest, e.Out.Size())
			for _, s := range e.Params.Control.Subs {
				walk(s)
			}
		}
	}
	walk(p)
	if largest > 2*steps*width {
		t.Errorf("the gradient program holds an array of %d elements for %d steps of %d", largest, steps, width)
	}
}
