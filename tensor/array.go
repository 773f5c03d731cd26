package tensor

import (
	"fmt"
	"math"
	"strings"
)

// Elem is the set of Go types that store Kiln's dtypes, one per dtype.
type Elem interface {
	bool | uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32 | int64 |
		BFloat16 | Float16 | float32 | float64 | complex64 | complex128 |
		NarrowFloat | NarrowInt
}

// DTypeOf returns the dtype stored as T.
func DTypeOf[T Elem]() DType {
	d, _ := sliceDType(any([]T(nil)))
	return d
}

// SliceDType returns the dtype of a typed slice of one of the 30 storage
// types; ok is false for anything else.
func SliceDType(s any) (DType, bool) { return sliceDType(s) }

func sliceDType(s any) (DType, bool) {
	switch s.(type) {
	case []bool:
		return Bool, true
	case []uint8:
		return U8, true
	case []uint16:
		return U16, true
	case []uint32:
		return U32, true
	case []uint64:
		return U64, true
	case []int8:
		return I8, true
	case []int16:
		return I16, true
	case []int32:
		return I32, true
	case []int64:
		return I64, true
	case []BFloat16:
		return BF16, true
	case []Float16:
		return F16, true
	case []float32:
		return F32, true
	case []float64:
		return F64, true
	case []complex64:
		return C64, true
	case []complex128:
		return C128, true
	}
	if _, d, ok := narrowBytes(s); ok {
		return d, true
	}
	return 0, false
}

// sliceLen is len of a typed slice of one of the 15 storage types.
func sliceLen(s any) int {
	switch v := s.(type) {
	case []bool:
		return len(v)
	case []uint8:
		return len(v)
	case []uint16:
		return len(v)
	case []uint32:
		return len(v)
	case []uint64:
		return len(v)
	case []int8:
		return len(v)
	case []int16:
		return len(v)
	case []int32:
		return len(v)
	case []int64:
		return len(v)
	case []BFloat16:
		return len(v)
	case []Float16:
		return len(v)
	case []float32:
		return len(v)
	case []float64:
		return len(v)
	case []complex64:
		return len(v)
	case []complex128:
		return len(v)
	}
	if b, _, ok := narrowBytes(s); ok {
		return len(b)
	}
	return -1
}

// MakeSlice allocates a zeroed slice of n elements of dtype d. It is the
// raw allocation under Zeros: n must come from ShapeSize, and no
// allocation limit applies (Zeros checks CheckAlloc first).
func MakeSlice(d DType, n int) any {
	switch d {
	case Bool:
		return make([]bool, n)
	case U8:
		return make([]uint8, n)
	case U16:
		return make([]uint16, n)
	case U32:
		return make([]uint32, n)
	case U64:
		return make([]uint64, n)
	case I8:
		return make([]int8, n)
	case I16:
		return make([]int16, n)
	case I32:
		return make([]int32, n)
	case I64:
		return make([]int64, n)
	case BF16:
		return make([]BFloat16, n)
	case F16:
		return make([]Float16, n)
	case F32:
		return make([]float32, n)
	case F64:
		return make([]float64, n)
	case C64:
		return make([]complex64, n)
	case C128:
		return make([]complex128, n)
	}
	if d.IsNarrow() {
		return narrowTypes[d-NumStandardDTypes].make(n)
	}
	panic("tensor: MakeSlice of invalid dtype " + d.String())
}

// ShapeError reports a shape that does not fit the data or the operation.
type ShapeError struct {
	Op    string
	Shape []int
	Len   int // backing length, when relevant; -1 otherwise
	Msg   string
}

func (e *ShapeError) Error() string {
	op := ""
	if e.Op != "" {
		op = e.Op + ": "
	}
	return fmt.Sprintf("tensor: %sshape %v: %s", op, e.Shape, e.Msg)
}

// Array is a dense, row-major array: a dtype, a shape (rank 0 allowed) and a
// backing slice of the dtype's Go type with exactly ShapeSize(shape)
// elements. Arrays made by FromSlice share the caller's slice; Kiln never
// writes into an array it was given as input.
type Array struct {
	dtype  DType
	shape  []int
	data   any    // one element a slot; nil when packed
	packed []byte // a packed sub-byte integer array's storage (FromPacked, Pack); nil otherwise
}

