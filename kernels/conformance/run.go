package conformance

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Run runs every case on backend b (fused, and op by op when opByOp is
// set) and checks the results against the reference evaluator, which uses
// the CPU backend's transcendental functions: bit-identical for every
// output, except outputs that depend on a transcendental op, which must
// agree within a few ulps of their dtype (docs/SPEC.md §3 allows each backend its
// own transcendental bits).
func Run(t *testing.T, b kernels.Backend) {
	t.Helper()
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) { check(t, b, c) })
	}
}

// Reference runs a case on the reference evaluator. The traced program
// is verified first (trace's Program.Check): the suite always checks the
// invariants every stage relies on, whatever KILN_VERIFY says.
func Reference(c Case) (*trace.Program, []*tensor.Array, error) {
	p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
	if err == nil {
		err = p.CheckAfter("trace")
	}
	if err != nil {
		return nil, nil, err
	}
	out, err := reference.Eval(p, c.Inputs, reference.Options{Transcendental: kernels.Transcendental})
	return p, out, err
}

func check(t *testing.T, b kernels.Backend, c Case) {
	p, want, err := Reference(c)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true, NoFusion: c.OpByOp})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.Compile(m)
	if err != nil {
		t.Fatalf("%s: compile: %v\n%s", b.Name(), err, m.FusedString())
	}
	before := make([]*tensor.Array, len(c.Inputs))
	for i, a := range c.Inputs {
		before[i] = a.Clone()
	}
	got, err := exe.Run(c.Inputs)
	if err != nil {
		t.Fatalf("%s: run: %v", b.Name(), err)
	}
	for i, a := range c.Inputs {
		if !tensor.Equal(a, before[i]) {
			t.Errorf("input %d was modified", i)
		}
	}
	for i := range want {
		ulps := 0
		if transcendental(p, p.Outputs[i]) {
			ulps = 8
		}
		msg := Compare(got[i], want[i], ulps)
		if ulps > 0 && c.Tolerance > 0 {
			msg = CompareScaled(got[i], want[i], c.Tolerance)
		}
		if c.ExactBits && msg == "" && !tensor.Equal(got[i], want[i]) {
			msg = "the storage bits differ (a NaN's payload or its signaling bit)"
		}
		if msg != "" {
			t.Errorf("output %d: %s\nprogram:\n%s\nfused:\n%s\ngot  %v\nwant %v", i, msg, p, m.FusedString(), got[i], want[i])
		}
	}
}

// transcendental reports whether v depends on a transcendental op.
func transcendental(p *trace.Program, v *trace.Var) bool {
	def := map[*trace.Var]*trace.Eqn{}
	for _, e := range p.Eqns {
		def[e.Out] = e
	}
	seen := map[*trace.Var]bool{}
	var walk func(v *trace.Var) bool
	walk = func(v *trace.Var) bool {
		e := def[v]
		if e == nil || seen[v] {
			return false
		}
		seen[v] = true
		if e.Op.Info().Transcendental || subTranscendental(e) {
			return true
		}
		for _, a := range e.Args {
			if walk(a) {
				return true
			}
		}
		return false
	}
	return walk(v)
}

