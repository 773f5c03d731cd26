// Package numerics holds the numerical definitions several of Kiln's
// packages share, so that each is written once:
//
//   - rounding float32 to IEEE binary16 and to bfloat16 (to nearest, ties
//     to even, NaN kept quiet) and widening binary16 to float32: package
//     tensor's storage conversions and internal/simd's Go twins;
//   - IEEE 754-2019 minimum and maximum: the kernels' elementwise ops and
//     reductions, and internal/simd's twins;
//   - the leaf of the fixed summation tree (kernels' package doc): the
//     kernels' integer and complex sums and internal/simd's float twin;
//   - row-major strides: the CPU kernels and the OpenCL code generator;
//   - distances in ulps and bit-exact float equality, for the accuracy
//     tests.
//
// The reference evaluator (internal/reference) keeps its own copies on
// purpose: it defines the semantics the backends are checked against, and
// a bug it shared with them would pass every comparison. This package's
// own tests hold each definition to an independent oracle
// (github.com/x448/float16, float64 arithmetic, math/big).
package numerics
