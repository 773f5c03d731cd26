package reference

import (
	"unsafe"

	"github.com/kiln-go/kiln/trace"
)

// Bool and integer ops. Go's integer arithmetic already wraps (two's
// complement), which is what docs/SPEC.md §3 asks for; the ops Go leaves undefined
// or panicking (division by zero, negative shift counts) are spelled out.

func boolUnary(op trace.Op, x []bool, ix []int) (any, error) {
	switch op {
	case trace.OpNot:
		return mapUnary(x, ix, func(v bool) bool { return !v }), nil
	case trace.OpAbs, trace.OpReal, trace.OpConj, trace.OpFloor, trace.OpCeil, trace.OpRound, trace.OpStopGradient:
		return mapUnary(x, ix, func(v bool) bool { return v }), nil
	case trace.OpImag, trace.OpIsNaN, trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf:
		return mapUnary(x, ix, func(bool) bool { return false }), nil
	case trace.OpIsFinite:
		return mapUnary(x, ix, func(bool) bool { return true }), nil
	}
	return nil, errNotDefined(op, "bool")
}

// b2i orders bools as false < true.
func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

func boolBinary(op trace.Op, a, b []bool, ia, ib []int) (any, error) {
	var f func(x, y bool) bool
	switch op {
	case trace.OpAdd, trace.OpOr, trace.OpMax:
		f = func(x, y bool) bool { return x || y }
	case trace.OpMul, trace.OpAnd, trace.OpMin:
		f = func(x, y bool) bool { return x && y }
	case trace.OpXor, trace.OpNe:
		f = func(x, y bool) bool { return x != y }
	case trace.OpEq:
		f = func(x, y bool) bool { return x == y }
	case trace.OpLt:
		f = func(x, y bool) bool { return b2i(x) < b2i(y) }
	case trace.OpLe:
		f = func(x, y bool) bool { return b2i(x) <= b2i(y) }
	case trace.OpGt:
		f = func(x, y bool) bool { return b2i(x) > b2i(y) }
	case trace.OpGe:
		f = func(x, y bool) bool { return b2i(x) >= b2i(y) }
	default:
		return nil, errNotDefined(op, "bool")
	}
	return mapBinary(a, b, ia, ib, f), nil
}

// width is the number of bits of T.
func width[T integer]() uint64 {
	var z T
	return uint64(unsafe.Sizeof(z)) * 8
}

// minusOne is −1 in T (all ones for unsigned T); a constant −1 does not
// convert to a type parameter that admits unsigned types.
func minusOne[T integer]() T {
	var one T = 1
	return -one
}

// isSigned reports whether T is a signed integer type.
func isSigned[T integer]() bool {
	var z T
	return z-1 < 0
}

func intUnary[T integer](op trace.Op, x []T, ix []int) (any, error) {
	switch op {
	case trace.OpNeg:
		return mapUnary(x, ix, func(v T) T { return -v }), nil // −MinInt wraps to MinInt; unsigned wraps
	case trace.OpAbs:
		return mapUnary(x, ix, func(v T) T {
			if v < 0 {
				return -v // abs(MinInt) wraps to MinInt, as NumPy
			}
			return v
		}), nil
	case trace.OpSign:
		return mapUnary(x, ix, func(v T) T {
			switch {
			case v > 0:
				return 1
			case v < 0:
				return minusOne[T]()
			}
			return 0
		}), nil
	case trace.OpNot:
		return mapUnary(x, ix, func(v T) T { return ^v }), nil
	case trace.OpFloor, trace.OpCeil, trace.OpRound, trace.OpReal, trace.OpConj, trace.OpStopGradient:
		return mapUnary(x, ix, func(v T) T { return v }), nil
	case trace.OpImag:
		return mapUnary(x, ix, func(T) T { return 0 }), nil
	case trace.OpIsNaN, trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf:
		return mapUnary(x, ix, func(T) bool { return false }), nil
	case trace.OpIsFinite:
		return mapUnary(x, ix, func(T) bool { return true }), nil
	}
	return nil, errNotDefined(op, "integers")
}

