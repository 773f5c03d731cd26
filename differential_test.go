package kiln_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/bigmath"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The fused-vs-reference differential test: random programs (package
// progen) run through kiln.Jit on the CPU backend — fused, op by op, and
// with a tiny block size and parallel splits — and through the reference
// evaluator of the same traced program. Results must be bit-identical,
// except that two NaNs are equal whatever their payload and sign (which
// operand's NaN an IEEE operation returns is the hardware's choice, and a
// kernel with a scalar operand may order operands differently); inputs
// must be untouched, bit for bit.
//
// Reproduce one failure with the command its report prints:
//
//	go test -run '^TestDifferential$' -diff.seed=N -diff.mode=MODE -v
//
// (MODE, the generator's options, is plain, control or all-control: see
// genModes).

var (
	diffN    = flag.Int("diff.n", 0, "number of random programs of TestDifferential (0: 10000 with KILN_LONG=1, else 2000)")
	diffSeed = flag.Int64("diff.seed", -1, "run only this seed of TestDifferential")
	diffFrom = flag.Int64("diff.from", 1_000_000, "first seed of TestDifferential's corpus")
	diffMode = flag.String("diff.mode", "plain", "the generator mode of TestDifferential: plain, control or all-control (genModes)")
)

// tinyCPU crosses block tails and parallel splits on the smallest arrays.
var tinyCPU = kernels.NewCPU(kernels.CPUOptions{Block: 7, ParallelMin: 1, Workers: 3})

// groupCPU runs every group of independent kernels side by side (each
// whole on one of three workers), the others split on the smallest arrays.
var groupCPU = kernels.NewCPU(kernels.CPUOptions{Block: 7, ParallelMin: 1, Workers: 3, GroupAll: true})

// refOptions makes the reference compute transcendental functions with
// the CPU backend's own per-element functions, so results stay
// bit-identical; their accuracy is TestTranscendentalULP's business.
var refOptions = reference.Options{Transcendental: kernels.Transcendental}

// diffCount is -diff.n, or its default.
func diffCount() int {
	if *diffN > 0 {
		return *diffN
	}
	return longtest.Pick(10000, 2000)
}

func TestDifferential(t *testing.T) {
	n := diffCount()
	if testing.Short() {
		n = min(n, 1000)
	}
	var ran, i atomic.Int64
	next := func() (int64, bool) {
		k := i.Add(1) - 1
		if *diffSeed >= 0 {
			return *diffSeed, k == 0
		}
		return *diffFrom + k, k < int64(n)
	}
	start := time.Now()
	forSeeds(t, next, func(seed int64) string {
		defer ran.Add(1)
		return runDifferentialWith(seed, *diffMode)
	})
	t.Logf("%d programs in %v", ran.Load(), time.Since(start).Round(time.Millisecond))
}

// FuzzFusedVsReference draws a program from the fuzzer's bytes (hashed to a
// progen seed and mode: fuzzMode) and checks it as TestDifferential does;
// half of its programs have loops and branches of every kind. A failure
// prints the TestDifferential command that reruns its program.
func FuzzFusedVsReference(f *testing.F) {
	for _, s := range []string{"", "kiln", "f16 (x*2 + y) * 0.5", "\x00\x01\x02\x03", "matmul", "reduce"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		seed := fuzzSeed(data)
		if msg := runDifferentialWith(seed, fuzzMode(data)); msg != "" {
			t.Fatal(msg)
		}
	})
}

// TestDifferentialControl is TestDifferential over programs with loops
// and branches (progen's Control steps), a corpus of its own so that the
// seeds TestDifferential pins keep their programs.
func TestDifferentialControl(t *testing.T) {
	n := diffCount() / 4
	if testing.Short() {
		n = min(n, 300)
	}
	var i atomic.Int64
	forSeeds(t, func() (int64, bool) { k := i.Add(1) - 1; return 9_000_000 + k, k < int64(n) }, func(seed int64) string {
		return runDifferentialWith(seed, "control")
	})
}

