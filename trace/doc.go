// Package trace turns a Go function over abstract arrays into a program of
// primitive ops, jaxpr-style, with every dtype decided on the promotion
// lattice and every implicit conversion made an explicit convert.
//
// The ops are declared once, in the table of op.go (name, class, arity,
// operand domain, inexact, fusible, transcendental); the tracer, the
// printers, the lowering passes and the kernels all read it.
//
// Conventions of a traced Program:
//   - Elementwise operands have one dtype (converts are explicit); their
//     shapes broadcast NumPy-style to the result (lowering makes broadcasts
//     explicit).
//   - Literals (Int, Float, Complex) are weak: they take the dtype the
//     promotion gives them and become const equations at that final dtype;
//     an integer literal that does not fit it is an error at trace time
//     (jnp.int8(1) + 1000 raises OverflowError in JAX), a float literal
//     beyond f16's range becomes ±Inf.
//   - Sums and products of bool and narrow ints accumulate in the default
//     int (unsigned: default uint); sums, products and means of f16/bf16
//     convert to f32, reduce, and convert back once (JAX's
//     upcast_f16_for_computation); mean is reduce_sum then div by the count.
//   - Errors stick: the first failing op records a *ShapeError, *DTypeError,
//     *OperandError (the zero Value, a Const of a nil array) or *OpError
//     (wrapping *promote.PromotionError or *promote.OverflowError) with the
//     op and the caller's file:line, and Trace returns it. Later ops
//     return inert values.
//   - Every result shape is checked where the op records it: a size or
//     byte size beyond the int range is a *ShapeError wrapping a
//     *tensor.SizeError, so the size of every Var of a Program fits.
//
// Program.Check verifies these conventions and every equation's typing
// rule (OpInfo.Check, or its class's; see CheckRule), returning a
// *CheckError: the conformance suite, the differential test and the
// program generator run it always, and with KILN_VERIFY=1 (VerifyEnv)
// Trace and every pass run it on what they produce. Passes over traced
// programs live here too: HoistWeakScalars moves the promotion of weak
// scalar inputs out of a program.
//
// Choices where JAX and NumPy are silent or differ (pinned here):
//   - floor, ceil and round return integer and bool operands unchanged (JAX);
//     round is half to even.
//   - floordiv and rem of bool compute in the default int; of complex they
//     are errors. pow of bool is an error.
//   - Ordering complex numbers is an error everywhere: lt/le/gt/ge,
//     maximum/minimum, max/min/argmax/argmin reductions.
//   - abs, real and imag of complex give the real-part dtype; of reals,
//     real and conj are the identity and imag is zeros.
//   - where(c, a, b) with a non-bool c means c != 0 (jax.numpy.where).
//   - Slices take positive steps only; negative start and stop count from
//     the end and are clamped, as in Python.
//   - Reductions keep the operand's weak flag; argmax/argmin give the
//     default int, strong.
//   - Caller positions skip Kiln's own non-test files (trace and the root
//     package) and are printed as dir/file.go:line.
//
// # Differentiation
//
// Grad, ValueAndGrad, VJP and JVP transform functions over Values as
// jax.grad, jax.value_and_grad, jax.vjp and jax.jvp do; the derivative is an
// ordinary program of the table's ops (printed, simplified, fused, run like
// any other), so transformations compose: the gradient of a gradient, the
// JVP of a gradient (Hessian-vector products). Each op's derivative is one
// row of the rules table (rules.go), keyed by Op beside the op table: a JVP
// rule, plus a transpose rule for the ops that can be linear in a tangent;
// reverse mode linearizes and transposes, as JAX does (ad.go says why).
// A function being differentiated may close over values of the enclosing
// trace: they are its constants.
package trace
