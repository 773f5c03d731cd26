// Package kiln traces Go functions over typed arrays and Python-like weak
// literals, infers every dtype on JAX's promotion lattice, lowers the
// program XLA-style and runs it as fused CPU kernels (or on another
// backend). It is the one place that wires the pipeline together:
//
//	tensor (dtypes, arrays) → promote (lattices) → trace (programs) →
//	lower (modules, fusion, buffers) → kernels (backends) → kiln
//
// A jitted function is traced once per input signature and cached:
//
//	f := kiln.Jit(func(x, y kiln.Value) kiln.Value {
//		return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
//	})
//	out, err := f.Run(xs, ys) // x: i8[n], y: f16[n] → f16[n], one fused pass
//
// Run's results are fresh arrays, which for large outputs means zeroing
// and page faults on every call; f.Release(out) gives one back, to be the
// next result of its dtype and shape, and f.RunInto(outs, ...) writes into
// the caller's own arrays.
//
// Every run can be stopped: RunContext, RunAllContext, RunIntoContext,
// EvalContext and EvalAllContext take a context.Context and honour its
// cancellation and deadline between kernels, on every loop iteration and
// inside long kernels, returning an error errors.Is matches to
// context.Canceled or context.DeadlineExceeded (docs/SPEC.md §6). The
// plain forms are these with context.Background(), at no cost.
//
// # Value's methods
//
// Value is package trace's Value, as a type alias: the same type, so a
// Value passes to package trace and the libraries built on it (nn,
// random, optim) as it is. Go's tools show an alias's methods only in the
// package that defines the type, so `go doc github.com/kiln-go/kiln
// Value.Add` finds nothing and pkg.go.dev lists them on trace's page; read
// one with the full import path, `go doc github.com/kiln-go/kiln/trace
// Value.Add` (in a checkout, `go doc ./trace Value.Add`: inside the module
// `go doc trace.Value` opens Go's own internal/trace). A type of the
// root's own would need every method twice and a conversion at each
// package boundary; this index is the root's list instead, and a test
// fails when it misses a method. They are jax.numpy's functions as
// methods, by family (the functions that are not methods are indexed
// under Functions by family):
//
//   - Arithmetic (operands broadcast and promote): Add Sub Mul Div FloorDiv
//     Rem Remainder Fmod Pow Neg Abs Sign Reciprocal Square Sqrt Rsqrt Cbrt
//     Maximum Minimum Clip Copysign Nextafter Hypot LogAddExp.
//   - Exponentials and logarithms: Exp Exp2 Expm1 Log Log10 Log1p Log2
//     Logistic; special functions: Erf Erfc ErfInv.
//   - Trigonometric and hyperbolic: Sin Cos Tan Asin Acos Atan Atan2 Sinh Cosh
//     Tanh Asinh Acosh Atanh.
//   - Rounding: Floor Ceil Round; complex parts: Real Imag Conj.
//   - Comparisons and tests (bool results): Eq Ne Lt Le Gt Ge IsNaN IsInf
//     IsPosInf IsNegInf IsFinite.
//   - Bitwise and logical (integers and bool): And Or Xor Not Shl Shr.
//   - Dtypes: Astype (an explicit convert), BitcastConvert (the same bits).
//   - Reductions over axes (none: all): Sum Prod Mean Max Min All Any ArgMax
//     ArgMin Std Var LogSumExp, the NaN-ignoring NanSum NanProd NanMean
//     NanMax NanMin NanStd NanVar, and KeepDims, a KeptDims whose
//     reductions keep the reduced axes as size 1 (x.KeepDims().Sum(1));
//     cumulative: Cumsum Cumprod Cummax Cummin.
//   - Shape: Reshape Transpose ExpandDims Squeeze BroadcastTo Flip Slice.
//   - Indexing: Index (NumPy's x[i], ints, slices, arrays, bools, All,
//     NewAxis, Ellipsis) and At, whose Ref has Get, Set, Add, Mul, Min and
//     Max (x.at[i].set(y) and friends).
//   - Sorting: Sort Argsort; linear algebra: MatMul (and this package's Dot,
//     DotGeneral, Einsum, Tensordot).
//   - Inspecting (no op): DType Type Shape Err.
//
// # Functions by family
//
// The jax.numpy and jax.lax functions that are not methods (`go doc`
// lists most under type Value, as they return one), with the types and
// constants they take; a test fails when one of package trace's is
// missing here or from the package:
//
//   - Literals and constants: Int Float Complex (weak, as Python's
//     scalars), Bool, Const (a strong array).
//   - Creation: Zeros Ones Full ZerosLike OnesLike FullLike Arange
//     ArangeFloat Eye Tri Tril Triu, and lax's Iota.
//   - Elementwise: Where, LogicalAnd LogicalOr LogicalXor LogicalNot,
//     Inexact (promote_args_inexact), StopGradient, and Elementwise (an Op
//     of the op table, for code that walks it).
//   - Joining and rearranging: Concatenate Stack Split SplitAt Tile Repeat
//     Roll Rev, Pad with a PadMode (PadConstant PadEdge PadReflect
//     PadSymmetric PadWrap), BroadcastShapes.
//   - Reductions: Reduce (OpReduceSum OpReduceProd OpReduceMax
//     OpReduceMin, keepdims) ReduceMean SumTo; pooling: ReduceWindowMax
//     ReduceWindowMin ReduceWindowSum with WindowOptions.
//   - Indexing: Take TakeAlongAxis OneHot DynamicSlice DynamicUpdateSlice;
//     lax's Gather and Scatter (OpScatter OpScatterAdd OpScatterMul
//     OpScatterMin OpScatterMax) with GatherDims ScatterDims GatherDimsOf
//     ScatterDimsOf; the items Range RangeStep From To Step All NewAxis
//     Ellipsis AxisNone; the options WithMode (ModePromiseInBounds
//     ModeClip ModeFill) WithFill WithWrap WithAxis WithDType.
//   - Linear algebra and convolution: MatMul Dot DotGeneral (DotDims)
//     Einsum EinsumPreferred Tensordot TensordotN PreferredElementType;
//     Conv ConvGeneralDilated (ConvOptions).
//   - Sorting: Sort Argsort (Descending) TopK SortMany.
//   - Control flow, traced once and not unrolled: ForiLoop WhileLoop Cond
//     Switch Scan (ScanOptions).
//   - Transformations and running: Grad GradWith ValueAndGrad
//     ValueAndGradWith VJP JVP; Checkpoint CustomJVP CustomVJP; Vmap
//     (InAxes OutAxes AxisSize NoAxis, VmapOptions); Jit Eval EvalAll.
//   - Random bits: Threefry2x32 (package random's samplers).
//   - The errors of ops, each with the op and the user's Pos (errors.As
//     finds them): ShapeError DTypeError OpError OperandError DerivError
//     ControlError BudgetError VmapError.
//
// # Gradients
//
// Grad, ValueAndGrad, VJP and JVP are jax.grad, jax.value_and_grad,
// jax.vjp and jax.jvp: they return ordinary functions over Values, so
// Jit(Grad(f)) compiles a backward pass like any program, Grad(Jit(f))
// differentiates a jitted function, and Grad(Grad(f)) or JVP(Grad(f))
// give second derivatives. A differentiated function may close over the
// Values around it. Gradients have their arguments' dtypes and weak flags,
// f16 and bf16 ones rounded after every op; the refusals and every other
// rule are JAX's (package trace's doc lists them).
//
//	loss := func(w, x kiln.Value) kiln.Value { return x.MatMul(w).Tanh().Sum() }
//	step := kiln.Jit(kiln.ValueAndGrad(loss)) // value, then dloss/dw
//
// # Batching
//
// Vmap is jax.vmap: write a function for one example and Vmap runs it on
// a batch — InAxes says where each argument's batch axis is (NoAxis for an
// argument every example shares, such as the weights), OutAxes where the
// results' go, AxisSize the batch size when no argument has one. The
// result is every example's result stacked, bit for bit, computed by one
// program: each op is rewritten by its batching rule (a matrix product
// becomes a batched dot_general, not a loop). Vmap composes with Jit,
// Grad, JVP, VJP and itself in any order; per-example gradients are
//
//	perExample := kiln.Jit(kiln.Vmap(kiln.Grad(loss), kiln.InAxes(kiln.NoAxis, 0, 0)))
//
// A vmapped function may close over the Values around it, which every
// example shares. VmapTree is Vmap of a function of trees (see Trees):
// it returns a function of fn's own type, each argument's InAxes entry
// applying to all its leaves and each result's OutAxes entry to all its
// leaves (JAX's prefix rule; a tree of per-leaf axes is not taken), so
// per-example gradients of a struct of parameters are
//
//	perExample := kiln.Jit(kiln.VmapTree(kiln.GradTree(loss), kiln.InAxes(kiln.NoAxis, 0, 0)))
//
// Refusals (axes out of range, batched arguments of
// different sizes, a batched result with OutAxes NoAxis) are *VmapErrors
// of the trace with JAX's wording; docs/SPEC.md §4 has the contract and
// the rules.
//
// # Trees
//
// A tree is JAX's pytree in Go types: a Value is a leaf (a *tensor.Array
// on the Run side), and a struct's exported fields, a Go array's or
// slice's elements, a map's values and a pointer's target are subtrees.
// Declare a model's parameters once over the Leaf constraint,
//
//	type Params[T kiln.Leaf] struct{ W1, B1, W2, B2 T }
//
// and Params[kiln.Value] is what traced functions take and return, and
// Params[*tensor.Array] what Run takes and RunTree fills:
//
//	step := kiln.Jit(func(p Params[kiln.Value], x, y kiln.Value) (kiln.Value, Params[kiln.Value]) {
//		l, g := kiln.ValueAndGradTree(loss)(p, x, y)
//		return l, kiln.TreeMap2(p, g, func(p, g kiln.Value) kiln.Value { return p.Sub(g.Mul(kiln.Float(0.01))) })
//	})
//	err := step.RunTreeInto([]any{&loss, &next}, &params, x, y) // allocates nothing
//
// Trees are accepted wherever Values travel: Jit's parameters and results
// (Run and RunAll take trees and return their leaves; RunTree and
// RunTreeInto fill trees), GradTree and ValueAndGradTree (the gradient is
// a tree of the parameters' type), VmapTree (a function of fn's type,
// every leaf batched; Jit takes it, the structure in its cache key),
// ForiLoopTree, WhileLoopTree, CondTree
// and ScanTree (carries, operands, xs and ys), package optim's InitTree
// and StepTree. TreeFlatten, TreeLeaves, TreeUnflatten, TreeMap and
// TreeMap2 are jax.tree_util's. The choices:
//
//   - Leaves are in JAX's order: struct fields as declared, elements by
//     index, map values by sorted key (strings lexically, integers by
//     value), as JAX sorts a dict's keys. Map keys must be strings or
//     integers.
//   - Unexported fields and fields tagged `kiln:"-"` are not part of the
//     tree (flax's static fields). Any other exported field must be a
//     leaf or a tree: an int field is a *FuncError at Jit and a
//     *TreeError elsewhere (JAX would make it a leaf, which a traced Go
//     function cannot take).
//   - A nil map or pointer inside a tree is a *TreeError (its structure is
//     unknown); a nil slice is an empty list, a nil *tensor.Array leaf an
//     *ArgError naming the argument.
//   - The trees' structure — their types, their slices' lengths and their
//     maps' keys — is part of a jitted function's signature, as a pytree's
//     treedef is part of jax.jit's cache key: another structure traces
//     again (ExplainMiss says so).
//   - Trees of the same structure and another leaf kind match:
//     Params[*tensor.Array] is passed for Params[kiln.Value].
//   - Errors are *TreeErrors naming the op, your file:line and where in
//     the tree (".Layers[1].W"); as builder calls, TreeMap and the tree
//     forms of control flow return a tree whose leaves fail the trace, and
//     Run's argument errors are *ArgErrors wrapping them.
//   - A struct with no slice, map or pointer inside is read and written
//     at precomputed offsets: a RunTreeInto loop with trees passed by
//     pointer allocates nothing (one passed by value is copied once; a
//     map's keys are sorted on every call).
//
// # Checkpoints and custom derivatives
//
// Checkpoint is jax.checkpoint (jax.remat, no policy): reverse mode keeps
// only the function's arguments from the forward pass and recomputes the
// rest where the backward pass first needs it. Gradients are unchanged
// bit for bit (second derivatives agree to rounding: the recomputed values
// collect cotangents of their own); lower.MemoryNeed of the compiled
// module shows what it saves (TestCheckpointMemory: a deep residual MLP's
// Jit(Grad) holds 30% less). Loops and conds inside are stored.
//
// CustomJVP and CustomVJP are jax.custom_jvp and jax.custom_vjp, for
// derivatives that are stabler, cheaper or deliberately different from
// the ops' own (logsumexp's softmax, softplus's σ, a straight-through
// estimator):
//
//	lse := kiln.CustomVJP(naiveLSE,
//		func(p []kiln.Value) (outs, res []kiln.Value) { … return []kiln.Value{y}, []kiln.Value{p[0], y} },
//		func(res, cts []kiln.Value) []kiln.Value { return []kiln.Value{res[0].Sub(res[1]).Exp().Mul(cts[0])} })
//
// As in JAX: JVP through a CustomVJP is refused; a CustomJVP's tangents
// are transposed for reverse mode, so they must be linear in the input
// tangents; higher derivatives differentiate the rules; outside
// derivatives the function itself runs, and under a derivative the rule's
// primal results are used. A rule returning the wrong number of values,
// or a dtype or shape other than the function's, a function closing over
// a value being differentiated (pass it as an argument) and a value of
// the function escaping other than as a result are *trace.DerivErrors
// naming the op and the line that applied the function. Rules compute from
// their arguments and constants only (pass a value as an argument rather
// than capture it in a Go closure).
//
// The rules travel with the function's equations (each carries its
// region, trace.Params.Mark), not in a side table, so Jit, nesting and
// every transformation that copies equations keep them. One that rewrites
// the function's ops to other shapes — vmap batching them — drops the
// rule, and the function's own ops are differentiated: correct for the
// function as written, without the rule's numerics, never a rule applied
// to values it was not written for (JAX batches fwd and bwd instead).
// Inside a loop body or cond branch, reverse mode uses the rules too; the
// loop's primal pass computes the function itself there, so a fwd must
// compute what its function does (JAX's contract).
//
// # Checked mode
//
// Checked is jax.experimental.checkify's index and division checks (and,
// opt-in, its NaN check) computed inside the compiled kernels: an index
// that JAX's rules clamp, fill or drop, or an integer divisor of zero,
// ends the Run with a *CheckError that names the op, the caller's
// file:line and the first offending index:
//
//	f := kiln.Jit(loss, kiln.Checked())
//	_, err := f.Run(logits, labels) // a label of 12 for 10 classes:
//	// kernels: check failed in gather at model.go:41: out-of-bounds indexing
//	// for array of shape (256, 10): index 12 is out of bounds for axis 1 with size 10 …
//
// # Choices (where JAX and NumPy are silent or differ)
//
//   - Arguments: Go's int, float64 and complex128 — the types untyped
//     constants default to — are weak scalars, as Python scalars passed to
//     a jitted JAX function; sized scalar types (int8 … uint64, float32,
//     float16, bfloat16, complex64) and bool are strong rank-0 arrays, as
//     NumPy scalars are. Weak(a) passes an array as weak.
//   - With X32, Go ints become weak i32 and an int beyond the i32 range is
//     an error (JAX raises OverflowError for such Python ints).
//   - Go's []int and []uint are strong 1-D arrays of the default int and
//     uint (i64 and u64; i32 and u32 with X32, an element out of range
//     being an error), as jnp.asarray([1, 2]) is a strong default-int
//     array; a uint scalar is a strong default uint. Unlike int, no
//     untyped constant defaults to uint, so choosing it is choosing a
//     dtype, as NumPy's np.uint is: it is strong. (The platform-width Go
//     types have no dtype of their own; JAX has no unsigned weak type.)
//   - Nil and zero values are errors that name the operand, never panics:
//     a nil or zero *tensor.Array argument or RunInto output, and
//     WithBackend(nil), are *ArgErrors; the zero Value or a Const of a nil
//     array used as an op's operand is a *trace.OperandError at that op's
//     line. Every argument error is an *ArgError, unwrapping to the
//     backend's error where one found it. A nil slice is an empty array.
//   - Signatures that trace to the same typed program (say f(x, 1) with a
//     weak 1 and f(x, int8(1))) share one compiled executable; JAX compiles
//     them twice.
//   - Eval runs eager expressions through the same trace/lower/kernel path
//     as Jit, so eager and jitted answers are bit-identical.
//   - A panic inside the traced function is returned as a *PanicError
//     (errors.As finds an error it panicked with); a function of the wrong
//     shape is a *FuncError at Jit (Func.Err) and from every call.
//   - A traced function may run other Funcs, or its own Func with another
//     signature; running its own Func with the very signature being traced
//     (directly, through other Funcs, or through another goroutine's trace
//     that waits for this one) returns a *ReentrantError to that inner call
//     instead of waiting forever. JAX inlines a nested jit call into the
//     outer trace, so the same recursion there ends at Python's recursion
//     limit. A trace that panics is a *PanicError; one whose goroutine
//     exits (runtime.Goexit, t.FailNow) leaves nothing behind: callers
//     waiting for it trace the signature themselves.
//   - The cache: a Func keeps its most recent signatures (CacheSize, 64 by
//     default), traced and lowered at their first call and compiled at
//     their first Run (Trace, Lower and Explain never compile). Compiled
//     executables are reference counted by the cache entries and the Runs
//     using them; the last one to let go releases it (device memory on
//     OpenCL), so however calls interleave, the executables alive never
//     exceed the cache size plus the Runs and builds in flight
//     (Stats.Live).
//   - Memory: a run has a budget (MemoryLimit; by default
//     tensor.DefaultMemoryLimit, the machine's memory): a program whose
//     inputs, constants, planned buffers, outputs and loop carries (a
//     while's two sets) add up to more fails to compile with a
//     *BudgetError naming the op, its line and the bytes needed, before
//     anything is allocated. Each single buffer is also held to
//     tensor.MaxAlloc, and constants built while tracing (Repeat's index
//     list) are checked before they are built.
//   - Grad(Jit(f)) differentiates f's function in the trace it is called
//     in, with that trace's options (promotion rules, X32), not f's.
//   - Eval traces its expression on every call but caches the compiled
//     program, keyed by its backend (by identity), ops, dtypes, shapes and
//     scalar constants, with its constant arrays as inputs: eager code in
//     a loop compiles once. The cache is bounded in programs and bytes.
//
// Numerics are docs/SPEC.md §3 and the kernels package doc: f16 and bf16 round
// after every op, fused results are bit-identical to op-by-op ones, and
// reductions use one fixed summation tree whatever GOMAXPROCS.
package kiln
