package tensor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// FileError reports a file Kiln cannot read or an array it cannot write in
// a format: a truncated or malformed file, a header that lies about its
// data, a dtype the format or Kiln lacks. errors.As finds it; Err, when
// set, is the cause (an I/O error, a *SizeError for an array over the
// allocation limit) and errors.Is/As see through to it.
type FileError struct {
	Op     string // "read" or "write"
	Format string // "npy", "npz" or "safetensors"
	Name   string // the file, npz member or tensor concerned; "" when unknown
	Offset int64  // the byte offset of the problem in the file (or npz member); -1 when it is not one place
	Msg    string // what is wrong, with the numbers
	Err    error  // the cause, or nil
}

func (e *FileError) Error() string {
	s := "tensor: " + e.Op + " " + e.Format
	if e.Name != "" {
		s += " " + e.Name
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf(": byte %d", e.Offset)
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// The limits on what a file may claim before Kiln reads it. A header over
// its limit is a *FileError before anything is allocated for it; an
// array's data is further limited by MaxAlloc and by the bytes the file
// actually has.
const (
	// MaxNPYHeader is the largest .npy header (the Python dict after the
	// preamble) Kiln reads, in bytes. NumPy writes a few hundred; its own
	// np.load refuses more than 10,000 by default.
	MaxNPYHeader = 1 << 20
	// MaxSafetensorsHeader is the largest safetensors JSON header Kiln
	// reads, in bytes: 100 MB, the limit of the reference implementation.
	MaxSafetensorsHeader = 100_000_000
)

// NamedArray is an array with its name in a file of several (.npz,
// safetensors).
type NamedArray struct {
	Name  string
	Array *Array
}

// littleEndianHost is true on every platform Go supports but a few
// (s390x, ppc64, mips); the readers and writers swap bytes on the others.
var littleEndianHost = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// rawBytes is the memory of a storage slice as bytes, without copying.
func rawBytes(data any) []byte {
	switch v := data.(type) {
	case []bool:
		return asBytes(v)
	case []uint8:
		return v
	case []uint16:
		return asBytes(v)
	case []uint32:
		return asBytes(v)
	case []uint64:
		return asBytes(v)
	case []int8:
		return asBytes(v)
	case []int16:
		return asBytes(v)
	case []int32:
		return asBytes(v)
	case []int64:
		return asBytes(v)
	case []BFloat16:
		return asBytes(v)
	case []Float16:
		return asBytes(v)
	case []float32:
		return asBytes(v)
	case []float64:
		return asBytes(v)
	case []complex64:
		return asBytes(v)
	case []complex128:
		return asBytes(v)
	}
	if b, _, ok := narrowBytes(data); ok {
		return b
	}
	panic(fmt.Sprintf("tensor: rawBytes of %T", data))
}

func asBytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// viewBytes is a storage slice of dtype d over b (len(b) = n × d.Size()),
// without copying. b must be aligned for d (alignOf) and, for bool, hold
// only 0 and 1.
func viewBytes(d DType, b []byte, n int) any {
	if n == 0 {
		return MakeSlice(d, 0)
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	switch d {
	case Bool:
		return unsafe.Slice((*bool)(p), n)
	case U8:
		return b[:n:n]
	case U16:
		return unsafe.Slice((*uint16)(p), n)
	case U32:
		return unsafe.Slice((*uint32)(p), n)
	case U64:
		return unsafe.Slice((*uint64)(p), n)
	case I8:
		return unsafe.Slice((*int8)(p), n)
	case I16:
		return unsafe.Slice((*int16)(p), n)
	case I32:
		return unsafe.Slice((*int32)(p), n)
	case I64:
		return unsafe.Slice((*int64)(p), n)
	case BF16:
		return unsafe.Slice((*BFloat16)(p), n)
	case F16:
		return unsafe.Slice((*Float16)(p), n)
	case F32:
		return unsafe.Slice((*float32)(p), n)
	case F64:
		return unsafe.Slice((*float64)(p), n)
	case C64:
		return unsafe.Slice((*complex64)(p), n)
	case C128:
		return unsafe.Slice((*complex128)(p), n)
	}
	if d.IsNarrow() {
		return narrowTypes[d-NumStandardDTypes].view(b[:n:n])
	}
	panic("tensor: viewBytes of invalid dtype " + d.String())
}

// swapUnit is the size of the parts whose bytes a byte-order change
// reverses: the element, or each half of a complex element.
func swapUnit(d DType) int { return d.RealPart().Size() }

// alignOf is the alignment Go needs for d's storage type.
func alignOf(d DType) uintptr { return uintptr(swapUnit(d)) }

// swapBytes reverses each unit-byte group of b in place.
func swapBytes(b []byte, unit int) {
	switch unit {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

// fixBools makes every nonzero byte of a bool array's memory 1, as NumPy's
// astype(bool) reads it: Go's bool must be 0 or 1. It reports whether any
// byte changed.
func fixBools(b []byte) bool {
	changed := false
	for i, c := range b {
		if c > 1 {
			b[i], changed = 1, true
		}
	}
	return changed
}

// needsBoolFix reports whether b holds a byte other than 0 and 1.
func needsBoolFix(b []byte) bool {
	for _, c := range b {
		if c > 1 {
			return true
		}
	}
	return false
}

// readChunk is the largest piece readFull allocates ahead of the bytes it
// has seen, when the bytes a reader has left are unknown.
const readChunk = 16 << 20

// readInto fills the n-element storage of dtype d from r: at once when
// the caller knows r has the bytes (known), else in pieces of readChunk
// so that memory follows the bytes that really arrive rather than a
// header's claim. It returns the storage and how many bytes it read.
func readInto(r io.Reader, d DType, n, nbytes int, known bool) (any, int, error) {
	if known || nbytes <= readChunk {
		data := MakeSlice(d, n)
		got, err := io.ReadFull(r, rawBytes(data))
		return data, got, err
	}
	var buf []byte
	for len(buf) < nbytes {
		m := min(readChunk, nbytes-len(buf))
		buf = append(buf, make([]byte, m)...)
		got, err := io.ReadFull(r, buf[len(buf)-m:])
		if err != nil {
			return nil, len(buf) - m + got, err
		}
	}
	data := MakeSlice(d, n)
	copy(rawBytes(data), buf)
	return data, nbytes, nil
}

// isEOF reports whether err means the data ended early.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
