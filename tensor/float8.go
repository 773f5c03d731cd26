package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// FloatFormat is one of JAX's 11 narrow floating-point formats (8, 6 and 4
// bits), described by its field widths, bias and special encodings; each
// is also the DType of its arrays (DType, tensor.DType.FloatFormat). A value of a format is
// its bits, in the low bits of a uint8 (as ml_dtypes stores the 6- and
// 4-bit formats, one per byte with the high bits unused).
//
// Conversions follow ml_dtypes' ConvertImpl with its defaults
// (kSaturate=false, kTruncate=false) — what numpy's
// x.astype(ml_dtypes.float8_e4m3fn) gives: round to nearest, ties to even;
// see the package documentation for each format's overflow, NaN and zero
// rules.
type FloatFormat uint8

// The narrow float formats, in the order of JAX's dtypes.py.
const (
	FormatF8E4M3FN      FloatFormat = iota // OCP FP8 E4M3: bias 7, no inf, NaN S.1111.111
	FormatF8E5M2                           // OCP FP8 E5M2: IEEE-like, bias 15, ±inf and NaNs
	FormatF8E4M3FNUZ                       // Graphcore: bias 8, no inf, no −0, NaN 0x80
	FormatF8E5M2FNUZ                       // Graphcore: bias 16, no inf, no −0, NaN 0x80
	FormatF8E4M3B11FNUZ                    // bias 11, no inf, no −0, NaN 0x80
	FormatF8E3M4                           // IEEE-like, bias 3, ±inf and NaNs
	FormatF8E4M3                           // IEEE-like, bias 7, ±inf and NaNs
	FormatF8E8M0FNU                        // OCP MX scale: exponent only, unsigned, no zero, NaN 0xFF
	FormatF6E2M3FN                         // OCP MX FP6 E2M3: bias 1, no inf, no NaN
	FormatF6E3M2FN                         // OCP MX FP6 E3M2: bias 3, no inf, no NaN
	FormatF4E2M1FN                         // OCP MX FP4 E2M1: bias 1, no inf, no NaN
)

// NumFloatFormats is the number of narrow float formats; FloatFormat values
// are 0..NumFloatFormats-1.
const NumFloatFormats = 11

// NaNEncoding says which encodings of a narrow float format are NaN or
// infinite.
type NaNEncoding uint8

const (
	// NaNIEEE: IEEE 754 style. The all-ones exponent with a zero mantissa is
	// ±Inf; with any other mantissa, NaN. Zero is signed.
	NaNIEEE NaNEncoding = iota
	// NaNFN ("finite, NaN"): no infinities; only the encodings with every
	// exponent and mantissa bit set (S.1111.111) are NaN, so the all-ones
	// exponent holds ordinary values too. Zero is signed.
	NaNFN
	// NaNFNUZ ("finite, NaN, unsigned zero"): no infinities and no −0; the
	// encoding of −0 (0x80) is the single NaN.
	NaNFNUZ
	// NaNE8M0: unsigned and exponent only; 0xFF is the single NaN, and
	// there is neither zero nor infinity (0x00 is 2⁻¹²⁷).
	NaNE8M0
	// NaNNone: no NaN and no infinity (the MX 6- and 4-bit formats); every
	// encoding is a finite number. Zero is signed.
	NaNNone
)

var nanEncodingNames = [...]string{"ieee", "fn", "fnuz", "e8m0", "none"}

func (n NaNEncoding) String() string {
	if int(n) < len(nanEncodingNames) {
		return nanEncodingNames[n]
	}
	return fmt.Sprintf("NaNEncoding(%d)", uint8(n))
}

// floatFormatInfo is the table of per-format properties.
type floatFormatInfo struct {
	short, long     string
	bits, exp, mant uint // total, exponent and mantissa bits
	bias            int
	nan             NaNEncoding
}

