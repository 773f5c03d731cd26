package progen

import (
	"math"
	"math/rand"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Special float64 values every float input may contain. They are chosen to
// hit the edges of the numerics contract: NaN propagation, ±Inf, signed
// zeros, subnormals of every width, overflow on narrowing, ties of
// round-half-even, the saturation edges of float → int converts.
var specialFloats = []float64{
	math.NaN(), math.Float64frombits(0xfff8_0000_0000_0001), // NaN, negative NaN with a payload
	math.Inf(1), math.Inf(-1),
	0, math.Copysign(0, -1),
	1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3, 7, -7,
	5e-324, -5e-324, 2.2250738585072014e-308, // f64 subnormal and min normal
	1e-45, 1.1754942e-38, 1.17549435e-38, // f32 subnormals and min normal
	6e-8, -6e-8, 6.1e-5, // f16 subnormals and min normal
	65504, 65520, -65519, 1e5, // f16 max, first value rounding to Inf
	3.3895314e38, 3.4028235e38, -3.4028235e38, 1e39, // bf16/f32 max, beyond f32
	1.7976931348623157e308, -1.7976931348623157e308,
	1e30, -1e30, 1e300, 1e-30, 1e-300,
	127.5, 128, -128.5, 255.9, 256, 32767.5, 65535.9, // near narrow-int saturation
	2147483647.5, 2147483648, -2147483649, 4294967296,
	9.223372036854775807e18, -9.223372036854775808e18, 1.8446744073709552e19,
	math.Pi, -math.E, 0.1, 1.0 / 3,
}

// Special integer values (as int64 bit patterns; narrower types truncate).
var specialInts = []int64{
	0, 1, -1, 2, -2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 65, 100, -100,
	127, 128, -128, -129, 255, 256, 32767, -32768, 65535, 65536,
	math.MaxInt32, math.MinInt32, math.MaxUint32,
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
}

// dataStyle decides how adventurous one array's data are: a share of
// special values and whether ordinary values are small.
type dataStyle struct {
	special float64 // probability of a special value per element
	small   bool    // ordinary values are small integers / simple floats
}

func randomStyle(r *rand.Rand) dataStyle {
	s := dataStyle{small: r.Intn(3) == 0}
	switch r.Intn(4) {
	case 0:
		s.special = 0
	case 1:
		s.special = 0.05
	case 2:
		s.special = 0.25
	default:
		s.special = 0.6
	}
	return s
}

// ordinaryFloat is a finite value of moderate magnitude.
func ordinaryFloat(r *rand.Rand, small bool) float64 {
	if small {
		return float64(r.Intn(21)-10) / float64(1+r.Intn(2)*3)
	}
	switch r.Intn(3) {
	case 0:
		return r.NormFloat64()
	case 1:
		return r.NormFloat64() * math.Pow(10, float64(r.Intn(13)-6))
	default:
		return float64(r.Intn(2001) - 1000)
	}
}

func randFloat(r *rand.Rand, st dataStyle) float64 {
	if r.Float64() < st.special {
		return specialFloats[r.Intn(len(specialFloats))]
	}
	return ordinaryFloat(r, st.small)
}

func randInt(r *rand.Rand, st dataStyle) int64 {
	if r.Float64() < st.special {
		if r.Intn(4) == 0 {
			return int64(r.Uint64()) // any bit pattern
		}
		return specialInts[r.Intn(len(specialInts))]
	}
	if st.small {
		return int64(r.Intn(11) - 5)
	}
	return int64(r.Intn(201) - 100)
}

// randomArray fills a new array of dtype d and shape with random data.
func randomArray(r *rand.Rand, d tensor.DType, shape []int) *tensor.Array {
	n := trace.ShapeSize(shape)
	st := randomStyle(r)
	data := tensor.MakeSlice(d, n)
	switch s := data.(type) {
	case []bool:
		p := r.Float64()
		for i := range s {
			s[i] = r.Float64() < p
		}
	case []uint8:
		fillInt(r, st, s)
	case []uint16:
		fillInt(r, st, s)
	case []uint32:
		fillInt(r, st, s)
	case []uint64:
		fillInt(r, st, s)
	case []int8:
		fillInt(r, st, s)
	case []int16:
		fillInt(r, st, s)
	case []int32:
		fillInt(r, st, s)
	case []int64:
		fillInt(r, st, s)
	case []float64:
		for i := range s {
			s[i] = randFloat(r, st)
		}
	case []float32:
		for i := range s {
			s[i] = float32(randFloat(r, st))
			if r.Float64() < st.special/8 {
				s[i] = math.Float32frombits(0x7fc00000 | r.Uint32()&0x803fffff) // NaN with a payload
			}
		}
	case []tensor.Float16:
		for i := range s {
			if r.Float64() < st.special/2 {
				s[i] = tensor.Float16FromBits(uint16(r.Uint32())) // any bit pattern
			} else {
				s[i] = tensor.Float64ToF16(randFloat(r, st))
			}
		}
	case []tensor.BFloat16:
		for i := range s {
			if r.Float64() < st.special/2 {
				s[i] = tensor.BFloat16FromBits(uint16(r.Uint32()))
			} else {
				s[i] = tensor.Float64ToBF16(randFloat(r, st))
			}
		}
	case []complex64:
		for i := range s {
			s[i] = complex(float32(randFloat(r, st)), float32(randComplexPart(r, st)))
		}
	case []complex128:
		for i := range s {
			s[i] = complex(randFloat(r, st), randComplexPart(r, st))
		}
	}
	a, err := tensor.New(d, shape, data)
	if err != nil {
		panic("progen: " + err.Error()) // unreachable: the slice is made for d and shape
	}
	return a
}

// randComplexPart is an imaginary part; a third of them are zero, so that
// complex values on the real axis (where branch cuts live) are common.
func randComplexPart(r *rand.Rand, st dataStyle) float64 {
	if r.Intn(3) == 0 {
		return 0
	}
	return randFloat(r, st)
}

type anyInt interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func fillInt[T anyInt](r *rand.Rand, st dataStyle, s []T) {
	for i := range s {
		s[i] = T(randInt(r, st)) // narrower types wrap, giving their own extremes
	}
}
