// Package lower turns a traced program into an HLO-like module and
// prepares it for a backend, XLA-style:
//
//  1. Lower: weak flags are erased into concrete dtypes, NumPy's implicit
//     broadcasting becomes explicit broadcast_in_dim, constants stay at
//     their final dtype.
//  2. Simplify: common subexpression elimination, constant folding through
//     an evaluator the caller supplies (the CPU backend's, so a folded value
//     is bit-identical to the kernel's), and only exact algebraic rewrites
//     (see Simplify; float identities such as x+0 → x are not exact for −0),
//     among them moving adds below identical reshapes and slices of their
//     operands, so the data movement under them fuses with the adds, and
//     folding a transpose into the dot_general that reads it (x.T @ y reads
//     x in place) where it keeps the batch dimensions and the free
//     dimensions' order.
//  3. DCE.
//  4. Fuse: producer-into-consumer fusion. Loop fusions evaluate elementwise
//     ops, converts, constants and broadcasts in one pass; reduce fusions
//     evaluate the reduction's elementwise producers inside the reduction;
//     data movement — slice (strided too), concatenate, rev, transpose,
//     and so pad and roll, which trace as concatenates of slices and
//     broadcasts — joins loop fusions as XLA's loop fusion has it: a
//     mapped loop fusion (Fusion.Mapped) reads its inputs through index
//     maps, its output split into Regions (boxes within which every
//     concatenate reads one operand and every input is read at an affine
//     offset), so roll(u, 1) + u is one pass over u; a data-movement op
//     nothing fuses with stays a copy kernel of its own, as do the
//     indexing ops (gather, scatter, the dynamic slices: a take with
//     constant in-bounds indices is first rewritten by Simplify as a
//     concatenate of slices, which fuses) and
//     data movement past Regions' limits (64 regions, 256 instructions
//     per region); an iota is computed from the index (a Leaf whose
//     value is its count) in every loop fusion that reads it, and gets a
//     kernel of its own only when another reader (a reduction, a dot, a
//     broadcast's operand) needs its buffer; dots are kernels of their
//     own; reshape needs none (it aliases, so a fused read of a reshaped
//     value is a bitcast). A
//     producer joins a fusion only
//     when all its users are in it, so fusions never form a cycle; scalar
//     constants and their broadcasts are duplicated into every fusion that
//     reads them, and so are cheap producers (broadcasts, and elementwise
//     ops other than the transcendental ones and pow, with at most four
//     readers, each an elementwise op or reduction of their shape; at most
//     eight recomputed ops per value, reading no more bytes per element
//     than the value has): recomputed where read, with the same bits,
//     instead of being written out and read back.
//  5. FuseSiblings: XLA's multi-output fusion — a loop fusion joins a
//     later one of the same shape that reads its results or shares a
//     buffer input with it, when no kernel between them reads its results:
//     one kernel computes several results in one pass (Fusion.Outputs in
//     execution order; off with Options.NoSiblings).
//  6. FuseEpilogues: XLA's output fusion — a dot_general or conv read by
//     the elementwise members of a loop fusion (bias add, scale,
//     activation, output convert) joins the first such fusion, which
//     becomes a dot fusion with an epilogue (Fusion.Dot, Fusion.Epilogue;
//     off with Options.NoEpilogues), a multi-output loop joining whole
//     (Fusion.EpilogueResults); when other kernels read the product too
//     it is that fusion's last output. The CPU runs the epilogue on
//     each block of the product the GEMM finishes, or after the product
//     (or a piece of it) for small pieces, swapped narrow products,
//     GEMMs split into column bands and the int8/bf16 GEMMs.
//  7. PlanBuffers: parameters are the caller's read-only arrays; each output
//     gets a buffer of its own; other results reuse dead scratch buffers of
//     the same dtype and sufficient size (liveness per value over the
//     fusion order: a buffer is free after its value's last reader).
//
// Module.Verify checks the invariants the backends rely on (dependency
// order, each instruction's typing rule from trace's op table, explicit
// broadcasts, the fusion rules above, and the buffer plan's: inputs never
// written, outputs never aliasing inputs or each other, no buffer reused
// while its value is still to be read), returning a *VerifyError.
// Compile runs it after every pass with Options.Verify or KILN_VERIFY=1.
//
// Every stage prints: Module.String (HLO-like text), Module.FusedString (the
// kernels and their buffers) and Module.DOT (Graphviz). The StableHLO
// export (the unfused module in StableHLO's MLIR syntax, with compositions
// where Kiln's numerics differ from a StableHLO op) is package
// lower/stablehlo: it is not on the execution path.
package lower