var floatFormats = [NumFloatFormats]floatFormatInfo{
	FormatF8E4M3FN:      {"f8e4m3fn", "float8_e4m3fn", 8, 4, 3, 7, NaNFN},
	FormatF8E5M2:        {"f8e5m2", "float8_e5m2", 8, 5, 2, 15, NaNIEEE},
	FormatF8E4M3FNUZ:    {"f8e4m3fnuz", "float8_e4m3fnuz", 8, 4, 3, 8, NaNFNUZ},
	FormatF8E5M2FNUZ:    {"f8e5m2fnuz", "float8_e5m2fnuz", 8, 5, 2, 16, NaNFNUZ},
	FormatF8E4M3B11FNUZ: {"f8e4m3b11fnuz", "float8_e4m3b11fnuz", 8, 4, 3, 11, NaNFNUZ},
	FormatF8E3M4:        {"f8e3m4", "float8_e3m4", 8, 3, 4, 3, NaNIEEE},
	FormatF8E4M3:        {"f8e4m3", "float8_e4m3", 8, 4, 3, 7, NaNIEEE},
	FormatF8E8M0FNU:     {"f8e8m0fnu", "float8_e8m0fnu", 8, 8, 0, 127, NaNE8M0},
	FormatF6E2M3FN:      {"f6e2m3fn", "float6_e2m3fn", 6, 2, 3, 1, NaNNone},
	FormatF6E3M2FN:      {"f6e3m2fn", "float6_e3m2fn", 6, 3, 2, 3, NaNNone},
	FormatF4E2M1FN:      {"f4e2m1fn", "float4_e2m1fn", 4, 2, 1, 1, NaNNone},
}

// decodeTables holds every encoding of every format widened to float32,
// filled once from the formats' definitions.
var decodeTables = func() (t [NumFloatFormats][256]float32) {
	for f := range t {
		for b := range 1 << floatFormats[f].bits {
			t[f][b] = FloatFormat(f).decode(uint8(b))
		}
	}
	return t
}()

func (f FloatFormat) info() *floatFormatInfo {
	if int(f) >= NumFloatFormats {
		panic(fmt.Sprintf("tensor: invalid FloatFormat(%d)", uint8(f)))
	}
	return &floatFormats[f]
}

// String returns the name Kiln prints: f8e4m3fn, f4e2m1fn, ….
func (f FloatFormat) String() string {
	if int(f) < NumFloatFormats {
		return floatFormats[f].short
	}
	return fmt.Sprintf("FloatFormat(%d)", uint8(f))
}

// JAXName returns JAX's and ml_dtypes' name: float8_e4m3fn, float4_e2m1fn, ….
func (f FloatFormat) JAXName() string { return f.info().long }

// Bits returns the width of an encoding: 8, 6 or 4.
func (f FloatFormat) Bits() int { return int(f.info().bits) }

// ExpBits returns the width of the exponent field.
func (f FloatFormat) ExpBits() int { return int(f.info().exp) }

// MantBits returns the width of the mantissa (fraction) field.
func (f FloatFormat) MantBits() int { return int(f.info().mant) }

// Bias returns the exponent bias: an encoding with exponent field e ≥ 1
// (any e for f8e8m0fnu) has the value ±2^(e−bias)·(1 + m/2^MantBits), one
// with e = 0 the subnormal ±2^(1−bias)·m/2^MantBits.
func (f FloatFormat) Bias() int { return f.info().bias }

// NaNEncoding returns how the format encodes NaN, infinities and zero.
func (f FloatFormat) NaNEncoding() NaNEncoding { return f.info().nan }

// HasInf reports whether the format has infinities (only the IEEE-like
// f8e5m2, f8e4m3 and f8e3m4 do).
func (f FloatFormat) HasInf() bool { return f.info().nan == NaNIEEE }

// HasNaN reports whether the format has a NaN (all but the MX 6- and 4-bit
// formats).
func (f FloatFormat) HasNaN() bool { return f.info().nan != NaNNone }

// Signed reports whether the format has a sign bit (all but f8e8m0fnu).
func (f FloatFormat) Signed() bool { return f.info().nan != NaNE8M0 }

// maxMag returns the largest finite encoding with the sign bit clear.
func (in *floatFormatInfo) maxMag() uint8 {
	switch in.nan {
	case NaNIEEE:
		return uint8((1<<in.exp-1)<<in.mant - 1) // below the all-ones exponent
	case NaNFN:
		return uint8(1<<(in.exp+in.mant) - 2) // all ones is NaN
	case NaNE8M0:
		return 0xFE
	}
	return uint8(1<<(in.exp+in.mant) - 1) // fnuz and MX: all ones
}

// signBit returns the sign bit of the format (0 for f8e8m0fnu).
func (in *floatFormatInfo) signBit() uint8 {
	if in.nan == NaNE8M0 {
		return 0
	}
	return 1 << (in.bits - 1)
}

// MaxFinite returns the largest finite value of the format.
func (f FloatFormat) MaxFinite() float32 { return decodeTables[f][f.info().maxMag()] }