// checkShape checks that shape is valid (ShapeSize) and has n elements.
func checkShape(op string, shape []int, n int) error {
	size, err := shapeSize(op, shape)
	if err != nil {
		if se, ok := err.(*ShapeError); ok {
			se.Len = n
		}
		return err
	}
	if size != n {
		return &ShapeError{Op: op, Shape: clone(shape), Len: n, Msg: fmt.Sprintf("needs %d elements, the data has %d", size, n)}
	}
	return nil
}

// FromSlice wraps data as an array without copying it. With no shape the
// array is 1-D of len(data) (a nil slice is an empty array); otherwise the
// shape's size must equal len(data), and a shape whose size does not fit
// an int is a *SizeError.
func FromSlice[T Elem](data []T, shape ...int) (*Array, error) {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	if err := checkShape("FromSlice", shape, len(data)); err != nil {
		return nil, err
	}
	if b, d, ok := narrowBytes(any(data)); ok {
		if err := validNarrow("FromSlice", d, b); err != nil {
			return nil, err
		}
	}
	return &Array{dtype: DTypeOf[T](), shape: append([]int(nil), shape...), data: data}, nil
}

// Scalar returns a rank-0 array holding v.
func Scalar[T Elem](v T) *Array {
	return &Array{dtype: DTypeOf[T](), shape: []int{}, data: []T{v}}
}

// New wraps data, which must be a slice of dtype d's Go type, as an array of
// the given shape, without copying.
func New(d DType, shape []int, data any) (*Array, error) {
	got, ok := sliceDType(data)
	if !ok || got != d {
		return nil, fmt.Errorf("tensor: New: data is %T, dtype %s needs a slice of its own Go type", data, d)
	}
	if err := checkShape("New", shape, sliceLen(data)); err != nil {
		return nil, err
	}
	if b, d, ok := narrowBytes(data); ok {
		if err := validNarrow("New", d, b); err != nil {
			return nil, err
		}
	}
	return &Array{dtype: d, shape: append([]int{}, shape...), data: data}, nil
}

// Zeros returns a new zero-filled array. A shape over the allocation
// limit (MaxAlloc) or whose size does not fit an int is a *SizeError, a
// negative dimension a *ShapeError; nothing is allocated then.
func Zeros(d DType, shape ...int) (*Array, error) { return zeros("Zeros", d, shape) }

// zeros allocates for op once the shape passed CheckAlloc.
func zeros(op string, d DType, shape []int) (*Array, error) {
	if _, err := checkAlloc(op, d, shape); err != nil {
		return nil, err
	}
	n, err := shapeSize(op, shape)
	if err != nil {
		return nil, err
	}
	return &Array{dtype: d, shape: clone(shape), data: MakeSlice(d, n)}, nil
}

// Arange returns the 1-D array 0, 1, …, n−1 converted to dtype d (as
// Astype converts: bool gives false, true, true, …). Its errors are
// Zeros'.
func Arange(d DType, n int) (*Array, error) {
	a, err := zeros("Arange", d, []int{n})
	if err != nil {
		return nil, err
	}
	var block [convBlock]int64
	for lo := 0; lo < n; lo += convBlock {
		m := min(convBlock, n-lo)
		for i := range m {
			block[i] = int64(lo + i)
		}
		writeFromInt(a.data, lo, block[:m])
	}
	return a, nil
}

// Must returns a, or panics with err: for arrays whose construction cannot
// fail, as in tests and examples (tensor.Must(tensor.Arange(tensor.F32, 6))).
func Must(a *Array, err error) *Array {
	if err != nil {
		panic(err)
	}
	return a
}

// DType returns the array's dtype.
func (a *Array) DType() DType { return a.dtype }

// Shape returns a copy of the array's shape.
func (a *Array) Shape() []int { return append([]int{}, a.shape...) }

// Dim is the size of dimension i.
func (a *Array) Dim(i int) int { return a.shape[i] }

