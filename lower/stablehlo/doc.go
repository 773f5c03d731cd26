// Package stablehlo exports a lowered Kiln module as StableHLO — MLIR text
// for XLA/PJRT and IREE, the hand-off to engines that run on TPU and GPU
// pods — and reads such text back.
//
//   - Export writes the module as one func.func @main in MLIR's generic op
//     syntax; where Kiln's semantics differ from a StableHLO op's, the
//     instruction is a commented composition (Export's doc lists them).
//   - Parse reads the text Export writes (generic ops, regions, attribute
//     dictionaries, ranked static tensor types, dense literals bit for
//     bit) into a Module of Ops whose operands point at their producers;
//     errors are *ParseError with the line and column.
//
// How the export is checked (the tests): every conformance program
// (kernels/conformance, about 3,300 programs) and every golden program is
// exported, parsed back and compared op for op — with the ops Export built
// (kind, result names, types and shapes, the producer of every operand,
// attributes, regions) and with the lowered module's instructions (each
// instruction's dtype and shape; a one-op lowering is its kind's twin
// reading its operands in order with the instruction's parameters as
// attributes, constants bit for bit including NaN payloads; a composition
// reads exactly its operands; while and cond regions recursively); a
// program the check cannot cover fails it. The same texts parse with
// upstream mlir-opt in one process (required in CI by KILN_REQUIRE_MLIR=1).
//
// The export is also executed: the tests' interpreter (EvalStableHLO, in
// eval_test.go) runs the parsed text — every op the export writes — with
// every case StableHLO leaves undefined poisoned, and every conformance
// program's results are compared with the reference evaluator's: bit for
// bit, except outputs that depend on a transcendental function (within 8
// ulps; the interpreter takes Kiln's functions, so most match bit for bit)
// or on a float reduce, dot_general or convolution, whose summation order
// StableHLO leaves to the implementation (within 1e-3 of the output's
// magnitude where both results are finite). FuzzParse checks that no
// input makes Parse panic.
package stablehlo
