package simd

// Integer arithmetic wraps (two's complement). Wrapping addition,
// subtraction and multiplication give the same bits for signed and
// unsigned words, so unsigned slices use these kernels through a view of
// the same memory, e.g. unsafe.Slice((*int8)(unsafe.SliceData(u)), len(u)).

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// AddI8 computes dst[i] = a[i] + b[i], wrapping.
func AddI8(dst, a, b []int8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addI8Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
}

// SubI8 computes dst[i] = a[i] - b[i], wrapping.
func SubI8(dst, a, b []int8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subI8Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
}

// MulI8 computes dst[i] = a[i] * b[i], wrapping.
func MulI8(dst, a, b []int8) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulI8Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
}

// AddI16 computes dst[i] = a[i] + b[i], wrapping.
func AddI16(dst, a, b []int16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addI16Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
}

// SubI16 computes dst[i] = a[i] - b[i], wrapping.
func SubI16(dst, a, b []int16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subI16Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
}

// MulI16 computes dst[i] = a[i] * b[i], wrapping.
func MulI16(dst, a, b []int16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulI16Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
}

// AddI32 computes dst[i] = a[i] + b[i], wrapping.
func AddI32(dst, a, b []int32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addI32Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
}

// SubI32 computes dst[i] = a[i] - b[i], wrapping.
func SubI32(dst, a, b []int32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subI32Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
}

// MulI32 computes dst[i] = a[i] * b[i], wrapping.
func MulI32(dst, a, b []int32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulI32Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
}

// AddI64 computes dst[i] = a[i] + b[i], wrapping.
func AddI64(dst, a, b []int64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addI64Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
}

// SubI64 computes dst[i] = a[i] - b[i], wrapping.
func SubI64(dst, a, b []int64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subI64Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
}

// MulI64 computes dst[i] = a[i] * b[i], wrapping.
func MulI64(dst, a, b []int64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulI64Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
}
