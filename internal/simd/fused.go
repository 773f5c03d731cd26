package simd

import "unsafe"

// Fused kernels: two operations in one pass over memory, each rounded on
// its own, so they give exactly the bits of the kernels they stand for.
// Kiln's executor merges steps into them.

// AffineF32 computes dst[i] = x[i]*a + b, rounding the product and then
// the sum (no FMA): exactly MulScalarF32 followed by AddScalarF32.
func AffineF32(dst, x []float32, a, b float32) {
	x = x[:len(dst)]
	n := affineF32Accel(dst, x, a, b)
	affineGo(dst[n:], x[n:], a, b)
}

// AffineF64 computes dst[i] = x[i]*a + b, rounding the product and then
// the sum (no FMA): exactly MulScalarF64 followed by AddScalarF64.
func AffineF64(dst, x []float64, a, b float64) {
	x = x[:len(dst)]
	n := affineF64Accel(dst, x, a, b)
	affineGo(dst[n:], x[n:], a, b)
}

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

// AddRoundF16 computes dst[i] = a[i] + b[i] rounded to binary16 (as RoundF16).
func AddRoundF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundF16Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
	roundF16Go(dst[n:])
}

// SubRoundF16 computes dst[i] = a[i] - b[i] rounded to binary16.
func SubRoundF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundF16Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
	roundF16Go(dst[n:])
}

// MulRoundF16 computes dst[i] = a[i] * b[i] rounded to binary16.
func MulRoundF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundF16Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
	roundF16Go(dst[n:])
}

// DivRoundF16 computes dst[i] = a[i] / b[i] rounded to binary16.
func DivRoundF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundF16Accel(dst, a, b)
	divGo(dst[n:], a[n:], b[n:])
	roundF16Go(dst[n:])
}

// AddScalarRoundF16 computes dst[i] = a[i] + s rounded to binary16.
func AddScalarRoundF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := addScalarRoundF16Accel(dst, a, s)
	addScalarGo(dst[n:], a[n:], s)
	roundF16Go(dst[n:])
}

// SubScalarRoundF16 computes dst[i] = a[i] - s rounded to binary16.
func SubScalarRoundF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRoundF16Accel(dst, a, s)
	subScalarGo(dst[n:], a[n:], s)
	roundF16Go(dst[n:])
}

// SubScalarRevRoundF16 computes dst[i] = s - a[i] rounded to binary16.
func SubScalarRevRoundF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRevRoundF16Accel(dst, a, s)
	subScalarRevGo(dst[n:], a[n:], s)
	roundF16Go(dst[n:])
}

// MulScalarRoundF16 computes dst[i] = a[i] * s rounded to binary16.
func MulScalarRoundF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := mulScalarRoundF16Accel(dst, a, s)
	mulScalarGo(dst[n:], a[n:], s)
	roundF16Go(dst[n:])
}

// DivScalarRoundF16 computes dst[i] = a[i] / s rounded to binary16.
func DivScalarRoundF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRoundF16Accel(dst, a, s)
	divScalarGo(dst[n:], a[n:], s)
	roundF16Go(dst[n:])
}

// DivScalarRevRoundF16 computes dst[i] = s / a[i] rounded to binary16.
func DivScalarRevRoundF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRevRoundF16Accel(dst, a, s)
	divScalarRevGo(dst[n:], a[n:], s)
	roundF16Go(dst[n:])
}

// AddRoundBF16 computes dst[i] = a[i] + b[i] rounded to bfloat16 (as RoundBF16).
func AddRoundBF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundBF16Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
	roundBF16Go(dst[n:])
}

// SubRoundBF16 computes dst[i] = a[i] - b[i] rounded to bfloat16.
func SubRoundBF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundBF16Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
	roundBF16Go(dst[n:])
}

// MulRoundBF16 computes dst[i] = a[i] * b[i] rounded to bfloat16.
func MulRoundBF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundBF16Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
	roundBF16Go(dst[n:])
}

// DivRoundBF16 computes dst[i] = a[i] / b[i] rounded to bfloat16.
func DivRoundBF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundBF16Accel(dst, a, b)
	divGo(dst[n:], a[n:], b[n:])
	roundBF16Go(dst[n:])
}

// AddScalarRoundBF16 computes dst[i] = a[i] + s rounded to bfloat16.
func AddScalarRoundBF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := addScalarRoundBF16Accel(dst, a, s)
	addScalarGo(dst[n:], a[n:], s)
	roundBF16Go(dst[n:])
}

// SubScalarRoundBF16 computes dst[i] = a[i] - s rounded to bfloat16.
func SubScalarRoundBF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRoundBF16Accel(dst, a, s)
	subScalarGo(dst[n:], a[n:], s)
	roundBF16Go(dst[n:])
}

// SubScalarRevRoundBF16 computes dst[i] = s - a[i] rounded to bfloat16.
func SubScalarRevRoundBF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRevRoundBF16Accel(dst, a, s)
	subScalarRevGo(dst[n:], a[n:], s)
	roundBF16Go(dst[n:])
}

// MulScalarRoundBF16 computes dst[i] = a[i] * s rounded to bfloat16.
func MulScalarRoundBF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := mulScalarRoundBF16Accel(dst, a, s)
	mulScalarGo(dst[n:], a[n:], s)
	roundBF16Go(dst[n:])
}

// DivScalarRoundBF16 computes dst[i] = a[i] / s rounded to bfloat16.
func DivScalarRoundBF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRoundBF16Accel(dst, a, s)
	divScalarGo(dst[n:], a[n:], s)
	roundBF16Go(dst[n:])
}

// DivScalarRevRoundBF16 computes dst[i] = s / a[i] rounded to bfloat16.
func DivScalarRevRoundBF16(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRevRoundBF16Accel(dst, a, s)
	divScalarRevGo(dst[n:], a[n:], s)
	roundBF16Go(dst[n:])
}
