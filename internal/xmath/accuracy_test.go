package xmath_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/xmath"
)

var (
	points = flag.Int("xmath.points", 0, "random points per function in TestAccuracy (0: 10⁶ with KILN_LONG=1, else 5·10⁴)")
	full   = flag.Bool("xmath.full", false, "check every point of TestAccuracy against math/big, not only a sample and where the result differs from package math")
)

// fn is one function under test: f against the correctly rounded ref. Two
// arguments for pow (y is 0 otherwise). oracle, when set, is a fast
// function that is usually correctly rounded (package math): a point where
// f agrees with it is checked with math/big only on a sample.
type fn struct {
	name   string
	f      func(x, y float64) float64
	ref    func(x, y float64) float64
	oracle func(x, y float64) float64
	gen    func(r *rand.Rand) (x, y float64)
}

func unary(f func(float64) float64) func(x, y float64) float64 {
	return func(x, _ float64) float64 { return f(x) }
}

func one(g func(r *rand.Rand) float64) func(r *rand.Rand) (float64, float64) {
	return func(r *rand.Rand) (float64, float64) { return g(r), 0 }
}

func uniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// logUniform is ±2**u, u uniform in [lo, hi]: every binade alike.
func logUniform(lo, hi float64, signed bool) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		x := math.Exp2(lo + (hi-lo)*r.Float64())
		if signed && r.IntN(2) == 0 {
			x = -x
		}
		return x
	}
}

// anyBits is a random finite float64 bit pattern.
func anyBits(r *rand.Rand) float64 {
	for {
		if x := math.Float64frombits(r.Uint64()); !math.IsNaN(x) && !math.IsInf(x, 0) {
			return x
		}
	}
}

func mix(gs ...func(*rand.Rand) float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return gs[r.IntN(len(gs))](r) }
}

// powArgs draws pow arguments whose result is mostly finite and nonzero:
// y·log2|x| spread over the whole exponent range, x near 1 with large y,
// integer y, negative x with integer y, random bits.
func powArgs(r *rand.Rand) (float64, float64) {
	switch r.IntN(8) {
	case 0: // the whole result range: y·log2 x in [−1080, 1030]
		x := logUniform(-1074, 1024, false)(r)
		return x, (r.Float64()*2110 - 1080) / math.Log2(x)
	case 1: // x near 1, huge |y|
		x := 1 + math.Ldexp(r.Float64()-0.5, -r.IntN(52))
		return x, (r.Float64()*1400 - 700) / math.Log(x)
	case 2: // integer y, |x| not far from 1
		x := math.Exp(r.NormFloat64() * 2)
		if r.IntN(2) == 0 {
			x = -x
		}
		return x, float64(r.IntN(400) - 200)
	case 3: // small integers to small powers: exact results
		return float64(r.IntN(1000) + 2), float64(r.IntN(20))
	case 4:
		return anyBits(r), anyBits(r)
	case 5:
		return math.Abs(anyBits(r)), r.NormFloat64() * 4
	default:
		return math.Exp(r.NormFloat64() * 5), r.NormFloat64() * 40
	}
}

