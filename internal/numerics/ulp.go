package numerics

import "math"

// ULP32 is the distance between a and b in representable float32 values
// (the number of steps from one to the other; −0 and +0 are one value):
// 0 when both are NaN, math.MaxInt64 when only one is.
func ULP32(a, b float32) int64 {
	if a != a || b != b {
		return nanDistance(a != a && b != b)
	}
	return ULPBits(uint64(math.Float32bits(a)), uint64(math.Float32bits(b)), 32)
}

// ULP64 is ULP32 for float64.
func ULP64(a, b float64) int64 {
	if a != a || b != b {
		return nanDistance(a != a && b != b)
	}
	return ULPBits(math.Float64bits(a), math.Float64bits(b), 64)
}

func nanDistance(both bool) int64 {
	if both {
		return 0
	}
	return math.MaxInt64
}

// ULPBits is the distance in representable values between two non-NaN
// floats of an IEEE binary format width bits wide (16 for binary16 and
// bfloat16, 32, 64), given their bit patterns; math.MaxInt64 when it does
// not fit.
func ULPBits(a, b uint64, width int) int64 {
	x, y := ordered(a, width), ordered(b, width)
	if (x < 0) != (y < 0) && (x < 0 && y > math.MaxInt64+x || y < 0 && x > math.MaxInt64+y) {
		return math.MaxInt64 // across zero and too far to count
	}
	if d := x - y; d >= 0 {
		return d
	}
	return y - x
}

// ordered maps float bits to integers in the order of the values (±0 to 0).
func ordered(bits uint64, width int) int64 {
	sign := uint64(1) << (width - 1)
	if bits&sign != 0 {
		return -int64(bits &^ sign)
	}
	return int64(bits)
}

// Same reports whether a and b are the same value: equal, −0 told from
// +0, and any NaN the same as any NaN.
func Same(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}
