package simd

// Integer arithmetic wraps (two's complement). Wrapping addition,
// subtraction and multiplication give the same bits for signed and
// unsigned words, so unsigned slices use these kernels through a view of
// the same memory, e.g. unsafe.Slice((*int8)(unsafe.SliceData(u)), len(u)).

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}
