package simd_test

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// TestTranscendentalSpecials pins the edge cases: NaN in gives NaN out,
// infinities, signed zeros, overflow and underflow thresholds, log of 0 and
// of negatives, saturation. Each value is surrounded by ordinary ones so
// the vector path runs next to it and hands it to the Go twin.
func TestTranscendentalSpecials(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	negZero := math.Copysign(0, -1)
	type want struct {
		x, y float64 // y: exact expected result (NaN: any NaN)
	}
	cases := map[string][]want{
		"Exp": {{nan, nan}, {inf, inf}, {-inf, 0}, {0, 1}, {negZero, 1}, {1e-310, 1}, {800, inf}, {-800, 0}},
		"Log": {{nan, nan}, {inf, inf}, {-inf, nan}, {0, -inf}, {negZero, -inf}, {-1, nan}, {1, 0}},
		"Tanh": {{nan, nan}, {inf, 1}, {-inf, -1}, {0, 0}, {negZero, negZero}, {30, 1}, {-30, -1},
			{1e-30, 1e-30}, {-1e-30, -1e-30}},
		"Logistic": {{nan, nan}, {inf, 1}, {-inf, 0}, {0, 0.5}, {negZero, 0.5}, {50, 1}, {-1000, 0}},
		"Sin":      {{nan, nan}, {inf, nan}, {-inf, nan}, {0, 0}, {negZero, negZero}, {1e-30, 1e-30}},
		"Cos":      {{nan, nan}, {inf, nan}, {-inf, nan}, {0, 1}, {negZero, 1}},
	}
	f32 := map[string]func(dst, x []float32){"Exp": simd.ExpF32, "Log": simd.LogF32, "Tanh": simd.TanhF32,
		"Logistic": simd.LogisticF32, "Sin": simd.SinF32, "Cos": simd.CosF32}
	f64 := map[string]func(dst, x []float64){"Exp": simd.ExpF64, "Log": simd.LogF64, "Tanh": simd.TanhF64,
		"Logistic": simd.LogisticF64, "Sin": simd.SinF64, "Cos": simd.CosF64}
	atEveryTier(t, func(tier simd.Tier) {
		for name, ws := range cases {
			for _, w := range ws {
				for pos := range 40 { // the special at every lane of a few vectors
					x32, y32 := fill32(40, 0.5), make([]float32, 40)
					x32[pos] = float32(w.x)
					f32[name](y32, x32)
					if got := y32[pos]; !numerics.Same(float64(got), float64(float32(w.y))) {
						t.Fatalf("%v: %sF32(%g) = %g, want %g", tier, name, w.x, got, w.y)
					}
					x64, y64 := fill64(40, 0.5), make([]float64, 40)
					x64[pos] = w.x
					f64[name](y64, x64)
					if got := y64[pos]; !numerics.Same(got, w.y) {
						t.Fatalf("%v: %sF64(%g) = %g, want %g", tier, name, w.x, got, w.y)
					}
				}
			}
		}
	})
}

