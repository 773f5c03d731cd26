package tensor

import (
	"math"
	"math/bits"

	"github.com/kiln-go/kiln/internal/numerics"
)

// binary16-like formats narrower than float32, described by their field
// widths. narrowBits rounds an exact value m·2^e to such a format, to
// nearest with ties to even, in one step — so f64 → f16 and i64 → bf16 never
// double-round through f32.
type smallFormat struct {
	mant, exp uint // fraction and exponent field widths
}

var (
	f16Format  = smallFormat{mant: 10, exp: 5}
	bf16Format = smallFormat{mant: 7, exp: 8}
)

// fromMagnitude encodes sign·m·2^e (m > 0) in the format, correctly rounded.
func (f smallFormat) fromMagnitude(neg bool, m uint64, e int) uint16 {
	bias := 1<<(f.exp-1) - 1
	emin := 1 - bias // smallest normal exponent
	expMask := uint32(1)<<f.exp - 1
	sign := uint32(0)
	if neg {
		sign = 1 << (f.mant + f.exp)
	}
	top := bits.Len64(m) - 1 + e // the value is in [2^top, 2^(top+1))
	q := max(top, emin) - int(f.mant)
	// M = round(m · 2^(e−q)), half to even.
	var M uint64
	if shift := q - e; shift <= 0 {
		if -shift >= 64-bits.Len64(m) {
			return uint16(sign | expMask<<f.mant) // far beyond the range
		}
		M = m << uint(-shift)
	} else if shift >= 64 {
		M = 0 // far below half the smallest subnormal
	} else {
		M = m >> uint(shift)
		rem := m & (uint64(1)<<uint(shift) - 1)
		half := uint64(1) << uint(shift-1)
		if rem > half || (rem == half && M&1 == 1) {
			M++
		}
	}
	// (q − emin + mant) << mant + M encodes normals, subnormals and the
	// carry of rounding up into the next binade alike.
	enc := uint64(q-emin+int(f.mant))<<f.mant + M
	if enc >= uint64(expMask)<<f.mant {
		return uint16(sign | expMask<<f.mant) // overflow rounds to ±Inf
	}
	return uint16(sign | uint32(enc))
}

// fromFloat64 rounds x to the format. NaN stays NaN (quiet, sign and top
// payload bits kept), ±Inf and ±0 are kept.
func (f smallFormat) fromFloat64(x float64) uint16 {
	b := math.Float64bits(x)
	neg := b>>63 != 0
	expMask := uint32(1)<<f.exp - 1
	sign := uint32(b>>63) << (f.mant + f.exp)
	e64 := int(b>>52) & 0x7ff
	m64 := b & (1<<52 - 1)
	switch {
	case e64 == 0x7ff && m64 != 0:
		payload := uint32(m64>>(52-f.mant)) | 1<<(f.mant-1) // quiet
		return uint16(sign | expMask<<f.mant | payload)
	case e64 == 0x7ff:
		return uint16(sign | expMask<<f.mant)
	case e64 == 0 && m64 == 0:
		return uint16(sign)
	case e64 == 0:
		return f.fromMagnitude(neg, m64, -1074)
	}
	return f.fromMagnitude(neg, m64|1<<52, e64-1075)
}

// fromInt64 rounds an integer to the format.
func (f smallFormat) fromInt64(v int64) uint16 {
	if v == 0 {
		return 0
	}
	if v < 0 {
		return f.fromMagnitude(true, uint64(-v), 0) // -MinInt64 wraps to 2^63 as uint64: still right
	}
	return f.fromMagnitude(false, uint64(v), 0)
}

// fromUint64 rounds an unsigned integer to the format.
func (f smallFormat) fromUint64(v uint64) uint16 {
	if v == 0 {
		return 0
	}
	return f.fromMagnitude(false, v, 0)
}

// Float64ToF16 rounds x to float16, to nearest with ties to even, directly
// from float64 (no double rounding through float32).
func Float64ToF16(x float64) Float16 { return Float16FromBits(f16Format.fromFloat64(x)) }

// Float64ToBF16 rounds x to bfloat16, to nearest with ties to even, directly
// from float64.
func Float64ToBF16(x float64) BFloat16 { return BFloat16(bf16Format.fromFloat64(x)) }

// Float32ToF16 rounds x to float16, to nearest with ties to even.
func Float32ToF16(x float32) Float16 { return Float16FromBits(numerics.F32ToF16Bits(x)) }
