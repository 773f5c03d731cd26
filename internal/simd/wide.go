package simd

import "math"

// The f16 and bf16 ops with operands in their storage format: binary16 or
// bfloat16 bits, widened to float32 in registers. Each gives the bits of
// widening the operand (F16ToF32, BF16ToF32) and then calling the op
// without the H: AddRoundF16H2(dst, a, b) is F16ToF32(t, b) followed by
// AddRoundF16(dst, a, t), in one pass over memory. H1 marks a as bits, H2
// b, H12 both; the scalar ops' H form reads a as bits. dst may be a when
// both are float32.

type lane interface{ ~float32 | ~uint16 }

func id32(x float32) float32         { return x }
func wideF16(x uint16) float32       { return math.Float32frombits(f16ToF32Bits(x)) }
func wideBF16(x uint16) float32      { return math.Float32frombits(uint32(x) << 16) }
func roundF16One(x float32) float32  { return wideF16(f32ToF16Bits(x)) }
func roundBF16One(x float32) float32 { return wideBF16(f32ToBF16Bits(x)) }

func add32(x, y float32) float32 { return x + y }
func sub32(x, y float32) float32 { return x - y }
func mul32(x, y float32) float32 { return x * y }
func div32(x, y float32) float32 { return x / y }

// binRoundH is the twin of the binary H kernels rounding to float32 lanes.
func binRoundH[A, B lane](dst []float32, a []A, b []B, wa func(A) float32, wb func(B) float32, op func(x, y float32) float32, round func(float32) float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = round(op(wa(a[i]), wb(b[i])))
	}
}

// binToH is the twin of the binary H kernels storing bits.
func binToH[A, B lane](dst []uint16, a []A, b []B, wa func(A) float32, wb func(B) float32, op func(x, y float32) float32, narrow func(float32) uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = narrow(op(wa(a[i]), wb(b[i])))
	}
}

// scalarH is the twin of the scalar H kernels: s ∘ a when rev.
func scalarH[D lane](dst []D, a []uint16, s float32, wa func(uint16) float32, op func(x, y float32) float32, rev bool, out func(float32) D) {
	a = a[:len(dst)]
	for i := range dst {
		if rev {
			dst[i] = out(op(s, wa(a[i])))
		} else {
			dst[i] = out(op(wa(a[i]), s))
		}
	}
}

// AddRoundF16H1 is AddRoundF16 where a is binary16 bits.
func AddRoundF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, id32, add32, roundF16One)
}

// AddToF16H1 is AddToF16 where a is binary16 bits.
func AddToF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, id32, add32, f32ToF16Bits)
}

// AddRoundF16H2 is AddRoundF16 where b is binary16 bits.
func AddRoundF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideF16, add32, roundF16One)
}

// AddToF16H2 is AddToF16 where b is binary16 bits.
func AddToF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideF16, add32, f32ToF16Bits)
}

// AddRoundF16H12 is AddRoundF16 where a and b are binary16 bits.
func AddRoundF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, wideF16, add32, roundF16One)
}

// AddToF16H12 is AddToF16 where a and b are binary16 bits.
func AddToF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, wideF16, add32, f32ToF16Bits)
}

// SubRoundF16H1 is SubRoundF16 where a is binary16 bits.
func SubRoundF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, id32, sub32, roundF16One)
}

// SubToF16H1 is SubToF16 where a is binary16 bits.
func SubToF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, id32, sub32, f32ToF16Bits)
}

// SubRoundF16H2 is SubRoundF16 where b is binary16 bits.
func SubRoundF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideF16, sub32, roundF16One)
}

// SubToF16H2 is SubToF16 where b is binary16 bits.
func SubToF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideF16, sub32, f32ToF16Bits)
}

// SubRoundF16H12 is SubRoundF16 where a and b are binary16 bits.
func SubRoundF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, wideF16, sub32, roundF16One)
}

// SubToF16H12 is SubToF16 where a and b are binary16 bits.
func SubToF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, wideF16, sub32, f32ToF16Bits)
}

// MulRoundF16H1 is MulRoundF16 where a is binary16 bits.
func MulRoundF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, id32, mul32, roundF16One)
}

// MulToF16H1 is MulToF16 where a is binary16 bits.
func MulToF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, id32, mul32, f32ToF16Bits)
}

// MulRoundF16H2 is MulRoundF16 where b is binary16 bits.
func MulRoundF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideF16, mul32, roundF16One)
}

// MulToF16H2 is MulToF16 where b is binary16 bits.
func MulToF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideF16, mul32, f32ToF16Bits)
}

// MulRoundF16H12 is MulRoundF16 where a and b are binary16 bits.
func MulRoundF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, wideF16, mul32, roundF16One)
}

// MulToF16H12 is MulToF16 where a and b are binary16 bits.
func MulToF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, wideF16, mul32, f32ToF16Bits)
}