// TestAccuracyF32Sweep walks every float32 input with a stride (all of
// them with -simd.exhaustive, about 10 minutes), so every binade, the
// subnormals and the thresholds are covered, and checks the 2 ulp bound.
func TestAccuracyF32Sweep(t *testing.T) {
	stride := uint64(4093)
	if *exhaustive {
		stride = 1
	} else if testing.Short() {
		stride *= 16
	}
	for _, fn := range fns32 {
		t.Run(fn.name, func(t *testing.T) {
			var worst atomic.Int64
			msg := forEachF32(stride, func(x []float32) string {
				y := make([]float32, len(x))
				fn.f(y, x)
				for i, v := range x {
					want := float32(fn.ref(float64(v)))
					d := numerics.ULP32(y[i], want)
					if d > 2 {
						return sprintf("%s(%g) = %g, want %g: %d ulp", fn.name, v, y[i], want, d)
					}
					for w := worst.Load(); d > w && !worst.CompareAndSwap(w, d); w = worst.Load() {
					}
				}
				return ""
			})
			t.Logf("max error %d ulp over every %d-th float32", worst.Load(), stride)
			if msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestSinCosF32Exhaustive checks sin and cos at every float32 in [π/4,
// 2**16], the whole vector domain with a nonzero reduction (below π/4,
// r = |x|): where the argument reduction's three FMAs could lose accuracy
// next to multiples of π/4. Both stay within 2 ulp of the float64 results,
// at 2 ulp for a few dozen inputs in 134 million (from the polynomials: a
// float64 reduction gave as many). It runs with KILN_LONG=1.
func TestSinCosF32Exhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("134 million points; -short skips it")
	}
	longtest.Skip(t, "sin and cos at the 134 million float32 in [π/4, 2**16] (TestAccuracyF32Sweep and TestAccuracy sample them)")
	lo, hi := math.Float32bits(math.Pi/4), math.Float32bits(1<<16)
	for _, fn := range []struct {
		name string
		f    func(dst, x []float32)
		ref  func(float64) float64
	}{{"sin", simd.SinF32, math.Sin}, {"cos", simd.CosF32, math.Cos}} {
		var at2 atomic.Int64
		msg := forEachF32(1, func(x []float32) string {
			if math.Float32bits(x[0]) > hi || math.Float32bits(x[len(x)-1]) < lo {
				return ""
			}
			y := make([]float32, len(x))
			fn.f(y, x)
			for i, v := range x {
				if b := math.Float32bits(v); b < lo || b > hi {
					continue
				}
				want := float32(fn.ref(float64(v)))
				switch d := numerics.ULP32(y[i], want); {
				case d > 2:
					return sprintf("%s(%g) = %g, want %g: %d ulp", fn.name, v, y[i], want, d)
				case d == 2:
					at2.Add(1)
				}
			}
			return ""
		})
		t.Logf("%s: %d inputs at 2 ulp", fn.name, at2.Load())
		if msg != "" {
			t.Error(msg)
		}
	}
}

// TestAccuracyF64HardCases checks the float64 functions where they are
// hardest, against math/big: sin and cos at the doubles nearest to
// multiples of π/4 (where the result is smallest relative to the argument)
// up to 2**62 and, in every binade up to the largest double, at those
// closest to multiples of π/2 (bigmath.NearHalfPiMultiples); exp at its
// thresholds, log next to 1, tanh at the switch of algorithm, logistic
// around 0.
func TestAccuracyF64HardCases(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	var trig []float64
	ks := []int64{}
	for k := int64(1); k <= 600; k++ {
		ks = append(ks, k)
	}
	for range 600 {
		ks = append(ks, r.Int64N(1<<30), r.Int64N(1<<40), r.Int64N(1<<50), r.Int64N(1<<62))
	}
	for _, k := range ks {
		x := bigmath.PiOver4Times(k)
		trig = append(trig, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
	}
	for e := -52; e <= 971; e++ {
		for _, x := range bigmath.NearHalfPiMultiples(e) {
			trig = append(trig, x, -x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		}
	}
	around := func(c float64, n int) []float64 {
		xs := []float64{c}
		lo, hi := c, c
		for range n {
			lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
			xs = append(xs, lo, hi)
		}
		return xs
	}
	cat := func(xss ...[]float64) []float64 {
		var all []float64
		for _, xs := range xss {
			all = append(all, xs...)
		}
		return all
	}
	inputs := map[string][]float64{
		"ExpF64":      cat(around(708, 200), around(-708, 200), around(709.782712893384, 200), around(-745.1332191019411, 200), around(0, 200), around(-0.3465735902799726, 100), around(0.3465735902799726, 100)),
		"LogF64":      cat(around(1, 400), around(math.Sqrt2/2, 200), around(0x1p-1022, 100), around(math.MaxFloat64, 50), around(5e-324, 50)),
		"TanhF64":     cat(around(0.625, 300), around(-0.625, 300), around(19, 100)),
		"LogisticF64": cat(around(0, 300), around(-708, 100), around(36, 100)),
		"SinF64":      trig,
		"CosF64":      trig,
	}
	for _, fn := range fns64 {
		t.Run(fn.name, func(t *testing.T) {
			xs := inputs[fn.name]
			y := make([]float64, len(xs))
			fn.f(y, xs)
			var worst int64
			var at float64
			for i, x := range xs {
				if x != x || math.IsInf(x, 0) {
					continue
				}
				if d := numerics.ULP64(y[i], fn.ref(x)); d > worst {
					worst, at = d, x
				}
			}
			t.Logf("max error %d ulp (at x=%g) over %d hard cases", worst, at, len(xs))
			if worst > 1 {
				t.Errorf("%s(%g) = %g, want %g: %d ulp", fn.name, at, call64(fn.f, at), fn.ref(at), worst)
			}
		})
	}
}
