package simd

import "github.com/kiln-go/kiln/internal/numerics"

// The f16 and bf16 ops with operands in their storage format: binary16 or
// bfloat16 bits, widened to float32 in registers. Each gives the bits of
// widening the operand (F16ToF32, BF16ToF32) and then calling the op
// without the H: AddRoundF16H2(dst, a, b) is F16ToF32(t, b) followed by
// AddRoundF16(dst, a, t), in one pass over memory. H1 marks a as bits, H2
// b, H12 both; the scalar ops' H form reads a as bits. dst may be a when
// both are float32.

type lane interface{ ~float32 | ~uint16 }

func id32(x float32) float32         { return x }
func wideF16(x uint16) float32       { return numerics.F16BitsToF32(x) }
func wideBF16(x uint16) float32      { return numerics.BF16BitsToF32(x) }
func roundF16One(x float32) float32  { return wideF16(numerics.F32ToF16Bits(x)) }
func roundBF16One(x float32) float32 { return wideBF16(numerics.F32ToBF16Bits(x)) }

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