// IsNaN reports whether the encoding b (its low Bits bits) is a NaN.
func (f FloatFormat) IsNaN(b uint8) bool {
	v := decodeTables[f][b&f.mask()]
	return v != v
}

// IsInf reports whether the encoding b (its low Bits bits) is an infinity.
func (f FloatFormat) IsInf(b uint8) bool {
	return math.IsInf(float64(decodeTables[f][b&f.mask()]), 0)
}

func (f FloatFormat) mask() uint8 { return uint8(1<<f.info().bits - 1) }

// ToFloat32 widens the encoding b to float32, exactly: every value of every
// narrow format is a float32. Only the low Bits bits of b are read. A NaN
// widens to float32's quiet NaN carrying the encoding's sign bit (NaN
// payloads are not kept, as ml_dtypes); an fnuz NaN (0x80) widens to −NaN,
// f8e8m0fnu's 0xFF to +NaN, as ml_dtypes' conversion gives.
func (f FloatFormat) ToFloat32(b uint8) float32 { return decodeTables[f][b&f.mask()] }

// ToFloat64 widens the encoding b to float64, exactly (as ToFloat32).
func (f FloatFormat) ToFloat64(b uint8) float64 { return float64(f.ToFloat32(b)) }

// decode computes the value of an encoding from the format's definition.
func (f FloatFormat) decode(b uint8) float32 {
	in := f.info()
	neg := b&in.signBit() != 0
	nan := math.Float32frombits(0x7fc00000) // quiet, with the encoding's sign
	if neg {
		nan = math.Float32frombits(0xffc00000)
	}
	signed := func(v float64) float32 {
		if neg {
			v = -v
		}
		return float32(v)
	}
	mag := b &^ in.signBit()
	e := int(mag >> in.mant)
	m := int(mag & (1<<in.mant - 1))
	switch in.nan {
	case NaNIEEE:
		if e == 1<<in.exp-1 {
			if m == 0 {
				return signed(math.Inf(1))
			}
			return nan
		}
	case NaNFN:
		if mag == 1<<(in.exp+in.mant)-1 {
			return nan
		}
	case NaNFNUZ:
		if b == 0x80 {
			return nan // the sign bit is set: −NaN
		}
	case NaNE8M0:
		if b == 0xFF {
			return nan // unsigned: +NaN
		}
		return float32(math.Ldexp(1, int(b)-in.bias))
	}
	if e == 0 {
		return signed(math.Ldexp(float64(m), 1-in.bias-int(in.mant)))
	}
	return signed(math.Ldexp(float64(m|1<<in.mant), e-in.bias-int(in.mant)))
}

// FromFloat32 rounds x to the format as ml_dtypes' astype does (the
// package documentation gives the rules): to nearest with ties to even; a
// value beyond the largest finite rounds to ±Inf where the format has
// infinities, to NaN where it has a NaN but no infinities, and to ±max for
// the MX formats, which have neither.
func (f FloatFormat) FromFloat32(x float32) uint8 { return f.FromFloat64(float64(x)) }

// FromFloat64 rounds x to the format directly, once, with FromFloat32's
// rules (ml_dtypes' C++ conversion from double does the same; numpy's
// astype from a float64 array goes through float32 first and so can round
// twice).
func (f FloatFormat) FromFloat64(x float64) uint8 {
	in := f.info()
	neg := math.Signbit(x)
	switch {
	case x != x:
		return in.nanBits(neg)
	case math.IsInf(x, 0):
		return in.infBits(neg)
	case x == 0:
		switch in.nan {
		case NaNFNUZ:
			return 0 // no −0
		case NaNE8M0:
			return 0xFF // no zero: NaN, as ml_dtypes without saturation
		}
		if neg {
			return in.signBit()
		}
		return 0
	}
	b := math.Float64bits(x)
	e64 := int(b>>52) & 0x7ff
	m := b & (1<<52 - 1)
	e := -1074
	if e64 != 0 {
		m |= 1 << 52
		e = e64 - 1075
	}
	if in.nan == NaNE8M0 {
		if neg {
			return 0xFF // no negative numbers: NaN
		}
		return e8m0Round(m, e)
	}
	return in.round(neg, m, e)
}

