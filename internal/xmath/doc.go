// Package xmath holds the scalar float64 functions of the CPU backend that
// package math does not compute within docs/SPEC.md §3's 1 ulp: Tan, Pow, Rsqrt
// and Expm1, and the trigonometric argument reduction TrigReduce that
// internal/simd's sin and cos share with Tan (Cody–Waite up to 2**48, a
// Payne–Hanek reduction with a table of 2/π bits beyond).
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
