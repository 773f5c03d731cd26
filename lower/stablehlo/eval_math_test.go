package stablehlo

import (
	"math"
	"math/cmplx"

	"github.com/kiln-go/kiln/tensor"
)

// The interpreter's elementwise math. Float ops compute in float64 and
// round once to the result's type.

// floatOp computes op name on floats (a bool for the predicates).
func floatOp(name string, x, y float64) (any, bool) {
	switch name {
	case "add":
		return x + y, true
	case "subtract":
		return x - y, true
	case "multiply":
		return x * y, true
	case "divide":
		return x / y, true
	case "remainder":
		return math.Mod(x, y), true // C's fmod
	case "power":
		return math.Pow(x, y), true
	case "atan2":
		return math.Atan2(x, y), true
	case "negate":
		return -x, true
	case "floor":
		return math.Floor(x), true
	case "ceil":
		return math.Ceil(x), true
	case "round_nearest_even":
		return math.RoundToEven(x), true
	case "abs":
		return math.Abs(x), true
	case "sign":
		if x > 0 {
			return 1.0, true
		} else if x < 0 {
			return -1.0, true
		}
		return x, true // ±0 and NaN as they are
	case "maximum", "minimum":
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return math.NaN(), true
		case x == y:
			if (name == "maximum") == math.Signbit(x) {
				return y, true
			}
			return x, true
		case (x > y) == (name == "maximum"):
			return x, true
		}
		return y, true
	case "is_finite":
		return !math.IsInf(x, 0) && !math.IsNaN(x), true
	case "is_inf":
		return math.IsInf(x, 0), true
	case "is_pos_inf":
		return math.IsInf(x, 1), true
	case "is_neg_inf":
		return math.IsInf(x, -1), true
	}
	if f, ok := floatMath[name]; ok {
		return f(x), true
	}
	return nil, false
}

// logSubnormal is math.Log, with subnormal arguments scaled into the
// normal range first: Go's amd64 math.Log gives log(2^-1022)-ish values
// for them (math.Log(5e-324) is -709.09, not -744.44).
func logSubnormal(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p64) - 64*math.Ln2
	}
	return math.Log(x)
}

var floatMath = map[string]func(float64) float64{
	"exponential": math.Exp, "log": logSubnormal, "log_plus_one": math.Log1p, "exponential_minus_one": math.Expm1,
	"sqrt": math.Sqrt, "rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) }, "cbrt": math.Cbrt,
	"sine": math.Sin, "cosine": math.Cos, "tan": math.Tan, "tanh": math.Tanh,
	"logistic": func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	"asin":     math.Asin, "acos": math.Acos, "atan": math.Atan, "sinh": math.Sinh, "cosh": math.Cosh,
	"asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh, "erf": math.Erf, "erfc": math.Erfc,
	"erf_inv": math.Erfinv,
}

// complexOp computes on complex128 values; part rounds a part to the
// element's real type. multiply is (ac − bd) + (ad + bc)i with each
// product rounded (XLA expands it so, in the element type); divide is
// Smith's algorithm (as NumPy and Kiln; StableHLO does not fix one);
// sign divides each part by |z|.
func complexOp(name string, x, y complex128, part func(float64) float64) (complex128, bool) {
	switch name {
	case "add":
		return x + y, true
	case "subtract":
		return x - y, true
	case "multiply":
		a, b, c, d := real(x), imag(x), real(y), imag(y)
		return complex(part(a*c)-part(b*d), part(a*d)+part(b*c)), true
	case "divide":
		return smithDiv(x, y, part), true
	case "negate":
		return -x, true
	case "power":
		return cpow(x, y), true
	case "sign":
		a := part(cmplxAbs(x))
		if a == 0 {
			return 0, true
		}
		return complex(real(x)/a, imag(x)/a), true
	}
	f, ok := complexMath[name]
	if !ok {
		return 0, false
	}
	return f(x), true
}

