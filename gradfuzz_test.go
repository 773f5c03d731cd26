package kiln_test

import (
	"errors"
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
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The gradient differential test: for each seed, two random programs
// (package progen) are differentiated, until -grad.n of each kind had
// something to differentiate.
//
//   - One of every dtype, with progen's adventurous data (NaN, ±Inf, −0,
//     subnormals, overflow): its gradient program must pass the verifiers
//     and give bit-identical results fused, op by op, and on the reference
//     evaluator.
//   - One over float64, complex128, ints and bools drawn with
//     progen.Options.Smooth (smooth ops, ordinary data): its gradient must
//     match central differences of the program in float64, at every
//     element where the differences are themselves stable (two step sizes
//     agree: the program is smooth there).
//
// Reproduce one failure with the command its report prints:
//
//	go test -run '^TestGradPrograms$' -grad.seed=N -grad.mode=MODE -v
//
// (MODE, the generator's options, is plain, control or all-control: see
// genModes).

var (
	gradN    = flag.Int("grad.n", 0, "number of seeds of TestGradPrograms, each drawing two programs (0: 10000 with KILN_LONG=1, else 2000)")
	gradSeed = flag.Int64("grad.seed", -1, "run only this seed of TestGradPrograms")
	gradFrom = flag.Int64("grad.from", 3_000_000, "first seed of TestGradPrograms' corpus")
	gradMode = flag.String("grad.mode", "plain", "the generator mode of TestGradPrograms: plain, control or all-control (genModes)")
)

// gradCount is -grad.n, or its default.
func gradCount() int {
	if *gradN > 0 {
		return *gradN
	}
	return longtest.Pick(10000, 2000)
}

func TestGradPrograms(t *testing.T) {
	n := int64(gradCount())
	if testing.Short() {
		n = min(n, 1000)
	}
	var (
		next      atomic.Int64 // the next seed
		ran       atomic.Int64 // seeds checked
		fused     atomic.Int64 // programs whose gradient ran fused, op by op and on the reference
		fdProgs   atomic.Int64 // programs with at least one element checked against differences
		checked   atomic.Int64 // elements compared with central differences
		seedLimit = 10 * n     // programs without inexact inputs or results have no gradient
	)
	next.Store(*gradFrom)
	seeds := func() (int64, bool) {
		if *gradSeed >= 0 {
			return *gradSeed, next.Add(1) == *gradFrom+1
		}
		if fused.Load() >= n && fdProgs.Load() >= n {
			return 0, false
		}
		seed := next.Add(1) - 1
		return seed, seed-*gradFrom < seedLimit
	}
	start := time.Now()
	forSeeds(t, seeds, func(seed int64) string {
		ran.Add(1)
		ok, msg := runGradFusedWith(seed, *gradMode)
		if ok {
			fused.Add(1)
		}
		if msg != "" {
			return msg
		}
		k, msg := runGradFiniteDiffWith(seed, *gradMode)
		checked.Add(int64(k))
		if k > 0 {
			fdProgs.Add(1)
		}
		return msg
	})
	t.Logf("%d seeds in %v: %d gradient programs fused = op by op = reference; %d gradient elements of %d programs checked against central differences",
		ran.Load(), time.Since(start).Round(time.Millisecond), fused.Load(), checked.Load(), fdProgs.Load())
	if *gradSeed < 0 && (fused.Load() < n || fdProgs.Load() < n) {
		t.Errorf("only %d fused and %d finite-difference programs in %d seeds, want %d of each", fused.Load(), fdProgs.Load(), seedLimit, n)
	}
}

// TestGradProgramsControl is TestGradPrograms over programs with loops
// and branches (progen's Control steps: a fori_loop with static bounds,
// reverse-differentiable, and a cond), a corpus of its own so the seeds
// TestGradPrograms pins keep their programs.
func TestGradProgramsControl(t *testing.T) {
	n := int64(gradCount() / 4)
	if testing.Short() {
		n = min(n, 300)
	}
	var next, fused, fd atomic.Int64
	next.Store(4_000_000)
	forSeeds(t, func() (int64, bool) {
		seed := next.Add(1) - 1
		return seed, (fused.Load() < n || fd.Load() < n) && seed-4_000_000 < 10*n
	}, func(seed int64) string {
		ok, msg := runGradFusedWith(seed, "control")
		if ok {
			fused.Add(1)
		}
		if msg != "" {
			return msg
		}
		k, msg := runGradFiniteDiffWith(seed, "control")
		if k > 0 {
			fd.Add(1)
		}
		return msg
	})
	if fused.Load() < n || fd.Load() < n {
		t.Errorf("only %d fused and %d finite-difference programs, want %d of each", fused.Load(), fd.Load(), n)
	}
}

// FuzzGrad draws a seed and a generator mode from the fuzzer's bytes
// (fuzzSeed, fuzzMode: half of its programs have loops and branches of
// every kind) and checks it as TestGradPrograms does. A failure prints
// the TestGradPrograms command that reruns its programs.
func FuzzGrad(f *testing.F) {
	for _, s := range []string{"", "grad", "hessian", "\x00\x01", "fori_loop", "scan"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		seed, mode := fuzzSeed(data), fuzzMode(data)
		_, msg := runGradFusedWith(seed, mode)
		if msg == "" {
			_, msg = runGradFiniteDiffWith(seed, mode)
		}
		if msg != "" {
			t.Fatal(msg)
		}
	})
}

