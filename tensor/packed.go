package tensor

import "fmt"

// Packed storage of the sub-byte integer dtypes (i4 u4 i2 u2): see the
// package documentation, "Packed sub-byte arrays".

// PackedError reports a packed sub-byte integer array that cannot be made
// or used as asked: a dtype that does not pack, a byte count that does not
// fit the shape, or an access (Data[T]) that needs one element a byte.
type PackedError struct {
	Op    string // FromPacked, Pack, Data, …
	DType DType
	Shape []int
	Len   int // bytes given (FromPacked), or -1
	Msg   string
}

func (e *PackedError) Error() string {
	return fmt.Sprintf("tensor: %s: %s[%s]: %s", e.Op, e.DType, joinDims(e.Shape), e.Msg)
}

// PackedSize returns the bytes an array of dtype d (i4 u4 i2 u2) and the
// given shape takes packed: ⌈n·Bits/8⌉ for its n elements. A shape whose
// size does not fit an int is a *SizeError (as ShapeSize), a dtype that
// does not pack a *PackedError.
func PackedSize(d DType, shape ...int) (int, error) {
	f, ok := d.IntFormat()
	if !ok {
		return 0, &PackedError{Op: "PackedSize", DType: d, Shape: clone(shape), Len: -1, Msg: notPackable}
	}
	n, err := shapeSize("PackedSize", shape)
	if err != nil {
		return 0, err
	}
	return f.PackedLen(n), nil // ≤ n: cannot overflow
}

const notPackable = "only the sub-byte integer dtypes (i4 u4 i2 u2) have a packed layout"

// FromPacked wraps b, the elements of an array of dtype d (i4, u4, i2 or
// u2) packed as PackInts packs them — 8/Bits a byte, the first in the
// lowest bits, ONNX's INT4/UINT4 layout — as a packed Array of the given
// shape, without copying. b must hold exactly PackedSize(d, shape) bytes
// (else a *PackedError naming both counts); the unused high bits of a
// last, partial byte are ignored by every reader (and written zero by
// Pack and Clone). As with FromSlice, the caller keeps b unchanged while
// the array is in use; Kiln never writes into it.
func FromPacked(d DType, shape []int, b []byte) (*Array, error) {
	f, ok := d.IntFormat()
	if !ok {
		return nil, &PackedError{Op: "FromPacked", DType: d, Shape: clone(shape), Len: len(b), Msg: notPackable}
	}
	n, err := shapeSize("FromPacked", shape)
	if err != nil {
		return nil, err
	}
	if need := f.PackedLen(n); len(b) != need {
		return nil, &PackedError{Op: "FromPacked", DType: d, Shape: clone(shape), Len: len(b),
			Msg: fmt.Sprintf("%d elements pack into %d bytes (%d a byte), got %d", n, need, f.PerByte(), len(b))}
	}
	if b == nil {
		b = []byte{}
	}
	return &Array{dtype: d, shape: clone(shape), packed: b}, nil
}

// IsPacked reports whether a holds its elements packed (FromPacked, Pack)
// rather than one a byte.
func (a *Array) IsPacked() bool { return a.packed != nil }

// PackedBytes returns a packed array's storage, PackedSize bytes, without
// copying; nil for an array that is not packed. Its last byte's unused
// high bits are whatever FromPacked was given (Pack and Clone write zero).
func (a *Array) PackedBytes() []byte { return a.packed }

// NBytes returns the bytes a's elements occupy in memory: PackedSize for
// a packed array, Size·DType.Size otherwise.
func (a *Array) NBytes() int {
	if a.packed != nil {
		return len(a.packed)
	}
	return a.Size() * a.dtype.Size()
}

// Pack returns a packed copy of a, whose dtype must be i4, u4, i2 or u2
// (else a *PackedError); a packed a is returned itself. The copy's last
// byte's unused high bits are zero.
func (a *Array) Pack() (*Array, error) {
	if a.packed != nil {
		return a, nil
	}
	f, ok := a.dtype.IntFormat()
	if !ok {
		return nil, &PackedError{Op: "Pack", DType: a.dtype, Shape: a.Shape(), Len: -1, Msg: notPackable}
	}
	src, _, _ := narrowBytes(a.data)
	out := make([]byte, f.PackedLen(len(src)))
	packBytes(f, out, src)
	return &Array{dtype: a.dtype, shape: a.Shape(), packed: out}, nil
}

// Unpack returns a copy of a packed array with one element a byte (the
// layout Data[Int4] … reads); an array that is not packed is returned
// itself.
func (a *Array) Unpack() *Array {
	if a.packed == nil {
		return a
	}
	n := a.Size()
	b := make([]byte, n)
	f, _ := a.dtype.IntFormat()
	UnpackStorage(f, b, a.packed)
	return &Array{dtype: a.dtype, shape: a.Shape(), data: narrowTypes[a.dtype-NumStandardDTypes].view(b)}
}

// UnpackStorage unpacks len(dst) values of format f from src (packed as
// PackInts packs) into dst as the one-a-byte storage of an unpacked Array
// (a signed value sign-extended: int4 −1 is 0xFF). src must hold
// f.PackedLen(len(dst)) bytes (it panics otherwise, as a slice index
// does); the unused bits of its last byte are ignored.
func UnpackStorage(f IntFormat, dst, src []byte) {
	n := len(dst)
	if n == 0 {
		return
	}
	_ = src[f.PackedLen(n)-1]
	switch f {
	case FormatI4, FormatU4:
		sh := uint(4) // shift up then back down: sign- or zero-extends the nibble
		full := n / 2
		if f == FormatI4 {
			for i, v := range src[:full] {
				dst[2*i] = byte(int8(v<<sh) >> sh)
				dst[2*i+1] = byte(int8(v) >> sh)
			}
			if n%2 == 1 {
				dst[n-1] = byte(int8(src[full]<<sh) >> sh)
			}
			return
		}
		for i, v := range src[:full] {
			dst[2*i] = v & 0xf
			dst[2*i+1] = v >> 4
		}
		if n%2 == 1 {
			dst[n-1] = src[full] & 0xf
		}
		return
	}
	w := f.bits()
	for i := range dst {
		dst[i] = byte(f.Int64(src[i/4] >> (uint(i%4) * w)))
	}
}

// packBytes packs one-a-byte storage src into dst (f.PackedLen(len(src))
// bytes, every one written: unused high bits zero).
func packBytes(f IntFormat, dst, src []byte) {
	clear(dst)
	w, per, m := f.bits(), f.PerByte(), f.mask()
	for i, v := range src {
		dst[i/per] |= (v & m) << (uint(i%per) * w)
	}
}

// packedAt is element i of packed array a, as its one-a-byte storage.
func (a *Array) packedAt(i int) byte {
	f, _ := a.dtype.IntFormat()
	per := f.PerByte()
	return byte(f.Int64(a.packed[i/per] >> (uint(i%per) * f.bits())))
}

// storageAt is the storage byte of element i of a sub-byte integer array,
// packed or not.
func (a *Array) storageAt(i int) byte {
	if a.packed != nil {
		return a.packedAt(i)
	}
	b, _, _ := narrowBytes(a.data)
	return b[i]
}

// made reports whether a was made by a constructor (the zero Array has
// no storage).
func (a *Array) made() bool { return a.data != nil || a.packed != nil }