var fns = []fn{
	{"Tan", unary(xmath.Tan), unary(bigmath.Tan), unary(math.Tan),
		one(mix(uniform(-10, 10), uniform(-1, 1), logUniform(-30, 30, true), logUniform(-1074, 1024, true), anyBits))},
	{"Pow", xmath.Pow, bigmath.Pow, math.Pow, powArgs},
	{"Rsqrt", unary(xmath.Rsqrt), unary(bigmath.Rsqrt), func(x, _ float64) float64 { return 1 / math.Sqrt(x) },
		one(mix(logUniform(-1074, 1024, false), uniform(0.5, 4), func(r *rand.Rand) float64 { return math.Abs(anyBits(r)) }))},
	// The CPU backend computes log1p with package math's fdlibm port, and
	// expm1 too but for one argument: held to the same bound here.
	{"math.Log1p", unary(math.Log1p), unary(bigmath.Log1p), nil,
		one(mix(uniform(-1, 1), logUniform(-60, 0, true), logUniform(-1074, 1024, false), uniform(-1, 10), anyBits))},
	{"Expm1", unary(xmath.Expm1), unary(bigmath.Expm1), nil,
		one(mix(uniform(-40, 710), uniform(-1, 1), uniform(709, 709.8), logUniform(-60, 0, true), logUniform(-1074, 10, true), anyBits))},

	// The functions of issue 13, in double-double.
	{"Atan", unary(xmath.Atan), unary(bigmath.Atan), unary(math.Atan),
		one(mix(uniform(-2, 2), uniform(-1.0/64, 1.0/64), logUniform(-1074, 1024, true), anyBits))},
	{"Asin", unary(xmath.Asin), unary(bigmath.Asin), unary(math.Asin), one(mix(uniform(-1, 1), nearOne(true), logUniform(-1074, 0, true)))},
	{"Acos", unary(xmath.Acos), unary(bigmath.Acos), unary(math.Acos), one(mix(uniform(-1, 1), nearOne(true), logUniform(-1074, 0, true)))},
	{"Atan2", xmath.Atan2, bigmath.Atan2, math.Atan2, pairs(mix(uniform(-4, 4), logUniform(-1074, 1024, true), anyBits))},
	{"Hypot", xmath.Hypot, bigmath.Hypot, math.Hypot, pairs(mix(uniform(-4, 4), logUniform(-1074, 1024, true), anyBits))},
	{"Sinh", unary(xmath.Sinh), unary(bigmath.Sinh), unary(math.Sinh),
		one(mix(uniform(-1, 1), uniform(-40, 40), uniform(-711, 711), logUniform(-1074, 10, true), anyBits))},
	{"Cosh", unary(xmath.Cosh), unary(bigmath.Cosh), unary(math.Cosh),
		one(mix(uniform(-1, 1), uniform(-40, 40), uniform(-711, 711), logUniform(-1074, 10, true), anyBits))},
	{"Asinh", unary(xmath.Asinh), unary(bigmath.Asinh), unary(math.Asinh),
		one(mix(uniform(-2, 2), logUniform(-1074, 1024, true), anyBits))},
	{"Acosh", unary(xmath.Acosh), unary(bigmath.Acosh), unary(math.Acosh),
		one(mix(uniform(1, 3), func(r *rand.Rand) float64 { return 1 + logUniform(-52, 0, false)(r) }, logUniform(0, 1024, false)))},
	{"Atanh", unary(xmath.Atanh), unary(bigmath.Atanh), unary(math.Atanh), one(mix(uniform(-1, 1), nearOne(true), logUniform(-1074, -1, true)))},
	{"Exp2", unary(xmath.Exp2), unary(bigmath.Exp2), unary(math.Exp2),
		one(mix(uniform(-1080, 1030), uniform(-1, 1), logUniform(-1074, 10, true), anyBits))},
	{"Log2", unary(xmath.Log2), unary(bigmath.Log2), unary(math.Log2),
		one(mix(logUniform(-1074, 1024, false), uniform(0.5, 2), func(r *rand.Rand) float64 { return math.Abs(anyBits(r)) }))},
	{"Log10", unary(xmath.Log10), unary(bigmath.Log10), unary(math.Log10),
		one(mix(logUniform(-1074, 1024, false), uniform(0.5, 2), func(r *rand.Rand) float64 { return math.Abs(anyBits(r)) }))},
	{"Cbrt", unary(xmath.Cbrt), unary(bigmath.Cbrt), unary(math.Cbrt), one(mix(uniform(-10, 10), logUniform(-1074, 1024, true), anyBits))},
	{"Erf", unary(xmath.Erf), unary(bigmath.Erf), unary(math.Erf), one(mix(uniform(-6, 6), uniform(-3, 3), logUniform(-1074, 3, true)))},
	{"Erfc", unary(xmath.Erfc), unary(bigmath.Erfc), unary(math.Erfc),
		one(mix(uniform(-7, 28), uniform(0, 3), uniform(3, 10), logUniform(-60, 4.8, true)))},
	{"Erfinv", unary(xmath.Erfinv), unary(bigmath.Erfinv), unary(math.Erfinv), one(mix(uniform(-1, 1), nearOne(true), logUniform(-1074, -1, true)))},
}

// nearOne is ±(1 − 2**u), u uniform in [−53, −1]: the arguments at which
// asin, acos, atanh and erfinv lose precision unless written for them.
func nearOne(signed bool) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		x := 1 - math.Exp2(-53+52*r.Float64())
		if signed && r.IntN(2) == 0 {
			x = -x
		}
		return x
	}
}

// pairs draws both arguments of a binary function from g.
func pairs(g func(*rand.Rand) float64) func(*rand.Rand) (float64, float64) {
	return func(r *rand.Rand) (float64, float64) { return g(r), g(r) }
}

// TestAccuracy holds each function within 1 ulp of the correctly rounded
// result (package bigmath) on -xmath.points random arguments per function
// (10⁶ with KILN_LONG=1, 5·10⁴ by default): checked with math/big where
// the result differs from package math's, and on every 16th point (every
// point with -xmath.full).
func TestAccuracy(t *testing.T) {
	n := *points
	if n == 0 {
		n = longtest.Pick(1_000_000, 50_000)
	}
	if testing.Short() {
		n /= 20
	}
	for _, f := range fns {
		t.Run(f.name, func(t *testing.T) {
			var (
				mu             sync.Mutex
				worst, checked int64
				atX, atY       float64
				hist           [3]int64 // results 0, 1, ≥ 2 ulps off, of those checked
				workers        = runtime.GOMAXPROCS(0)
				wg             sync.WaitGroup
			)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 77))
					var lw, lc int64
					var lx, ly float64
					var lh [3]int64
					for i := w; i < n; i += workers {
						x, y := f.gen(r)
						got := f.f(x, y)
						if !*full && i%16 != 0 && (f.oracle == nil || math.Float64bits(got) == math.Float64bits(f.oracle(x, y))) {
							continue
						}
						d := numerics.ULP64(got, f.ref(x, y))
						lc++
						lh[min(d, 2)]++
						if d > lw {
							lw, lx, ly = d, x, y
						}
					}
					mu.Lock()
					defer mu.Unlock()
					checked += lc
					for i := range hist {
						hist[i] += lh[i]
					}
					if lw > worst {
						worst, atX, atY = lw, lx, ly
					}
				}()
			}
			wg.Wait()
			t.Logf("max error %d ulp (at %s) over %d points, %d checked with math/big: %d correctly rounded, %d 1 ulp off",
				worst, args(f, atX, atY), n, checked, hist[0], hist[1])
			if worst > 1 {
				t.Errorf("%s(%s) = %v, want %v: %d ulp", f.name, args(f, atX, atY), f.f(atX, atY), f.ref(atX, atY), worst)
			}
		})
	}
}

func args(f fn, x, y float64) string {
	if f.name == "Pow" || f.name == "Atan2" || f.name == "Hypot" {
		return fmt.Sprintf("%v, %v", x, y)
	}
	return fmt.Sprint(x)
}