// gradSetup differentiates the case's results, each widened to f64 (c128)
// and weighted by fixed random weights, summed (real parts): the loss. It
// returns the loss, the argnums of its inexact inputs, and false when the
// case has no inexact input or result.
func gradSetup(c *progen.Case, r *rand.Rand) (func(xs ...kiln.Value) kiln.Value, []int, bool) {
	p, err := c.Trace()
	if err != nil {
		return nil, nil, false
	}
	var argnums []int
	for i, in := range c.Inputs {
		if in.Type.DType.IsInexact() {
			argnums = append(argnums, i)
		}
	}
	weights := make([]*tensor.Array, len(p.Outputs))
	any := false
	for i, o := range p.Outputs {
		if !o.Type.DType.IsInexact() {
			continue
		}
		any = true
		vals := make([]complex128, o.Size())
		for j := range vals {
			vals[j] = complex(r.Float64()*2-1, r.Float64()*2-1)
		}
		w, _ := complexArray(vals, o.Shape)
		if !o.Type.DType.IsComplex() {
			w = w.Astype(tensor.F64)
		}
		weights[i] = w
	}
	if len(argnums) == 0 || !any {
		return nil, nil, false
	}
	loss := func(xs ...kiln.Value) kiln.Value {
		var terms []kiln.Value
		for i, o := range c.Fn(xs) {
			w := weights[i]
			if w == nil {
				continue
			}
			var term kiln.Value
			if w.DType().IsComplex() {
				term = o.Astype(tensor.C128).Mul(kiln.Const(w)).Real().Sum()
			} else {
				term = o.Astype(tensor.F64).Mul(kiln.Const(w)).Sum()
			}
			terms = append(terms, term)
		}
		sum := terms[0]
		for _, t := range terms[1:] {
			sum = sum.Add(t)
		}
		return sum
	}
	return loss, argnums, true
}

