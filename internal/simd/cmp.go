package simd

// Pred is a comparison predicate. Every predicate is false when an operand
// is NaN, except Ne, which is true.
type Pred uint8

const (
	Eq Pred = iota // a == b
	Ne             // a != b
	Lt             // a < b
	Le             // a <= b
	Gt             // a > b
	Ge             // a >= b
)

// CmpF32 computes dst[i] = a[i] pred b[i].
func CmpF32(dst []bool, a, b []float32, pred Pred) {
	a, b = a[:len(dst)], b[:len(dst)]
	var n int
	switch pred {
	case Eq:
		n = cmpEqF32Accel(dst, a, b)
	case Ne:
		n = cmpNeF32Accel(dst, a, b)
	case Lt:
		n = cmpLtF32Accel(dst, a, b)
	case Le:
		n = cmpLeF32Accel(dst, a, b)
	case Gt:
		n = cmpLtF32Accel(dst, b, a)
	case Ge:
		n = cmpLeF32Accel(dst, b, a)
	}
	cmpGo(dst[n:], a[n:], b[n:], pred)
}

// CmpF64 computes dst[i] = a[i] pred b[i].
func CmpF64(dst []bool, a, b []float64, pred Pred) {
	a, b = a[:len(dst)], b[:len(dst)]
	var n int
	switch pred {
	case Eq:
		n = cmpEqF64Accel(dst, a, b)
	case Ne:
		n = cmpNeF64Accel(dst, a, b)
	case Lt:
		n = cmpLtF64Accel(dst, a, b)
	case Le:
		n = cmpLeF64Accel(dst, a, b)
	case Gt:
		n = cmpLtF64Accel(dst, b, a)
	case Ge:
		n = cmpLeF64Accel(dst, b, a)
	}
	cmpGo(dst[n:], a[n:], b[n:], pred)
}

func cmpGo[T float](dst []bool, a, b []T, pred Pred) {
	a, b = a[:len(dst)], b[:len(dst)]
	switch pred {
	case Eq:
		for i := range dst {
			dst[i] = a[i] == b[i]
		}
	case Ne:
		for i := range dst {
			dst[i] = a[i] != b[i]
		}
	case Lt:
		for i := range dst {
			dst[i] = a[i] < b[i]
		}
	case Le:
		for i := range dst {
			dst[i] = a[i] <= b[i]
		}
	case Gt:
		for i := range dst {
			dst[i] = a[i] > b[i]
		}
	case Ge:
		for i := range dst {
			dst[i] = a[i] >= b[i]
		}
	}
}
