package stablehlo

import (
	"math"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// The interpreter's converts and integer ops, with poison where
// StableHLO leaves a result undefined.

// convertIval converts a value to dtype to; a float → int convert out of
// range (or of NaN) is poison.
func convertIval(a ival, to tensor.DType) ival {
	r := newIval(to, a.shape)
	for i := range a.size() {
		var f float64
		var isFloat bool
		var s int64
		var u uint64
		switch {
		case a.c != nil:
			if to.IsComplex() {
				r.c[i] = a.c[i]
				continue
			}
			f, isFloat = real(a.c[i]), true
		case a.f != nil:
			f, isFloat = a.f[i], true
		case a.i != nil:
			s, u, f = a.i[i], uint64(a.i[i]), float64(a.i[i])
		case a.u != nil:
			s, u, f = int64(a.u[i]), a.u[i], float64(a.u[i])
		default:
			if a.b[i] {
				s, u, f = 1, 1, 1
			}
		}
		switch {
		case to.IsComplex():
			r.c[i] = complex(f, 0)
		case to.IsFloat():
			r.f[i] = f
			if !isFloat && (a.i != nil && wideInt(s) || a.u != nil && u > 1<<53) {
				// int64 → float rounds once: through big values exactly
				r.f[i] = intToFloat(to, s, u, a.u != nil)
			}
		case isFloat && (math.IsNaN(f) || !fits(to, math.Trunc(f))):
			r.i, r.u = setInt(to, r.i, r.u, i, poisonInt, poisonInt)
		case isFloat && to.IsUnsigned():
			r.u[i] = wrapU(to, uint64(math.Trunc(f)))
		case isFloat && to.IsSigned():
			r.i[i] = int64(math.Trunc(f))
		case to == tensor.Bool:
			r.b[i] = f != 0
		default:
			r.i, r.u = setInt(to, r.i, r.u, i, s, u)
		}
	}
	if r.f != nil {
		r.f = round(to, r.f)
	}
	if r.c != nil {
		r.c = roundC(to, r.c)
	}
	return r
}

func wideInt(s int64) bool { return s > 1<<53 || s < -(1<<53) }

// intToFloat converts a 64-bit integer to float dtype d rounding once, as
// tensor's Astype does.
func intToFloat(d tensor.DType, s int64, u uint64, unsigned bool) float64 {
	var a *tensor.Array
	if unsigned {
		a = tensor.Scalar(u)
	} else {
		a = tensor.Scalar(s)
	}
	out, _ := tensor.Data[float64](a.Astype(d).Astype(tensor.F64))
	return out[0]
}

func setInt(d tensor.DType, is []int64, us []uint64, i int, s int64, u uint64) ([]int64, []uint64) {
	if d.IsUnsigned() {
		us[i] = wrapU(d, u)
	} else {
		is[i] = wrap(d, s)
	}
	return is, us
}

// fits reports whether the integer-valued float x is representable in d.
func fits(d tensor.DType, x float64) bool {
	if d.IsUnsigned() {
		return x >= 0 && x < math.Ldexp(1, d.Bits())
	}
	return x >= -math.Ldexp(1, d.Bits()-1) && x < math.Ldexp(1, d.Bits()-1)
}

func intOp(name string, d tensor.DType, x, y int64) (int64, bool) {
	w := int64(d.Bits())
	lo := int64(-1) << (w - 1)
	switch name {
	case "add":
		return x + y, true
	case "subtract":
		return x - y, true
	case "multiply":
		return x * y, true
	case "divide", "remainder":
		if y == 0 || x == lo && y == -1 {
			return poisonInt, true
		}
		if name == "divide" {
			return x / y, true
		}
		return x % y, true
	case "power":
		if y < 0 {
			return poisonInt, true
		}
		r := int64(1)
		for ; y > 0; y >>= 1 {
			if y&1 == 1 {
				r = wrap(d, r*x)
			}
			x = wrap(d, x*x)
		}
		return r, true
	case "negate":
		return -x, true
	case "abs":
		if x == lo {
			return poisonInt, true
		}
		return max(x, -x), true
	case "sign":
		return int64(min(max(x, -1), 1)), true
	case "maximum":
		return max(x, y), true
	case "minimum":
		return min(x, y), true
	case "and":
		return x & y, true
	case "or":
		return x | y, true
	case "xor":
		return x ^ y, true
	case "not":
		return ^x, true
	case "shift_left", "shift_right_arithmetic", "shift_right_logical":
		if y < 0 || y >= w {
			return poisonInt, true
		}
		switch name {
		case "shift_left":
			return x << y, true
		case "shift_right_arithmetic":
			return x >> y, true
		}
		return int64(uint64(x) << (64 - w) >> (64 - w) >> y), true
	}
	return 0, false
}

func uintOp(name string, d tensor.DType, x, y uint64) (uint64, bool) {
	w := uint64(d.Bits())
	switch name {
	case "divide", "remainder":
		if y == 0 {
			return poisonInt, true
		}
		if name == "divide" {
			return x / y, true
		}
		return x % y, true
	case "shift_left", "shift_right_logical":
		if y >= w {
			return poisonInt, true
		}
		if name == "shift_left" {
			return x << y, true
		}
		return x >> y, true
	case "maximum":
		return max(x, y), true
	case "minimum":
		return min(x, y), true
	case "power":
		r := uint64(1)
		for ; y > 0; y >>= 1 {
			if y&1 == 1 {
				r = wrapU(d, r*x)
			}
			x = wrapU(d, x*x)
		}
		return r, true
	}
	v, ok := intOp(name, tensor.I64, int64(x), int64(y))
	return uint64(v), ok && name != "sign" && name != "abs" && !strings.HasPrefix(name, "shift")
}
