package kiln

import (
	"context"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Eval evaluates an expression of constants and literals eagerly — the ops
// applied to concrete arrays outside Jit — through exactly the path a
// jitted function takes (trace, lower, fuse, the same kernels), so its
// answer is the jitted answer bit for bit.
//
// Eager code calls Eval in loops, so the compiled program is cached: the
// expression is traced on every call (a few microseconds), its constant
// arrays become the program's inputs, and a program of the same ops,
// dtypes, shapes and scalar values as an earlier one runs that one's
// executable on the new arrays. The cache is shared by every Eval of the
// process, kept per backend, and bounded: the 256 most recently used
// programs and 64 MiB of their buffers; a program with more than 4 MiB of
// buffers is compiled, run and released (its run dwarfs the compile).
func Eval(v Value, opts ...Option) (*tensor.Array, error) {
	return EvalContext(context.Background(), v, opts...)
}

// EvalContext is Eval stopped when ctx is done, as Func.RunContext is: a
// stopped evaluation returns an error errors.Is matches to ctx.Err().
func EvalContext(ctx context.Context, v Value, opts ...Option) (*tensor.Array, error) {
	outs, err := EvalAllContext(ctx, []Value{v}, opts...)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// EvalAll evaluates several expressions together.
func EvalAll(vs []Value, opts ...Option) ([]*tensor.Array, error) {
	return EvalAllContext(context.Background(), vs, opts...)
}

// EvalAllContext is EvalAll stopped when ctx is done (see EvalContext).
func EvalAllContext(ctx context.Context, vs []Value, opts ...Option) ([]*tensor.Array, error) {
	if err := contextError(ctx); err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, &ArgError{Index: -1, Msg: "EvalAll of no values"}
	}
	cfg := newConfig(opts)
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	p, err := trace.TraceWithin(cfg.promote, cfg.traceBudget(), nil, func([]Value) []Value { return vs })
	if err == nil && cfg.verify {
		err = p.CheckAfter("trace")
	}
	if err != nil {
		return nil, err
	}
	if err := checkPolicy(cfg.forbid, p); err != nil {
		return nil, err
	}
	p, inputs := hoistConstArrays(p)
	if cfg.verify || trace.VerifyAll {
		if err := p.CheckAfter("hoist_const_arrays"); err != nil {
			return nil, err
		}
	}
	sh, err := evals.get(&cfg, p)
	if err != nil {
		return nil, err
	}
	defer sh.release()
	return runContext(ctx, sh.exe, inputs)
}

// hoistConstArrays turns the program's constant arrays (rank > 0) into
// inputs, so programs that differ only in their data share an executable;
// rank-0 constants stay, for the kernels' scalar forms.
func hoistConstArrays(p *trace.Program) (*trace.Program, []*tensor.Array) {
	q := *p // all of p, so a field added to Program later is kept
	q.Inputs = append([]*trace.Var(nil), p.Inputs...)
	q.Eqns = make([]*trace.Eqn, 0, len(p.Eqns))
	var inputs []*tensor.Array
	for _, e := range p.Eqns {
		if e.Op == trace.OpConst && e.Out.Rank() > 0 {
			q.Inputs = append(q.Inputs, e.Out)
			inputs = append(inputs, e.Params.Value)
			continue
		}
		q.Eqns = append(q.Eqns, e)
	}
	return &q, inputs
}

// checkPolicy applies Forbid to a traced program.
func checkPolicy(forbid [][2]tensor.DType, p *trace.Program) error {
	for _, w := range widenings(p) {
		for _, f := range forbid {
			if w.From.DType == f[0] && w.To.DType == f[1] {
				return &PolicyError{Widening: w}
			}
		}
	}
	return nil
}