// HasShape reports whether a's shape is shape, without copying it.
func (a *Array) HasShape(shape []int) bool {
	if len(shape) != len(a.shape) {
		return false
	}
	for i, d := range a.shape {
		if shape[i] != d {
			return false
		}
	}
	return true
}

// Rank is the number of dimensions.
func (a *Array) Rank() int { return len(a.shape) }

// Size is the number of elements. The constructors refuse shapes whose
// size does not fit an int, so it never overflows.
func (a *Array) Size() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	return n
}

// Data returns the backing slice ([]float32, []Float16, …) without
// copying. For a packed array (IsPacked) it returns a new unpacked copy
// ([]Int4 …, as Unpack().Data()), so that every reader of Data reads the
// values; writing into that copy does not change the array, and the copy
// costs one byte an element: code that can read the packed bytes uses
// PackedBytes.
func (a *Array) Data() any {
	if a.packed != nil {
		return a.Unpack().data
	}
	return a.data
}

// Data returns the array's backing slice as []T, or an error if T is not the
// array's storage type. A packed array (IsPacked) has no []T to return —
// the slice would be a copy, and writes into it lost —: that is a
// *PackedError; use Unpack, or PackedBytes for the packed storage.
func Data[T Elem](a *Array) ([]T, error) {
	if a.packed != nil {
		return nil, &PackedError{Op: "Data", DType: a.dtype, Shape: a.Shape(), Len: -1,
			Msg: "the array is packed (several elements a byte): Unpack it for a slice of one element each, or read PackedBytes"}
	}
	s, ok := a.data.([]T)
	if !ok {
		var z T
		return nil, fmt.Errorf("tensor: Data: array is %s, not %T", a.dtype, z)
	}
	return s, nil
}

// Clone returns a deep copy, packed if a is (with the unused high bits
// of the last byte zero).
func (a *Array) Clone() *Array {
	if a.packed != nil {
		f, _ := a.dtype.IntFormat()
		out := &Array{dtype: a.dtype, shape: a.Shape(), packed: make([]byte, len(a.packed))}
		copy(out.packed, a.packed)
		if n, per := a.Size(), f.PerByte(); n%per != 0 {
			out.packed[len(out.packed)-1] &= byte(1)<<(uint(n%per)*f.bits()) - 1
		}
		return out
	}
	out := &Array{dtype: a.dtype, shape: a.Shape(), data: MakeSlice(a.dtype, a.Size())}
	copySlice(out.data, a.data)
	return out
}

// Reshape returns a view of a with a new shape of the same size; one
// dimension may be -1 and is inferred.
func (a *Array) Reshape(shape ...int) (*Array, error) {
	shape, err := inferShape("Reshape", a.Size(), shape)
	if err != nil {
		return nil, err
	}
	return &Array{dtype: a.dtype, shape: shape, data: a.data, packed: a.packed}, nil
}

// Equal reports whether a and b have the same dtype and shape and
// bit-identical elements (two NaNs with the same bits are equal; 0 and −0
// are not). The layout is not compared: a packed array equals its
// unpacked copy, and unused bits of a packed array's last byte are
// ignored.
func Equal(a, b *Array) bool {
	if a.dtype != b.dtype || len(a.shape) != len(b.shape) {
		return false
	}
	for i := range a.shape {
		if a.shape[i] != b.shape[i] {
			return false
		}
	}
	if a.packed != nil || b.packed != nil {
		for i := 0; i < a.Size(); i++ {
			if a.storageAt(i) != b.storageAt(i) {
				return false
			}
		}
		return true
	}
	for i := 0; i < a.Size(); i++ {
		if !sameBits(a.data, b.data, i) {
			return false
		}
	}
	return true
}

func sameBits(x, y any, i int) bool {
	switch xv := x.(type) {
	case []float32:
		return math.Float32bits(xv[i]) == math.Float32bits(y.([]float32)[i])
	case []float64:
		return math.Float64bits(xv[i]) == math.Float64bits(y.([]float64)[i])
	case []complex64:
		a, b := xv[i], y.([]complex64)[i]
		return math.Float32bits(real(a)) == math.Float32bits(real(b)) && math.Float32bits(imag(a)) == math.Float32bits(imag(b))
	case []complex128:
		a, b := xv[i], y.([]complex128)[i]
		return math.Float64bits(real(a)) == math.Float64bits(real(b)) && math.Float64bits(imag(a)) == math.Float64bits(imag(b))
	}
	return Index(x, i) == Index(y, i)
}

