package kiln_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/x448/float16"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/bigmath"
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
// Reproduce one failure with
//
//	go test -run TestDifferential -diff.seed=N -v

var (
	diffN    = flag.Int("diff.n", 10000, "number of random programs of TestDifferential")
	diffSeed = flag.Int64("diff.seed", -1, "run only this seed of TestDifferential")
	diffFrom = flag.Int64("diff.from", 1_000_000, "first seed of TestDifferential's corpus")
)

// tinyCPU crosses block tails and parallel splits on the smallest arrays.
var tinyCPU = kernels.NewCPU(kernels.CPUOptions{Block: 7, ParallelMin: 1, Workers: 3})

// refOptions makes the reference compute transcendental functions with
// the CPU backend's own per-element functions, so results stay
// bit-identical; their accuracy is TestTranscendentalULP's business.
var refOptions = reference.Options{Transcendental: kernels.Transcendental}

func TestDifferential(t *testing.T) {
	n := *diffN
	if testing.Short() {
		n = min(n, 1000)
	}
	seeds := make(chan int64)
	go func() {
		defer close(seeds)
		if *diffSeed >= 0 {
			seeds <- *diffSeed
			return
		}
		for i := range n {
			seeds <- *diffFrom + int64(i)
		}
	}()
	var (
		mu       sync.Mutex
		failures []string
		ran      atomic.Int64
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				msg := runDifferential(seed)
				ran.Add(1)
				if msg != "" {
					mu.Lock()
					failures = append(failures, msg)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d programs in %v", ran.Load(), time.Since(start).Round(time.Millisecond))
	for i, f := range failures {
		if i == 5 {
			t.Errorf("… and %d more failures", len(failures)-5)
			break
		}
		t.Error(f)
	}
}

// FuzzFusedVsReference draws a program from the fuzzer's bytes (hashed to a
// progen seed) and checks it as TestDifferential does.
func FuzzFusedVsReference(f *testing.F) {
	for _, s := range []string{"", "kiln", "f16 (x*2 + y) * 0.5", "\x00\x01\x02\x03", "matmul", "reduce"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := fnv.New64a()
		h.Write(data)
		seed := int64(binary.LittleEndian.Uint64(h.Sum(nil)) >> 1)
		if msg := runDifferential(seed); msg != "" {
			t.Fatal(msg)
		}
	})
}

// runDifferential checks one seed and returns a failure report, or "".
func runDifferential(seed int64) (msg string) {
	c := progen.Generate(rand.New(rand.NewSource(seed)), progen.Options{})
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("seed %d: panic: %v\n%s\n%s", seed, r, c, debug.Stack())
		}
	}()
	args := caseArgs(c)
	opts := caseOptions(c)
	fused := kiln.Jit(c.Fn, opts...)
	p, err := c.Trace()
	if err != nil {
		return fmt.Sprintf("seed %d: progen drew a program that does not trace: %v\n%s", seed, err, c)
	}
	report := func(what string, got, want []*tensor.Array, detail string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: %s (reproduce: go test -run TestDifferential -diff.seed=%d -v)\n", seed, what, seed)
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
	}{{"op-by-op (NoFusion)", kiln.NoFusion()}, {"tiny-block parallel CPU", kiln.WithBackend(tinyCPU)}} {
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

func caseOptions(c *progen.Case) []kiln.Option {
	var opts []kiln.Option
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
	case []float16.Float16:
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
// rounded result (package bigmath) for the vectorized functions, Go's math
// for the rest (which the CPU backend evaluates with Go's math too). Go's
// own math is not good enough for the former: on amd64 math.Exp overflows
// from 709.44 and math.Log is wrong on subnormals.
func exactMath(op trace.Op, d tensor.DType, x, y float64) float64 {
	switch op {
	case trace.OpExp:
		return bigmath.Exp(x)
	case trace.OpLog:
		return bigmath.Log(x)
	case trace.OpTanh:
		return bigmath.Tanh(x)
	case trace.OpLogistic:
		return bigmath.Logistic(x)
	case trace.OpSin:
		return bigmath.Sin(x)
	case trace.OpCos:
		return bigmath.Cos(x)
	}
	return kernels.Transcendental(op, d, x, y)
}

// TestTranscendentalULP compares the CPU backend's transcendental
// functions with the correctly rounded result (exactMath) within SPEC §3's
// bounds: 1 ulp for f64, 2 for f32, and 1 ulp of the narrow type for f16
// and bf16.
func TestTranscendentalULP(t *testing.T) {
	bounds := map[tensor.DType]int64{tensor.F64: 1, tensor.F32: 2, tensor.F16: 1, tensor.BF16: 1}
	unary := map[string]func(x kiln.Value) kiln.Value{
		"exp": kiln.Value.Exp, "log": kiln.Value.Log, "log1p": kiln.Value.Log1p, "expm1": kiln.Value.Expm1,
		"rsqrt": kiln.Value.Rsqrt, "sin": kiln.Value.Sin, "cos": kiln.Value.Cos, "tan": kiln.Value.Tan,
		"tanh": kiln.Value.Tanh, "logistic": kiln.Value.Logistic,
		"pow": func(x kiln.Value) kiln.Value { return x.Pow(x.Mul(kiln.Float(0.37)).Add(kiln.Float(0.5))) },
	}
	for _, d := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16, tensor.BF16} {
		for name, fn := range unary {
			t.Run(name+"/"+d.String(), func(t *testing.T) {
				x := ulpInputs(rand.New(rand.NewSource(int64(d))), 5000).Astype(d)
				f := kiln.Jit(fn)
				got, err := f.Run(x)
				if err != nil {
					t.Fatal(err)
				}
				p, _ := f.Trace(x)
				want, err := reference.Eval(p, []*tensor.Array{x}, reference.Options{Transcendental: exactMath})
				if err != nil {
					t.Fatal(err)
				}
				g, w := elemBits(got), elemBits(want[0])
				same := nanEqualFunc(d)
				bad := 0
				for i := range g {
					if g[i] == w[i] || same(g[i], w[i]) {
						continue
					}
					if dist := ulpDistance(g[i].lo, w[i].lo, d); dist < 0 || dist > bounds[d] {
						if bad++; bad <= 5 {
							t.Errorf("%s(%s) = %s, want %s within %d ulp", name, x.FormatElem(i), got.FormatElem(i), want[0].FormatElem(i), bounds[d])
						}
					}
				}
			})
		}
	}
}

// ulpInputs are float64 values across the whole range plus specials.
func ulpInputs(r *rand.Rand, n int) *tensor.Array {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e-310, 88.7, -87.3, 709.7, 1e22, math.Pi / 2}
	for len(xs) < n {
		switch r.Intn(3) {
		case 0:
			xs = append(xs, r.NormFloat64()*4)
		case 1:
			xs = append(xs, r.NormFloat64()*math.Pow(10, float64(r.Intn(30)-15)))
		default:
			xs = append(xs, (r.Float64()-0.5)*200)
		}
	}
	a, _ := tensor.FromSlice(xs)
	return a
}

// ulpDistance counts representable values of dtype d between two bit
// patterns of the same dtype; -1 when one is NaN and the other is not.
func ulpDistance(a, b uint64, d tensor.DType) int64 {
	width := uint(d.Bits())
	sign := uint64(1) << (width - 1)
	if isNaNBits(a, d) != isNaNBits(b, d) {
		return -1
	}
	ord := func(x uint64) int64 {
		if x&sign != 0 {
			return -int64(x &^ sign)
		}
		return int64(x)
	}
	dist := ord(a) - ord(b)
	if dist < 0 {
		dist = -dist
	}
	return dist
}
