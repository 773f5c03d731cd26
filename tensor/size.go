package tensor

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// SizeError reports an array that cannot exist or may not be allocated: a
// shape whose element count or byte size does not fit an int, or an
// allocation over the limit (MaxAlloc). errors.As finds it through the
// errors of trace, lower and kiln that wrap it.
type SizeError struct {
	Op    string // the constructor or operation; "" when called directly
	DType DType  // the element type, when the byte size was checked
	Shape []int  // nil when the size is not one shape's (a sum of sizes)
	Limit int    // the allocation limit exceeded, or 0 when the size overflows int
	Msg   string // what does not fit, with the numbers
}

func (e *SizeError) Error() string {
	op := ""
	if e.Op != "" {
		op = e.Op + ": "
	}
	if e.Shape == nil { // a size that is not one shape's (a concatenation's sum)
		return fmt.Sprintf("tensor: %s%s", op, e.Msg)
	}
	return fmt.Sprintf("tensor: %sshape %s: %s", op, shapeText(e.Shape), e.Msg)
}

// ShapeSize returns the number of elements of an array of the given shape
// (1 for rank 0). Every element count in Kiln is computed by this function
// or ByteSize, so none can overflow: a negative dimension is a *ShapeError,
// and a shape whose nonzero dimensions multiply past the int range is a
// *SizeError, even when another dimension is 0 (as NumPy, so that strides
// and partial products of a valid shape always fit).
func ShapeSize(shape []int) (int, error) { return shapeSize("", shape) }

// ByteSize returns the bytes an array of dtype d and the given shape
// occupies, checked as ShapeSize checks the element count and for the
// product with d's size. It does not apply the allocation limit
// (CheckAlloc does).
func ByteSize(d DType, shape []int) (int, error) { return byteSize("", d, shape) }

// CheckAlloc returns ByteSize(d, shape), or a *SizeError when that is over
// the allocation limit (MaxAlloc). Everything in Kiln that allocates an
// array from a shape — the constructors, compiled programs' buffers, the
// CLI's arguments — asks it first, so a typo in a shape is an error rather
// than an out-of-memory crash.
func CheckAlloc(d DType, shape []int) (int, error) { return checkAlloc("", d, shape) }

// InferShape resolves a reshape of n elements to shape: one dimension may
// be -1 and is inferred; the others must be ≥ 0 and the size must be n. It
// returns a new slice, or a *ShapeError (a bad dimension, a size that is
// not n) or a *SizeError (a size that does not fit an int).
func InferShape(n int, shape []int) ([]int, error) { return inferShape("", n, shape) }

func inferShape(op string, n int, shape []int) ([]int, error) {
	out, infer := clone(shape), -1
	for i, d := range out {
		switch {
		case d == -1 && infer < 0:
			infer, out[i] = i, 1
		case d < 0:
			return nil, &ShapeError{Op: op, Shape: clone(shape), Len: n, Msg: "bad dimension (only one -1 may be inferred)"}
		}
	}
	known, err := shapeSize(op, out)
	if err != nil {
		return nil, err
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, &ShapeError{Op: op, Shape: clone(shape), Len: n, Msg: fmt.Sprintf("cannot infer -1 for %d elements", n)}
		}
		out[infer] = n / known
	}
	if err := checkShape(op, out, n); err != nil {
		return nil, err
	}
	return out, nil
}

func shapeSize(op string, shape []int) (int, error) {
	n, ok, err := product(op, shape, 1)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, &SizeError{Op: op, Shape: clone(shape), Msg: overflowMsg(shape, 0, false)}
	}
	return n, nil
}

func byteSize(op string, d DType, shape []int) (int, error) {
	if !d.Valid() {
		return 0, &ShapeError{Op: op, Shape: clone(shape), Len: -1, Msg: fmt.Sprintf("invalid dtype %v", d)}
	}
	n, ok, err := product(op, shape, d.Size())
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, &SizeError{Op: op, DType: d, Shape: clone(shape), Msg: overflowMsg(shape, d, true)}
	}
	return n, nil
}

func checkAlloc(op string, d DType, shape []int) (int, error) {
	n, err := byteSize(op, d, shape)
	if err != nil {
		return 0, err
	}
	limit, lerr := allocLimit()
	if lerr != nil {
		return 0, &SizeError{Op: op, DType: d, Shape: clone(shape), Msg: lerr.Error()}
	}
	if n > limit {
		return 0, &SizeError{Op: op, DType: d, Shape: clone(shape), Limit: limit,
			Msg: fmt.Sprintf("%d bytes of %s (%s) are over the allocation limit of %s (set %s in the environment, or call tensor.SetMaxAlloc)",
				n, d, humanBytes(float64(n)), humanBytes(float64(limit)), MaxAllocEnv)}
	}
	return n, nil
}

// product multiplies the nonzero dimensions of shape and unit, reporting
// whether the product fits an int; the result is 0 when a dimension is 0.
// A negative dimension is a *ShapeError.
func product(op string, shape []int, unit int) (n int, ok bool, err error) {
	hi, lo := uint64(0), uint64(unit)
	zero := false
	for _, d := range shape {
		if d < 0 {
			return 0, false, &ShapeError{Op: op, Shape: clone(shape), Len: -1, Msg: "negative dimension"}
		}
		if d == 0 {
			zero = true
			continue
		}
		if hi == 0 {
			hi, lo = bits.Mul64(lo, uint64(d))
		}
	}
	if hi != 0 || lo > math.MaxInt {
		return 0, false, nil
	}
	if zero {
		return 0, true, nil
	}
	return int(lo), true, nil
}

// overflowMsg says exactly how large the product of shape's nonzero
// dims is, in elements and, for a dtype, in bytes.
func overflowMsg(shape []int, d DType, withBytes bool) string {
	p := big.NewInt(1)
	zero := ""
	for _, n := range shape {
		if n > 0 {
			p.Mul(p, big.NewInt(int64(n)))
		} else {
			zero = " (counting its nonzero dimensions: a 0 elsewhere does not make it valid)"
		}
	}
	what := p.String() + " elements"
	if withBytes {
		what += fmt.Sprintf(" (%s bytes of %s)", p.Mul(p, big.NewInt(int64(d.Size()))), d)
	}
	return fmt.Sprintf("%s%s do not fit an int (at most %d)", what, zero, math.MaxInt)
}

// humanBytes prints a byte count in binary units: 3.6 TiB.
func humanBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.3g %s", n, units[i])
}

func shapeText(shape []int) string { return "[" + joinDims(shape) + "]" }

func clone(shape []int) []int { return append([]int{}, shape...) }
