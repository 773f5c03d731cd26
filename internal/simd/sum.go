package simd

import "github.com/kiln-go/kiln/internal/numerics"

// SumLeafF64 sums x as a leaf of Kiln's fixed summation tree (kernels'
// package doc): fewer than 8 values are added left to right (x[0] first,
// the sum of nothing is +0); otherwise eight lane accumulators r[j] = x[j]
// take r[j] += x[8i+j] for every full group of eight, are combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), and the values left over are added
// to that left to right. The vector kernels keep each addition's operand
// order, so the result is the twin's bit for bit, NaNs included.
func SumLeafF64(x []float64) float64 {
	if len(x) >= 8 {
		if s, n := sumLeafF64Accel(x); n == len(x) {
			return s
		}
	}
	return numerics.SumLeafFloat(x)
}

// SumLeafF32 is SumLeafF64 for float32 (the eight lanes are one YMM).
func SumLeafF32(x []float32) float32 {
	if len(x) >= 8 {
		if s, n := sumLeafF32Accel(x); n == len(x) {
			return s
		}
	}
	return numerics.SumLeafFloat(x)
}

// SumLeavesF64 sums the leaves of x: dst[k] = SumLeafF64(x[128k :
// min(128k+128, len(x))]) for k < len(dst). Full leaves run several side
// by side, which keeps the vector adders busy where one leaf alone waits
// on its chain of additions.
func SumLeavesF64(dst, x []float64) {
	k := sumLeavesF64Accel(dst, x)
	for ; k < len(dst); k++ {
		dst[k] = SumLeafF64(x[k*leafElems : min(k*leafElems+leafElems, len(x))])
	}
}

// SumLeavesF32 is SumLeavesF64 for float32.
func SumLeavesF32(dst, x []float32) {
	k := sumLeavesF32Accel(dst, x)
	for ; k < len(dst); k++ {
		dst[k] = SumLeafF32(x[k*leafElems : min(k*leafElems+leafElems, len(x))])
	}
}

// leafElems is the length of a full leaf of the summation tree.
const leafElems = 128

// SumLeavesSqDiffF64 sums the leaves of the values (x[i] − c)²:
// dst[k] = SumLeafF64(v[128k : min(128k+128, len(x))]) for k < len(dst),
// where v[i] is SubScalarF64's x[i] − c multiplied by itself (MulF64),
// bit for bit, NaNs included. Full leaves run without writing v (a
// variance's second pass, sum((x − mean)²), reads x once); the rest go
// through those kernels.
func SumLeavesSqDiffF64(dst, x []float64, c float64) {
	k := sumLeavesSqDiffF64Accel(dst, x, c)
	var v [leafElems]float64
	for ; k < len(dst); k++ {
		leaf := x[k*leafElems : min(k*leafElems+leafElems, len(x))]
		d := v[:len(leaf)]
		SubScalarF64(d, leaf, c)
		MulF64(d, d, d)
		dst[k] = SumLeafF64(d)
	}
}

// SumLeavesSqDiffF32 is SumLeavesSqDiffF64 for float32.
func SumLeavesSqDiffF32(dst, x []float32, c float32) {
	k := sumLeavesSqDiffF32Accel(dst, x, c)
	var v [leafElems]float32
	for ; k < len(dst); k++ {
		leaf := x[k*leafElems : min(k*leafElems+leafElems, len(x))]
		d := v[:len(leaf)]
		SubScalarF32(d, leaf, c)
		MulF32(d, d, d)
		dst[k] = SumLeafF32(d)
	}
}