// TestDifferentialAllControl is TestDifferential over programs with loops
// and branches of every kind (while_loop, scan and switch too: the
// "all-control" mode), a corpus of its own.
func TestDifferentialAllControl(t *testing.T) {
	n := *diffN / 10
	if testing.Short() {
		n = min(n, 200)
	}
	var i atomic.Int64
	forSeeds(t, func() (int64, bool) { k := i.Add(1) - 1; return 11_000_000 + k, k < int64(n) }, func(seed int64) string {
		return runDifferentialWith(seed, "all-control")
	})
}

// runDifferentialWith checks one seed drawn in a generator mode (genModes)
// and returns a failure report, or "".
func runDifferentialWith(seed int64, mode string) (msg string) {
	c := progen.Generate(rand.New(rand.NewSource(seed)), withMode(progen.Options{}, mode))
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("seed %d: panic: %v (reproduce: %s)\n%s\n%s", seed, r, diffRepro(seed, mode), c, debug.Stack())
		}
	}()
	args := caseArgs(c)
	opts := caseOptions(c)
	fused := kiln.Jit(c.Fn, opts...)
	p, err := c.Trace()
	if err != nil {
		return fmt.Sprintf("seed %d: progen drew a program that does not trace: %v (reproduce: %s)\n%s", seed, err, diffRepro(seed, mode), c)
	}
	report := func(what string, got, want []*tensor.Array, detail string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: %s (reproduce: %s)\n", seed, what, diffRepro(seed, mode))
		fmt.Fprintf(&b, "case:\n%s\nprogram:\n%s\n", c, p)
		if m, err := fused.Lower(args...); err == nil {
			fmt.Fprintf(&b, "fused plan:\n%s", m.FusedString())
		}
		for i, a := range c.Arrays {
			fmt.Fprintf(&b, "input %d: %s\n", i, formatArray(a))
		}
		b.WriteString(detail + "\n")
		for i := range got {
			fmt.Fprintf(&b, "got  %d: %s\nwant %d: %s\n", i, formatArray(got[i]), i, formatArray(want[i]))
		}
		return b.String()
	}
	before := make([]*tensor.Array, len(c.Arrays))
	for i, a := range c.Arrays {
		before[i] = a.Clone()
	}
	got, err := fused.RunAll(args...)
	if err != nil {
		return report("fused run failed: "+err.Error(), nil, nil, "")
	}
	want, err := reference.Eval(p, c.Arrays, refOptions)
	if err != nil {
		return report("reference failed: "+err.Error(), nil, nil, "")
	}
	if d := diffResults(got, want, true); d != "" {
		return report("fused result differs from the reference", got, want, d)
	}
	for _, v := range []struct {
		name string
		opt  kiln.Option
	}{{"op-by-op (NoFusion)", kiln.NoFusion()}, {"tiny-block parallel CPU", kiln.WithBackend(tinyCPU)}, {"grouped CPU", kiln.WithBackend(groupCPU)}} {
		other, err := kiln.Jit(c.Fn, append(opts, v.opt)...).RunAll(args...)
		if err != nil {
			return report(v.name+" run failed: "+err.Error(), nil, nil, "")
		}
		if d := diffResults(other, got, true); d != "" {
			return report(v.name+" result differs from the fused one", other, got, d)
		}
	}
	for i := range before {
		if d := diffArrays(c.Arrays[i], before[i], false); d != "" {
			return report(fmt.Sprintf("input %d was modified by Run: %s", i, d), nil, nil, "")
		}
	}
	return ""
}

// diffRepro is the command that reruns one seed of TestDifferential.
func diffRepro(seed int64, mode string) string {
	return fmt.Sprintf("go test -run '^TestDifferential$' -diff.seed=%d -diff.mode=%s -v .", seed, mode)
}

// caseArgs are the Run arguments of a case: arrays, weak ones wrapped.
func caseArgs(c *progen.Case) []any {
	args := make([]any, len(c.Arrays))
	for i, a := range c.Arrays {
		if c.Inputs[i].Type.Weak {
			args[i] = kiln.Weak(a)
		} else {
			args[i] = a
		}
	}
	return args
}

