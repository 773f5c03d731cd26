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

// TestMemoryNeed: a run holds its input, its constants, every scratch
// buffer of the plan and its outputs at once; CheckBudget refuses a
// budget one byte short of that, naming the op whose buffer goes over and
// the line that made it, and Compile does the same with
// Options.MemoryLimit.
func TestMemoryNeed(t *testing.T) {
	const n = 256
	in := []trace.Abstract{abs(tensor.F32, n, n)}
	fn := func(a []trace.Value) []trace.Value {
		g := a[0].MatMul(a[0])            // a scratch buffer n×n
		return []trace.Value{g.MatMul(g), // the output
			a[0].Add(trace.Const(tensor.Must(tensor.Zeros(tensor.F32, n, n)))).Sum()} // a constant n×n, fused into a reduction
	}
	m := compile(t, in, lower.Options{}, fn)
	mat := n * n * 4
	want := mat /* input */ + mat /* constant */ + mat /* g */ + mat /* output 0 */ + 4 /* output 1 */
	if got := lower.MemoryNeed(m); got != want {
		t.Fatalf("MemoryNeed = %d, want %d\n%s", got, want, m)
	}
	if err := lower.CheckBudget(m, want); err != nil {
		t.Errorf("a budget of exactly the need: %v", err)
	}
	err := lower.CheckBudget(m, want-1)
	var be *trace.BudgetError
	if !errors.As(err, &be) || be.Need != want || be.Limit != want-1 || !strings.Contains(err.Error(), "budget_test.go:") {
		t.Fatalf("a budget one byte short: %v; want a *trace.BudgetError at the last buffer naming this file", err)
	}
	// The scratch buffer g is where 3 matrices' budget is first exceeded.
	err = lower.CheckBudget(m, 3*mat-1)
	if !errors.As(err, &be) || be.Op != "dot_general" || be.Need != 3*mat || !strings.Contains(be.Msg, "scratch") {
		t.Fatalf("a budget of 3 matrices less a byte: %v; want it exceeded at g's dot_general", err)
	}
	pr, err := trace.Trace(promote.Config{}, in, fn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lower.Compile(pr, lower.Options{MemoryLimit: want - 1}); !errors.As(err, &be) {
		t.Errorf("Compile with MemoryLimit one byte short: %v", err)
	}
	if _, err := lower.Compile(pr, lower.Options{MemoryLimit: want}); err != nil {
		t.Errorf("Compile with MemoryLimit of the need: %v", err)
	}
}

// TestMemoryNeedLoop: a while holds two sets of its carries (a step reads
// one and writes the other) besides its result; a budget that would fit
// one set is refused at the while.
func TestMemoryNeedLoop(t *testing.T) {
	const n = 1000
	in := []trace.Abstract{abs(tensor.F32, n)}
	m := compile(t, in, lower.Options{}, func(a []trace.Value) []trace.Value {
		return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[0].Sum().Lt(trace.Float(1e30)) },
			func(c []trace.Value) []trace.Value { return []trace.Value{c[0].Add(c[0])} }, a[0])
	})
	vec := n * 4
	need := lower.MemoryNeed(m)
	if need < 4*vec { // input, two carry sets, output
		t.Fatalf("MemoryNeed = %d, want at least %d (input, two carry sets, output)\n%s", need, 4*vec, m)
	}
	err := lower.CheckBudget(m, 2*vec)
	var be *trace.BudgetError
	if !errors.As(err, &be) || be.Op != "while" || !strings.Contains(be.Msg, "carry") {
		t.Fatalf("a budget of input and one carry set: %v; want it exceeded at the while's carries", err)
	}
}
