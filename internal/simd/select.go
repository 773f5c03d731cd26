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
