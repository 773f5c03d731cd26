package lower_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// verifySample compiles a module with every kind of fusion and a scratch
// buffer reused: a loop (an explicit broadcast of y) that is an output
// and feeds a reduce fusion, a copy, a dot, and a chain transpose → loop
// (·3 and a transpose, fused as a mapped loop) → reduction whose values
// live in scratch.
func verifySample(t *testing.T) *lower.Module {
	t.Helper()
	return compile(t, []trace.Abstract{abs(tensor.F32, 4, 3), abs(tensor.F32, 3)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		x, y := a[0], a[1]
		z := x.Add(y).Mul(trace.Float(2))
		s := z.Mul(z).Sum(1)
		t := x.Transpose()
		c := t.Mul(trace.Float(3)).Transpose().Sum(1)
		return []trace.Value{z, s, x.MatMul(y), c, t.Sum(1)}
	})
}

// instr finds the first instruction of op satisfying ok.
func instr(t *testing.T, m *lower.Module, op trace.Op, ok func(*lower.Instr) bool) *lower.Instr {
	t.Helper()
	for _, in := range m.Instrs {
		if in.Op == op && (ok == nil || ok(in)) {
			return in
		}
	}
	t.Fatalf("no %s in the sample:\n%s", op, m.FusedString())
	return nil
}

// fusionOf finds the fusion with output in.
func fusionOf(t *testing.T, m *lower.Module, in *lower.Instr) *lower.Fusion {
	t.Helper()
	for _, f := range m.Fusions {
		if f.Outputs[0] == in {
			return f
		}
	}
	t.Fatalf("no fusion computes %s:\n%s", in, m.FusedString())
	return nil
}