// DivRoundF16H1 is DivRoundF16 where a is binary16 bits.
func DivRoundF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, id32, div32, roundF16One)
}

// DivToF16H1 is DivToF16 where a is binary16 bits.
func DivToF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, id32, div32, f32ToF16Bits)
}

// DivRoundF16H2 is DivRoundF16 where b is binary16 bits.
func DivRoundF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideF16, div32, roundF16One)
}

// DivToF16H2 is DivToF16 where b is binary16 bits.
func DivToF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideF16, div32, f32ToF16Bits)
}

// DivRoundF16H12 is DivRoundF16 where a and b are binary16 bits.
func DivRoundF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideF16, wideF16, div32, roundF16One)
}

// DivToF16H12 is DivToF16 where a and b are binary16 bits.
func DivToF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideF16, wideF16, div32, f32ToF16Bits)
}

// AddScalarRoundF16H is AddScalarRoundF16 where a is binary16 bits.
func AddScalarRoundF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := addScalarRoundF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, add32, false, roundF16One)
}

// AddScalarToF16H is AddScalarToF16 where a is binary16 bits.
func AddScalarToF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := addScalarToF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, add32, false, f32ToF16Bits)
}

// SubScalarRoundF16H is SubScalarRoundF16 where a is binary16 bits.
func SubScalarRoundF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarRoundF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, sub32, false, roundF16One)
}

// SubScalarToF16H is SubScalarToF16 where a is binary16 bits.
func SubScalarToF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarToF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, sub32, false, f32ToF16Bits)
}

// SubScalarRevRoundF16H is SubScalarRevRoundF16 where a is binary16 bits.
func SubScalarRevRoundF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarRevRoundF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, sub32, true, roundF16One)
}

// SubScalarRevToF16H is SubScalarRevToF16 where a is binary16 bits.
func SubScalarRevToF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarRevToF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, sub32, true, f32ToF16Bits)
}

// MulScalarRoundF16H is MulScalarRoundF16 where a is binary16 bits.
func MulScalarRoundF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := mulScalarRoundF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, mul32, false, roundF16One)
}

// MulScalarToF16H is MulScalarToF16 where a is binary16 bits.
func MulScalarToF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := mulScalarToF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, mul32, false, f32ToF16Bits)
}

// DivScalarRoundF16H is DivScalarRoundF16 where a is binary16 bits.
func DivScalarRoundF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarRoundF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, div32, false, roundF16One)
}

// DivScalarToF16H is DivScalarToF16 where a is binary16 bits.
func DivScalarToF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarToF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, div32, false, f32ToF16Bits)
}

// DivScalarRevRoundF16H is DivScalarRevRoundF16 where a is binary16 bits.
func DivScalarRevRoundF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarRevRoundF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, div32, true, roundF16One)
}

// DivScalarRevToF16H is DivScalarRevToF16 where a is binary16 bits.
func DivScalarRevToF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarRevToF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideF16, div32, true, f32ToF16Bits)
}

// AddRoundBF16H1 is AddRoundBF16 where a is bfloat16 bits.
func AddRoundBF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundBF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, id32, add32, roundBF16One)
}

// AddToBF16H1 is AddToBF16 where a is bfloat16 bits.
func AddToBF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToBF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, id32, add32, f32ToBF16Bits)
}

// AddRoundBF16H2 is AddRoundBF16 where b is bfloat16 bits.
func AddRoundBF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundBF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideBF16, add32, roundBF16One)
}

// AddToBF16H2 is AddToBF16 where b is bfloat16 bits.
func AddToBF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToBF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideBF16, add32, f32ToBF16Bits)
}

// AddRoundBF16H12 is AddRoundBF16 where a and b are bfloat16 bits.
func AddRoundBF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addRoundBF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, add32, roundBF16One)
}

// AddToBF16H12 is AddToBF16 where a and b are bfloat16 bits.
func AddToBF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := addToBF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, add32, f32ToBF16Bits)
}

// SubRoundBF16H1 is SubRoundBF16 where a is bfloat16 bits.
func SubRoundBF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundBF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, id32, sub32, roundBF16One)
}

// SubToBF16H1 is SubToBF16 where a is bfloat16 bits.
func SubToBF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToBF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, id32, sub32, f32ToBF16Bits)
}

// SubRoundBF16H2 is SubRoundBF16 where b is bfloat16 bits.
func SubRoundBF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundBF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideBF16, sub32, roundBF16One)
}

// SubToBF16H2 is SubToBF16 where b is bfloat16 bits.
func SubToBF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToBF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideBF16, sub32, f32ToBF16Bits)
}

// SubRoundBF16H12 is SubRoundBF16 where a and b are bfloat16 bits.
func SubRoundBF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subRoundBF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, sub32, roundBF16One)
}

// SubToBF16H12 is SubToBF16 where a and b are bfloat16 bits.
func SubToBF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := subToBF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, sub32, f32ToBF16Bits)
}

