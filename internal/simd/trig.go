package simd

import (
	"math"

	"github.com/kiln-go/kiln/internal/xmath"
)

// sin and cos: the Cephes algorithms (sinf.c for float32; sin.c, as Go's
// math.Sin, for float64) with their published minimax coefficients, and a
// more careful argument reduction than Cephes'. |x| is reduced by an even
// multiple j of π/4 (Cody–Waite, see reduceF32 and reduceF64), then j mod 8
// picks the sine or cosine polynomial on r ∈ [−π/4, π/4] and the sign.
// NaN (x + x) and ±Inf (NaN) are settled in the vector. Beyond the vector
// domain |x| ≤ trigMax, lanes go to the Go twin: float32 uses float64
// math.Sin/math.Cos (Payne–Hanek, far more precise than a float32 ulp);
// float64 reduces with internal/xmath's TrigReduce (the same Cody–Waite
// with a float64 count up to 2**48, a Payne–Hanek reduction with a table
// of 2/π bits beyond) and evaluates the same polynomials: within 1 ulp for
// every float64.

const (
	fourOverPi = 1.27323954473516268615 // 4/π
	trigMaxF32 = 1 << 16
	trigMaxF64 = xmath.CodyWaiteMax // 2**30
	// π/4 = pio4AF32 + pio4BF32 + pio4CF32 + ..., each the float32 nearest
	// the rest (72 bits of π/4 in all).
	pio4AF32 = 0x1.921fb6p-1
	pio4BF32 = -0x1.777a5cp-26
	pio4CF32 = -0x1.ee59dap-51
	// π/4 = pio4A64 + pio4B64 + pio4C64, each the float64 nearest the rest.
	pio4A64 = 0x1.921fb54442d18p-01
	pio4B64 = 0x1.1a62633145c07p-55
	pio4C64 = -0x1.f1976b7ed8fbcp-111
)

var (
	sinPF32 = [...]float32{-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1}
	cosPF32 = [...]float32{2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2}
	sinPF64 = [...]float64{1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
		-1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1}
	cosPF64 = [...]float64{-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
		2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2}
)

// reduceF32 returns r = |x| − j·π/4 for j the even integer Cephes picks
// (|x|·4/π truncated, rounded up to even), subtracting y·pio4AF32,
// y·pio4BF32 and y·pio4CF32 in turn with FMA: each product is exact
// inside its FMA, so only the three sums round. Cephes' own three steps
// (short constants, unfused products) lose up to 478 ulp near multiples of
// π already below 8192; these lose nothing that shows: over every float32
// in [π/4, 2**16] sin and cos are within 2 ulp, with as many 2-ulp results
// (35 each, from the polynomials) as a float64 reduction gave
// (TestSinCosF32Exhaustive).
func reduceF32(ax float32) (r float32, j int32) {
	j = int32(ax * fourOverPi)
	j = (j + 1) &^ 1
	y := float32(j) // exact: j < 2**17
	r = fma32(-y, pio4AF32, ax)
	r = fma32(-y, pio4BF32, r)
	return fma32(-y, pio4CF32, r), j
}

// sinCosPolyF32 evaluates sin r (if j&2 == 0) or cos r on the reduced r:
// sin(r + jπ/4) for j even is ±sin r or ±cos r. cos x = sin(x + π/2) is the
// same with j + 2.
// The polynomials are evaluated with FMA, as the float32 exp (exp32.go).
func sinCosPolyF32(r float32, j int32) float32 {
	z := r * r
	if j&2 == 0 {
		p := fma32(sinPF32[0], z, sinPF32[1])
		p = fma32(p, z, sinPF32[2])
		return fma32(float32(p*z), r, r)
	}
	p := fma32(cosPF32[0], z, cosPF32[1])
	p = fma32(p, z, cosPF32[2])
	y := float32(float32(p*z) * z)
	y = fma32(-0.5, z, y)
	return y + 1
}

func sinF32(x float32) float32 {
	if r, ok := trigSpecialF32(x); ok {
		return r
	}
	if !(x >= -trigMaxF32 && x <= trigMaxF32) {
		return float32(math.Sin(float64(x)))
	}
	b := math.Float32bits(x)
	r, j := reduceF32(math.Float32frombits(b &^ (1 << 31)))
	sign := b&(1<<31) ^ uint32(j&4)<<29 // sin(x + π) = −sin x
	return math.Float32frombits(math.Float32bits(sinCosPolyF32(r, j)) ^ sign)
}