// TestVerifyCatchesBrokenModules breaks a fresh sample module in one way
// at a time; Verify must report each with the right kind.
func TestVerifyCatchesBrokenModules(t *testing.T) {
	isAdd := func(in *lower.Instr) bool { return in.Args[1].Op == trace.OpBroadcastInDim }
	cases := []struct {
		name   string
		kind   lower.VerifyKind
		msg    string
		break_ func(t *testing.T, m *lower.Module)
	}{
		{"misnumbered", lower.VerifyOrder, "numbered", func(t *testing.T, m *lower.Module) {
			m.Instrs[3], m.Instrs[4] = m.Instrs[4], m.Instrs[3]
		}},
		{"operand defined later", lower.VerifyOrder, "not an earlier instruction", func(t *testing.T, m *lower.Module) {
			add := instr(t, m, trace.OpAdd, isAdd)
			add.Args[0] = m.Instrs[len(m.Instrs)-1]
		}},
		{"output not in the module", lower.VerifyOrder, "output 2", func(t *testing.T, m *lower.Module) {
			m.Outputs[2] = &lower.Instr{Op: trace.OpParam}
		}},
		{"dtype against the op rule", lower.VerifyOp, "want f32", func(t *testing.T, m *lower.Module) {
			instr(t, m, trace.OpAdd, isAdd).DType = tensor.F64
		}},
		{"implicit broadcast", lower.VerifyBroadcast, "not explicit", func(t *testing.T, m *lower.Module) {
			add := instr(t, m, trace.OpAdd, isAdd)
			add.Args[1] = add.Args[1].Args[0] // y itself, [3] against [4,3]
		}},
		{"reduce axes", lower.VerifyOp, "axes", func(t *testing.T, m *lower.Module) {
			instr(t, m, trace.OpReduceSum, nil).Params.Axes = []int{3}
		}},
		{"instruction in no fusion", lower.VerifyFusion, "no fusion computes it", func(t *testing.T, m *lower.Module) {
			f := fusionOf(t, m, instr(t, m, trace.OpDot, nil))
			m.Fusions = append(m.Fusions[:f.ID], m.Fusions[f.ID+1:]...)
			for i, f := range m.Fusions {
				f.ID = i
			}
			m.Plan = nil
		}},
		{"fusions out of order", lower.VerifyFusion, "before a fusion computes it", func(t *testing.T, m *lower.Module) {
			f := fusionOf(t, m, instr(t, m, trace.OpReduceSum, nil))
			i := f.ID - 1 // the loop computing z, which the reduction reads
			m.Fusions[i], m.Fusions[f.ID] = m.Fusions[f.ID], m.Fusions[i]
			m.Fusions[i].ID, m.Fusions[i+1].ID = i, i+1
		}},
		{"a member leaves its fusion", lower.VerifyFusion, "not an output of the fusion", func(t *testing.T, m *lower.Module) {
			add := instr(t, m, trace.OpAdd, isAdd) // inside z's loop, which outputs the mul
			m.Outputs = append(m.Outputs, add)
			m.Plan = nil
		}},
		{"wrong fusion kind", lower.VerifyFusion, "a dot fusion", func(t *testing.T, m *lower.Module) {
			fusionOf(t, m, instr(t, m, trace.OpReduceSum, nil)).Kind = lower.FusionDot
		}},
		{"fusion input missing", lower.VerifyFusion, "neither a member nor an input", func(t *testing.T, m *lower.Module) {
			f := fusionOf(t, m, instr(t, m, trace.OpDot, nil))
			f.Inputs = f.Inputs[:1]
		}},
		{"an input is written", lower.VerifyBuffer, "inputs are never written", func(t *testing.T, m *lower.Module) {
			z := m.Outputs[0]
			m.Plan.Of[z] = m.Plan.Of[m.Params[0]]
		}},
		{"an output aliases an input", lower.VerifyBuffer, "aliases an input", func(t *testing.T, m *lower.Module) {
			m.Plan.Buffers[m.Plan.Of[m.Params[1]]].Output = 3
		}},
		{"two outputs share a buffer", lower.VerifyBuffer, "holds", func(t *testing.T, m *lower.Module) {
			m.Plan.Of[m.Outputs[1]] = m.Plan.Of[m.Outputs[0]]
		}},
		{"buffer too small", lower.VerifyBuffer, "in buffer", func(t *testing.T, m *lower.Module) {
			m.Plan.Buffers[m.Plan.Of[m.Outputs[0]]].Size = 3
		}},
		{"scratch reused while live", lower.VerifyBuffer, "still to be read", func(t *testing.T, m *lower.Module) {
			// transpose(x) → transpose(·3): the loop's result overwrites
			// the first transpose's scratch, which it is reading.
			loop := throughReshape(m.Outputs[3]).Args[0]
			first := loop.Args[0].Args[0]
			if loop.Op != trace.OpTranspose || loop.Args[0].Op != trace.OpMul || first.Op != trace.OpTranspose {
				t.Fatalf("unexpected chain %s ← %s", loop, first)
			}
			m.Plan.Of[loop] = m.Plan.Of[first]
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := verifySample(t)
			c.break_(t, m)
			err := m.VerifyAfter("breaker")
			var ve *lower.VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify = %v, want a *lower.VerifyError\n%s", err, m.FusedString())
			}
			if ve.Kind != c.kind || ve.Pass != "breaker" || !strings.Contains(ve.Error(), c.msg) {
				t.Errorf("Verify = %v (kind %v), want kind %v and %q", err, ve.Kind, c.kind, c.msg)
			}
			if ve.Kind == lower.VerifyOp {
				var ce *trace.CheckError
				if !errors.As(err, &ce) {
					t.Errorf("an op rule's error does not unwrap to *trace.CheckError: %v", err)
				}
			}
		})
	}
}

func throughReshape(in *lower.Instr) *lower.Instr {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	return in
}

// TestCompileVerifiesItsInput: with Verify, Compile checks the program it
// is given and returns trace's error for an ill-formed one, instead of
// lowering it.
func TestCompileVerifiesItsInput(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(tensor.F32, 3)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Exp()}
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Eqns[0].Out.Shape = []int{4}
	if _, err := lower.Compile(p, lower.Options{}); err != nil && !trace.VerifyAll {
		t.Fatalf("without Verify, Compile does not check: %v", err)
	}
	_, err = lower.Compile(p, lower.Options{Verify: true})
	var ce *trace.CheckError
	if !errors.As(err, &ce) || ce.Kind != trace.CheckShape {
		t.Fatalf("Compile(Verify) = %v, want a *trace.CheckError about the shape", err)
	}
}