// MulRoundBF16H1 is MulRoundBF16 where a is bfloat16 bits.
func MulRoundBF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundBF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, id32, mul32, roundBF16One)
}

// MulToBF16H1 is MulToBF16 where a is bfloat16 bits.
func MulToBF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToBF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, id32, mul32, f32ToBF16Bits)
}

// MulRoundBF16H2 is MulRoundBF16 where b is bfloat16 bits.
func MulRoundBF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundBF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideBF16, mul32, roundBF16One)
}

// MulToBF16H2 is MulToBF16 where b is bfloat16 bits.
func MulToBF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToBF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideBF16, mul32, f32ToBF16Bits)
}

// MulRoundBF16H12 is MulRoundBF16 where a and b are bfloat16 bits.
func MulRoundBF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulRoundBF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, mul32, roundBF16One)
}

// MulToBF16H12 is MulToBF16 where a and b are bfloat16 bits.
func MulToBF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := mulToBF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, mul32, f32ToBF16Bits)
}

// DivRoundBF16H1 is DivRoundBF16 where a is bfloat16 bits.
func DivRoundBF16H1(dst []float32, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundBF16H1Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, id32, div32, roundBF16One)
}

// DivToBF16H1 is DivToBF16 where a is bfloat16 bits.
func DivToBF16H1(dst []uint16, a []uint16, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToBF16H1Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, id32, div32, f32ToBF16Bits)
}

// DivRoundBF16H2 is DivRoundBF16 where b is bfloat16 bits.
func DivRoundBF16H2(dst []float32, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundBF16H2Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], id32, wideBF16, div32, roundBF16One)
}

// DivToBF16H2 is DivToBF16 where b is bfloat16 bits.
func DivToBF16H2(dst []uint16, a []float32, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToBF16H2Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], id32, wideBF16, div32, f32ToBF16Bits)
}

// DivRoundBF16H12 is DivRoundBF16 where a and b are bfloat16 bits.
func DivRoundBF16H12(dst []float32, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divRoundBF16H12Accel(dst, a, b)
	binRoundH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, div32, roundBF16One)
}

// DivToBF16H12 is DivToBF16 where a and b are bfloat16 bits.
func DivToBF16H12(dst []uint16, a []uint16, b []uint16) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := divToBF16H12Accel(dst, a, b)
	binToH(dst[n:], a[n:], b[n:], wideBF16, wideBF16, div32, f32ToBF16Bits)
}

// AddScalarRoundBF16H is AddScalarRoundBF16 where a is bfloat16 bits.
func AddScalarRoundBF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := addScalarRoundBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, add32, false, roundBF16One)
}

// AddScalarToBF16H is AddScalarToBF16 where a is bfloat16 bits.
func AddScalarToBF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := addScalarToBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, add32, false, f32ToBF16Bits)
}

// SubScalarRoundBF16H is SubScalarRoundBF16 where a is bfloat16 bits.
func SubScalarRoundBF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarRoundBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, sub32, false, roundBF16One)
}

// SubScalarToBF16H is SubScalarToBF16 where a is bfloat16 bits.
func SubScalarToBF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarToBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, sub32, false, f32ToBF16Bits)
}

// SubScalarRevRoundBF16H is SubScalarRevRoundBF16 where a is bfloat16 bits.
func SubScalarRevRoundBF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarRevRoundBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, sub32, true, roundBF16One)
}

// SubScalarRevToBF16H is SubScalarRevToBF16 where a is bfloat16 bits.
func SubScalarRevToBF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := subScalarRevToBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, sub32, true, f32ToBF16Bits)
}

// MulScalarRoundBF16H is MulScalarRoundBF16 where a is bfloat16 bits.
func MulScalarRoundBF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := mulScalarRoundBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, mul32, false, roundBF16One)
}

// MulScalarToBF16H is MulScalarToBF16 where a is bfloat16 bits.
func MulScalarToBF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := mulScalarToBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, mul32, false, f32ToBF16Bits)
}

// DivScalarRoundBF16H is DivScalarRoundBF16 where a is bfloat16 bits.
func DivScalarRoundBF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarRoundBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, div32, false, roundBF16One)
}

// DivScalarToBF16H is DivScalarToBF16 where a is bfloat16 bits.
func DivScalarToBF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarToBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, div32, false, f32ToBF16Bits)
}

// DivScalarRevRoundBF16H is DivScalarRevRoundBF16 where a is bfloat16 bits.
func DivScalarRevRoundBF16H(dst []float32, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarRevRoundBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, div32, true, roundBF16One)
}

// DivScalarRevToBF16H is DivScalarRevToBF16 where a is bfloat16 bits.
func DivScalarRevToBF16H(dst []uint16, a []uint16, s float32) {
	a = a[:len(dst)]
	n := divScalarRevToBF16HAccel(dst, a, s)
	scalarH(dst[n:], a[n:], s, wideBF16, div32, true, f32ToBF16Bits)
}
