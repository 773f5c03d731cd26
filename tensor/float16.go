package tensor

import "github.com/kiln-go/kiln/internal/numerics"

// Float16 is the IEEE 754 binary16 format (f16) stored in its 16 bits: 1
// sign, 5 exponent and 10 fraction bits. It is the storage type of F16
// arrays, so f16 data can be built with this package alone; conversions
// from wider types round to nearest with ties to even (Float32ToF16,
// Float64ToF16).
type Float16 uint16

// Float16FromBits returns the float16 with the given bits.
func Float16FromBits(u uint16) Float16 { return Float16(u) }

// Bits returns the 16 bits of h.
func (h Float16) Bits() uint16 { return uint16(h) }

// Float32 returns h as a float32 (exact).
func (h Float16) Float32() float32 { return numerics.F16BitsToF32(uint16(h)) }

// IsNaN reports whether h is a NaN.
func (h Float16) IsNaN() bool { return h&0x7fff > 0x7c00 }

// IsInf reports whether h is an infinity: of either sign when sign is 0,
// +Inf when sign > 0, −Inf when sign < 0 (as math.IsInf).
func (h Float16) IsInf(sign int) bool {
	return h&0x7fff == 0x7c00 && (sign == 0 || (sign > 0) == (h&0x8000 == 0))
}

// String prints the shortest decimal that rounds back to h: a float16 0.1
// prints 0.1, not 0.0999755859375.
func (h Float16) String() string { return formatFloat16(float64(h.Float32()), f16Format) }
