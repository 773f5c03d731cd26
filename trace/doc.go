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
// Control flow (control.go): WhileLoop, ForiLoop, Cond, Switch and Scan
// trace their functions once into sub-programs held by a while or cond
// equation (a multi-result equation's further results are result
// equations), with JAX's typing rules and derivatives; the file's comment
// pins the choices.
//
// Batching (vmap.go): Vmap is jax.vmap. It traces its function once on
// one example's shapes and replays the program batched, each op through
// its batching rule (batchRules, keyed by Op beside the op table; the
// file's comment says how to write one), so its results are every
// example's, stacked, bit for bit, and it composes with Grad, JVP, VJP
// and itself.
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
//   - Slices step either way (a negative step is a positive-step slice
//     and a rev, as in JAX); negative start and stop count from the end
//     and are clamped, as in Python; a zero step is an error.
//   - Indexing (Value.Index, Value.At, Take, TakeAlongAxis, OneHot, Gather,
//     Scatter, DynamicSlice, DynamicUpdateSlice) places the dims of
//     advanced (array) indices as NumPy does — where the first one is
//     when they are next to each other, first otherwise; an ellipsis
//     between two keeps them apart even when it stands for no dims — and
//     treats out-of-bounds indices as JAX does: x[i] and At(i).Get clamp
//     (mode promise_in_bounds, XLA's gather), Take and TakeAlongAxis fill
//     (NaN for inexact dtypes, the minimum of signed and the maximum of
//     unsigned integers, true for bool), the At updates drop, the dynamic
//     slices clamp their starts; WithMode picks clip or fill/drop. Gather
//     and scatter clamp, fill or drop a window as a whole (XLA).
//   - A static int index out of bounds is a *ShapeError (NumPy's
//     IndexError, JAX's jax_check_static_indices; JAX's default clamps it)
//     unless WithMode(ModeClip) or ModeFill asks otherwise.
//   - Negative array indices count from the end; signed indices narrower
//     than the default int are widened first, so an i8 index into an axis
//     of 200 counts right (JAX adds in the index's dtype and wraps).
//     jax.numpy.take's mode clip clamps negatives to 0, as JAX. A uint64
//     index above MaxInt64 is read as MaxInt64 (out of bounds either way).
//   - A scatter applies its updates in row-major order of the updates, so
//     with repeated indices set keeps the last one and add adds in that
//     order (XLA leaves the order to the implementation); a scatter into
//     an empty operand does nothing.
//   - Updates are promoted with x as jax.numpy does, combined in the
//     common type and converted back to x's type (where JAX warns of an
//     unsafe cast it still computes so: the same result); an int literal
//     that does not fit x's integer dtype is an *promote.OverflowError
//     (JAX silently wraps it).
//   - Bool indices must be constants (masks, as NumPy's nonzero) or
//     scalars: with a traced mask the result's shape would depend on the
//     data (JAX's NonConcreteBooleanIndexError), a *ShapeError. Float,
//     complex and bool index arrays elsewhere are *DTypeErrors, and so is
//     one_hot of a non-integer array (JAX deprecates it).
//   - Derivatives are JAX's: gather and scatter_add transpose to each
//     other, the dynamic slices too; scatter's tangent is the winning
//     update's; tied min/max updates share the tangent. The derivative of
//     x.At(i).Mul(y) in y is a *DerivError (JAX's needs unique indices).
//   - Reductions keep the operand's weak flag; argmax/argmin give the
//     default int, strong.
//   - dot_general, conv_general_dilated, matmul, dot, tensordot and einsum
//     take JAX's preferred_element_type (PreferredElementType): the
//     operands promote to their common dtype as without it, that dtype
//     must be one JAX's _validate_preferred_element_type allows for the
//     preferred one (the version with the integer-to-float special case;
//     newer JAX only refuses an integer result narrower than its
//     operands), and the product is the dot (convolution) of both
//     operands converted to the preferred dtype: strong from the jax.numpy
//     functions (MatMul, Dot, Tensordot, EinsumPreferred), weak from
//     DotGeneral and ConvGeneralDilated when both operands are weak (lax's
//     standard weak-type rule). The equation keeps the param (programs
//     print preferred_element_type=f32, as jaxprs do); lowering expands it
//     into converts and the op at that dtype.
//   - conv_general_dilated is lax's (ConvGeneralDilated): operands promote
//     to their common dtype as dot_general's do; dimension numbers are
//     lax's strings (spatial dims ordered as the rhs string lists them);
//     SAME/SAME_LOWER padding is lax.padtype_to_pads of the undilated lhs
//     and the dilated kernel; explicit padding may be negative (it crops).
//     Where JAX/XLA accept more, Kiln refuses with a typed error:
//     batch_group_count > 1 (*ShapeError) and bool or complex operands
//     (*DTypeError). Its sum's order and rounding are kernels/doc.go's.
//   - reduce_window (ReduceWindowMax/Min/Sum) and flax's pools (package
//     nn) are compositions of pad, strided slices and maximum/minimum/add
//     (pool.go says what that means for sums and for ties); avg_pool
//     divides by the window size (count_include_pad=True, flax's default)
//     or by the count of non-padding elements.
//   - Caller positions skip Kiln's own non-test files (trace, the root
//     package and the libraries written with trace), so the root's
//     re-exports (kiln.Roll is Roll) need no skip count, and are printed
//     as dir/file.go:line. A value built outside any trace (from Const, a
//     literal or a creation function) is a free expression, traced when
//     it first meets a trace; its equations and errors still name the
//     lines that built each of its ops, not that later line.
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
// trace: they are its constants. The derivative of an equation is
// attributed to that equation's line.
// Checkpoint, CustomJVP and CustomVJP (jax.checkpoint, jax.custom_jvp,
// jax.custom_vjp) are regions of equations marked with their application
// (Params.Mark; custom.go says how each derivative pass reads them).
//
// Transformations and control flow nest as JAX's traces do. The function
// given to Grad, ValueAndGrad, JVP, VJP, Vmap or a control-flow op is
// traced inside the innermost trace being built where the op is called (a
// loop body's, a differentiated function's), whatever trace its operands
// come from, so it may close over any Value in scope: a loop's index, the
// argument of the function being differentiated around it. Values it uses
// of enclosing traces become inputs of its program (closure conversion).
// The op's equations go to the innermost of its operands' trace and the
// traces of the values its function used — an op on values from outside
// a loop body that uses nothing of the body is computed once, outside the
// loop. A value of a trace that has ended (a loop index kept in a Go
// variable and used after the loop) fails the trace with an *OpError, as
// JAX's UnexpectedTracerError. An op whose operands are all free (literals,
// Zeros) is first traced in a scratch probe to learn where it belongs: if
// its functions use a traced value, it is traced in the innermost trace
// being built around that value; if not, it gives free values.
//
// Choices, JAX's unless said otherwise:
//   - A tangent or cotangent has its primal's dtype and weak flag. f16 and
//     bf16 derivatives round after every op, as forward f16 code does, and
//     their sums accumulate in f32 as the forward sums do; convert's
//     cotangent is converted back to the source type (an f16 value used in
//     f32 gets an f16 gradient). Rules compute in their operands' exact
//     types: no promotion rule set can change a tangent's type.
//   - Integer and bool values carry no tangent (JAX's float0). Grad refuses
//     an integer or bool argument with JAX's message unless AllowInt, which
//     gives it a float0 gradient; Kiln has no zero-width dtype, so float0
//     is bool zeros (false) of the argument's shape — a gradient of any
//     other argument is inexact, so a bool gradient is always a float0.
//     VJP gives float0 cotangents to integer and bool primals.
//   - Grad needs one real floating scalar result (plus aux results with
//     HasAux): a result of another shape is a *ShapeError, a complex or
//     integer one a *DTypeError, with JAX's messages. Holomorphic allows a
//     complex result of complex arguments and gives f'(z).
//   - Complex arguments follow JAX's convention: the gradient of a real
//     function of z = x + iy is ∂f/∂x − i·∂f/∂y (the transpose is not
//     conjugated), so |z|² has gradient 2·conj(z).
//   - Ties: maximum and minimum give each operand half where they are
//     equal; reduce_max and reduce_min share the tangent equally among all
//     positions equal to the result; abs has slope +1 at 0.
//   - sign (of complex values too: JAX's zero, not z/|z|'s derivative),
//     floor, ceil, round and floordiv have zero derivatives; rem(x, y) has
//     ∂/∂x = 1 and ∂/∂y = −floor(x/y), computed as jnp.remainder's is;
//     pow(x, y) has y·x^(y−1) and log(x)·x^y with log(0) taken as 0.
//   - x ** n with an integer literal n is multiplications (integer_pow), so
//     its derivative is the product rule's, which may round differently
//     from JAX's n·x^(n−1) in the last bit; reduce_prod's derivative is
//     JAX's pairwise product tree (exact when the operand has zeros).
//   - imag's cotangent is ct·(−i): an infinite cotangent gives a NaN real
//     part where JAX's complex(0, −ct) has 0.
//   - VJP's pullback may be called many times, and inside traces nested in
//     the primals' one; a literal cotangent takes its result's type, a
//     cotangent of another dtype or shape is a *DTypeError or *ShapeError.
//   - An op with no derivative is a *DerivError naming it, never a zero.
package trace
