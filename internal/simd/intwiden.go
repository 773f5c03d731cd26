package simd

// Byte arithmetic widened to float32 in one pass: dst[i] =
// float32(a[i] op b[i]) with the op wrapping in the byte type, as a
// wrapping byte kernel followed by I8ToF32 (or U8ToF32) computes it.

// AddI8ToF32 computes dst[i] = float32(a[i] + b[i]), the sum wrapping in int8.
func AddI8ToF32(dst []float32, a, b []int8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addI8ToF32Accel(dst, a, b)
	widenGo(dst[n:], a[n:], b[n:], func(x, y int8) int8 { return x + y })
}

// SubI8ToF32 computes dst[i] = float32(a[i] - b[i]), wrapping in int8.
func SubI8ToF32(dst []float32, a, b []int8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subI8ToF32Accel(dst, a, b)
	widenGo(dst[n:], a[n:], b[n:], func(x, y int8) int8 { return x - y })
}

// MulI8ToF32 computes dst[i] = float32(a[i] * b[i]), wrapping in int8.
func MulI8ToF32(dst []float32, a, b []int8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulI8ToF32Accel(dst, a, b)
	widenGo(dst[n:], a[n:], b[n:], func(x, y int8) int8 { return x * y })
}

// AddU8ToF32 computes dst[i] = float32(a[i] + b[i]), wrapping in uint8.
func AddU8ToF32(dst []float32, a, b []uint8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addU8ToF32Accel(dst, a, b)
	widenGo(dst[n:], a[n:], b[n:], func(x, y uint8) uint8 { return x + y })
}

// SubU8ToF32 computes dst[i] = float32(a[i] - b[i]), wrapping in uint8.
func SubU8ToF32(dst []float32, a, b []uint8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subU8ToF32Accel(dst, a, b)
	widenGo(dst[n:], a[n:], b[n:], func(x, y uint8) uint8 { return x - y })
}

// MulU8ToF32 computes dst[i] = float32(a[i] * b[i]), wrapping in uint8.
func MulU8ToF32(dst []float32, a, b []uint8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulU8ToF32Accel(dst, a, b)
	widenGo(dst[n:], a[n:], b[n:], func(x, y uint8) uint8 { return x * y })
}

// widenGo is the Go twin.
func widenGo[T int8 | uint8](dst []float32, a, b []T, op func(x, y T) T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = float32(op(a[i], b[i]))
	}
}