// runGradFusedWith checks that a random program's gradient program gives
// the same bits fused, op by op and on the reference evaluator; ok is
// false when the program has nothing to differentiate. mode is the
// generator's (genModes).
func runGradFusedWith(seed int64, mode string) (ok bool, msg string) {
	r := rand.New(rand.NewSource(seed))
	c := progen.Generate(r, withMode(progen.Options{Ops: differentiableOps()}, mode))
	defer func() {
		if e := recover(); e != nil {
			ok, msg = true, fmt.Sprintf("grad seed %d: panic: %v (reproduce: %s)\n%s\n%s", seed, e, gradRepro(seed, mode), c, debug.Stack())
		}
	}()
	loss, argnums, ok := gradSetup(c, r)
	if !ok {
		return false, ""
	}
	g := kiln.Grad(loss, argnums...)
	args, opts := caseArgs(c), append(caseOptions(c), kiln.Verify()) // the verifiers check every derivative program
	report := func(what string) string {
		return fmt.Sprintf("grad seed %d: %s (reproduce: %s)\ncase:\n%s", seed, what, gradRepro(seed, mode), c)
	}
	fused := kiln.Jit(g, opts...)
	p, err := fused.Trace(args...)
	if whileRefused(c, err) {
		return false, ""
	}
	if err != nil {
		return true, report("the gradient does not trace: " + err.Error())
	}
	got, err := fused.RunAll(args...)
	if err != nil {
		return true, report("fused run failed: " + err.Error())
	}
	unfused, err := kiln.Jit(g, append(opts, kiln.NoFusion())...).RunAll(args...)
	if err != nil {
		return true, report("op-by-op run failed: " + err.Error())
	}
	if d := diffResults(unfused, got, true); d != "" {
		return true, report("op-by-op gradient differs from the fused one: " + d + "\nprogram:\n" + p.String())
	}
	want, err := reference.Eval(p, c.Arrays, refOptions)
	if err != nil {
		return true, report("reference failed: " + err.Error())
	}
	if d := diffResults(got, want, true); d != "" {
		return true, report("fused gradient differs from the reference: " + d + "\nprogram:\n" + p.String())
	}
	return true, ""
}

// fdDTypes are the dtypes of the finite-difference programs: float64
// (mostly), complex128, and ints and bools (which carry no gradient).
var fdDTypes = []tensor.DType{tensor.F64, tensor.F64, tensor.F64, tensor.F64, tensor.F64, tensor.C128, tensor.I64, tensor.Bool}

// runGradFiniteDiffWith checks a smooth float64 program's gradient
// against central differences and returns how many elements it compared.
// mode is the generator's (genModes).
func runGradFiniteDiffWith(seed int64, mode string) (checked int, msg string) {
	r := rand.New(rand.NewSource(^seed))
	c := progen.Generate(r, withMode(progen.Options{DTypes: fdDTypes, Smooth: true, SafeConverts: true, MaxDim: 3, LargeProb: -1, X32Prob: -1, MaxOps: 8,
		Ops: differentiableOps()}, mode))
	defer func() {
		if e := recover(); e != nil {
			msg = fmt.Sprintf("grad fd seed %d: panic: %v (reproduce: %s)\n%s\n%s", seed, e, gradRepro(seed, mode), c, debug.Stack())
		}
	}()
	loss, argnums, ok := gradSetup(c, r)
	if !ok {
		return 0, ""
	}
	args, opts := caseArgs(c), caseOptions(c)
	grads, err := kiln.Jit(kiln.Grad(loss, argnums...), opts...).RunAll(args...)
	if whileRefused(c, err) {
		return 0, ""
	}
	if err != nil {
		return 0, fmt.Sprintf("grad fd seed %d: %v (reproduce: %s)\n%s", seed, err, gradRepro(seed, mode), c)
	}
	f := kiln.Jit(loss, opts...)
	eval := func(i int, a *tensor.Array) float64 {
		at := append([]any{}, args...)
		if c.Inputs[i].Type.Weak {
			at[i] = kiln.Weak(a)
		} else {
			at[i] = a
		}
		v, err := f.Run(at...)
		if err != nil {
			return math.NaN()
		}
		return tensor.Index(v.Astype(tensor.F64).Data(), 0).(float64)
	}
	budget := 40
	for k, i := range argnums {
		x := c.Arrays[i]
		g := complexes(grads[k])
		scale := 0.0
		for _, v := range g {
			if !cmplxNaNInf(v) {
				scale = math.Max(scale, absc(v))
			}
		}
		vals := complexes(x)
		for j := range vals {
			if budget == 0 {
				return checked, ""
			}
			budget--
			fd, noise, ok := stableDiff(x, j, func(a *tensor.Array) float64 { return eval(i, a) })
			if !ok || cmplxNaNInf(g[j]) || noise > 1e-7*(absc(fd)+0.01*scale)+1e-10 {
				continue // the differences cannot see this element's gradient
			}
			checked++
			if err := absc(g[j] - fd); !(err <= 1e-5*(absc(fd)+0.01*scale)+1e-9) {
				return checked, fmt.Sprintf("grad fd seed %d: d/dv%d[%d] = %v, central differences %v (reproduce: %s)\ncase:\n%s\ninput: %v",
					seed, i, j, g[j], fd, gradRepro(seed, mode), c, x)
			}
		}
	}
	return checked, ""
}

