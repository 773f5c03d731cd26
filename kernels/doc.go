// Package kernels holds the backend interface and the CPU backend, the
// default: it needs nothing installed and runs a lowered, fused and
// buffer-planned module (package lower) block by block.
//
// # Numerics every backend keeps (docs/SPEC.md §3)
//
// These definitions are the contract; the reference evaluator used by the
// tests (internal/reference) implements them with plain loops and the CPU
// backend is checked against it bit for bit.
//
//   - f16 and bf16 values are computed in f32 and rounded (to nearest, ties
//     to even) to their storage type after every op, so a fused kernel gives
//     the bits of op-by-op evaluation, and NumPy's bits for f16.
//   - f32 and f64 + − × ÷ and sqrt are IEEE operations of their own width;
//     no FMA contraction. Transcendental functions are within 1 ulp (f64)
//     and 2 ulp (f32) of the correctly rounded result; their exact bits are
//     the CPU backend's (kernels.Transcendental), not a contract.
//   - maximum and minimum (elementwise and reductions) follow IEEE 754-2019
//     maximum/minimum: a NaN operand gives NaN (the first NaN operand's
//     bits), and −0 < +0. For bool, max is or and min is and.
//   - Integers wrap. floordiv and rem follow floor semantics (Python); a zero
//     divisor gives 0; MinInt // −1 wraps to MinInt. Shifts by the width or
//     more (or by a negative amount) give 0 for shl, and fill with the sign
//     bit for shr (arithmetic for signed, logical for unsigned). Integer pow
//     with a negative exponent gives 0, except for bases 1 and −1.
//   - Float floordiv and rem are NumPy's npy_divmod.
//   - Converts are tensor.ConvertSlice's: float → int truncates toward zero
//     and saturates, NaN → 0; int → float and float → narrower float round
//     to nearest even in one step.
//
// # Reductions: one fixed summation tree
//
// A reduction visits, for each output element, the reduced elements in
// row-major order of the reduced axes: x[0], …, x[n−1]. Sums and products
// combine them with one fixed tree, whatever the block size or GOMAXPROCS:
//
//   - leaves are the runs x[128k : 128k+128] (the last may be shorter);
//   - a leaf of m < 8 values is folded left to right: ((x0 ⊕ x1) ⊕ x2) …;
//     a leaf of m ≥ 8 values keeps eight lane accumulators r[j] = x[j],
//     then r[j] ⊕= x[8i+j] for every full group of eight, combines them as
//     ((r0⊕r1)⊕(r2⊕r3))⊕((r4⊕r5)⊕(r6⊕r7)), and folds the m mod 8 values
//     left over into that, left to right (NumPy's pairwise-sum leaf);
//   - L leaf results are combined by the tree T(lo, n) = leaf lo when n = 1,
//     else T(lo, p) ⊕ T(lo+p, n−p) with p the largest power of two below n.
//     Every aligned run of 2^k leaves is then a subtree, so workers may sum
//     aligned groups independently and still produce the same bits.
//   - a sum starts from +0: it is +0 ⊕ tree, so a sum of only −0 values is
//     +0, as in NumPy and in XLA's reduce from 0; the sum of nothing is +0
//     (integers: 0), the product of nothing 1.
//
// The CPU backend evaluates a reduction's elementwise body a group of 1024
// values at a time into per-worker registers and sums those. A float sum
// of an input x, of x·x, or of (x − c)² with c loop-invariant (a variance's
// second pass), instead computes its leaves straight from x, several groups
// per call, the values in vector registers (leafpass.go): one read of x per
// pass, the same leaves and tree, so the same bits. Such a sum right after
// another over the same x, with only scalar kernels between (the mean),
// takes its groups last to first, starting where the cache still holds x
// (alternateStreams); every group's partial has its own slot and the
// partials are combined in tree order afterwards, so the order in which
// workers take groups changes no bit.
//
// Which NaN an operation returns — its sign and payload — is not part of
// the contract: fused and op-by-op evaluation may return different NaNs
// (x86 hands back one operand's NaN, and fusion can swap operands), and
// the tests treat all NaNs as equal. Moving bits is exact, though: a
// bitcast of an f16/bf16 input reads its storage, a bitcast to f16/bf16
// that is a result writes its bits as they are, and lower folds chains of
// bitcasts, so a signaling NaN survives them (conformance's bitcast-bits
// cases compare storage bits) although the f32 form that f16 and bf16
// values compute in would quiet it.
//
// This is pairwise summation with a 128-element base case (error O(log n)
// ulps, as NumPy's). Integer sums and products wrap, so any order gives the
// same result; max and min are exact in any order. argmax and argmin return
// the index of the first maximum (minimum) in that order, a NaN counting as
// the maximum (minimum) and the first NaN winning; for bool, true > false.
//
// # How the CPU backend runs a loop fusion
//
// A fused loop is a list of steps, each one typed vector kernel (package
// internal/simd: AVX-512 or AVX2 chosen at run time, a pure-Go twin
// elsewhere) over a block of 1024 elements held in per-worker registers
// that stay in L1. A peephole pass merges common step pairs into one pass
// (x·a + b; an f16/bf16 op and its rounding; the last op and the narrowing
// store; the widening of an f16/bf16 input and the op reading it). Before
// each block a worker prefetches the next block's inputs; an output of 32
// MiB or more is written with non-temporal stores, fenced once per range,
// unless the loop computes transcendentals (then it waits on arithmetic,
// not memory).
// Workers take ranges of blocks from a shared counter, so a core that
// wakes late does not delay the Run; every result is written by index, so
// which worker computed it never changes a bit. The workers other than
// the calling goroutine are a process-wide pool; one that finishes spins
// (yielding its P, and on Linux its core to any thread waiting for one)
// for 2 ms after the last fork or kernel that wanted it
// before it parks, so the next kernel hands it work in about a
// microsecond instead of waking it, and while one spins, kernels a
// sixteenth of the usual size (products too) split as well
// (CPUOptions.ParallelMin) — unless the spinning helper has missed the
// last few forks (it spins, but other threads hold its core): then they
// run whole, all but every eighth, until a fork gets its help again.
//
// Kernels that depend on nothing the others of their level compute run
// side by side (group.go): in a program whose kernels are all products,
// loops and reductions reading and writing only their fusions' buffers,
// the executable orders its kernels by level — one past the highest level
// of the earlier kernels that write a buffer it reads or writes, or read
// one it writes — and where a level holds two or more small kernels of
// some size (products of 2^16 to 2^20 multiply-adds, loops and reductions
// of 2^14 elements or more, all reading and writing arrays under
// ParallelMin's elements), each runs whole on one worker while the pool's
// helper is spinning and helping, the longest first. Each kernel of a
// group keeps its own run state, which never forks. Checked mode, programs
// with other kernels (sorts, gathers, scatters, control flow, ...) and
// the sub-programs of control kernels run in program order.
//
// A max or min pooling (trace's reduce_window composition) computes the
// window's extremum by a chain of maximum (minimum) ops over the strided
// slices, then picks out the first window element equal to it
// (firstChosen), which is what its derivative needs. When one mapped loop
// fusion holds both and returns the picked element, the CPU (and
// OpenCL's generated kernel) runs the chain alone (lower.WithoutFirstChosen): the picked element has the
// extremum's bits — an operand equal to it, the zero's sign copied from
// it, a NaN extremum taken whole — so the forward pass of a 3×3 max_pool
// makes 8 ops per element instead of 29.
//
// # Indexing
//
// Gather, the scatters and the dynamic slices read their index operands
// (any integer dtype, as int64; a uint64 above MaxInt64 as MaxInt64) at
// run time. A window starting at s in a dim of size n with window size w
// fits when 0 ≤ s ≤ n − w; clamping moves s to the nearest such start.
// Gather computes every window's start offset once, then copies runs of
// its result in parallel chunks (a window that does not fit is the fill
// value in mode fill). A scatter copies its operand, then combines its
// updates in row-major order of the updates array, a run of the last dim
// at a time (f16/bf16 combined in f32 and rounded once per update, as any
// op); when a window dim of the updates lies on an operand dim that no
// index moves, workers split it, so the targets of different workers are
// disjoint and every element still sees its updates in order. rev is a
// strided copy with negative strides.
//
// # dot_general
//
// Each output element is Σ_k lhs·rhs over the contracting dims, in row-major
// order of the contracting index, accumulated left to right from +0: f32 and
// f64 in their own type, each product added with one fused multiply-add
// (one rounding per step, as every BLAS's FMA kernels do); f16 and bf16 in
// f32 the same way, rounded once to the result type at the end; integers
// in their own type with wraparound; complex in its own type (products
// rounded as NumPy's complex multiply — re = ar·br − ai·bi, im = ar·bi +
// ai·br, each product, difference and sum rounded, no FMA — then added
// part by part; on the CPU internal/gemm's complex GEMM, gemm.CCall, whose
// micro-kernels keep the tile's real and imaginary sums apart in
// registers). The order is fixed, so the
// result does not depend on the backend, the SIMD tier, the blocking or the
// number of threads (internal/gemm computes each element on one thread).
// The CPU runs f16 × f16 on the f32 GEMM reading the operands as stored:
// internal/gemm widens them exactly (VCVTPH2PS) while it packs them, any
// strides, so neither a widened nor a transposed copy is made, and each
// block of f32 accumulators is rounded to f16 as soon as its last k block
// is in, while it is in cache. An f32 dot reads an f16 operand that a
// convert widens (f16 mixed with f32, or preferred_element_type=f32) the
// same way, past the convert, whose f32 copy is then not made.
//
// bf16 × bf16 deviates from "k in order": it is the hardware's bf16 dot,
// VDPBF16PS (AVX512_BF16), step for step (docs/SPEC.md §3). Each element
// takes k in pairs (2j, 2j+1; an odd K padded with one zero element at the
// end) from +0, per pair acc = FTZ(fma(a[2j+1], b[2j+1], acc)) then
// acc = FTZ(fma(a[2j], b[2j], acc)) in f32, bf16 subnormal inputs read as
// zeros of their sign (DAZ), tiny rounded results flushed to zeros of
// their sign (FTZ, tininess after rounding with an unbounded exponent). A
// bf16 result is acc rounded once; a preferred_element_type=f32 result is
// acc — lowering keeps that dot as one instruction with bf16 operands.
// The CPU runs internal/gemm's BF16Call: the VDPBF16PS kernel where the
// CPU has AVX512_BF16; on the AVX2 and AVX-512 tiers of other CPUs, the
// f32 kernels on operands widened with subnormals as zeros and each pair
// swapped, run with the thread's DAZ and FTZ bits set (the same chain of
// fused multiply-adds under the same flushing); its bit-identical Go twin
// (simd.BF16Step) on the generic tier. JAX on CPU neither pairs nor flushes, so bf16 dots agree
// with it only within rounding. conv_general_dilated of bf16 follows the
// same rule over its K order (below).
//
// Narrow operands (NarrowMatMul; dot_general of the narrow dtypes)
// reuse those GEMMs, unpacked while packed: 8-bit float codes through a
// table of their bf16 bits into the bf16 GEMM (FP8OnBF16 says for which
// format pairs the bf16 rule is then their exact dot — all fp8 pairs but
// f8e8m0fnu's, which widen to f32), 4-bit integers to bytes into the
// int8 GEMM, whose wrapping int32 sums are exact in any order. In
// dot_general the narrow floats' converts to bf16 (preferred_element_type
// bf16, or f32, which lower defines as the bf16 → f32 dot of the converted
// operands for every narrow float but f8e8m0fnu — fp6 and fp4 too) are
// read past by the bf16 GEMM, one code a byte; sub-byte integers widened
// to int8 for an i32 result are read as their stored bytes by the int8
// GEMM (each i4/i2 byte is its sign-extended value, u4/u2 zero-extended).
// A program input of dtype i4 or u4 that the caller passes packed
// (tensor.FromPacked) is read packed by such a product (gemm.I4Call); when
// only such products read it, Run makes no unpacked copy of it, and
// otherwise unpacks it once a run into scratch the executable keeps.
//
// # Fused epilogues
//
// lower.FuseEpilogues moves a dot_general's or conv_general_dilated's
// elementwise consumers — a bias add through a broadcast, a scale, relu
// (max or where), tanh, logistic, gelu, any elementwise chain reading the
// product at the element's own index, ending in a convert to the output
// dtype — into the product's kernel; a multi-output loop (siblings, such
// as a relu and its derivative's mask, or Adam's three updates of one
// weight gradient) joins whole, as one body computing every result (each
// value once: the relu's pre-activation feeds its mask and its select) or,
// when a result is read other than elementwise, one body per result run
// in turn on each block; a
// product other kernels read too becomes that kernel's last output. The
// epilogue then computes element (b, i, j) from the product's element (b,
// i, j), after its whole sum over k above is done, rounded to the
// product's dtype, with exactly the steps the unfused loop fusion would
// run on it (the same compiled body: epilogue.go), so a fused result is
// bit-identical to the unfused one, on every tier and at every thread
// count. In any body (loop, reduce or epilogue), an f32 or f64 row of at
// least 32 elements broadcast down the rows (the bias) and read once by a
// binary op is read in place, the op run once per row segment, rather
// than first copied into a block register. On the CPU an f32, f64 or f16 product runs the epilogue on each
// MR-row block of c as soon as internal/gemm adds the block's last k block
// in (gemm.Finisher; an f16 block is rounded to f16 first), while the
// block is still in cache (L1, or L2 for a wide one: MR rows by up to NC
// columns, 96 KiB of f32 at NC 2048); a conv with an NHWC-like output runs it on each block of
// output positions right after its worker computes them. The product goes
// straight into the output buffer when the epilogue has one result, of the
// product's dtype, and the product no other reader; into its own buffer
// when it has other readers, else into scratch. Other products (integers,
// int8 on VNNI — AVX512_VNNI at the AVX512 tier, AVX-VNNI at the AVX2 tier
// —, bf16 products, swapped narrow f32/f64 products, complex, GEMMs split
// into column bands, convs with other output layouts, byte convolutions
// on the f32 or f64 GEMM) are computed whole
// first, then the epilogue runs over them. OpenCL runs the chain in the
// product kernel's store, from the rounded accumulator.
//
// # conv_general_dilated
//
// Output element (n, o, y…), o in feature group g, is the sum over the
// kernel's spatial positions k… in row-major order (spatial dim 0, as the
// dimension numbers order them, slowest), then over the group's input
// features c — the K order of an NHWC im2col — of lhs·rhs, where the lhs
// element is x[n, g·I + c, y·stride + k·rhs_dilation − pad_lo] in the
// lhs dilated by lhs_dilation and padded (a hole or padding reads 0, which
// still multiplies: 0·∞ is NaN). The sum starts from +0 and each step is
// one fused multiply-add, rounded once: f32 and f64 in their own type;
// f16 in f32, rounded once to the result type at the end; integers in
// their own type with wraparound. bf16 takes dot_general's bf16 rule over
// this K order instead: k in pairs from +0 (an odd K padded with one zero
// product), the odd product first, DAZ/FTZ, in f32, rounded once to bf16
// or, with preferred_element_type=f32, the result itself (lowering keeps
// that convolution one instruction with bf16 operands; narrow floats exact
// in bf16 with an f32 preferred type are converted to bf16 first, as for
// dot_general). The CPU builds bf16 im2col blocks as stored and multiplies
// them on internal/gemm's BF16Call (conv_bf16.go: VDPBF16PS, the f32
// kernels under DAZ/FTZ, or the Go twin — the same bits on every tier);
// the batch-major and implicit-GEMM paths below are f32/f64 only. OpenCL
// walks the flattened K in pairs with bf16_step, as its bf16 dot. bool and complex operands
// are refused at trace time. It is dot_general's contract with K in that
// order, so the CPU kernel (conv.go) builds im2col patches in blocks into
// per-worker scratch and multiplies each block by the packed kernel with
// internal/gemm; OpenCL computes each element directly with fma(). A float
// convolution with few output positions per batch element (at most 64),
// at least 8 batch elements and a long K (at least 1024; the kernel
// cotangent of a convolution, trace's convTransposeRHS, is the common
// one) runs batch-major instead (conv_batch.go): the lhs is copied once
// with its padding as panels of batch elements, each the micro-kernel's
// packed a panel over [padded spatial…][features] (64 on 12-row tiles as
// 12·4 + 8 + 8, the last two on its 8-row form; on the f32 AVX-512
// 14-row tiles used where the kernel is read in place, 14·4 + 8), so that every run of K
// along the kernel's last spatial dim and the features is one contiguous
// stream; the kernel is packed in NR-column panels, or, where its output
// features are whole panels and contiguous, read in place by the
// two-stride micro-kernel (a kernel cotangent's output cotangent: one
// stride along the last spatial dim, one along the features); and each
// worker accumulates its share of output tiles run after run in K order
// — the same bits; its epilogue runs over the whole product. A float convolution of NHWC-like input and output
// whose runs along the kernel's last dim are at least 32 steps (E6k's
// 3×3 over 64 features and its input cotangent) runs the same way with
// lines of output positions as the micro-kernel's rows — an implicit
// GEMM reading the input in place where its positions along the last dim
// are one feature vector apart (tiles whose window reaches into the
// padding from a small private patch holding its zeros; no im2col, no
// copy of the input), else a padded copy of it, whole tiles written
// straight into the output. An integer
// convolution of byte operands (i8, u8, sub-byte integers as their
// bytes; in place, or read past the converts to i16/i32/… that a
// preferred_element_type lowers to, whose kernels are then dropped as a
// dot's are) into a result of at most 32 bits multiplies its im2col
// blocks of byte patches on the int8 GEMM into int32 (conv_int8.go: a
// uint8 lhs is the GEMM's unsigned operand, a uint8 kernel is packed as
// w − 128 and 128 · Σ patch row added back unless the result is one
// byte), stored as the result's low bits; where the tier has no VNNI
// kernel (whose Go twin is slower than any other path) it widens the
// operands and runs the f32 GEMM, or the f64 one when K · max|x| · max|w|
// > 2²⁴, whose sums are then exact integers. Integer sums wrap, so these
// are the wrapping in-order sums' bits; 64-bit results keep the loop.
// Winograd's F(2,3)/F(4,3) is not used: it
// computes each output from transformed sums (additions before and after
// the products), so its rounding differs from this in-order contract by design — it could
// only be an opt-in that gives up bit-identity with the reference and
// across backends.
//
// # Cancellation
//
// Executables may implement ContextRunner (both backends here do): a run
// under a context with a Done channel stops soon after it is done and
// returns ContextError(ctx), which errors.Is matches to ctx.Err() and its
// cause. The CPU backend never calls ctx.Err() in a hot loop: a run
// polls ctx.Done() (a non-blocking receive, through the run state's own
// stopper, which a while's sub-executables and a group's kernels share;
// the first look that finds it closed sets the stopper's flag for the
// other workers) between kernels, before every iteration of a while, in
// fork's ranges, which run in pieces of about stopWork (2^20) elements or
// multiply-adds under a context (kernels write by index, so the pieces
// give the same bits), and in internal/gemm before each MR-row panel of
// a, or each b panel of a block of rows (Call.Stop). It registers no
// callback with ctx, so a RunIntoContext allocates nothing. A
// stopped kernel leaves its output unspecified and later kernels do not
// run; a reduction does not combine its partials. A run without a context
// (Run, RunInto) has a nil flag: each look is one nil test, and fork cuts
// nothing. OpenCL looks before enqueuing each kernel and on every while
// iteration; a kernel on the device runs to its end.
package kernels
