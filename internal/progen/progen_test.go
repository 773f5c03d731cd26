package progen

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestGenerateTraces checks that drawn cases trace, that their arrays fit
// their inputs, and that every step kind and op of the table shows up.
func TestGenerateTraces(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	seen := map[string]int{}
	dtypes := map[tensor.DType]int{}
	for range 2000 {
		c := Generate(r, Options{Control: true})
		p, err := c.Trace()
		if err != nil {
			t.Fatalf("case does not trace: %v\n%s", err, c)
		}
		for i, a := range c.Arrays {
			if a.DType() != c.Inputs[i].Type.DType || !trace.ShapeEqual(a.Shape(), c.Inputs[i].Shape) {
				t.Fatalf("array %d is %s%v, input is %s%v", i, a.DType(), a.Shape(), c.Inputs[i].Type, c.Inputs[i].Shape)
			}
			dtypes[a.DType()]++
		}
		for _, e := range p.Eqns {
			seen[e.Op.String()]++
			if e.Params.HasPreferred {
				seen[e.Op.String()+" with preferred_element_type"]++
			}
		}
		for _, s := range c.Ops() {
			seen["step "+s]++
		}
	}
	for _, op := range trace.AllOps() {
		if op != trace.OpParam && seen[op.String()] == 0 {
			t.Errorf("op %s never drawn", op)
		}
	}
	for _, op := range []string{"dot_general", "conv_general_dilated"} {
		if seen[op+" with preferred_element_type"] == 0 {
			t.Errorf("no %s with a preferred_element_type drawn", op)
		}
	}
	for _, d := range tensor.AllDTypes() {
		if dtypes[d] == 0 {
			t.Errorf("dtype %s never drawn", d)
		}
	}
	t.Logf("%v", seen)
}

func TestGenerateDeterministic(t *testing.T) {
	for seed := range int64(50) {
		a := Generate(rand.New(rand.NewSource(seed)), Options{})
		b := Generate(rand.New(rand.NewSource(seed)), Options{})
		if a.String() != b.String() {
			t.Fatalf("seed %d: two draws differ:\n%s\n%s", seed, a, b)
		}
		for i := range a.Arrays {
			if !tensor.Equal(a.Arrays[i], b.Arrays[i]) {
				t.Fatalf("seed %d: input %d differs", seed, i)
			}
		}
	}
}

// TestGenerateRestricted checks that Options.DTypes, Ops and Allow hold.
func TestGenerateRestricted(t *testing.T) {
	dts := []tensor.DType{tensor.I8, tensor.F16}
	ops := []trace.Op{trace.OpAdd, trace.OpMul, trace.OpConvert, trace.OpReduceSum}
	allowed := map[trace.Op]bool{trace.OpAdd: true, trace.OpMul: true, trace.OpConvert: true, trace.OpReduceSum: true,
		trace.OpConst: true, trace.OpBroadcastInDim: true}
	r := rand.New(rand.NewSource(2))
	for range 300 {
		c := Generate(r, Options{DTypes: dts, Ops: ops, Allow: func(e *trace.Eqn) bool { return e.Out.Size() <= 100 }})
		p, err := c.Trace()
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range c.Inputs {
			if in.Type.DType != tensor.I8 && in.Type.DType != tensor.F16 && !in.Type.Weak {
				t.Fatalf("input dtype %s not allowed\n%s", in.Type, c)
			}
		}
		for _, e := range p.Eqns {
			if !allowed[e.Op] {
				t.Fatalf("op %s not allowed\n%s\n%s", e.Op, c, p)
			}
			if e.Out.Size() > 100 {
				t.Fatalf("Allow not applied: %s", e)
			}
		}
	}
}

// TestGenerateSmooth checks Options.Smooth: every equation passes
// smoothEqn and the data are ordinary values.
func TestGenerateSmooth(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	dts := []tensor.DType{tensor.F64, tensor.C128, tensor.I64, tensor.Bool}
	for range 300 {
		c := Generate(r, Options{DTypes: dts, Smooth: true, LargeProb: -1})
		p, err := c.Trace()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Eqns {
			if !smoothEqn(e) {
				t.Fatalf("equation %s in a smooth program\n%s", e, c)
			}
		}
		for _, a := range c.Arrays {
			z := a.Astype(tensor.C128)
			for i := range z.Size() {
				v := tensor.Index(z.Data(), i).(complex128)
				if real(v) <= -2 && !a.DType().IsInteger() || real(v) >= 2 && !a.DType().IsInteger() || imag(v) <= -2 || imag(v) >= 2 || a.DType().IsInteger() && (real(v) < -3 || real(v) > 3) {
					t.Fatalf("%s input value %v is not ordinary\n%s", a.DType(), v, c)
				}
			}
		}
	}
}

// TestGenerateAllControl checks that AllControl draws every control-flow
// step — zero-step loops and scans included — and that its cases trace.
func TestGenerateAllControl(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	seen := map[string]int{}
	for range 1500 {
		c := Generate(r, Options{AllControl: true})
		if _, err := c.Trace(); err != nil {
			t.Fatalf("case does not trace: %v\n%s", err, c)
		}
		for _, s := range c.Ops() {
			seen[s]++
		}
		s := c.String()
		for _, form := range []string{"length=0", "reverse=true", ", None, length=", "[0], v"} {
			if strings.Contains(s, form) {
				seen[form]++
			}
		}
	}
	for _, k := range []string{"fori_loop", "while_loop", "scan", "cond", "switch", "length=0", "reverse=true", ", None, length=", "[0], v"} {
		if seen[k] == 0 {
			t.Errorf("%s never drawn", k)
		}
	}
	t.Logf("%v", seen)
}
