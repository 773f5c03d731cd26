package numerics

// The leaf of Kiln's fixed summation tree (kernels' package doc): fewer
// than 8 values are added left to right (x[0] first; the sum of nothing is
// 0); otherwise eight lane accumulators r[j] = x[j] take r[j] += x[8i+j]
// for every full group of eight, are combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), and the values left over are added
// to that left to right.

// SumLeaf is the leaf's sum of x, for integers (wrapping) and complex
// numbers.
func SumLeaf[T Number](x []T) T { return sumLeaf(x, func(a, b T) T { return a + b }) }

// SumLeafFloat is the leaf's sum of x with x86's choice of NaN in the
// combining additions (AddFirstNaN), so a vector kernel that keeps each
// addition's operand order gives its bits, NaNs included.
func SumLeafFloat[T Float](x []T) T { return sumLeaf(x, AddFirstNaN[T]) }

// AddFirstNaN is a + b with x86's choice of NaN, which a vector kernel
// keeps by giving a as the first source: a's NaN (quieted) if a is one,
// else b's. A plain a + b leaves the choice to the compiler, which may
// swap the operands of a commutative add.
func AddFirstNaN[T Float](a, b T) T {
	if a != a {
		return a + 0 // quiets a
	}
	return a + b
}

func sumLeaf[T Number](x []T, add func(a, b T) T) T {
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
		// The lane sums add a value loaded from memory, which x86 can only
		// take as the second source: a plain += is its order.
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
	s := add(add(add(r0, r1), add(r2, r3)), add(add(r4, r5), add(r6, r7)))
	for _, v := range x[i:] {
		s += v
	}
	return s
}
