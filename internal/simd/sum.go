package simd

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
	return sumLeafGo(x)
}

// SumLeafF32 is SumLeafF64 for float32 (the eight lanes are one YMM).
func SumLeafF32(x []float32) float32 {
	if len(x) >= 8 {
		if s, n := sumLeafF32Accel(x); n == len(x) {
			return s
		}
	}
	return sumLeafGo(x)
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

func sumLeafGo[T float](x []T) T {
	n := len(x)
	if n < 8 {
		var s T
		if n > 0 {
			s = x[0]
		}
		for _, v := range x[min(n, 1):] {
			s += v
		}
		return s
	}
	r0, r1, r2, r3, r4, r5, r6, r7 := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
	i := 8
	for ; i+8 <= n; i += 8 {
		y := x[i : i+8 : i+8]
		r0 += y[0]
		r1 += y[1]
		r2 += y[2]
		r3 += y[3]
		r4 += y[4]
		r5 += y[5]
		r6 += y[6]
		r7 += y[7]
	}
	s := addL(addL(addL(r0, r1), addL(r2, r3)), addL(addL(r4, r5), addL(r6, r7)))
	for _, v := range x[i:] {
		s += v
	}
	return s
}

// addL is a + b with x86's choice of NaN, which a vector kernel keeps by
// giving a as the first source: a's NaN (quieted) if a is one, else b's.
// A plain a + b would leave the choice to the compiler, which may swap the
// operands of a commutative add. (The lane sums above add a value loaded
// from memory, which x86 can only take as the second source.)
func addL[T float](a, b T) T {
	if a != a {
		return a + 0 // quiets a
	}
	return a + b
}