// smithDiv is Smith's complex division, rounding every step with part; a
// zero divisor gives the parts divided by +0.
func smithDiv(a, b complex128, part func(float64) float64) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	absRe, absIm := math.Abs(br), math.Abs(bi)
	if absRe >= absIm {
		if absRe == 0 && absIm == 0 {
			return complex(ar/absRe, ai/absIm)
		}
		rat := part(bi / br)
		scl := part(1 / part(br+part(bi*rat)))
		return complex(part(part(ar+part(ai*rat))*scl), part(part(ai-part(ar*rat))*scl))
	}
	rat := part(br / bi)
	scl := part(1 / part(bi+part(br*rat)))
	return complex(part(part(part(ar*rat)+ai)*scl), part(part(part(ai*rat)-ar)*scl))
}

// cpow is cmplx.Pow, which panics on a zero base with a NaN exponent
// (Go 1.26): that case is NaN.
func cpow(x, y complex128) (z complex128) {
	defer func() {
		if recover() != nil {
			z = cmplx.NaN()
		}
	}()
	return cmplx.Pow(x, y)
}

func identity(x float64) float64 { return x }

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

var complexMath = map[string]func(complex128) complex128{
	"exponential": cmplx.Exp, "log": cmplx.Log, "sqrt": cmplx.Sqrt,
	"rsqrt": func(z complex128) complex128 { return smithDiv(1, cmplx.Sqrt(z), identity) },
	"sine":  cmplx.Sin, "cosine": cmplx.Cos, "tan": cmplx.Tan, "tanh": cmplx.Tanh,
	"log_plus_one":          func(z complex128) complex128 { return cmplx.Log(1 + z) },
	"exponential_minus_one": func(z complex128) complex128 { return cmplx.Exp(z) - 1 },
	"logistic":              func(z complex128) complex128 { return smithDiv(1, 1+cmplx.Exp(-z), identity) },
	"asin":                  cmplx.Asin, "acos": cmplx.Acos, "atan": cmplx.Atan, "sinh": cmplx.Sinh, "cosh": cmplx.Cosh,
	"asinh": cmplx.Asinh, "acosh": cmplx.Acosh, "atanh": cmplx.Atanh,
}

// bitcast reinterprets each element's bits as t's dtype (same width).
func bitcast(a ival, t Type) ival {
	r := newIval(t.DType, t.Shape)
	for i := range a.size() {
		var bits uint64
		switch {
		case a.fb != nil:
			bits = a.fb[i]
		case a.f != nil:
			bits = floatBits(a.d, a.f[i])
		case a.i != nil:
			bits = uint64(a.i[i])
		case a.u != nil:
			bits = a.u[i]
		}
		bits = wrapU(a.d, bits)
		switch {
		case r.f != nil:
			if r.fb == nil {
				r.fb = make([]uint64, len(r.f))
			}
			r.f[i], r.fb[i] = floatFromBits(t.DType, bits), bits
		case r.i != nil:
			r.i[i] = wrap(t.DType, int64(bits))
		case r.u != nil:
			r.u[i] = bits
		}
	}
	return r
}

// nextAfter is the float of dtype d next to x toward y (y if equal, NaN
// if either is), stepping x's storage bits.
func nextAfter(d tensor.DType, x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x == y:
		return y
	case x == 0:
		b := uint64(1)
		if y < 0 {
			b |= 1 << (d.Bits() - 1)
		}
		return floatFromBits(d, b)
	}
	b := floatBits(d, x)
	if (y > x) == (x > 0) {
		b++
	} else {
		b--
	}
	return floatFromBits(d, b)
}

func floatBits(d tensor.DType, x float64) uint64 {
	if f, ok := d.FloatFormat(); ok {
		return uint64(f.FromFloat64(x))
	}
	switch d {
	case tensor.F16:
		return uint64(tensor.Float64ToF16(x).Bits())
	case tensor.BF16:
		return uint64(tensor.Float64ToBF16(x).Bits())
	case tensor.F32:
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(x)
}

func floatFromBits(d tensor.DType, b uint64) float64 {
	if f, ok := d.FloatFormat(); ok {
		return f.ToFloat64(uint8(b))
	}
	switch d {
	case tensor.F16:
		return float64(tensor.Float16FromBits(uint16(b)).Float32())
	case tensor.BF16:
		return float64(tensor.BFloat16FromBits(uint16(b)).Float32())
	case tensor.F32:
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}