// nanBits is the encoding a NaN of the given sign converts to: the
// format's quiet NaN (IEEE-like: the all-ones exponent with the top
// mantissa bit) carrying the sign where the format can; payloads are not
// kept, as ml_dtypes. The MX formats have no NaN: ml_dtypes gives the
// negation of their quiet_NaN(), which is the encoding of −0, so NaN
// becomes −0 and −NaN +0.
func (in *floatFormatInfo) nanBits(neg bool) uint8 {
	s := uint8(0)
	if neg {
		s = in.signBit()
	}
	switch in.nan {
	case NaNIEEE:
		return s | uint8(1<<in.exp-1)<<in.mant | 1<<(in.mant-1)
	case NaNFN:
		return s | uint8(1<<(in.exp+in.mant)-1)
	case NaNFNUZ:
		return 0x80
	case NaNE8M0:
		return 0xFF
	}
	return s ^ in.signBit()
}

// infBits is the encoding ±Inf and an overflow convert to.
func (in *floatFormatInfo) infBits(neg bool) uint8 {
	s := uint8(0)
	if neg {
		s = in.signBit()
	}
	switch in.nan {
	case NaNIEEE:
		return s | uint8(1<<in.exp-1)<<in.mant
	case NaNNone:
		return s | in.maxMag() // saturate: no inf and no NaN
	}
	return in.nanBits(neg)
}

// round encodes sign·m·2^e (m > 0) in a signed format, to nearest with
// ties to even, as numerics' smallFormat does for f16 and bf16.
func (in *floatFormatInfo) round(neg bool, m uint64, e int) uint8 {
	emin := 1 - in.bias // smallest normal exponent
	top := bits.Len64(m) - 1 + e
	if top > 1<<in.exp-in.bias { // past any binade of the format
		return in.infBits(neg)
	}
	q := max(top, emin) - int(in.mant) // exponent of the last mantissa bit
	var M uint64
	if shift := q - e; shift <= 0 {
		M = m << uint(-shift) // exact; below 2^(mant+2) since top is bounded
	} else if shift >= 64 {
		M = 0 // far below half the smallest subnormal
	} else {
		M = m >> uint(shift)
		rem := m & (1<<uint(shift) - 1)
		half := uint64(1) << uint(shift-1)
		if rem > half || (rem == half && M&1 == 1) {
			M++
		}
	}
	// (q − emin + mant) << mant + M encodes normals, subnormals and the
	// carry of rounding up into the next binade alike.
	enc := uint64(q-emin+int(in.mant))<<in.mant + M
	if enc > uint64(in.maxMag()) {
		return in.infBits(neg)
	}
	if enc == 0 && in.nan == NaNFNUZ {
		return 0 // underflow to zero: no −0
	}
	if neg {
		return in.signBit() | uint8(enc)
	}
	return uint8(enc)
}

// e8m0Round encodes m·2^e (m > 0) in f8e8m0fnu as ml_dtypes does. The
// format's values are 2^k, k = −127…127. Between two of them ml_dtypes
// rounds to nearest with ties up (every significand is 1, odd, so "to
// even" picks the larger), above 1.5·2¹²⁷ it gives NaN, and below 2⁻¹²⁷ it
// gives 2⁻¹²⁷, the smallest value. One quirk is kept for agreement: in
// (2⁻¹²⁷, 2⁻¹²⁶) ml_dtypes rounds as if 0x00 were a zero below a
// subnormal 2⁻¹²⁶, so every value there, even those nearer 2⁻¹²⁷, gives
// 2⁻¹²⁶.
func e8m0Round(m uint64, e int) uint8 {
	top := bits.Len64(m) - 1 + e // m·2^e is in [2^top, 2^(top+1))
	switch {
	case top < -127:
		return 0x00
	case top == -127:
		if m&(m-1) == 0 { // exactly 2^-127
			return 0x00
		}
		return 0x01
	case top > 127:
		return 0xFF
	}
	k := top + 127
	// The bit below the leading one says whether the significand is ≥ 1.5.
	if bits.Len64(m) >= 2 && m>>(bits.Len64(m)-2)&1 == 1 {
		k++
	}
	if k > 0xFE {
		return 0xFF
	}
	return uint8(k)
}

// ParseFloatFormat parses a narrow float format's name: Kiln's (f8e4m3fn)
// or JAX's (float8_e4m3fn). Case is ignored.
func ParseFloatFormat(s string) (FloatFormat, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for f := range floatFormats {
		if floatFormats[f].short == name || floatFormats[f].long == name {
			return FloatFormat(f), nil
		}
	}
	names := make([]string, NumFloatFormats)
	for f := range floatFormats {
		names[f] = floatFormats[f].short
	}
	return 0, fmt.Errorf("tensor: unknown narrow float format %q (want one of %s, or JAX's float8_e4m3fn …)", s, strings.Join(names, " "))
}
