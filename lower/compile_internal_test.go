package lower

import (
	"errors"
	"slices"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestCompileNamesTheBreakingPass: with verification, the first pass
// that leaves an ill-formed module is named in the error; without it the
// same pipeline "succeeds" with a module the kernels would misread.
func TestCompileNamesTheBreakingPass(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.Strong(tensor.F32), Shape: []int{4, 3}},
		{Type: promote.Strong(tensor.F32), Shape: []int{3}},
	}, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Add(a[1]).Exp()} })
	if err != nil {
		t.Fatal(err)
	}
	// breaker drops the explicit broadcast lowering made: add reads y
	// directly.
	breaker := pass{"breaker", func(m *Module) error {
		for _, in := range m.Instrs {
			if in.Op == trace.OpAdd && in.Args[1].Op == trace.OpBroadcastInDim {
				in.Args[1] = in.Args[1].Args[0]
				return nil
			}
		}
		t.Fatal("no broadcast add")
		return nil
	}}
	ps := passes(Options{})
	ps = slices.Insert(ps, 1, breaker) // after simplify, before dce, fuse and plan_buffers
	_, err = compile(p, true, ps)
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Pass != "breaker" || ve.Kind != VerifyBroadcast {
		t.Fatalf("compile with verification = %v, want a broadcast error after breaker", err)
	}
	if _, err := compile(p, false, ps); err != nil {
		t.Fatalf("without verification nothing notices, yet compile = %v", err)
	}
	// Every pass of the real pipeline is verified: the names match.
	var names []string
	for _, s := range passes(Options{}) {
		names = append(names, s.name)
	}
	if want := []string{"simplify", "dce", "fuse", "fuse_siblings", "fuse_epilogues", "plan_buffers"}; !slices.Equal(names, want) {
		t.Errorf("passes %v, want %v", names, want)
	}
}