// gradRepro is the command that reruns one seed of TestGradPrograms (both
// of its programs).
func gradRepro(seed int64, mode string) string {
	return fmt.Sprintf("go test -run '^TestGradPrograms$' -grad.seed=%d -grad.mode=%s -v .", seed, mode)
}

// whileRefused reports whether err is JAX's refusal to reverse-
// differentiate a while_loop, for a case that has one (AllControl draws
// them): the refusal is the right answer, and there is nothing to check.
func whileRefused(c *progen.Case, err error) bool {
	var de *trace.DerivError
	return errors.As(err, &de) && strings.HasPrefix(de.Msg, "Reverse-mode differentiation does not work for lax.while_loop") &&
		strings.Contains(c.String(), "while_loop(")
}

func cmplxNaNInf(z complex128) bool {
	return math.IsNaN(real(z)) || math.IsNaN(imag(z)) || math.IsInf(real(z), 0) || math.IsInf(imag(z), 0)
}

// stableDiff is the central difference of eval in element j of x (real and
// imaginary parts for complex) and its rounding noise (the loss's ulps over
// the step), or false where it is not trustworthy: the loss is not finite
// nearby, or two step sizes disagree (a kink or jump).
func stableDiff(x *tensor.Array, j int, eval func(*tensor.Array) float64) (complex128, float64, bool) {
	vals := complexes(x)
	at := func(dv complex128) float64 {
		v := append([]complex128{}, vals...)
		v[j] += dv
		a, _ := complexArray(v, x.Shape())
		return eval(a.Astype(x.DType()))
	}
	noise := 0.0
	diff := func(unit complex128, h float64) (float64, bool) {
		hi, lo := at(unit*complex(h, 0)), at(-unit*complex(h, 0))
		d := (hi - lo) / (2 * h)
		noise = math.Max(noise, 8*0x1p-52*math.Max(math.Abs(hi), math.Abs(lo))/(2*h))
		return d, !math.IsNaN(d) && !math.IsInf(d, 0)
	}
	part := func(unit complex128, mag float64) (float64, bool) {
		h := 1e-5 * math.Max(1, mag)
		d1, ok1 := diff(unit, h)
		d2, ok2 := diff(unit, h/4)
		return d2, ok1 && ok2 && math.Abs(d1-d2) <= 1e-7*(math.Abs(d2)+1)
	}
	re, ok := part(1, math.Abs(real(vals[j])))
	if !ok {
		return 0, 0, false
	}
	if !x.DType().IsComplex() {
		return complex(re, 0), noise, true
	}
	im, ok := part(1i, math.Abs(imag(vals[j])))
	return complex(re, -im), noise, ok
}

// differentiableOps are the ops of the table that have a derivative (JAX
// defines none for nextafter): random gradient programs use only these.
func differentiableOps() []trace.Op {
	var ops []trace.Op
	for _, op := range trace.AllOps() {
		if trace.RuleOf(op).NotDifferentiable == "" {
			ops = append(ops, op)
		}
	}
	return ops
}
