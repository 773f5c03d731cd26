// Package xmath holds the scalar float64 functions of the CPU backend that
// package math does not compute within docs/SPEC.md §3's 1 ulp: Tan, Pow, Rsqrt
// and Expm1, and the trigonometric argument reduction TrigReduce that
// internal/simd's sin and cos share with Tan (Cody–Waite up to 2**48, a
// Payne–Hanek reduction with a table of 2/π bits beyond).
//
// The functions of issue 13 — Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh,
// Acosh, Atanh, Exp2, Log2, Log10, Cbrt, Hypot, Erf, Erfc and Erfinv —
// evaluate their formula in double-double arithmetic (dd.go: about 106
// bits, products through math.FMA) and round once, with results that leave
// the normal range rounded once too (roundScaled). They are correctly
// rounded but for arguments whose result lies within about 2**−100 of a
// midpoint between doubles: at every one of the million random points per
// function of TestAccuracy (every binade, both signs, the arguments near
// ±1 and the subnormals) they gave the correctly rounded result. Package
// math, by comparison, is off by up to 25 ulps (Log2), 19 (Acos), 6
// (Erfinv), 4 (Asin), 3 (Erfc) and 2 (Sinh, Acosh, Log10, Atan2). A dd
// function costs 0.1–3 µs, so the CPU backend uses them for f64 only; f32,
// f16 and bf16 round package math's float64 result, within ½ ulp plus a
// part in 2**28 of their own precision. Measured (the root package's
// TestAccuracyF32 and TestAccuracyNarrow, go test -v -run Accuracy): f32
// equals the correctly rounded result at every one of a million random
// points per function (every binade, both signs); bf16 at every one of
// its 65,536 inputs; f16, which rounds the f32 result again as the SPEC
// says, is within 1 ulp at every input (arcsin, arctanh and log2 exact).
//
// Every function is pure Go and deterministic: each product that feeds a
// sum is rounded explicitly (a float64 conversion), so the compiler may not
// contract it into an FMA on any platform, and FMA is used only where it is
// written (math.FMA, which is exact on every platform). The OpenCL backend
// ports Tan and TrigReduce operation for operation so that its bits are
// these (kernels/opencl/helpers_trig.go).
//
// Accuracy is checked against the correctly rounded result of
// internal/bigmath over a million random points per function
// (-xmath.points; checked with math/big where package math disagrees and on
// a sample, or everywhere with -xmath.full) and the known hard cases:
// within 1 ulp everywhere (docs/SPEC.md §3). The same tests hold math.Log1p,
// which the CPU backend uses as it is, to that bound.
package xmath
