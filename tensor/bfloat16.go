package tensor

import (
	"math"
	"strconv"

	"github.com/kiln-go/kiln/internal/numerics"
)

// BFloat16 is the bfloat16 format stored in its 16 bits: the top half of an
// IEEE float32 (1 sign, 8 exponent, 7 fraction bits).
type BFloat16 uint16

// BFloat16FromFloat32 rounds f to bfloat16, to nearest with ties to even.
// NaN stays NaN (quiet, with its sign), ±Inf and ±0 are kept, and values
// beyond the largest finite bfloat16 round to ±Inf as the rounding dictates.
func BFloat16FromFloat32(f float32) BFloat16 { return BFloat16(numerics.F32ToBF16Bits(f)) }

// BFloat16FromBits returns the bfloat16 with the given bits.
func BFloat16FromBits(u uint16) BFloat16 { return BFloat16(u) }

// Bits returns the 16 bits of b.
func (b BFloat16) Bits() uint16 { return uint16(b) }

// Float32 returns b as a float32 (exact).
func (b BFloat16) Float32() float32 { return numerics.BF16BitsToF32(uint16(b)) }

// IsNaN reports whether b is a NaN.
func (b BFloat16) IsNaN() bool { return b&0x7fff > 0x7f80 }

// String prints the shortest decimal that rounds back to b.
func (b BFloat16) String() string { return formatFloat16(float64(b.Float32()), bf16Format) }

// formatFloat16 prints x (a value of the 16-bit format) as the shortest
// decimal that rounds back to the same 16-bit value.
func formatFloat16(x float64, f smallFormat) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return formatFloat(x, 64)
	}
	want := f.fromFloat64(x)
	for prec := 1; prec < 17; prec++ {
		s := strconv.FormatFloat(x, 'g', prec, 64)
		if y, err := strconv.ParseFloat(s, 64); err == nil && f.fromFloat64(y) == want {
			// Reprint the shortest decimal in Go's shortest style, so 3e+02
			// reads 300 as it would for a float32.
			return strconv.FormatFloat(y, 'g', -1, 64)
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