func intBinary[T integer](op trace.Op, a, b []T, ia, ib []int) (any, error) {
	var f func(x, y T) T
	var cmp func(x, y T) bool
	switch op {
	case trace.OpAdd:
		f = func(x, y T) T { return x + y }
	case trace.OpSub:
		f = func(x, y T) T { return x - y }
	case trace.OpMul:
		f = func(x, y T) T { return x * y }
	case trace.OpFloorDiv:
		f = floorDiv[T]
	case trace.OpRem:
		f = floorRem[T]
	case trace.OpFmod:
		f = truncRem[T]
	case trace.OpPow:
		f = intPow[T]
	case trace.OpMax:
		f = func(x, y T) T { return max(x, y) }
	case trace.OpMin:
		f = func(x, y T) T { return min(x, y) }
	case trace.OpAnd:
		f = func(x, y T) T { return x & y }
	case trace.OpOr:
		f = func(x, y T) T { return x | y }
	case trace.OpXor:
		f = func(x, y T) T { return x ^ y }
	case trace.OpShl:
		f = shl[T]
	case trace.OpShr:
		f = shr[T]
	case trace.OpEq:
		cmp = func(x, y T) bool { return x == y }
	case trace.OpNe:
		cmp = func(x, y T) bool { return x != y }
	case trace.OpLt:
		cmp = func(x, y T) bool { return x < y }
	case trace.OpLe:
		cmp = func(x, y T) bool { return x <= y }
	case trace.OpGt:
		cmp = func(x, y T) bool { return x > y }
	case trace.OpGe:
		cmp = func(x, y T) bool { return x >= y }
	default:
		return nil, errNotDefined(op, "integers")
	}
	if cmp != nil {
		return mapBinary(a, b, ia, ib, cmp), nil
	}
	return mapBinary(a, b, ia, ib, f), nil
}

// floorDiv is Python's x // y: the quotient rounded toward −∞. A zero
// divisor gives 0 (NumPy), and MinInt // −1 wraps to MinInt, which Go's
// own division already does without trapping.
func floorDiv[T integer](x, y T) T {
	if y == 0 {
		return 0
	}
	q := x / y // truncated toward zero
	if x%y != 0 && (x < 0) != (y < 0) {
		q-- // the exact quotient was negative and not an integer
	}
	return q
}

// floorRem is Python's x % y: the remainder with the sign of y, so that
// x == (x//y)*y + x%y. A zero divisor gives 0; MinInt % −1 is 0.
func floorRem[T integer](x, y T) T {
	if y == 0 {
		return 0
	}
	r := x % y // has the sign of x
	if r != 0 && (r < 0) != (y < 0) {
		r += y
	}
	return r
}

// shl is x << y; shifting by the width or more, or by a negative amount,
// gives 0 (kernels/doc.go). Go panics on a negative count, so it is tested
// before shifting.
func shl[T integer](x, y T) T {
	if y < 0 || uint64(y) >= width[T]() {
		return 0
	}
	return x << uint64(y)
}

// shr is x >> y, arithmetic for signed and logical for unsigned types;
// shifting by the width or more, or by a negative amount, fills every bit
// with the sign bit (−1 or 0 for signed, 0 for unsigned).
func shr[T integer](x, y T) T {
	if y < 0 || uint64(y) >= width[T]() {
		if x < 0 {
			return minusOne[T]()
		}
		return 0
	}
	return x >> uint64(y)
}

// intPow is x**y with wraparound. A negative exponent gives 0 (the
// truncated 1/x**|y|) except for x = 1 (1) and x = −1 (±1 by parity).
// Square-and-multiply gives the same bits as y repeated multiplications,
// because multiplication modulo 2^n is associative.
func intPow[T integer](x, y T) T {
	if y < 0 {
		switch {
		case x == 1:
			return 1
		case isSigned[T]() && x == minusOne[T]():
			if y%2 == 0 {
				return 1
			}
			return x
		}
		return 0
	}
	r := T(1)
	for e := uint64(y); e > 0; e >>= 1 {
		if e&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// truncRem is C's remainder of truncated division (fmod, lax.rem): the sign
// of x; 0 for a zero divisor (as // and %), and Go's MIN % −1 = 0.
func truncRem[T integer](x, y T) T {
	if y == 0 {
		return 0
	}
	return x % y
}
