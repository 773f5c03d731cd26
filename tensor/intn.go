package tensor

import (
	"fmt"
	"math"
	"strings"
)

// IntFormat is one of JAX's sub-byte integer formats: int4, uint4, int2,
// uint2, each the format of a narrow DType (IntFormat.DType). A single
// value is its two's complement field in the low bits of a uint8; packed,
// 8/Bits values share a byte, the first value in the lowest bits
// (PackInts, UnpackInts, UnpackStorage; a packed Array, FromPacked, holds
// its elements so — see the package documentation).
type IntFormat uint8

// The sub-byte integer formats.
const (
	FormatI4 IntFormat = iota // int4: −8 … 7
	FormatU4                  // uint4: 0 … 15
	FormatI2                  // int2: −2 … 1
	FormatU2                  // uint2: 0 … 3
)

// NumIntFormats is the number of sub-byte integer formats.
const NumIntFormats = 4

var intFormats = [NumIntFormats]struct {
	short, long string
	bits        uint
	signed      bool
}{
	FormatI4: {"i4", "int4", 4, true},
	FormatU4: {"u4", "uint4", 4, false},
	FormatI2: {"i2", "int2", 2, true},
	FormatU2: {"u2", "uint2", 2, false},
}

func (f IntFormat) valid() bool { return int(f) < NumIntFormats }

func (f IntFormat) bits() uint {
	if !f.valid() {
		panic(fmt.Sprintf("tensor: invalid IntFormat(%d)", uint8(f)))
	}
	return intFormats[f].bits
}

// String returns the name Kiln prints: i4, u4, i2, u2.
func (f IntFormat) String() string {
	if f.valid() {
		return intFormats[f].short
	}
	return fmt.Sprintf("IntFormat(%d)", uint8(f))
}

// JAXName returns JAX's and ml_dtypes' name: int4, uint4, int2, uint2.
func (f IntFormat) JAXName() string {
	f.bits()
	return intFormats[f].long
}

// Bits returns the width of a value: 4 or 2.
func (f IntFormat) Bits() int { return int(f.bits()) }

// Signed reports whether the format is two's complement signed.
func (f IntFormat) Signed() bool {
	f.bits()
	return intFormats[f].signed
}

// PerByte returns how many values one byte holds when packed: 2 or 4.
func (f IntFormat) PerByte() int { return 8 / f.Bits() }

// Min returns the smallest value: −8, 0, −2 or 0.
func (f IntFormat) Min() int64 {
	if f.Signed() {
		return -1 << (f.bits() - 1)
	}
	return 0
}

// Max returns the largest value: 7, 15, 1 or 3.
func (f IntFormat) Max() int64 {
	if f.Signed() {
		return 1<<(f.bits()-1) - 1
	}
	return 1<<f.bits() - 1
}

func (f IntFormat) mask() uint8 { return uint8(1<<f.bits() - 1) }

// FromInt64 converts v by keeping its low Bits bits (two's complement
// wraparound, as JAX's astype between integer types and ml_dtypes' intN
// constructor do): int4 of 9 is −7, uint4 of −1 is 15.
func (f IntFormat) FromInt64(v int64) uint8 { return uint8(v) & f.mask() }

// FromUint64 converts v by keeping its low Bits bits, as FromInt64.
func (f IntFormat) FromUint64(v uint64) uint8 { return uint8(v) & f.mask() }

// FromFloat64 converts x as Kiln converts every float to an integer type
// (docs/SPEC.md §3, XLA's rule): truncate toward zero, saturate to
// [Min, Max], NaN → 0. int4 of 7.9 is 7, of −100 is −8.
func (f IntFormat) FromFloat64(x float64) uint8 {
	switch {
	case x != x:
		return 0
	case x <= float64(f.Min()):
		return f.FromInt64(f.Min())
	case x >= float64(f.Max()):
		return f.FromInt64(f.Max())
	}
	return f.FromInt64(int64(math.Trunc(x)))
}

// FromFloat32 converts x as FromFloat64.
func (f IntFormat) FromFloat32(x float32) uint8 { return f.FromFloat64(float64(x)) }

// Int64 returns the value of the field b (its low Bits bits; the others
// are ignored), sign-extended for the signed formats.
func (f IntFormat) Int64(b uint8) int64 {
	v := int64(b & f.mask())
	if f.Signed() && v > f.Max() {
		v -= 1 << f.bits()
	}
	return v
}

// PackedLen returns the bytes n values take packed: ⌈n·Bits/8⌉.
func (f IntFormat) PackedLen(n int) int {
	per := f.PerByte()
	return n/per + min(n%per, 1)
}

// PackInts packs src into dst, PerByte values a byte, the first value in
// the lowest bits of dst[0] (ONNX's and PyTorch's order, see the package
// documentation). Each value is converted with FromInt64 (wraparound: an
// int8 9 packs as int4 −7). The unused high fields of a last, partial byte
// are zero. dst must hold PackedLen(len(src)) bytes; only those are
// written. A dst too short or an invalid format is an error; nothing is
// written then.
func PackInts[T integer](f IntFormat, dst []byte, src []T) error {
	if !f.valid() {
		return fmt.Errorf("tensor: PackInts: invalid IntFormat(%d)", uint8(f))
	}
	need := f.PackedLen(len(src))
	if len(dst) < need {
		return &ShapeError{Op: "PackInts", Shape: []int{len(src)}, Len: len(dst),
			Msg: fmt.Sprintf("%d %s values pack into %d bytes; dst has %d", len(src), f, need, len(dst))}
	}
	w, per := f.bits(), f.PerByte()
	clear(dst[:need])
	for i, v := range src {
		dst[i/per] |= f.FromInt64(int64(v)) << (uint(i%per) * w)
	}
	return nil
}

// UnpackInts unpacks len(dst) values from src (packed as PackInts packs),
// each sign- or zero-extended and converted to T as Go converts an int64
// (so int4 −1 unpacked into a uint8 is 255). src must hold
// PackedLen(len(dst)) bytes; bits beyond the last value are ignored. A
// src too short or an invalid format is an error; dst is not written
// then.
func UnpackInts[T integer](f IntFormat, dst []T, src []byte) error {
	if !f.valid() {
		return fmt.Errorf("tensor: UnpackInts: invalid IntFormat(%d)", uint8(f))
	}
	need := f.PackedLen(len(dst))
	if len(src) < need {
		return &ShapeError{Op: "UnpackInts", Shape: []int{len(dst)}, Len: len(src),
			Msg: fmt.Sprintf("%d %s values need %d packed bytes; src has %d", len(dst), f, need, len(src))}
	}
	w, per := f.bits(), f.PerByte()
	for i := range dst {
		dst[i] = T(f.Int64(src[i/per] >> (uint(i%per) * w)))
	}
	return nil
}

// ParseIntFormat parses a sub-byte integer format's name: Kiln's (i4) or
// JAX's (int4). Case is ignored.
func ParseIntFormat(s string) (IntFormat, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for f, in := range intFormats {
		if in.short == name || in.long == name {
			return IntFormat(f), nil
		}
	}
	return 0, fmt.Errorf("tensor: unknown sub-byte integer format %q (want one of i4 u4 i2 u2, or JAX's int4 uint4 int2 uint2)", s)
}
