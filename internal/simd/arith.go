package simd

// Element-wise float arithmetic. Each exported kernel runs whole vectors in
// assembly (the ...Accel call returns how many elements it did, 0 at the
// Generic tier) and finishes with its Go twin.

type float interface{ ~float32 | ~float64 }

// AddF32 computes dst[i] = a[i] + b[i].
func AddF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addF32Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
}

// AddF64 computes dst[i] = a[i] + b[i].
func AddF64(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addF64Accel(dst, a, b)
	addGo(dst[n:], a[n:], b[n:])
}

// SubF32 computes dst[i] = a[i] - b[i].
func SubF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subF32Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
}

// SubF64 computes dst[i] = a[i] - b[i].
func SubF64(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subF64Accel(dst, a, b)
	subGo(dst[n:], a[n:], b[n:])
}

// MulF32 computes dst[i] = a[i] * b[i].
func MulF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulF32Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
}

// MulF64 computes dst[i] = a[i] * b[i].
func MulF64(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulF64Accel(dst, a, b)
	mulGo(dst[n:], a[n:], b[n:])
}

// DivF32 computes dst[i] = a[i] / b[i].
func DivF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divF32Accel(dst, a, b)
	divGo(dst[n:], a[n:], b[n:])
}

// DivF64 computes dst[i] = a[i] / b[i].
func DivF64(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divF64Accel(dst, a, b)
	divGo(dst[n:], a[n:], b[n:])
}

// SqrtF32 computes dst[i] = sqrt(a[i]), correctly rounded.
func SqrtF32(dst, a []float32) {
	a = a[:len(dst)]
	n := sqrtF32Accel(dst, a)
	sqrtF32Go(dst[n:], a[n:])
}

// SqrtF64 computes dst[i] = math.Sqrt(a[i]).
func SqrtF64(dst, a []float64) {
	a = a[:len(dst)]
	n := sqrtF64Accel(dst, a)
	sqrtF64Go(dst[n:], a[n:])
}

func addGo[T number](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

func subGo[T number](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

func mulGo[T number](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

func divGo[T float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / b[i]
	}
}
