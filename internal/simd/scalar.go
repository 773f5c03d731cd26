package simd

// Float arithmetic with one scalar operand, s, broadcast to every element.

// AddScalarF32 computes dst[i] = a[i] + s.
func AddScalarF32(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := addScalarF32Accel(dst, a, s)
	addScalarGo(dst[n:], a[n:], s)
}

// AddScalarF64 computes dst[i] = a[i] + s.
func AddScalarF64(dst, a []float64, s float64) {
	a = a[:len(dst)]
	n := addScalarF64Accel(dst, a, s)
	addScalarGo(dst[n:], a[n:], s)
}

// SubScalarF32 computes dst[i] = a[i] - s.
func SubScalarF32(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarF32Accel(dst, a, s)
	subScalarGo(dst[n:], a[n:], s)
}

// SubScalarF64 computes dst[i] = a[i] - s.
func SubScalarF64(dst, a []float64, s float64) {
	a = a[:len(dst)]
	n := subScalarF64Accel(dst, a, s)
	subScalarGo(dst[n:], a[n:], s)
}

// SubScalarRevF32 computes dst[i] = s - a[i].
func SubScalarRevF32(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRevF32Accel(dst, a, s)
	subScalarRevGo(dst[n:], a[n:], s)
}

// SubScalarRevF64 computes dst[i] = s - a[i].
func SubScalarRevF64(dst, a []float64, s float64) {
	a = a[:len(dst)]
	n := subScalarRevF64Accel(dst, a, s)
	subScalarRevGo(dst[n:], a[n:], s)
}

// MulScalarF32 computes dst[i] = a[i] * s.
func MulScalarF32(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := mulScalarF32Accel(dst, a, s)
	mulScalarGo(dst[n:], a[n:], s)
}

// MulScalarF64 computes dst[i] = a[i] * s.
func MulScalarF64(dst, a []float64, s float64) {
	a = a[:len(dst)]
	n := mulScalarF64Accel(dst, a, s)
	mulScalarGo(dst[n:], a[n:], s)
}

// DivScalarF32 computes dst[i] = a[i] / s.
func DivScalarF32(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarF32Accel(dst, a, s)
	divScalarGo(dst[n:], a[n:], s)
}

// DivScalarF64 computes dst[i] = a[i] / s.
func DivScalarF64(dst, a []float64, s float64) {
	a = a[:len(dst)]
	n := divScalarF64Accel(dst, a, s)
	divScalarGo(dst[n:], a[n:], s)
}

// DivScalarRevF32 computes dst[i] = s / a[i].
func DivScalarRevF32(dst, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRevF32Accel(dst, a, s)
	divScalarRevGo(dst[n:], a[n:], s)
}

// DivScalarRevF64 computes dst[i] = s / a[i].
func DivScalarRevF64(dst, a []float64, s float64) {
	a = a[:len(dst)]
	n := divScalarRevF64Accel(dst, a, s)
	divScalarRevGo(dst[n:], a[n:], s)
}

func addScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + s
	}
}

func subScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - s
	}
}

func subScalarRevGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = s - a[i]
	}
}

func mulScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * s
	}
}

func divScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / s
	}
}

func divScalarRevGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = s / a[i]
	}
}
