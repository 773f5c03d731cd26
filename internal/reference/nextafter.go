package reference

import (
	"github.com/kiln-go/kiln/tensor"
)

// nextafter16 is nextafter for f16 and bf16, which steps in the storage
// format itself: computing it in float32 and rounding, as the other ops
// of the narrow types do, would round the step away.
func nextafter16(d tensor.DType, args []*tensor.Array, maps [][]int, shape []int) (*tensor.Array, error) {
	bits := func(a *tensor.Array) []uint16 {
		switch x := a.Data().(type) {
		case []tensor.Float16:
			out := make([]uint16, len(x))
			for i, v := range x {
				out[i] = v.Bits()
			}
			return out
		case []tensor.BFloat16:
			out := make([]uint16, len(x))
			for i, v := range x {
				out[i] = v.Bits()
			}
			return out
		}
		return nil
	}
	a, b := bits(args[0]), bits(args[1])
	value := func(u uint16) float32 {
		if d == tensor.F16 {
			return tensor.Float16FromBits(u).Float32()
		}
		return tensor.BFloat16FromBits(u).Float32()
	}
	out := mapBinary(a, b, maps[0], maps[1], func(x, y uint16) uint16 { return step16(x, y, value) })
	data := tensor.MakeSlice(d, len(out))
	for i, u := range out {
		switch s := data.(type) {
		case []tensor.Float16:
			s[i] = tensor.Float16FromBits(u)
		case []tensor.BFloat16:
			s[i] = tensor.BFloat16FromBits(u)
		}
	}
	return tensor.New(d, shape, data)
}

// step16 is the sign-magnitude bit pattern after x toward y: a NaN operand
// gives x (if NaN) or y, equal operands give y, a zero steps to the
// smallest subnormal of y's sign.
func step16(x, y uint16, value func(uint16) float32) uint16 {
	fx, fy := value(x), value(y)
	switch {
	case fx != fx:
		return x
	case fy != fy:
		return y
	case fx == fy:
		return y
	case fx == 0:
		return 1 | y&0x8000
	case (fx < fy) == (fx > 0): // away from zero
		return x + 1
	}
	return x - 1
}