// caseOptions are the options of a case; every program and module is
// verified after every pass (kiln.Verify), whatever KILN_VERIFY says.
func caseOptions(c *progen.Case) []kiln.Option {
	opts := []kiln.Option{kiln.Verify()}
	if c.X32() {
		opts = append(opts, kiln.X32())
	}
	if c.Strict() {
		opts = append(opts, kiln.Strict())
	}
	return opts
}

// diffResults compares result lists and says where they first differ.
func diffResults(got, want []*tensor.Array, nanEqual bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d results, want %d", len(got), len(want))
	}
	for i := range got {
		if d := diffArrays(got[i], want[i], nanEqual); d != "" {
			return fmt.Sprintf("result %d: %s", i, d)
		}
	}
	return ""
}

// diffArrays compares dtype, shape and every element's bits; with nanEqual
// two NaNs (per complex part) are equal whatever their payload.
func diffArrays(got, want *tensor.Array, nanEqual bool) string {
	if got.DType() != want.DType() || !slicesEqual(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := elemBits(got), elemBits(want)
	same := nanEqualFunc(got.DType())
	for i := range g {
		if g[i] == w[i] || nanEqual && same(g[i], w[i]) {
			continue
		}
		return fmt.Sprintf("element %d: got %s, want %s (bits %#x vs %#x)", i, got.FormatElem(i), want.FormatElem(i), g[i], w[i])
	}
	return ""
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// bits128 holds one element's bits: lo for reals, lo/hi for complex parts.
type bits128 struct{ lo, hi uint64 }

// elemBits returns every element's bit pattern.
func elemBits(a *tensor.Array) []bits128 {
	out := make([]bits128, a.Size())
	switch s := a.Data().(type) {
	case []bool:
		for i, v := range s {
			if v {
				out[i].lo = 1
			}
		}
	case []uint8:
		fillBits(out, s)
	case []uint16:
		fillBits(out, s)
	case []uint32:
		fillBits(out, s)
	case []uint64:
		fillBits(out, s)
	case []int8:
		fillBits(out, s)
	case []int16:
		fillBits(out, s)
	case []int32:
		fillBits(out, s)
	case []int64:
		fillBits(out, s)
	case []tensor.BFloat16:
		for i, v := range s {
			out[i].lo = uint64(v.Bits())
		}
	case []tensor.Float16:
		for i, v := range s {
			out[i].lo = uint64(v.Bits())
		}
	case []float32:
		for i, v := range s {
			out[i].lo = uint64(math.Float32bits(v))
		}
	case []float64:
		for i, v := range s {
			out[i].lo = math.Float64bits(v)
		}
	case []complex64:
		for i, v := range s {
			out[i] = bits128{uint64(math.Float32bits(real(v))), uint64(math.Float32bits(imag(v)))}
		}
	case []complex128:
		for i, v := range s {
			out[i] = bits128{math.Float64bits(real(v)), math.Float64bits(imag(v))}
		}
	}
	return out
}

func fillBits[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](out []bits128, s []T) {
	for i, v := range s {
		out[i].lo = uint64(v)
	}
}

// isNaNBits reports whether b is a NaN of the real dtype d (or of d's part
// type for complex).
func isNaNBits(b uint64, d tensor.DType) bool {
	switch d {
	case tensor.BF16:
		return b&0x7fff > 0x7f80
	case tensor.F16:
		return b&0x7fff > 0x7c00
	case tensor.F32, tensor.C64:
		return b&0x7fff_ffff > 0x7f80_0000
	}
	return b&^(1<<63) > 0x7ff0_0000_0000_0000
}

// nanEqualFunc returns, for dtype d, whether two differing bit patterns
// are both NaN — for complex, part by part: each part identical or NaN on
// both sides.
func nanEqualFunc(d tensor.DType) func(g, w bits128) bool {
	part := func(g, w uint64) bool { return g == w || isNaNBits(g, d) && isNaNBits(w, d) }
	switch d {
	case tensor.BF16, tensor.F16, tensor.F32, tensor.F64:
		return func(g, w bits128) bool { return part(g.lo, w.lo) }
	case tensor.C64, tensor.C128:
		return func(g, w bits128) bool { return part(g.lo, w.lo) && part(g.hi, w.hi) }
	}
	return func(g, w bits128) bool { return false }
}

// formatArray prints an array, eliding the middle of long ones.
func formatArray(a *tensor.Array) string {
	const most = 48
	n := a.Size()
	if n <= most {
		return a.String()
	}
	parts := make([]string, 0, most+1)
	for i := range most / 2 {
		parts = append(parts, a.FormatElem(i))
	}
	parts = append(parts, "…")
	for i := n - most/2; i < n; i++ {
		parts = append(parts, a.FormatElem(i))
	}
	return fmt.Sprintf("%s%v [%s]", a.DType(), a.Shape(), strings.Join(parts, " "))
}

// exactMath is the yardstick for TestTranscendentalULP: the correctly
// rounded result (package bigmath) of every transcendental op. Go's own
// math is not good enough: on amd64 math.Exp overflows from 709.44 and
// math.Log is wrong on subnormals, math.Tan and math.Pow are several ulps
// off, math.Sin hundreds at huge arguments.
func exactMath(op trace.Op, d tensor.DType, x, y float64) float64 {
	switch op {
	case trace.OpExp:
		return bigmath.Exp(x)
	case trace.OpLog:
		return bigmath.Log(x)
	case trace.OpLog1p:
		return bigmath.Log1p(x)
	case trace.OpExpm1:
		return bigmath.Expm1(x)
	case trace.OpRsqrt:
		return bigmath.Rsqrt(x)
	case trace.OpTanh:
		return bigmath.Tanh(x)
	case trace.OpLogistic:
		return bigmath.Logistic(x)
	case trace.OpSin:
		return bigmath.Sin(x)
	case trace.OpCos:
		return bigmath.Cos(x)
	case trace.OpTan:
		return bigmath.Tan(x)
	case trace.OpPow:
		return bigmath.Pow(x, y)
	}
	panic("exactMath: no correctly rounded reference for " + op.String())
}

// ulpBounds are docs/SPEC.md §3's: 1 ulp for f64, 2 for f32, and 1 ulp of the
// narrow type for f16 and bf16 (computed in f32, then rounded).
var ulpBounds = map[tensor.DType]int64{tensor.F64: 1, tensor.F32: 2, tensor.F16: 1, tensor.BF16: 1}

// TestTranscendentalULP compares the CPU backend's transcendental
// functions with the correctly rounded result (exactMath) within docs/SPEC.md §3's
// bounds, on random arguments over the whole range and on each function's
// hard ones (hardInputs, hardPowInputs).
func TestTranscendentalULP(t *testing.T) {
	unary := map[string]func(x kiln.Value) kiln.Value{
		"exp": kiln.Value.Exp, "log": kiln.Value.Log, "log1p": kiln.Value.Log1p, "expm1": kiln.Value.Expm1,
		"rsqrt": kiln.Value.Rsqrt, "sin": kiln.Value.Sin, "cos": kiln.Value.Cos, "tan": kiln.Value.Tan,
		"tanh": kiln.Value.Tanh, "logistic": kiln.Value.Logistic,
		"pow": func(x kiln.Value) kiln.Value { return x.Pow(x.Mul(kiln.Float(0.37)).Add(kiln.Float(0.5))) },
	}
	hard := hardInputs()
	for _, d := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16, tensor.BF16} {
		for name, fn := range unary {
			t.Run(name+"/"+d.String(), func(t *testing.T) {
				xs := append(ulpInputs(rand.New(rand.NewSource(int64(d))), 5000), hard[name]...)
				x, _ := tensor.FromSlice(xs)
				checkULP(t, name, kiln.Jit(fn), d, x.Astype(d))
			})
		}
		t.Run("pow2/"+d.String(), func(t *testing.T) {
			xs, ys := hardPowInputs(rand.New(rand.NewSource(int64(d))))
			x, _ := tensor.FromSlice(xs)
			y, _ := tensor.FromSlice(ys)
			checkULP(t, "pow", kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Pow(y) }), d, x.Astype(d), y.Astype(d))
		})
	}
}

