package kiln

import "github.com/kiln-go/kiln/trace"

// Checkpoint returns fn with its intermediate values recomputed in the
// backward pass instead of stored, as jax.checkpoint (jax.remat) with no
// policy: Grad, ValueAndGrad and VJP keep only fn's arguments and the
// values it closes over from the forward pass, and recompute the rest
// where the backward pass first needs it. Values and gradients are fn's
// bit for bit, higher derivatives to rounding (recomputed values collect
// cotangents of their own, summed in another order); a run holds less
// memory and does more work (lower.MemoryNeed of the compiled module measures it). fn is any
// function Jit takes. Loops and conds inside fn are stored, not
// recomputed. Outside reverse mode, Checkpoint(fn) is fn.
//
//	block := kiln.Checkpoint(func(x, w1, w2 kiln.Value) kiln.Value {
//		return x.MatMul(w1).Tanh().MatMul(w2).Tanh()
//	})
func Checkpoint(fn any) func(args ...Value) []Value {
	g, err := adaptTransformed(fn, "checkpoint")
	if err != nil {
		return failing(err)
	}
	return trace.Checkpoint(g)
}

// CustomJVP returns fn with the forward-mode derivative jvp
// (jax.custom_jvp): jvp(primals, tangents) returns fn's results at
// primals and their tangents, one per result with its dtype and shape
// (zeros are passed for arguments without a tangent). JVP uses the rule;
// Grad, ValueAndGrad and VJP transpose its tangent outputs, which must
// therefore be linear in the tangents (ops whose transpose Kiln knows:
// add, mul by a primal value, …). Higher derivatives differentiate the
// rule. Outside derivatives fn runs. A rule returning the wrong number of
// results, or a dtype or shape other than fn's, is a *trace.DerivError
// naming custom_jvp and the line applying fn.
//
// Regions, not a side table: fn is traced inline and its equations carry
// the rule, so Jit, nesting (Grad(Grad(f)), Jit(Grad(f)), a custom
// function inside another or inside Checkpoint) and every transformation
// that copies equations keep it. A transformation that rewrites fn's ops
// to other shapes (vmap's batching) drops the rule: the derivative is then
// fn's own ops' (correct for fn as written, without the rule's numerics).
func CustomJVP(fn any, jvp func(primals, tangents []Value) (outs, tangentsOut []Value)) func(args ...Value) []Value {
	g, err := adaptTransformed(fn, "custom_jvp")
	if err != nil {
		return failing(err)
	}
	return trace.CustomJVP(g, jvp)
}

// CustomVJP returns fn with the reverse-mode derivative given by fwd and
// bwd (jax.custom_vjp): fwd(primals) returns fn's results and the
// residuals bwd needs (any values); bwd(residuals, cts) returns one
// cotangent per argument of fn (its dtype and shape; the zero Value for
// none) from one cotangent per result. Grad, ValueAndGrad and VJP use
// them; higher derivatives differentiate fwd and bwd. JVP through fn is a
// *trace.DerivError, as JAX refuses forward mode through custom_vjp;
// so is a bwd returning the wrong number of cotangents or a dtype or shape
// other than the argument's, naming custom_vjp and the line applying fn.
// Outside derivatives fn runs. Rules compute from their arguments (and
// constants): a Value of the traced function captured by a Go closure
// belongs to a trace the rule does not run in, an error of the trace.
// As with CustomJVP, the rule travels with
// fn's equations; a transformation that rewrites them to other shapes
// (vmap) leaves fn's own ops to be differentiated.
//
// Inside a loop body or cond branch, Grad uses bwd too; the loop's or
// cond's primal pass there computes fn itself (not fwd), so fwd must
// compute what fn does, as JAX's contract has it.
func CustomVJP(fn any, fwd func(primals []Value) (outs, residuals []Value), bwd func(residuals, cts []Value) []Value) func(args ...Value) []Value {
	g, err := adaptTransformed(fn, "custom_vjp")
	if err != nil {
		return failing(err)
	}
	return trace.CustomVJP(g, fwd, bwd)
}
