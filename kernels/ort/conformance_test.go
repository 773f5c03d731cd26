package ort_test

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestConformance runs every conformance program on ONNX Runtime: those
// the exporter refuses are counted by the op refused, every other must
// agree with the reference.
func TestConformance(t *testing.T) {
	b := backend(t)
	refused := map[string]int{}
	why := map[string]string{} // the first refusal's reason per op/dtype
	ran, failed := 0, 0
	var fails []string
	for _, c := range conformance.Cases() {
		p, want, err := conformance.Reference(c)
		if err != nil {
			t.Fatalf("%s: reference: %v", c.Name, err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		exe, err := b.Compile(m)
		var ue *onnx.UnsupportedError
		if errors.As(err, &ue) {
			key := fmt.Sprintf("%s/%s", ue.Op, ue.DType)
			if refused[key]++; refused[key] == 1 {
				why[key] = ue.Msg
			}
			continue
		}
		if err != nil {
			failed++
			fails = append(fails, fmt.Sprintf("%s: compile: %v", c.Name, err))
			continue
		}
		got, err := exe.Run(c.Inputs)
		if err != nil {
			failed++
			fails = append(fails, fmt.Sprintf("%s: run: %v", c.Name, err))
			continue
		}
		ran++
		for i := range want {
			msg := conformance.Compare(got[i], want[i], 8)
			if msg != "" && dependsOn(p, p.Outputs[i], trace.OpDot, trace.OpConv) && want[i].DType().IsFloat() {
				// ONNX Runtime's MatMul adds in its own order.
				msg = conformance.CompareScaled(got[i], want[i], dotTolerance(want[i].DType()))
			}
			if msg != "" {
				failed++
				fails = append(fails, fmt.Sprintf("%s: output %d: %s", c.Name, i, msg))
				break
			}
		}
	}
	var keys []string
	for k, n := range refused {
		keys = append(keys, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(keys)
	t.Logf("ONNX Runtime conformance: %d programs exported and run, %d disagree; %d refused by the exporter (op/dtype×programs): %s",
		ran, failed, total(refused), strings.Join(keys, " "))
	if testing.Verbose() {
		for _, k := range slices.Sorted(maps.Keys(why)) {
			t.Logf("refused %s: %s", k, why[k])
		}
	}
	for _, f := range fails {
		t.Error(f)
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// dotTolerance is the documented bound for float results of dot_general
// and conv: ONNX Runtime's summation order differs from Kiln's, so they
// agree within 2^-(p-6) of the element's magnitude plus the output's
// largest (p the dtype's precision: f32 ~3.8e-6, f64 ~7e-15, f16 and
// bf16 a few of their ulps).
func dotTolerance(d tensor.DType) float64 {
	p := map[tensor.DType]int{tensor.F16: 11, tensor.BF16: 8, tensor.F32: 24, tensor.F64: 53}[d]
	return math.Ldexp(1, -(p - 6))
}

// dependsOn reports whether v is computed from one of ops.
func dependsOn(p *trace.Program, v *trace.Var, ops ...trace.Op) bool {
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
		if slices.Contains(ops, e.Op) {
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