// checkULP runs f on the CPU backend and holds every element within
// ulpBounds[d] of the reference evaluator with exactMath.
func checkULP(t *testing.T, name string, f *kiln.Func, d tensor.DType, in ...*tensor.Array) {
	t.Helper()
	args := make([]any, len(in))
	for i, a := range in {
		args[i] = a
	}
	got, err := f.Run(args...)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := f.Trace(args...)
	want, err := reference.Eval(p, in, reference.Options{Transcendental: exactMath})
	if err != nil {
		t.Fatal(err)
	}
	g, w := elemBits(got), elemBits(want[0])
	same := nanEqualFunc(d)
	bad := 0
	var worst int64
	for i := range g {
		if g[i] == w[i] || same(g[i], w[i]) {
			continue
		}
		dist := ulpDistance(g[i].lo, w[i].lo, d)
		if dist >= 0 && dist > worst {
			worst = dist
		}
		if dist < 0 || dist > ulpBounds[d] {
			if bad++; bad <= 5 {
				args := in[0].FormatElem(i)
				if len(in) > 1 {
					args += ", " + in[1].FormatElem(i)
				}
				t.Errorf("%s(%s) = %s, want %s within %d ulp", name, args, got.FormatElem(i), want[0].FormatElem(i), ulpBounds[d])
			}
		}
	}
	if bad > 5 {
		t.Errorf("… %d elements out of bounds in all", bad)
	}
	t.Logf("%s %s: max error %d ulp over %d elements", name, d, worst, len(g))
}

