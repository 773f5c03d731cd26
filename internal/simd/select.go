package simd

import "unsafe"

// SelectF32 computes dst[i] = c[i] ? a[i] : b[i].
func SelectF32(dst []float32, c []bool, a, b []float32) {
	Select32(asWords[uint32](dst), c, asWords[uint32](a), asWords[uint32](b))
}

// SelectF64 computes dst[i] = c[i] ? a[i] : b[i].
func SelectF64(dst []float64, c []bool, a, b []float64) {
	Select64(asWords[uint64](dst), c, asWords[uint64](a), asWords[uint64](b))
}

// Select8 computes dst[i] = c[i] ? a[i] : b[i] on bytes (bool, int8, uint8).
func Select8(dst []uint8, c []bool, a, b []uint8) {
	c, a, b = c[:len(dst)], a[:len(dst)], b[:len(dst)]
	n := select8Accel(dst, c, a, b)
	selectGo(dst[n:], c[n:], a[n:], b[n:])
}

// Select16 computes dst[i] = c[i] ? a[i] : b[i] on 2-byte words (int16,
// uint16, f16, bf16 bits).
func Select16(dst []uint16, c []bool, a, b []uint16) {
	c, a, b = c[:len(dst)], a[:len(dst)], b[:len(dst)]
	n := select16Accel(dst, c, a, b)
	selectGo(dst[n:], c[n:], a[n:], b[n:])
}

// Select32 computes dst[i] = c[i] ? a[i] : b[i] on 4-byte words (int32,
// uint32, float32 bits).
func Select32(dst []uint32, c []bool, a, b []uint32) {
	c, a, b = c[:len(dst)], a[:len(dst)], b[:len(dst)]
	n := select32Accel(dst, c, a, b)
	selectGo(dst[n:], c[n:], a[n:], b[n:])
}

// Select64 computes dst[i] = c[i] ? a[i] : b[i] on 8-byte words (int64,
// uint64, float64 bits).
func Select64(dst []uint64, c []bool, a, b []uint64) {
	c, a, b = c[:len(dst)], a[:len(dst)], b[:len(dst)]
	n := select64Accel(dst, c, a, b)
	selectGo(dst[n:], c[n:], a[n:], b[n:])
}

func selectGo[T any](dst []T, c []bool, a, b []T) {
	c, a, b = c[:len(dst)], a[:len(dst)], b[:len(dst)]
	for i := range dst {
		if c[i] {
			dst[i] = a[i]
		} else {
			dst[i] = b[i]
		}
	}
}

// asWords views a slice of floats as the words holding their bits.
func asWords[W uint32 | uint64, F float](s []F) []W {
	return unsafe.Slice((*W)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
