// Package reference is the definition of Kiln's semantics: an evaluator
// that runs a traced program (package trace) op by op with plain scalar
// loops. Tests compare every backend with it, bit for bit except for the
// transcendental functions, whose exact bits are a backend's own.
//
// It shares no code with package kernels, on purpose: a bug copied into
// both would pass every comparison. So it keeps its own copies of the
// numerics the backends share in internal/numerics (IEEE minimum and
// maximum, the summation leaf, row-major strides). It leans only on
// package tensor for storage types and conversions (f16 and bf16 rounding
// is internal/numerics' there, as in the kernels), which are exhaustively
// tested against independent oracles on their own. Nothing here is fast;
// everything is meant to be read and checked against kernels/doc.go and
// docs/SPEC.md §3, which it implements:
//
//   - Each value is held while computing in its "compute" form: f16 and
//     bf16 widened exactly to float32, c64 and c128 as a pair of float32 or
//     float64 parts, every other dtype in its own Go type. An op computes
//     in that form and f16/bf16 results are rounded back, to nearest even,
//     after every op.
//   - Every floating-point product and sum is wrapped in an explicit
//     conversion (float32(a*b)), which the Go spec says rounds and so
//     forbids fusing it into an FMA: the bits do not depend on the
//     architecture or on GOAMD64.
//   - Broadcasting of elementwise operands is NumPy's, done by index
//     arithmetic; nothing is materialized.
//
// # Choices kernels/doc.go leaves open
//
// Where the contract is silent this package pins a definition, so backends
// have one answer to agree with:
//
//   - Complex multiplication is (ac − bd) + (ad + bc)i with each product
//     rounded to the part type; complex division is NumPy's Smith algorithm
//     (ratio, then a reciprocal scale) in the part type. Go's own complex
//     operators are not used, because the runtime's division may be fused
//     differently on different architectures.
//   - abs of complex is math.Hypot of the exactly widened parts, rounded to
//     the part type; sign of complex is z/|z| part by part, 0 for 0.
//     Complex transcendentals (and sqrt) are math/cmplx's complex128
//     functions on the widened value, parts rounded to the part type;
//     log1p(z) is log(1+z), expm1(z) is exp(z)−1, rsqrt(z) is 1/sqrt(z)
//     and logistic(z) is 1/(1+exp(−z)), each step rounded to complex128.
//   - select copies the chosen operand's element bit for bit.
//   - argmax and argmin treat −0 and +0 as equal (the first wins), as
//     NumPy and JAX do; maximum and minimum order −0 < +0.
//   - A reduce_sum or reduce_prod whose operand is f16 or bf16 (the tracer
//     never emits one: it converts to f32 first) accumulates in f32 along
//     the same tree and rounds once at the end.
//   - Integer ops that the tracer never emits for integers (floor, ceil,
//     round; real, conj; imag) are the identity, the identity and zeros.
package reference
