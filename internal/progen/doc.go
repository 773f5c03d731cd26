// Package progen draws random traceable programs with random concrete
// inputs, for differential tests of the whole pipeline (trace → lower →
// kernels) against the reference evaluator and against NumPy.
//
// A Case is a recipe of builder calls of package trace — elementwise ops
// between values and weak literals, where, astype, the structural ops,
// reductions and matmul — over inputs of every dtype, weak or strong, whose
// shapes broadcast with each other. Each step is chosen to fit its
// operands' dtypes and shapes and checked by tracing, so a drawn program
// always traces. Input data mix ordinary values with the special ones the
// numerics contract is about: NaN (with payloads), ±Inf, −0, subnormals,
// values that overflow a narrowing convert, MinInt and MaxInt, zeros.
//
// Everything is drawn from one *rand.Rand: the same seed gives the same
// case, so a failure is reproduced from its seed.
package progen
