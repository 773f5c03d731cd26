package simd

// The f32 arithmetic of fused.go storing its result as binary16 or
// bfloat16 bits: dst[i] = F32ToF16(a[i] ∘ b[i]) and so on, one pass where
// the op and the narrowing store of an f16 loop's result were two.

// AddToF16 computes dst[i] = a[i] + b[i] stored as binary16 (as F32ToF16).
func AddToF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] + b[i])
	}
}

// SubToF16 computes dst[i] = a[i] - b[i] stored as binary16 (as F32ToF16).
func SubToF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] - b[i])
	}
}

// MulToF16 computes dst[i] = a[i] * b[i] stored as binary16 (as F32ToF16).
func MulToF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] * b[i])
	}
}

// DivToF16 computes dst[i] = a[i] / b[i] stored as binary16 (as F32ToF16).
func DivToF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] / b[i])
	}
}

// AddScalarToF16 computes dst[i] = a[i] + s stored as binary16 (as F32ToF16).
func AddScalarToF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := addScalarToF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] + s)
	}
}

// SubScalarToF16 computes dst[i] = a[i] - s stored as binary16 (as F32ToF16).
func SubScalarToF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarToF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] - s)
	}
}

// SubScalarRevToF16 computes dst[i] = s - a[i] stored as binary16 (as F32ToF16).
func SubScalarRevToF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRevToF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(s - a[i])
	}
}

// MulScalarToF16 computes dst[i] = a[i] * s stored as binary16 (as F32ToF16).
func MulScalarToF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := mulScalarToF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] * s)
	}
}

// DivScalarToF16 computes dst[i] = a[i] / s stored as binary16 (as F32ToF16).
func DivScalarToF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarToF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(a[i] / s)
	}
}

// DivScalarRevToF16 computes dst[i] = s / a[i] stored as binary16 (as F32ToF16).
func DivScalarRevToF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRevToF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToF16Bits(s / a[i])
	}
}

// AddToBF16 computes dst[i] = a[i] + b[i] stored as bfloat16 (as F32ToBF16).
func AddToBF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToBF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] + b[i])
	}
}

// SubToBF16 computes dst[i] = a[i] - b[i] stored as bfloat16 (as F32ToBF16).
func SubToBF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToBF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] - b[i])
	}
}

// MulToBF16 computes dst[i] = a[i] * b[i] stored as bfloat16 (as F32ToBF16).
func MulToBF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToBF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] * b[i])
	}
}

// DivToBF16 computes dst[i] = a[i] / b[i] stored as bfloat16 (as F32ToBF16).
func DivToBF16(dst []uint16, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToBF16Accel(dst, a, b)
	a, b = a[n:], b[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] / b[i])
	}
}

// AddScalarToBF16 computes dst[i] = a[i] + s stored as bfloat16 (as F32ToBF16).
func AddScalarToBF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := addScalarToBF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] + s)
	}
}

// SubScalarToBF16 computes dst[i] = a[i] - s stored as bfloat16 (as F32ToBF16).
func SubScalarToBF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarToBF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] - s)
	}
}

// SubScalarRevToBF16 computes dst[i] = s - a[i] stored as bfloat16 (as F32ToBF16).
func SubScalarRevToBF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := subScalarRevToBF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(s - a[i])
	}
}

// MulScalarToBF16 computes dst[i] = a[i] * s stored as bfloat16 (as F32ToBF16).
func MulScalarToBF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := mulScalarToBF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] * s)
	}
}

// DivScalarToBF16 computes dst[i] = a[i] / s stored as bfloat16 (as F32ToBF16).
func DivScalarToBF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarToBF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(a[i] / s)
	}
}

// DivScalarRevToBF16 computes dst[i] = s / a[i] stored as bfloat16 (as F32ToBF16).
func DivScalarRevToBF16(dst []uint16, a []float32, s float32) {
	a = a[:len(dst)]
	n := divScalarRevToBF16Accel(dst, a, s)
	a = a[n:]
	for i := range dst[n:] {
		dst[n+i] = f32ToBF16Bits(s / a[i])
	}
}