// Index returns element i of a typed slice as an interface value.
func Index(s any, i int) any {
	switch v := s.(type) {
	case []bool:
		return v[i]
	case []uint8:
		return v[i]
	case []uint16:
		return v[i]
	case []uint32:
		return v[i]
	case []uint64:
		return v[i]
	case []int8:
		return v[i]
	case []int16:
		return v[i]
	case []int32:
		return v[i]
	case []int64:
		return v[i]
	case []BFloat16:
		return v[i]
	case []Float16:
		return v[i]
	case []float32:
		return v[i]
	case []float64:
		return v[i]
	case []complex64:
		return v[i]
	case []complex128:
		return v[i]
	}
	if b, d, ok := narrowBytes(s); ok {
		return narrowTypes[d-NumStandardDTypes].elem(b[i])
	}
	panic(fmt.Sprintf("tensor: Index of %T", s))
}

// FormatElem prints element i (row-major) as the shortest decimal that
// reads back to the same value at the array's own precision: an f16 0.1
// prints 0.1, not 0.0999755859375. NaN and infinities print as nan, inf,
// -inf; complex as (re+imj); bool as true/false.
func (a *Array) FormatElem(i int) string {
	if a.packed != nil {
		return FormatValue(narrowTypes[a.dtype-NumStandardDTypes].elem(a.packedAt(i)))
	}
	return FormatValue(Index(a.data, i))
}

// FormatValue prints one element value as FormatElem does.
func FormatValue(v any) string {
	switch x := v.(type) {
	case Float16:
		return formatFloat16(float64(x.Float32()), f16Format)
	case BFloat16:
		return formatFloat16(float64(x.Float32()), bf16Format)
	case float32:
		return formatFloat(float64(x), 32)
	case float64:
		return formatFloat(x, 64)
	case complex64:
		return formatComplex(formatFloat(float64(real(x)), 32), formatFloat(float64(imag(x)), 32))
	case complex128:
		return formatComplex(formatFloat(real(x), 64), formatFloat(imag(x), 64))
	}
	return fmt.Sprint(v)
}

func formatComplex(re, im string) string {
	if !strings.HasPrefix(im, "-") {
		im = "+" + im
	}
	return "(" + re + im + "j)"
}

// String prints the dtype, shape and values, NumPy-like:
// f16[2,2] [[0.5 1] [2 inf]].
//
// A nil *Array prints <nil>, and the zero Array (not made by a
// constructor) prints as invalid.
func (a *Array) String() string {
	switch {
	case a == nil:
		return "<nil>"
	case a.packed != nil:
		if f, ok := a.dtype.IntFormat(); !ok || len(a.packed) != f.PackedLen(a.Size()) {
			return "<invalid tensor.Array: not made by a constructor>"
		}
	case a.data == nil || sliceLen(a.data) != a.Size():
		return "<invalid tensor.Array: not made by a constructor>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s[%s] ", a.dtype, joinDims(a.shape))
	// An empty array still prints a bracket per row before its first 0
	// dimension ([[] []] for [2,0]): bound those too.
	rows := 1
	for _, d := range a.shape {
		if d == 0 || rows > 1000 {
			break
		}
		rows *= d // the product of a valid shape's nonzero dims fits
	}
	if a.Size() > 1000 || rows > 1000 {
		fmt.Fprintf(&b, "(%d elements)", a.Size())
		return b.String()
	}
	a.writeValues(&b, 0, 0)
	return b.String()
}

func (a *Array) writeValues(b *strings.Builder, dim, offset int) int {
	if dim == len(a.shape) {
		b.WriteString(a.FormatElem(offset))
		return offset + 1
	}
	b.WriteByte('[')
	for i := 0; i < a.shape[dim]; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		offset = a.writeValues(b, dim+1, offset)
	}
	b.WriteByte(']')
	return offset
}

func joinDims(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, ",")
}
