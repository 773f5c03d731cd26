package numerics

import "math"

// Float is the IEEE binary formats Go computes in.
type Float interface{ ~float32 | ~float64 }

// Number is every type the kernels add: integers, floats and complex.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Minimum is IEEE 754-2019 minimum: a NaN operand gives that NaN (a's
// when both are), and −0 < +0.
func Minimum[T Float](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a < b:
		return a
	case b < a:
		return b
	case math.Signbit(float64(a)):
		return a // equal: −0 if either is
	}
	return b
}

// Maximum is IEEE 754-2019 maximum: a NaN operand gives that NaN (a's
// when both are), and −0 < +0.
func Maximum[T Float](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a > b:
		return a
	case b > a:
		return b
	case math.Signbit(float64(a)):
		return b // equal: +0 if either is
	}
	return a
}