// ulpInputs are float64 values across the whole range plus specials.
func ulpInputs(r *rand.Rand, n int) []float64 {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e-310, 88.7, -87.3, 709.7, 1e22, math.Pi / 2}
	for len(xs) < n {
		switch r.Intn(4) {
		case 0:
			xs = append(xs, r.NormFloat64()*4)
		case 1:
			xs = append(xs, r.NormFloat64()*math.Pow(10, float64(r.Intn(30)-15)))
		case 2:
			xs = append(xs, (r.Float64()-0.5)*200)
		default: // any finite magnitude
			xs = append(xs, math.Ldexp(r.NormFloat64(), r.Intn(2098)-1074))
		}
	}
	return xs
}

// around returns x and its n float64 neighbors on each side.
func around(x float64, n int) []float64 {
	xs := []float64{x}
	lo, hi := x, x
	for range n {
		lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
		xs = append(xs, lo, hi)
	}
	return xs
}

// hardInputs are, per function, the arguments where it is hardest to be
// accurate: for sin, cos and tan the doubles closest to multiples of π/2
// in every few binades up to 1e300 and beyond (the smallest remainders of
// the range reduction) and next to multiples of π/4; thresholds of exp
// and expm1; log and log1p next to 1 (and log1p next to −1); rsqrt of
// subnormals and powers of two.
func hardInputs() map[string][]float64 {
	var trig []float64
	for e := -52; e <= 971; e += 3 {
		for i, x := range bigmath.NearHalfPiMultiples(e) {
			if i < 2 {
				trig = append(trig, around(x, 1)...)
				trig = append(trig, -x)
			}
		}
	}
	for _, k := range []int64{1, 2, 3, 4, 5, 6, 7, 8, 100, 355, 1 << 20, 1<<30 + 1, 1 << 40, 1<<52 + 3, 1<<60 + 7} {
		trig = append(trig, around(bigmath.PiOver4Times(k), 1)...)
	}
	trig = append(trig, 1e300, -1e300, 1e308, math.MaxFloat64, 1<<48, 1<<30, 3e15, 2e21)
	var exps, logs, log1ps, rsqrts []float64
	for _, c := range []float64{709.782712893384, -745.1332191019411, -708.3964185322641, 0x1p-1022, -36.7368005696771, 1e-300, 0x1p-54} {
		exps = append(exps, around(c, 3)...)
		exps = append(exps, around(-c, 3)...)
	}
	for _, c := range []float64{1, 0x1p-1022, 5e-324, math.MaxFloat64, math.Sqrt2 / 2} {
		logs = append(logs, around(c, 4)...)
	}
	for _, c := range []float64{-1 + 0x1p-53, -0.5, 0x1p-54, -0x1p-54, 0x1p-30, 1, 5e-324, math.MaxFloat64, math.Sqrt2 - 1} {
		log1ps = append(log1ps, around(c, 4)...)
	}
	for e := -1074; e <= 1023; e += 5 {
		rsqrts = append(rsqrts, around(math.Ldexp(1, e), 1)...)
	}
	rsqrts = append(rsqrts, 1e-310, 3e-320, math.MaxFloat64)
	return map[string][]float64{"sin": trig, "cos": trig, "tan": trig, "exp": exps, "expm1": exps, "log": logs,
		"log1p": log1ps, "rsqrt": rsqrts, "tanh": around(0.625, 20), "logistic": around(0, 20)}
}

