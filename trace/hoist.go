package trace

import "github.com/kiln-go/kiln/tensor"

// HoistPass is the name HoistWeakScalars gives its verification errors.
const HoistPass = "hoist_weak_scalars"

// Hoisted is one input HoistWeakScalars changed: the caller converts its
// argument to DType before running the program it returned.
type Hoisted struct {
	Input int
	DType tensor.DType
}

// HoistWeakScalars is a pass that moves the promotion of weak scalar
// inputs out of the program: a weak rank-0 input whose every use is a
// convert to one type T becomes an input of type T, and the caller
// converts the argument itself (a scalar convert, with the same
// docs/SPEC.md §3 semantics). A weak literal argument is then just like a
// literal: f(x, 1) and f(x, int8(1)) lower to the same module and share
// one executable. The result is a new program (p is not changed) and the
// inputs it hoisted. When VerifyAll is set it checks the program it
// returns and gives the violation as a *CheckError naming HoistPass.
func HoistWeakScalars(p *Program) (*Program, []Hoisted, error) {
	q, hoisted := hoistWeakScalars(p)
	if VerifyAll {
		if err := q.CheckAfter(HoistPass); err != nil {
			return nil, nil, err
		}
	}
	return q, hoisted, nil
}

func hoistWeakScalars(p *Program) (*Program, []Hoisted) {
	uses := map[*Var][]*Eqn{}
	for _, e := range p.Eqns {
		for _, a := range e.Args {
			uses[a] = append(uses[a], e)
		}
	}
	isOutput := map[*Var]bool{}
	for _, o := range p.Outputs {
		isOutput[o] = true
	}
	replace := map[*Var]*Var{} // a hoisted convert's result → the new input
	inputs := make([]*Var, len(p.Inputs))
	var hoisted []Hoisted
	for i, in := range p.Inputs {
		inputs[i] = in
		us := uses[in]
		if !in.Type.Weak || in.Rank() != 0 || isOutput[in] || len(us) == 0 {
			continue
		}
		// Every use converts to one type, weak flag included, so the new
		// input can stand for every convert's result.
		to := us[0].Out.Type
		ok := true
		for _, u := range us {
			ok = ok && u.Op == OpConvert && u.Out.Type == to
		}
		if !ok {
			continue
		}
		nv := &Var{ID: in.ID, Type: to}
		for _, u := range us {
			replace[u.Out] = nv
		}
		inputs[i] = nv
		hoisted = append(hoisted, Hoisted{Input: i, DType: to.DType})
	}
	if len(hoisted) == 0 {
		return p, nil
	}
	q := &Program{Inputs: inputs, Config: p.Config, NumVars: p.NumVars}
	sub := func(v *Var) *Var {
		if r, ok := replace[v]; ok {
			return r
		}
		return v
	}
	for _, e := range p.Eqns {
		if _, gone := replace[e.Out]; gone {
			continue
		}
		ne := *e
		ne.Args = make([]*Var, len(e.Args))
		for i, a := range e.Args {
			ne.Args[i] = sub(a)
		}
		q.Eqns = append(q.Eqns, &ne)
	}
	for _, o := range p.Outputs {
		q.Outputs = append(q.Outputs, sub(o))
	}
	return q, hoisted
}
