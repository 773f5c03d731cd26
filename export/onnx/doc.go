// Package onnx writes a lowered Kiln module (package lower) as an ONNX
// model: a serialized ModelProto of opset 21 (IR version 10), encoded by
// a small protobuf writer of its own, so neither the core nor this
// package depends on a protobuf library. Graph inputs are named after the
// module's parameters (Options.InputNames; arg0, arg1, … by default),
// outputs result (or result0, result1, …). Export takes a module (from
// kiln's Func.Lower, or lower.Lower), ExportProgram a traced program;
// `kiln export --format onnx -o model.onnx --arg … 'EXPR'` is the CLI.
//
// # What is exported
//
// Every elementwise op except those listed below, converts (each
// promotion's convert is a visible Cast), reductions, argmax/argmin over
// one axis, dot_general (batched MatMul; preferred_element_type is
// already explicit converts in the lowered module), broadcast_in_dim,
// reshape, transpose, slice, concatenate, rev, select (Where), iota,
// gather, the scatters and the dynamic slices (flat indices into the
// flattened operand, then Gather or ScatterElements: index.go), sort and
// so top_k and argsort (stable TopK passes: sort.go),
// conv_general_dilated and the pooling built on it (Conv for f32, f16
// and bf16; for f64 and integers, whose Conv ONNX Runtime lacks, input
// patches gathered by a constant table and a MatMul: conv.go), and
// control flow: while — fori_loop, while_loop, scan — as Loop, cond and
// switch as a chain of If (control.go).
// Kiln's semantics are kept where ONNX's op differs or leaves a case
// undefined, by compositions (the same ones lower/stablehlo documents):
//
//   - float floordiv and rem are NumPy's npy_divmod, op for op; integer
//     pow is exponentiation by squaring (wrapping), 0 for a negative
//     exponent but for bases ±1;
//   - integer floordiv and rem floor, x // 0 = x % 0 = 0 and MIN // −1 =
//     MIN: Div and Mod read a divisor with 0 and −1 replaced by 1 (ONNX
//     Runtime's would trap) and the result is fixed up with Where;
//   - shifts by a count outside [0, width) give 0 (or the sign for an
//     arithmetic shr); BitShift is unsigned only, so signed values shift
//     as their unsigned bits and an arithmetic shr is ~(~x >> n);
//   - float → int converts truncate, saturate and map NaN to 0 (Cast of an
//     out-of-range value is undefined): Cast reads a cleaned copy and
//     Where selects the saturated values; → bool is x != 0;
//   - max and min are IEEE 754-2019 maximum/minimum (NaN propagates, −0 <
//     +0), and so are reduce_max/min; sign(±0) = +0, sign(NaN) = NaN;
//   - reduce_sum and reduce_prod are Kiln's fixed summation tree
//     (kernels/doc.go) built from elementwise Add/Mul, so float sums have
//     Kiln's bits and integer sums wrap (ONNX Runtime's integer ReduceSum
//     saturates); a float sum starts from +0;
//   - f16 and bf16 compute in f32 and round after every op — Kiln's rule —
//     as explicit Casts around each op; integers narrower than 32 bits
//     compute in i32, u32 and u64 in i64 (wrapping back through Cast; u64
//     orderings flip the sign bit first), because ONNX Runtime's CPU
//     kernels lack most small integer types;
//   - logistic is 1/(1+e^−x) (e^x/(1+e^x) below 0), tanh is x below
//     2^−12 (f32) / 2^−27 (f64), log1p and expm1 are Goldberg's and
//     Kahan's compositions, log2/log10 are ln x / ln 2 and ln 10, exp2 is
//     Pow(2, x), rsqrt is 1/√x: ONNX Runtime's Sigmoid and Tanh are
//     approximations far outside Kiln's ulp bounds for small results;
//   - a bf16 × bf16 dot or convolution reads subnormal inputs as zero and
//     flushes subnormal results (SPEC §3's bf16 rule); bool dot is an f32 MatMul
//     compared with 0.
//
// # What is refused
//
// An instruction ONNX cannot express with Kiln's semantics is an
// *UnsupportedError naming it, its dtype and the user's call site; Export
// never writes a model that computes something else. Refused today:
// complex dtypes (ONNX Runtime has no complex kernels); the narrow dtypes
// (f8e4m3fn … f4e2m1fn, i4 u4 i2 u2: ONNX's FLOAT8*/INT4/UINT4 run only in
// ONNX Runtime's Cast and (De)QuantizeLinear, the others have no ONNX
// type), as an input, a result or any value of the module; bitcast_convert
// and threefry2x32 (no bitcast in ONNX; threefry is expressible but not
// translated yet); atan2, copysign, nextafter, erfc, erf_inv (no ONNX
// op, and compositions miss the ulp bounds or the signs of zeros and
// NaNs); f64 hypot and cbrt (f32 and narrower compute them in f64); f64
// of Tan, Cos, the inverse and hyperbolic trig functions and Erf (ONNX
// Runtime's kernels are f32 only or, for Cos, inaccurate for large
// arguments); convert from
// f64 to f16/bf16 (ONNX Runtime rounds through f32, twice); argmax over
// several axes; float scatter_max/min (ScatterElements' max/min is not
// IEEE maximum/minimum) and f16/bf16 scatter_add/mul (no ONNX Runtime
// kernel, and f32 would round once where Kiln rounds after every update);
// bool convolutions.
//
// # Numerics under ONNX Runtime
//
// Run by ONNX Runtime (package kernels/ort), an exported model agrees
// with Kiln's CPU backend bit for bit on integers, bools, converts,
// comparisons, structural ops, selects, reductions (the tree above),
// gathers, scatters, sorts and control flow, and on f16/bf16 (rounded
// after every op, as Kiln does). Transcendental
// functions are ONNX Runtime's (within 8 ulps of Kiln's, like any
// backend's). dot_general and convolutions are ONNX Runtime's MatMul and
// Conv, which add in their own order: float results agree within 2^−(p−6) of the element's magnitude
// plus the output's largest (p the precision: about 3.8e-6 for f32,
// 7e-15 for f64). Which NaN a result holds is not kept (NaN payloads of
// f16/bf16 values may be quieted by the f32 round trip).
package onnx