// hardPowInputs are pow's hard argument pairs: results at the overflow and
// underflow thresholds and in the subnormal range, x next to 1 with huge
// y, huge and tiny exponents, integer powers of negative bases, plus
// random pairs over the result range.
func hardPowInputs(r *rand.Rand) (xs, ys []float64) {
	add := func(x, y float64) {
		for _, a := range around(x, 1) {
			for _, b := range around(y, 1) {
				xs, ys = append(xs, a), append(ys, b)
			}
		}
	}
	for _, x := range []float64{2, 0.5, 10, 0.1, math.E, 1.0001, 0.9999, 1e-300, 1e300, math.MaxFloat64, 5e-324} {
		for _, z := range []float64{1024, 1023.9999, -1022, -1022.5, -1073.5, -1074, -1074.5, -1075} {
			add(x, z/math.Log2(x))
		}
	}
	for _, d := range []float64{0x1p-52, 0x1p-30, 0x1p-21, 0x1p-20, 0x1p-10} {
		for _, x := range []float64{1 + d, 1 - d/2} {
			for _, y := range []float64{0x1p31, 0x1p40, 0x1p63, 0x1p64, 700 / math.Log(x), -740 / math.Log(x)} {
				add(x, y)
				add(x, -y)
			}
		}
	}
	for _, x := range []float64{5e-324, 1e-310, 0.5, 1.001, 2, 1e300, math.MaxFloat64} {
		for _, y := range []float64{1e300, -1e300, 1e-300, 0x1p-60, 0.5, -0.5, 1.5, 1.0 / 3} {
			add(x, y)
		}
	}
	for range 300 {
		x := math.Exp(r.NormFloat64() * 3)
		if r.Intn(2) == 0 {
			x = -x
		}
		xs, ys = append(xs, x, float64(r.Intn(1000)+2)), append(ys, float64(r.Intn(200)-100), float64(r.Intn(6)+2))
		x = math.Ldexp(1+r.Float64(), r.Intn(2000)-1000)
		xs, ys = append(xs, x), append(ys, (r.Float64()*2110-1080)/math.Log2(x))
	}
	xs, ys = append(xs, math.NaN(), 1, -1, 0, math.Inf(-1), -8), append(ys, 0, math.NaN(), math.Inf(1), -3, 0.5, 1.0/3)
	return xs, ys
}

// ulpDistance counts representable values of dtype d between two bit
// patterns of the same dtype; -1 when one is NaN and the other is not.
func ulpDistance(a, b uint64, d tensor.DType) int64 {
	if isNaNBits(a, d) != isNaNBits(b, d) {
		return -1
	}
	return numerics.ULPBits(a, b, d.Bits())
}
