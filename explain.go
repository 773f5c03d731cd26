package kiln

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/trace"
)

// Widening is one implicit convert the tracer inserted: a value promoted
// to a wider (or other) dtype so an op could combine it with another.
type Widening struct {
	From, To promote.Type
	Shape    []int
	Why      string    // the rule that required it: "promote i8, f16 -> f16 (jax)"
	Pos      trace.Pos // the user's line that asked for the op
}

func (w Widening) String() string {
	return fmt.Sprintf("%s: %s -> %s %v: %s", w.Pos, w.From, w.To, w.Shape, w.Why)
}

// Explain lists every implicit widening of the function traced for args'
// signature, in program order. Explicit Astype converts are not listed.
func (f *Func) Explain(args ...any) ([]Widening, error) {
	p, err := f.Trace(args...)
	if err != nil {
		return nil, err
	}
	return widenings(p), nil
}

func widenings(p *trace.Program) []Widening {
	var out []Widening
	for _, e := range p.Eqns {
		if e.Op != trace.OpConvert || e.Why == "" || e.Why == "astype" {
			continue
		}
		out = append(out, Widening{From: e.Args[0].Type, To: e.Out.Type, Shape: e.Out.Shape, Why: e.Why, Pos: e.Pos})
	}
	return out
}

// PolicyError reports an implicit widening that a Forbid option ruled out.
type PolicyError struct {
	Widening Widening
}

func (e *PolicyError) Error() string {
	w := e.Widening
	return fmt.Sprintf("kiln: policy forbids the implicit widening %s -> %s at %s (%s); convert explicitly with Astype if it is intended",
		w.From.DType, w.To.DType, w.Pos, strings.TrimSpace(w.Why))
}
