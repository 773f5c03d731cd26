package kiln

import (
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// hoistWeakScalars moves the promotion of weak scalar arguments out of the
// program: a weak rank-0 input whose every use is a convert to one dtype D
// becomes a strong D input, converted on the host at Run (a scalar
// convert, with the same docs/SPEC.md §3 semantics). A weak literal argument is then
// just like a literal, and f(x, 1) and f(x, int8(1)) lower to the same
// module and share one executable. It returns the program to lower and,
// per input, the dtype to convert the argument to (or -1).
func hoistWeakScalars(p *trace.Program) (*trace.Program, []int) {
	conv := make([]int, len(p.Inputs))
	uses := map[*trace.Var][]*trace.Eqn{}
	for _, e := range p.Eqns {
		for _, a := range e.Args {
			uses[a] = append(uses[a], e)
		}
	}
	replace := map[*trace.Var]*trace.Var{} // a hoisted convert's result → the new input
	inputs := make([]*trace.Var, len(p.Inputs))
	changed := false
	for i, in := range p.Inputs {
		conv[i], inputs[i] = -1, in
		if !in.Type.Weak || in.Rank() != 0 || isOutput(p, in) {
			continue
		}
		us := uses[in]
		if len(us) == 0 {
			continue
		}
		to := us[0].Out.Type.DType
		ok := true
		for _, u := range us {
			ok = ok && u.Op == trace.OpConvert && u.Out.Type.DType == to
		}
		if !ok {
			continue
		}
		nv := &trace.Var{ID: in.ID, Type: promote.Strong(to), Shape: nil}
		for _, u := range us {
			replace[u.Out] = nv
		}
		inputs[i], conv[i], changed = nv, int(to), true
	}
	if !changed {
		return p, conv
	}
	q := &trace.Program{Inputs: inputs, Config: p.Config, NumVars: p.NumVars}
	sub := func(v *trace.Var) *trace.Var {
		if r, ok := replace[v]; ok {
			return r
		}
		return v
	}
	for _, e := range p.Eqns {
		if _, hoisted := replace[e.Out]; hoisted {
			continue
		}
		ne := *e
		ne.Args = make([]*trace.Var, len(e.Args))
		for i, a := range e.Args {
			ne.Args[i] = sub(a)
		}
		q.Eqns = append(q.Eqns, &ne)
	}
	for _, o := range p.Outputs {
		q.Outputs = append(q.Outputs, sub(o))
	}
	return q, conv
}

func isOutput(p *trace.Program, v *trace.Var) bool {
	for _, o := range p.Outputs {
		if o == v {
			return true
		}
	}
	return false
}

// convertArg applies a hoisted convert to an argument.
func convertArg(a *tensor.Array, to int) *tensor.Array {
	if to < 0 || a.DType() == tensor.DType(to) {
		return a
	}
	return a.Astype(tensor.DType(to))
}
