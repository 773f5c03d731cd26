package simd

import "unsafe"

// Fused kernels: two operations in one pass over memory, each rounded on
// its own, so they give exactly the bits of the kernels they stand for.
// Kiln's executor merges steps into them. Most are generated (wrappers.go):
// AffineF32, the f32 arithmetic rounded to binary16 or bfloat16
// (AddRoundF16, …), and the same arithmetic storing its result as binary16
// or bfloat16 bits (AddToF16: dst[i] = F32ToF16(a[i] + b[i]), one pass
// where the op and the narrowing store of an f16 loop's result were two).

// AffineNTF32 is AffineF32 writing the 64-byte aligned body of dst with
// non-temporal stores, which bypass the caches and skip the read for
// ownership: faster for a dst far larger than the caches, slower for one
// that is read again soon. The stores are fenced (SFENCE) before it
// returns.
func AffineNTF32(dst, x []float32, a, b float32) {
	x = x[:len(dst)]
	h := ntHead(unsafe.Pointer(unsafe.SliceData(dst)), len(dst), 4)
	AffineF32(dst[:h], x[:h], a, b)
	n := h + affineNTF32Accel(dst[h:], x[h:], a, b)
	affineGo(dst[n:], x[n:], a, b)
}

// AffineNTF64 is AffineF64 with non-temporal stores (see AffineNTF32).
func AffineNTF64(dst, x []float64, a, b float64) {
	x = x[:len(dst)]
	h := ntHead(unsafe.Pointer(unsafe.SliceData(dst)), len(dst), 8)
	AffineF64(dst[:h], x[:h], a, b)
	n := h + affineNTF64Accel(dst[h:], x[h:], a, b)
	affineGo(dst[n:], x[n:], a, b)
}

// ntHead is how many of the n elements of size bytes at p come before the
// first 64-byte boundary: the head written with normal stores. A dst not
// aligned to its element size never reaches one, so all of it is head.
func ntHead(p unsafe.Pointer, n, size int) int {
	a := uintptr(p)
	if a%uintptr(size) != 0 {
		return n
	}
	return min(n, int((64-a%64)%64)/size)
}

func affineGo[T float](dst, x []T, a, b T) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = T(x[i]*a) + b // the conversion rounds the product: no FMA
	}
}

// Arithmetic rounded to binary16 or bfloat16: dst[i] = RoundF16(a[i] ∘ b[i])
// and so on, the f16 and bf16 ops of the executor (computed in f32 and
// rounded after every op).
