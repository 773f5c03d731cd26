package kiln_test

import (
	"errors"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Regression tests of issue 25's escapes: bad or edge inputs that failed
// in an internal op, computed a silently wrong answer, or reported the
// wrong error.

// TestScanZeroLength: a scan of zero steps is JAX's — the initial carry
// and ys of shape [0, …] with the body's dtypes — whether the steps come
// from xs with a leading dimension of 0 or from Length 0 with HasLength
// (before, the first failed in an internal dynamic_slice and the second
// could not be asked for); under Grad the carry's cotangent passes
// through unchanged.
func TestScanZeroLength(t *testing.T) {
	empty := zerosArray(tensor.F32, 0, 3)
	body := func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
		return []kiln.Value{c[0].Add(x[0].Sum())}, []kiln.Value{c[0].Astype(tensor.F64), x[0]}
	}
	init := tensor.Scalar(float32(2.5))
	check := func(t *testing.T, f *kiln.Func, args ...any) {
		t.Helper()
		got, err := f.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d results, want 3", len(got))
		}
		if !tensor.Equal(got[0], init) {
			t.Errorf("carry %v, want the initial %v", got[0], init)
		}
		if got[1].DType() != tensor.F64 || !shapeIs(got[1].Shape(), 0) {
			t.Errorf("ys[0] is %v%v, want f64[0]", got[1].DType(), got[1].Shape())
		}
		if got[2].DType() != tensor.F32 || !shapeIs(got[2].Shape(), 0, 3) {
			t.Errorf("ys[1] is %v%v, want f32[0,3]", got[2].DType(), got[2].Shape())
		}
		arrays := make([]*tensor.Array, len(args))
		for i, a := range args {
			arrays[i] = a.(*tensor.Array)
		}
		p, err := f.Trace(args...)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := reference.Eval(p, arrays, reference.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !tensor.Equal(ref[i], got[i]) {
				t.Errorf("result %d: reference %v, Run %v", i, ref[i], got[i])
			}
		}
	}
	t.Run("xs", func(t *testing.T) {
		check(t, kiln.Jit(func(c, xs kiln.Value) []kiln.Value {
			carry, ys := kiln.Scan(body, []kiln.Value{c}, []kiln.Value{xs})
			return append(carry, ys...)
		}, kiln.Verify()), init, empty)
	})
	t.Run("length", func(t *testing.T) {
		check(t, kiln.Jit(func(c kiln.Value) []kiln.Value {
			carry, ys := kiln.Scan(func(c, _ []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return body(c, []kiln.Value{kiln.Const(zerosArray(tensor.F32, 3))})
			}, []kiln.Value{c}, nil, kiln.ScanOptions{HasLength: true})
			return append(carry, ys...)
		}, kiln.Verify()), init)
	})
	t.Run("grad", func(t *testing.T) {
		g := kiln.Jit(kiln.Grad(func(c, xs kiln.Value) kiln.Value {
			carry, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return []kiln.Value{c[0].Mul(x[0].Sum())}, []kiln.Value{c[0]}
			}, []kiln.Value{c}, []kiln.Value{xs})
			return carry[0].Mul(kiln.Float(3)).Add(ys[0].Sum())
		}, 0, 1), kiln.Verify())
		got, err := g.RunAll(init, empty)
		if err != nil {
			t.Fatal(err)
		}
		if want := tensor.Scalar(float32(3)); !tensor.Equal(got[0], want) {
			t.Errorf("d/dc = %v, want %v", got[0], want)
		}
		if !shapeIs(got[1].Shape(), 0, 3) {
			t.Errorf("d/dxs has shape %v, want [0 3]", got[1].Shape())
		}
	})
	t.Run("length0-with-xs", func(t *testing.T) {
		_, err := kiln.Jit(func(c, xs kiln.Value) []kiln.Value {
			carry, _ := kiln.Scan(body, []kiln.Value{c}, []kiln.Value{xs}, kiln.ScanOptions{HasLength: true})
			return carry
		}).RunAll(init, zerosArray(tensor.F32, 2, 3))
		var ce *trace.ControlError
		if !errors.As(err, &ce) {
			t.Fatalf("Length 0 (given) over xs of 2 rows: %v, want a *trace.ControlError", err)
		}
	})
}

func shapeIs(got []int, want ...int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func zerosArray(d tensor.DType, shape ...int) *tensor.Array {
	a, err := tensor.Zeros(d, shape...)
	if err != nil {
		panic(err)
	}
	return a
}

// TestGradLoopWeakCarryStrict: the gradient of a loop over a weak f32
// carry, widened to f64 after the loop, under strict promotion (where two
// weak f32 join to f64, so the loop promotes its carry). The reverse loop
// accumulating the cotangent of the closed-over x had its weak f32
// accumulator promoted to f64 too, and the transpose failed with "the
// transpose rule gave f64[] where f32*[] was due (a bug in the rule)";
// TestGradProgramsControl's seed 4007166 found it (kiln eval --strict
// --arg 'x=f32*:0.5' --grad x 'astype(fori_loop(0, 1, lambda i, c: c * x,
// x), f64)').
func TestGradLoopWeakCarryStrict(t *testing.T) {
	x := kiln.Weak(tensor.Scalar(float32(0.5)))
	for _, tc := range []struct {
		name string
		f    func(x kiln.Value) kiln.Value
		want float32 // d/dx at 0.5
	}{
		{"fori", func(x kiln.Value) kiln.Value { // x**2
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(1), func(_ kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(x)}
			}, x)[0].Astype(tensor.F64)
		}, 1},
		{"fori3", func(x kiln.Value) kiln.Value { // x**4
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(_ kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(x)}
			}, x)[0].Astype(tensor.F64)
		}, 0.5},
		{"scan", func(x kiln.Value) kiln.Value { // x**3
			c, _ := kiln.Scan(func(c, _ []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return []kiln.Value{c[0].Mul(x)}, []kiln.Value{c[0]}
			}, []kiln.Value{x}, nil, kiln.ScanOptions{Length: 2})
			return c[0].Astype(tensor.F64)
		}, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kiln.Jit(kiln.Grad(tc.f), kiln.Strict(), kiln.Verify()).Run(x)
			if err != nil {
				t.Fatal(err)
			}
			want := tensor.Scalar(tc.want)
			if !tensor.Equal(got, want) {
				t.Errorf("grad = %v %v, want %v %v", got.DType(), got, want.DType(), want)
			}
		})
	}
}

// TestGradRegressionSeeds reruns the seeds of the gradient tests that
// once failed, in the generator mode they failed in.
func TestGradRegressionSeeds(t *testing.T) {
	for _, c := range []struct {
		seed int64
		mode string
		why  string
	}{
		{4007166, "control", "a strict weak f32 loop carry widened after the loop: the transpose gave f64 where f32* was due"},
	} {
		if _, msg := runGradFusedWith(c.seed, c.mode); msg != "" {
			t.Errorf("%s\n(%s)", msg, c.why)
		}
		if _, msg := runGradFiniteDiffWith(c.seed, c.mode); msg != "" {
			t.Errorf("%s\n(%s)", msg, c.why)
		}
	}
}
