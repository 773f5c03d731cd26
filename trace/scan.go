package trace

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
)

// Cumulative reductions (jnp.cumsum, cumprod, cummax, cummin) as a
// log-depth (Hillis–Steele) scan: ⌈log₂ n⌉ steps, step k combining each
// element with the one 2ᵏ before it (the identity before the start), so
// they fuse, run on every backend and differentiate through their ops.
// Integers, bool and max/min are exact; float sums and products round in
// that tree's order — as XLA's parallel scans do — not a sequential
// loop's, so they may differ from NumPy's in the last bits.
//
// Dtypes are the profile's (promote.Config.CumsumType): under jax and numpy
// cumsum and cumprod of bool and of integers narrower than the default
// accumulate in the default int (unsigned: the default uint), under torch
// every integer in i64, unless dtype is given; cummax and cummin keep x's
// dtype.

// Cumsum is the running sum along axis (AxisNone: the flattened array).
func (x Value) Cumsum(axis int, dtype ...tensor.DType) Value {
	return cumulative("cumsum", x, axis, dtype)
}

// Cumprod is the running product along axis.
func (x Value) Cumprod(axis int, dtype ...tensor.DType) Value {
	return cumulative("cumprod", x, axis, dtype)
}

// Cummax is the running maximum along axis; NaN propagates.
func (x Value) Cummax(axis int) Value { return cumulative("cummax", x, axis, nil) }

// Cummin is the running minimum along axis; NaN propagates.
func (x Value) Cummin(axis int) Value { return cumulative("cummin", x, axis, nil) }

func cumulative(op string, x Value, axis int, dtype []tensor.DType) Value {
	d, set, err := optDType(op, dtype)
	if err != nil {
		return Failure(err)
	}
	return unary(op, x, func(b *builder, v *Var) Value {
		xv := Value{b: b, v: v}
		if axis == AxisNone {
			xv, axis = xv.Reshape(-1), 0
		}
		s := xv.Shape()
		ax, ok := normAxis(axis, len(s))
		if !ok {
			return b.shapeErr(op, fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(s)), s)
		}
		from := v.Type.DType
		switch {
		case set:
			xv = xv.Astype(d)
		case op == "cumsum" || op == "cumprod":
			if wide := b.cfg.CumsumType(v.Type).DType; wide != from {
				xv = xv.Astype(wide)
			}
		case from.IsComplex():
			return b.dtypeErr(op, fmt.Sprintf("%s of complex %s: complex numbers are not ordered", op, v.Type), v.Type)
		}
		n := s[ax]
		combine := map[string]func(a, c Value) Value{
			"cumsum":  Value.Add,
			"cumprod": Value.Mul,
			"cummax":  Value.Maximum,
			"cummin":  Value.Minimum,
		}[op]
		for k := 1; k < n; k *= 2 {
			shifted := Concatenate(ax, identity(op, xv, ax, k), xv.Slice(ax, 0, n-k, 1))
			xv = combine(xv, shifted)
		}
		return xv
	})
}

// identity is k elements (along ax, x's other dims) of op's identity in
// x's type: 0, 1, or the lowest/highest value of the dtype.
func identity(op string, x Value, ax, k int) Value {
	d := x.DType()
	var v Value
	switch op {
	case "cumsum":
		v = Int(0)
	case "cumprod":
		v = Int(1)
	default:
		lo := op == "cummax"
		switch {
		case d == tensor.Bool:
			v = Bool(!lo)
		case d.IsFloat():
			v = Float(math.Inf(map[bool]int{true: -1, false: 1}[lo]))
		default:
			v = Const(extremeOf(d, lo))
		}
	}
	s := x.Shape()
	s[ax] = k
	return FullLike(x.Slice(ax, 0, 1, 1), v).BroadcastTo(s...)
}

// extremeOf is the lowest (lo) or highest value of integer dtype d.
func extremeOf(d tensor.DType, lo bool) *tensor.Array {
	var a *tensor.Array
	switch {
	case d.IsUnsigned() && lo:
		a = tensor.Scalar(uint64(0))
	case d.IsUnsigned():
		a = tensor.Scalar(uint64(math.MaxUint64) >> (64 - d.Bits()))
	case lo:
		a = tensor.Scalar(int64(-1) << (d.Bits() - 1))
	default:
		a = tensor.Scalar(int64(math.MaxInt64) >> (64 - d.Bits()))
	}
	return a.Astype(d)
}