func cosF32(x float32) float32 {
	if r, ok := trigSpecialF32(x); ok {
		return r
	}
	if !(x >= -trigMaxF32 && x <= trigMaxF32) {
		return float32(math.Cos(float64(x)))
	}
	b := math.Float32bits(x)
	r, j := reduceF32(math.Float32frombits(b &^ (1 << 31)))
	j += 2 // cos x = sin(x + π/2)
	sign := uint32(j&4) << 29
	return math.Float32frombits(math.Float32bits(sinCosPolyF32(r, j)) ^ sign)
}

// reduceF64 returns |x| − j·π/4 as a double-double hi + lo, exact to far
// below an ulp of the result even next to a multiple of π: the products
// y·pio4A and y·pio4B are split exactly with FMA and summed with TwoSum.
// trigSpecialF32 settles NaN (x + x) and ±Inf (NaN), in the vector too.
func trigSpecialF32(x float32) (float32, bool) {
	switch {
	case x != x:
		return x + x, true
	case x > math.MaxFloat32 || x < -math.MaxFloat32:
		return nanF32, true
	}
	return 0, false
}

func reduceF64(ax float64) (hi, lo float64, j int32) {
	j = int32(ax * fourOverPi)
	j = (j + 1) &^ 1
	hi, lo = reduceByF64(ax, float64(j))
	return hi, lo, j
}

// reduceByF64 returns ax − y·π/4 as hi + lo.
func reduceByF64(ax, y float64) (hi, lo float64) {
	ph := float64(y * pio4A64)
	pl := math.FMA(y, pio4A64, -ph)
	h, l := twoSum(ax-ph, -pl) // ax − ph is exact (Sterbenz)
	qh := float64(y * pio4B64)
	ql := math.FMA(y, pio4B64, -qh)
	h, l2 := twoSum(h, -qh)
	l = ((l + l2) - ql) - float64(y*pio4C64)
	hi = h + l
	lo = l - (hi - h)
	return hi, lo
}

// sinCosPolyF64 is sin(hi+lo) (j&2 == 0) or cos(hi+lo), with the first-order
// terms of lo added (sin: +lo, cos: −hi·lo) and, for cos, the rounding of
// 1 − z/2 recovered as fdlibm's __kernel_cos does.
func sinCosPolyF64(hi, lo float64, j int32) float64 {
	z := hi * hi
	if j&2 == 0 {
		p := sinPF64[0]
		for _, c := range sinPF64[1:] {
			p = math.FMA(p, z, c)
		}
		return hi + (float64(float64(hi*z)*p) + lo)
	}
	p := cosPF64[0]
	for _, c := range cosPF64[1:] {
		p = math.FMA(p, z, c)
	}
	hz := float64(0.5 * z)
	w := 1 - hz
	return w + (((1 - w) - hz) + (float64(float64(z*z)*p) - float64(hi*lo)))
}

func sinF64(x float64) float64 {
	b := math.Float64bits(x)
	ax := math.Float64frombits(b &^ (1 << 63))
	var hi, lo float64
	var j int32
	switch {
	case ax <= trigMaxF64:
		hi, lo, j = reduceF64(ax)
	case x != x:
		return x + x
	case ax > math.MaxFloat64:
		return nanF64
	default: // the Go twin only
		hi, lo, j = xmath.TrigReduce(ax)
	}
	sign := b&(1<<63) ^ uint64(j&4)<<61
	return math.Float64frombits(math.Float64bits(sinCosPolyF64(hi, lo, j)) ^ sign)
}

func cosF64(x float64) float64 {
	ax := math.Abs(x)
	var hi, lo float64
	var j int32
	switch {
	case ax <= trigMaxF64:
		hi, lo, j = reduceF64(ax)
	case x != x:
		return x + x
	case ax > math.MaxFloat64:
		return nanF64
	default: // the Go twin only
		hi, lo, j = xmath.TrigReduce(ax)
	}
	j += 2
	sign := uint64(j&4) << 61
	return math.Float64frombits(math.Float64bits(sinCosPolyF64(hi, lo, j)) ^ sign)
}
