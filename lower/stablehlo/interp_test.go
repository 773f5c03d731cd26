package stablehlo_test

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/lower/stablehlo"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

var only = flag.String("interp.only", "", "TestConformanceInterpreted: only the cases whose name contains this")

// compareFinite compares a float sum's elements where both are finite,
// within 1e-3 of the larger magnitude of the output (a sum's order may
// cancel differently); elsewhere — an overflow or inf − inf that another
// order avoids — it does not compare.
func compareFinite(got, want *tensor.Array) string {
	if got.DType() != want.DType() || !trace.ShapeEqual(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, _ := tensor.Data[complex128](got.Astype(tensor.C128))
	w, _ := tensor.Data[complex128](want.Astype(tensor.C128))
	scale := 0.0
	for _, x := range w {
		if !cmplx.IsInf(x) && !cmplx.IsNaN(x) {
			scale = max(scale, cmplx.Abs(x))
		}
	}
	for i := range g {
		finite := !cmplx.IsInf(g[i]) && !cmplx.IsNaN(g[i]) && !cmplx.IsInf(w[i]) && !cmplx.IsNaN(w[i])
		if finite && cmplx.Abs(g[i]-w[i]) > 1e-3*math.Max(scale, 1e-30) {
			return fmt.Sprintf("[%d] got %v want %v", i, g[i], w[i])
		}
	}
	return ""
}

// dependsOn reports whether output o of m depends on an instruction for
// which pick is true (looking into while and cond sub-modules).
func dependsOn(m *lower.Module, o *lower.Instr, pick func(*lower.Instr) bool) bool {
	seen := map[*lower.Instr]bool{}
	var walk func(in *lower.Instr) bool
	walk = func(in *lower.Instr) bool {
		if seen[in] {
			return false
		}
		seen[in] = true
		if pick(in) {
			return true
		}
		for _, s := range in.Subs {
			for _, so := range s.Outputs {
				if dependsOn(s, so, pick) {
					return true
				}
			}
		}
		for _, a := range in.Args {
			if walk(a) {
				return true
			}
		}
		return false
	}
	return walk(o)
}

// Every conformance program's export, parsed back and interpreted
// (stablehlo.EvalStableHLO), gives the reference evaluator's results: bit
// for bit (NaNs equal whatever their payload, but for the cases that only
// move bits, conformance.Case.ExactBits) for every output that does
// not depend on a transcendental function or on a float sum's order (a
// float reduce, dot_general or convolution, which StableHLO leaves to the
// implementation); within 8 ulps for transcendental ones (or the case's
// scaled tolerance, as conformance.Run); float sums where both results
// are finite, within 1e-3 of the output's magnitude.
func TestConformanceInterpreted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var programs, exact, ulps, trExact, order, refused int
	// The interpreter is slow: one case in four of every kind by default
	// (every op and dtype still runs), all of them with KILN_LONG=1.
	cases := conformance.Cases()
	if !longtest.Enabled() {
		cases = conformance.Sample(cases, 4)
	}
	for _, c := range cases {
		if *only != "" && !strings.Contains(c.Name, *only) {
			continue
		}
		p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		want, err := reference.Eval(p, c.Inputs, reference.Options{Transcendental: kernels.Transcendental})
		if err != nil {
			t.Fatalf("%s: reference: %v", c.Name, err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got, err := stablehlo.EvalStableHLOWith(m, c.Inputs, rng, kernels.Transcendental)
		if err != nil {
			var ue *stablehlo.UnsupportedError
			if errors.As(err, &ue) {
				refused++
				continue
			}
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		programs++
		for i, o := range m.Outputs {
			tr := dependsOn(m, o, func(in *lower.Instr) bool { return in.Op.Info().Transcendental })
			sum := dependsOn(m, o, func(in *lower.Instr) bool {
				inexact := in.DType.IsFloat() || in.DType.IsComplex() || len(in.Args) > 0 && (in.Args[0].DType.IsFloat() || in.Args[0].DType.IsComplex())
				switch in.Op {
				case trace.OpReduceSum, trace.OpReduceProd, trace.OpDot, trace.OpConv:
					return inexact
				}
				return false
			})
			switch {
			case sum:
				order++
				if msg := compareFinite(got[i], want[i]); msg != "" {
					t.Errorf("%s output %d (a float sum): %s", c.Name, i, msg)
				}
			case tr:
				ulps++
				if conformance.Compare(got[i], want[i], 0) == "" {
					trExact++
				}
				msg := conformance.Compare(got[i], want[i], 8)
				if c.Tolerance > 0 { // a derivative amplifies last-bit differences (as conformance.Run)
					msg = conformance.CompareScaled(got[i], want[i], c.Tolerance)
				}
				if msg != "" {
					t.Errorf("%s output %d (transcendental): %s", c.Name, i, msg)
				}
			default:
				exact++
				msg := conformance.Compare(got[i], want[i], 0)
				if c.ExactBits && msg == "" && !tensor.Equal(got[i], want[i]) {
					msg = "the storage bits differ (a NaN's payload or its signaling bit)"
				}
				if msg != "" {
					t.Errorf("%s output %d: %s", c.Name, i, msg)
				}
			}
		}
	}
	t.Logf("%d conformance programs interpreted from their parsed export: %d outputs bit for bit; %d transcendental within 8 ulps (%d of them bit for bit); %d float sums within 1e-3 where finite; %d refused by the export",
		programs, exact, ulps, trExact, order, refused)
}