// Compare checks got against want: same dtype and shape, and every element
// bit-identical (NaNs equal whatever their payload) or, when ulps > 0,
// within that many ulps of the element's own precision (relative to the
// larger magnitude, for values that went through a transcendental). It
// returns "" or what differs.
func Compare(got, want *tensor.Array, ulps int) string {
	if got.DType() != want.DType() || !trace.ShapeEqual(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	var bad []string
	for i := range got.Size() {
		g, w := tensor.Index(got.Data(), i), tensor.Index(want.Data(), i)
		if !close(g, w, ulps) {
			bad = append(bad, fmt.Sprintf("[%d] got %s want %s", i, tensor.FormatValue(g), tensor.FormatValue(w)))
			if len(bad) == 5 {
				break
			}
		}
	}
	return strings.Join(bad, "; ")
}

func close(g, w any, ulps int) bool {
	if f, gb, ok := tensor.NarrowFloatBits(g); ok {
		_, wb, _ := tensor.NarrowFloatBits(w)
		return closeFloat(f.ToFloat64(gb), f.ToFloat64(wb), ulps, f.MantBits()+1, gb == wb)
	}
	switch gv := g.(type) {
	case float32:
		return closeFloat(float64(gv), float64(w.(float32)), ulps, 24, math.Float32bits(gv) == math.Float32bits(w.(float32)))
	case float64:
		return closeFloat(gv, w.(float64), ulps, 53, math.Float64bits(gv) == math.Float64bits(w.(float64)))
	case tensor.Float16:
		return closeFloat(float64(gv.Float32()), float64(w.(tensor.Float16).Float32()), ulps, 11, gv == w)
	case tensor.BFloat16:
		return closeFloat(float64(gv.Float32()), float64(w.(tensor.BFloat16).Float32()), ulps, 8, gv == w)
	case complex64:
		wv := w.(complex64)
		return closeComplex(complex128(gv), complex128(wv), ulps, 24)
	case complex128:
		return closeComplex(gv, w.(complex128), ulps, 53)
	}
	return g == w
}

// closeComplex compares the parts of two complex results within ulps of
// the result's magnitude, not of each part: a complex function's error is
// relative to |z| (acos's real part, π/2 − re(asin z), may be a small
// difference of large terms whose last bits every formula loses alike).
// Special parts (NaN, ±Inf) and ulps = 0 compare exactly.
func closeComplex(g, w complex128, ulps, mant int) bool {
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
	if same(real(g), real(w)) && same(imag(g), imag(w)) {
		return true
	}
	if ulps == 0 {
		return false
	}
	parts := []float64{real(g), imag(g), real(w), imag(w)}
	for _, p := range parts {
		if math.IsInf(p, 0) || p != p {
			return same(real(g), real(w)) && same(imag(g), imag(w))
		}
	}
	tol := float64(ulps) * math.Max(cmplx.Abs(g), cmplx.Abs(w)) * math.Ldexp(1, -mant+1)
	return math.Abs(real(g)-real(w)) <= tol && math.Abs(imag(g)-imag(w)) <= tol
}

func closeFloat(g, w float64, ulps, mant int, sameBits bool) bool {
	if sameBits || (g != g && w != w) {
		return true
	}
	if ulps == 0 {
		return false
	}
	if math.IsInf(g, 0) || math.IsInf(w, 0) || g != g || w != w {
		return g == w
	}
	scale := math.Max(math.Abs(g), math.Abs(w))
	return math.Abs(g-w) <= float64(ulps)*scale*math.Ldexp(1, -mant+1)
}

// CompareScaled checks got against want element by element within tol
// of the element's magnitude plus the largest magnitude of want (NaNs
// equal, infinities exact): for values computed from transcendental
// results by ops that amplify their last-bit differences, as a
// derivative's 1 − logistic(x) does.
func CompareScaled(got, want *tensor.Array, tol float64) string {
	if got.DType() != want.DType() || !trace.ShapeEqual(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	parts := func(a *tensor.Array) []float64 {
		c := a.Astype(tensor.C128)
		out := make([]float64, 0, 2*c.Size())
		for i := range c.Size() {
			z := tensor.Index(c.Data(), i).(complex128)
			out = append(out, real(z), imag(z))
		}
		return out
	}
	g, w := parts(got), parts(want)
	scale := 0.0
	for _, x := range w {
		if !math.IsInf(x, 0) && x == x {
			scale = math.Max(scale, math.Abs(x))
		}
	}
	var bad []string
	for i := range g {
		ok := g[i] == w[i] || g[i] != g[i] && w[i] != w[i] ||
			!math.IsInf(w[i], 0) && math.Abs(g[i]-w[i]) <= tol*(math.Abs(w[i])+scale)
		if !ok {
			bad = append(bad, fmt.Sprintf("[%d] got %s want %s", i/2, tensor.FormatValue(tensor.Index(got.Data(), i/2)), tensor.FormatValue(tensor.Index(want.Data(), i/2))))
			if len(bad) == 5 {
				break
			}
		}
	}
	return strings.Join(bad, "; ")
}

// subTranscendental reports whether a while's or cond's sub-programs
// compute a transcendental op (their results then get its tolerance).
func subTranscendental(e *trace.Eqn) bool {
	for _, p := range e.Params.Control.Subs {
		for _, s := range p.Eqns {
			if s.Op.Info().Transcendental || subTranscendental(s) {
				return true
			}
		}
	}
	return false
}
