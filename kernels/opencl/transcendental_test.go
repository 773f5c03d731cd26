package opencl

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestTranscendentalAccuracy measures every transcendental op against the
// exact result (bigmath_test.go) on many arguments. docs/SPEC.md §3 allows 1 ulp
// for f64 and 2 for f32; f32 (computed through double) stays within 0.5.
// sin, cos and tan of f64 are the CPU backend's algorithms (helpers_trig.go),
// held to 1 ulp from the exact result at ordinary and huge arguments alike;
// the other f64 ops are the device's, held to 2.5: rsqrt = 1/sqrt(x) and
// logistic = 1/(1+exp(−x)) round twice (1.3 ulps measured on PoCL). The
// CPU backend's error and FastTranscendentals' (the device's float
// builtins) are logged beside.
func TestTranscendentalAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: exact results in big.Float")
	}
	b := testBackend(t)
	fast, err := New(Options{FastTranscendentals: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	r := rand.New(rand.NewPCG(9, 9))
	uniform := func(lo, hi float64) func() float64 { return func() float64 { return lo + (hi-lo)*r.Float64() } }
	logUniform := func(lo, hi float64) func() float64 {
		return func() float64 { return math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*r.Float64()) }
	}
	cases := []struct {
		op   trace.Op
		f    func(trace.Value) trace.Value
		gen  func() float64
		gen2 func() float64
	}{
		{trace.OpExp, trace.Value.Exp, uniform(-80, 80), nil},
		{trace.OpLog, trace.Value.Log, logUniform(1e-30, 1e30), nil},
		{trace.OpLog1p, trace.Value.Log1p, uniform(-0.999, 10), nil},
		{trace.OpExpm1, trace.Value.Expm1, uniform(-40, 80), nil},
		{trace.OpSin, trace.Value.Sin, logUniform(1e-6, 5e8), nil},
		{trace.OpCos, trace.Value.Cos, logUniform(1e-6, 5e8), nil},
		{trace.OpSin, trace.Value.Sin, logUniform(1e9, 1e22), nil}, // huge (the 256-bit pi of bigmath_test.go suffices to 1e22)
		{trace.OpCos, trace.Value.Cos, logUniform(1e9, 1e22), nil},
		{trace.OpTan, trace.Value.Tan, logUniform(1e9, 1e22), nil},
		{trace.OpTan, trace.Value.Tan, uniform(-100, 100), nil},
		{trace.OpTanh, trace.Value.Tanh, uniform(-20, 20), nil},
		{trace.OpLogistic, trace.Value.Logistic, uniform(-80, 80), nil},
		{trace.OpRsqrt, trace.Value.Rsqrt, logUniform(1e-30, 1e30), nil},
		{trace.OpPow, nil, logUniform(1e-3, 1e3), uniform(-30, 30)},
	}
	const n = 2000
	for _, c := range cases {
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = c.gen()
			if c.gen2 != nil {
				ys[i] = c.gen2()
			}
		}
		x64, _ := tensor.FromSlice(xs, n)
		y64, _ := tensor.FromSlice(ys, n)
		fn := func(a []trace.Value) []trace.Value {
			if c.f == nil {
				return []trace.Value{a[0].Pow(a[1])}
			}
			return []trace.Value{c.f(a[0])}
		}
		for _, d := range []tensor.DType{tensor.F64, tensor.F32} {
			x, y := x64.Astype(d), y64.Astype(d)
			xw, yw := x.Astype(tensor.F64).Data().([]float64), y.Astype(tensor.F64).Data().([]float64)
			exact := make([]*big.Float, n)
			for i := range exact {
				exact[i] = exactOp(c.op.String(), xw[i], yw[i])
			}
			mant, limit := 53, 2.5
			if d == tensor.F32 {
				mant, limit = 24, 2.0
			}
			if d == tensor.F64 && (c.op == trace.OpSin || c.op == trace.OpCos || c.op == trace.OpTan) {
				limit = 1 // the CPU backend's algorithms, bit for bit (TestTrigParity)
			}
			worst := func(get func(i int) float64) (float64, int) {
				w, at := 0.0, 0
				for i := range n {
					if u := ulpError(get(i), exact[i], mant); u > w {
						w, at = u, i
					}
				}
				return w, at
			}
			m := module(t, fn, abstract(d, n), abstract(d, n))
			for _, be := range []*Backend{b, fast} {
				if be == fast && d == tensor.F64 {
					continue
				}
				exe, err := be.Compile(m)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exe.Run([]*tensor.Array{x, y})
				if err != nil {
					t.Fatal(err)
				}
				got := out[0].Astype(tensor.F64).Data().([]float64)
				w, at := worst(func(i int) float64 { return got[i] })
				name := "opencl"
				if be == fast {
					name = "opencl-fast"
				}
				t.Logf("%-8s %-4s %-11s worst %.2f ulp (x=%v y=%v)", c.op, d, name, w, xw[at], yw[at])
				if be == b && w > limit {
					t.Errorf("%s %s: %.2f ulp from the exact result at x=%v y=%v, docs/SPEC.md §3 allows %v", c.op, d, w, xw[at], yw[at], limit)
				}
			}
			w, at := worst(func(i int) float64 {
				v := kernels.Transcendental(c.op, d, xw[i], yw[i])
				if d == tensor.F32 {
					v = float64(float32(v))
				}
				return v
			})
			t.Logf("%-8s %-4s %-11s worst %.2f ulp (x=%v y=%v)", c.op, d, "cpu", w, xw[at], yw[at])
		}
	}
}
