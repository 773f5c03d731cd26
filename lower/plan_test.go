package lower_test

import (
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestPlanReusesDeadBuffers: in a chain of products each intermediate is
// dead once the next product has read it, so the plan needs two scratch
// buffers for the whole chain (the one read and the one written), not one
// per product; the plan passes Verify's liveness check.
func TestPlanReusesDeadBuffers(t *testing.T) {
	const n, depth = 64, 8
	m := compile(t, []trace.Abstract{abs(tensor.F32, n, n), abs(tensor.F32, n, n)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		x := a[0]
		for range depth {
			x = x.MatMul(a[1])
		}
		return []trace.Value{x}
	})
	scratch := 0
	for _, b := range m.Plan.Buffers {
		if b.Param < 0 && b.Output < 0 {
			scratch++
		}
	}
	if scratch != 2 {
		t.Errorf("%d scratch buffers for a chain of %d products, want 2:\n%s", scratch, depth, m.FusedString())
	}
	mat := n * n * 4
	if got, want := lower.MemoryNeed(m), 2*mat /* inputs */ +2*mat /* scratch */ +mat; /* output */ got != want {
		t.Errorf("MemoryNeed = %d, want %d", got, want)
	}
}

// TestPlanBestFit: a freed buffer goes to the value it fits most tightly,
// so a large dead buffer is not spent on a small value while a later large
// value needs a new one; an unread result is free at once.
func TestPlanBestFit(t *testing.T) {
	const n = 32
	m := compile(t, []trace.Abstract{abs(tensor.F32, n, n), abs(tensor.F32, n)}, lower.Options{NoFusion: true}, func(a []trace.Value) []trace.Value {
		big := a[0].MatMul(a[0])        // n×n
		small := a[1].Exp()             // n
		s := big.Sum().Add(small.Sum()) // big and small dead after these
		small2 := a[1].Sin()            // fits small's buffer exactly
		big2 := a[0].Cos()              // takes big's
		return []trace.Value{big2.Sum().Add(small2.Sum()).Add(s)}
	})
	sizes := map[int]int{}
	for _, b := range m.Plan.Buffers {
		if b.Param < 0 && b.Output < 0 {
			sizes[b.Size]++
		}
	}
	if sizes[n*n] != 1 || sizes[n] != 1 {
		t.Errorf("%d scratch buffers of %d elements and %d of %d, want 1 each (reused):\n%s", sizes[n*n], n*n, sizes[n], n, m.FusedString())
	}
}

// TestPlanKeepsReturnedValues: a value the run returns — here a branch's
// constant result, which a kernel of the branch materializes before the
// others — is never freed for a later kernel's scratch, though no kernel
// reads it.
func TestPlanKeepsReturnedValues(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F64), abs(tensor.F64, 4)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		return trace.Cond(a[0].Gt(trace.Float(0)), func(o []trace.Value) []trace.Value {
			zero := trace.Scalar(o[0], 0)
			return []trace.Value{zero, o[1].Mul(o[1].Sum())}
		}, func(o []trace.Value) []trace.Value {
			return []trace.Value{o[0], o[1]}
		}, a[0], a[1])
	})
	for _, in := range m.Instrs {
		for _, s := range in.Subs {
			if err := s.Verify(); err != nil {
				t.Errorf("%v\n%s", err, s.FusedString())
			}
		}
	}
}
