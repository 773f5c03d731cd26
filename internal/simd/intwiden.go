package simd

// Byte arithmetic widened to float32 in one pass: dst[i] =
// float32(a[i] op b[i]) with the op wrapping in the byte type, as a
// wrapping byte kernel followed by I8ToF32 (or U8ToF32) computes it.

// widenGo is the Go twin.
func widenGo[T int8 | uint8](dst []float32, a, b []T, op func(x, y T) T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = float32(op(a[i], b[i]))
	}
}
