package simd_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

var accuracyPoints = flag.Int("accuracy.points", 0, "random points per function in TestAccuracy (0: 10⁶ with KILN_LONG=1, else 5·10⁴)")

type fn32 struct {
	name string
	f    func(dst, x []float32)
	ref  func(float64) float64
	gen  func(r *rand.Rand) float32 // a point from the function's interesting range
}

type fn64 struct {
	name string
	f    func(dst, x []float64)
	math func(float64) float64 // package math's result: usually correctly rounded
	ref  func(float64) float64 // correctly rounded, slow; for finite x
	gen  func(r *rand.Rand) float64
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// anyF32 is a random float32 bit pattern that is not NaN.
func anyF32(r *rand.Rand) float32 {
	for {
		if x := math.Float32frombits(r.Uint32()); x == x {
			return x
		}
	}
}

func anyF64(r *rand.Rand) float64 {
	for {
		if x := math.Float64frombits(r.Uint64()); x == x {
			return x
		}
	}
}

func uniform32(lo, hi float64) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return float32(lo + (hi-lo)*r.Float64()) }
}

func uniform64(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// logUniform is ±2**u with u uniform in [lo, hi]: every binade alike.
func logUniform32(lo, hi float64, signed bool) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 {
		x := float32(math.Exp2(lo + (hi-lo)*r.Float64()))
		if signed && r.IntN(2) == 0 {
			x = -x
		}
		return x
	}
}

func logUniform64(lo, hi float64, signed bool) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		x := math.Exp2(lo + (hi-lo)*r.Float64())
		if signed && r.IntN(2) == 0 {
			x = -x
		}
		return x
	}
}

func mix32(gs ...func(*rand.Rand) float32) func(*rand.Rand) float32 {
	return func(r *rand.Rand) float32 { return gs[r.IntN(len(gs))](r) }
}

func mix64(gs ...func(*rand.Rand) float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return gs[r.IntN(len(gs))](r) }
}

var fns32 = []fn32{
	{"ExpF32", simd.ExpF32, math.Exp, mix32(anyF32, uniform32(-104, 89), uniform32(-1, 1))},
	{"LogF32", simd.LogF32, math.Log, mix32(anyF32, logUniform32(-149, 128, false), uniform32(0.5, 2))},
	{"TanhF32", simd.TanhF32, math.Tanh, mix32(anyF32, uniform32(-12, 12), uniform32(-1, 1), logUniform32(-149, 4, true))},
	{"LogisticF32", simd.LogisticF32, logistic, mix32(anyF32, uniform32(-110, 30), uniform32(-2, 2))},
	{"SinF32", simd.SinF32, math.Sin, mix32(anyF32, uniform32(-8200, 8200), uniform32(-4, 4), logUniform32(-149, 30, true))},
	{"CosF32", simd.CosF32, math.Cos, mix32(anyF32, uniform32(-8200, 8200), uniform32(-4, 4), logUniform32(-149, 30, true))},
}

var fns64 = []fn64{
	{"ExpF64", simd.ExpF64, math.Exp, refExp, mix64(anyF64, uniform64(-746, 710), uniform64(-1, 1))},
	{"LogF64", simd.LogF64, math.Log, refLog, mix64(anyF64, logUniform64(-1074, 1024, false), uniform64(0.5, 2))},
	{"TanhF64", simd.TanhF64, math.Tanh, refTanh, mix64(anyF64, uniform64(-22, 22), uniform64(-1, 1), logUniform64(-1074, 5, true))},
	{"LogisticF64", simd.LogisticF64, logistic, refLogistic, mix64(anyF64, uniform64(-746, 40), uniform64(-2, 2))},
	{"SinF64", simd.SinF64, math.Sin, func(x float64) float64 { return refSinCos(x, false) },
		mix64(anyF64, uniform64(-1<<21, 1<<21), uniform64(-4, 4), logUniform64(-1074, 48, true), logUniform64(48, 1024, true))},
	{"CosF64", simd.CosF64, math.Cos, func(x float64) float64 { return refSinCos(x, true) },
		mix64(anyF64, uniform64(-1<<21, 1<<21), uniform64(-4, 4), logUniform64(-1074, 48, true), logUniform64(48, 1024, true))},
}

// TestAccuracy measures the ulp error of the transcendentals at the active
// tier over random points of the whole range and of the hard regions: at
// most 2 ulp from the correctly rounded float32 result (taken as math's
// float64 result rounded to float32), at most 1 ulp from the correctly
// rounded float64 result (math/big, checked wherever ours differs from
// package math, and on a sample where it does not).
func TestAccuracy(t *testing.T) {
	n := *accuracyPoints
	if n == 0 {
		n = longtest.Pick(1_000_000, 50_000)
	}
	if testing.Short() {
		n /= 20
	}
	for _, fn := range fns32 {
		t.Run(fn.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(3, 7))
			x, y := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i] = fn.gen(r)
			}
			fn.f(y, x)
			var worst int64
			var at float32
			for i, v := range x {
				want := float32(fn.ref(float64(v)))
				if d := numerics.ULP32(y[i], want); d > worst {
					worst, at = d, v
				}
			}
			t.Logf("max error %d ulp (at x=%g)", worst, at)
			if worst > 2 {
				t.Errorf("%s(%g) = %g, want %g: %d ulp", fn.name, at, call32(fn.f, at), float32(fn.ref(float64(at))), worst)
			}
		})
	}
	for _, fn := range fns64 {
		t.Run(fn.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(5, 11))
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i] = fn.gen(r)
			}
			fn.f(y, x)
			var worst, differ, checked int64
			var at float64
			for i, v := range x {
				m := fn.math(v)
				d := numerics.ULP64(y[i], m)
				if d == 0 && i%256 != 0 || math.IsInf(v, 0) {
					continue
				}
				if d > 0 {
					differ++
				}
				if !math.IsNaN(m) {
					m = fn.ref(v)
					checked++
				}
				if d := numerics.ULP64(y[i], m); d > worst {
					worst, at = d, v
				}
			}
			t.Logf("max error %d ulp (at x=%g); %d of %d differ from package math, %d checked with math/big", worst, at, differ, n, checked)
			if worst > 1 {
				t.Errorf("%s(%g) = %g, want %g: %d ulp", fn.name, at, call64(fn.f, at), fn.ref(at), worst)
			}
		})
	}
}

func call32(f func(dst, x []float32), x float32) float32 {
	y := []float32{0}
	f(y, []float32{x})
	return y[0]
}

func call64(f func(dst, x []float64), x float64) float64 {
	y := []float64{0}
	f(y, []float64{x})
	return y[0]
}

var _ = fmt.Sprint
