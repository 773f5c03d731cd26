package trace

import (
	"fmt"

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
		// Each step combines element i with element i−k and leaves the
		// first k as they are, with no identity padding: an identity may
		// not be a value of x's dtype (0 in f8e8m0fnu, ±inf in the fn and
		// fnuz formats, which convert to NaN), and x + 0 would turn −0
		// into +0.
		for k := 1; k < n; k *= 2 {
			xv = Concatenate(ax, xv.Slice(ax, 0, k, 1), combine(xv.Slice(ax, k, n, 1), xv.Slice(ax, 0, n-k, 1)))
		}
		return xv
	})
}
