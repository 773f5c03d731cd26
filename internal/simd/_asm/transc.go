package main

import (
	"fmt"
	"math"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The transcendentals, one for one with the Go twins in package simd
// (exp32.go, exp64.go, trig.go), where the algorithms, their sources and
// their vector domains are documented. Each kernel first tests its vector
// against the lanes it cannot settle (see loop) and stops before it if any.
//
// Every kernel has two bodies. The fast one tests with one or two
// instructions that every lane lies in the domain where the core algorithm
// alone is right (no NaN, no overflow, no subnormal result), and computes
// only that; a vector with any other lane goes to the full body, which
// settles the special lanes with blends and stops before the lanes it
// cannot settle. Both compute the same operations on ordinary lanes, so the
// bits do not depend on the path. The tests and blends the fast body skips
// were a third of exp's instructions, and as much of its time.

// Coefficients: the same literals as the twins.
var (
	expPF32  = []float64{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}
	logPF32  = []float64{7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1}
	tanhPF32 = []float64{-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1}
	sinPF32  = []float64{-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1}
	cosPF32  = []float64{2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2}

	expPF64  = []float64{4.13813679705723846039e-08, -1.65339022054652515390e-06, 6.61375632143793436117e-05, -2.77777777770155933842e-03, 1.66666666666666657415e-01}
	logLF64  = []float64{6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01}
	tanhPF64 = []float64{-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3}
	tanhQF64 = []float64{1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3}
	sinPF64  = []float64{1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6, -1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1}
	cosPF64  = []float64{-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7, 2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2}
)

const (
	log2e      = 1.44269504088896341
	expC1F32   = 0.693359375
	expC2F32   = -2.12194440e-4
	ln2HiF64   = 6.93147180369123816490e-01
	ln2LoF64   = 1.90821492927058770002e-10
	fourOverPi = 1.27323954473516268615
	pio4AF32   = 0x1.921fb6p-1
	pio4BF32   = -0x1.777a5cp-26
	pio4CF32   = -0x1.ee59dap-51
	pio4A64    = 0x1.921fb54442d18p-01
	pio4B64    = 0x1.1a62633145c07p-55
	pio4C64    = -0x1.f1976b7ed8fbcp-111
	expInfF32  = 0x1.62e43p+06
	expZeroF32 = -0x1.9fe368p+06
	expInfF64  = 7.09782712893383973096e+02
	expZeroF64 = -7.45133219101941108420e+02
)

func registerTranscendental() {
	type fn struct {
		name string
		size int
		// body emits the full body, or with fast the fast one.
		body func(v vm, x reg.VecVirtual, fast bool) Op
	}
	for _, f := range []fn{
		{"expF32", 4, expF32}, {"logF32", 4, logF32}, {"tanhF32", 4, tanhF32}, {"logisticF32", 4, logisticF32},
		{"sinF32", 4, func(v vm, x reg.VecVirtual, fast bool) Op { return sinCosF32(v, x, false, fast) }},
		{"cosF32", 4, func(v vm, x reg.VecVirtual, fast bool) Op { return sinCosF32(v, x, true, fast) }},
		{"expF64", 8, expF64}, {"logF64", 8, logF64}, {"tanhF64", 8, tanhF64}, {"logisticF64", 8, logisticF64},
		{"sinF64", 8, func(v vm, x reg.VecVirtual, fast bool) Op { return sinCosF64(v, x, false, fast) }},
		{"cosF64", 8, func(v vm, x reg.VecVirtual, fast bool) Op { return sinCosF64(v, x, true, fast) }},
	} {
		f := f
		t := map[int]floatType{4: f32, 8: f64}[f.size]
		base := strings.TrimSuffix(f.name, t.suffix) // "exp"
		op := strings.ToUpper(base[:1]) + base[1:]
		doc := map[string]string{"exp": "e**x[i]", "log": "ln(x[i])", "tanh": "tanh(x[i])",
			"logistic": "1 / (1 + e**-x[i])", "sin": "sin(x[i])", "cos": "cos(x[i])"}[base]
		// The kernels stop before a vector they cannot do, so map32 and
		// map64 alternate them with the twin.
		add(f.name, "dst, x []"+t.gotype, func(s isa) { transcendental(s, f.size, f.body) }).
			wrapBody(op+t.suffix, "computes dst[i] = "+doc+".", fmt.Sprintf("map%d(dst, x, %sAccel, %sGo)", 8*f.size, f.name, f.name)).
			fills("simd1", t.slots("unaryTable[trace.Op"+op+"]", "")...)
	}
}

// pow2 returns 2**k for integral lanes k (biased exponent in range) by
// adding a magic constant whose low mantissa bits then hold k + bias, and
// shifting them into the exponent field.
func (v vm) pow2(k Op) reg.VecVirtual {
	if v.pd {
		t := v.add(k, v.k(0x1.8p52+1023))
		VPSLLQ(U8(52), t, t)
		return t
	}
	t := v.add(k, v.k(0x1.8p23+127))
	VPSLLD(U8(23), t, t)
	return t
}

func expF32(v vm, x reg.VecVirtual, fast bool) Op {
	if fast { // |x| ≤ 87
		v.s.slowIfAny(v.cmp(cmpNLE, v.and(x, v.absMask()), v.k(87)))
		return expCoreF32(v, x)
	}
	v.s.bailIfAny(v.s.orCond(v.between(x, expZeroF32, true, -87, false), v.between(x, 88, false, expInfF32, false)))
	r := expCoreF32(v, x)
	r = v.blend(v.cmp(cmpGE, x, v.k(expInfF32)), v.k(math.Inf(1)), r)
	r = v.blend(v.cmp(cmpLT, x, v.k(expZeroF32)), v.k(0), r)
	return v.nanLanes(x, r)
}

func expCoreF32(v vm, x Op) reg.VecVirtual {
	k := v.roundEven(v.mul(x, v.k(log2e)))
	r := v.fnma(k, v.k(expC1F32), x)
	r = v.fnma(k, v.k(expC2F32), r)
	p := v.hornerFMA(r, expPF32...)
	z := v.mul(r, r)
	y := v.add(v.fma(p, z, r), v.k(1))
	return v.mul(y, v.pow2(k))
}

func logF32(v vm, x reg.VecVirtual, fast bool) Op {
	if fast { // x positive, normal and finite
		v.s.slowIfAny(v.notNormalPositive(x))
		return logCoreF32(v, x)
	}
	v.s.bailIfAny(v.between(x, 0, false, 0x1p-126, false))
	r := logCoreF32(v, x)
	r = v.blend(v.cmp(cmpEQ, x, v.k(0)), v.k(math.Inf(-1)), r)
	r = v.blend(v.cmp(cmpLT, x, v.k(0)), v.bits(0x7fc00000), r)
	return v.blend(v.cmp(cmpNLT, x, v.k(math.Inf(1))), v.add(x, x), r) // +Inf, NaN
}

func logCoreF32(v vm, x reg.VecVirtual) reg.VecVirtual {
	e := v.r()
	VPSRLD(U8(23), x, e)
	VPSUBD(v.bits(126), e, e)
	fe := v.r()
	VCVTDQ2PS(e, fe)
	m := v.or(v.and(x, v.bits(0x007fffff)), v.bits(0x3f000000))
	lt := v.cmp(cmpLT, m, v.k(0.707106781186547524))
	m = v.blend(lt, v.add(m, m), m)
	fe = v.blend(lt, v.sub(fe, v.k(1)), fe)
	f := v.sub(m, v.k(1))
	p := v.hornerFMA(f, logPF32...)
	z := v.mul(f, f)
	y := v.mul(v.mul(p, f), z)
	y = v.fma(fe, v.k(expC2F32), y)
	y = v.fma(z, v.k(-0.5), y)
	r := v.add(f, y)
	return v.fma(fe, v.k(expC1F32), r)
}

func tanhF32(v vm, x reg.VecVirtual, fast bool) Op {
	sign := v.and(x, v.signBit())
	z := v.and(x, v.absMask())
	if fast { // |x| ≤ 10
		v.s.slowIfAny(v.cmp(cmpNLE, z, v.k(10)))
	} else {
		z = v.min(z, v.k(10))
	}
	s := expCoreF32(v, v.add(z, z))
	big := v.sub(v.reg(1), v.div(v.reg(2), v.add(s, v.k(1))))
	z2 := v.mul(z, z)
	p := v.hornerFMA(z2, tanhPF32...)
	small := v.fma(v.mul(p, z2), z, z)
	t := v.or(v.blend(v.cmp(cmpGE, z, v.k(0.625)), big, small), sign)
	if fast {
		return t
	}
	return v.nanLanes(x, t)
}

func logisticF32(v vm, x reg.VecVirtual, fast bool) Op {
	if fast { // x ≥ −87
		v.s.slowIfAny(v.cmp(cmpNGE, x, v.k(-87)))
	} else {
		v.s.bailIfAny(v.between(x, expZeroF32, true, -87, false))
	}
	e := expCoreF32(v, v.neg(v.min(x, v.k(20))))
	r := v.div(v.reg(1), v.add(e, v.k(1)))
	if fast {
		return r
	}
	r = v.blend(v.cmp(cmpLT, x, v.k(expZeroF32)), v.k(0), r)
	return v.nanLanes(x, r)
}

// sinCosF32 reduces with FMA, evaluates both polynomials and picks per
// lane.
func sinCosF32(v vm, x reg.VecVirtual, cos, fast bool) Op {
	s := v.s
	ax := v.and(x, v.absMask())
	if fast { // |x| ≤ 2**16
		s.slowIfAny(v.cmp(cmpNLE, ax, v.k(1<<16)))
	} else {
		s.bailIfAny(v.between(ax, 1<<16, false, math.Inf(1), false))
	}
	j := v.r()
	VCVTTPS2DQ(v.mul(ax, v.k(fourOverPi)), j)
	VPADDD(v.bits(1), j, j)
	j = v.and(j, v.bits(0xfffffffe))
	// r = ax − y·π/4 in three FMAs, y = float32(j).
	y := v.r()
	VCVTDQ2PS(j, y)
	r := v.fnma(y, v.k(pio4AF32), ax)
	r = v.fnma(y, v.k(pio4BF32), r)
	r = v.fnma(y, v.k(pio4CF32), r)
	if cos {
		VPADDD(v.bits(2), j, j) // cos x = sin(x + π/2)
	}
	sign := v.r()
	VPSLLD(U8(29), j, sign)
	sign = v.and(sign, v.signBit())
	if !cos {
		sign = v.xor(sign, v.and(x, v.signBit()))
	}
	z := v.mul(r, r)
	sp := v.fma(v.mul(v.hornerFMA(z, sinPF32...), z), r, r)
	cp := v.mul(v.mul(v.hornerFMA(z, cosPF32...), z), z)
	cp = v.add(v.fma(z, v.k(-0.5), cp), v.k(1))
	r = v.xor(v.blend(v.bitSet(j, 2), cp, sp), sign)
	if fast {
		return r
	}
	r = v.blend(v.cmp(cmpEQ, ax, v.k(math.Inf(1))), v.bits(0x7fc00000), r)
	return v.nanLanes(x, r)
}

// bitSet is the condition (j & bit) != 0 on int32 lanes.
func (v vm) bitSet(j reg.VecVirtual, bit uint32) reg.Register {
	if v.s.evex {
		k := K()
		VPTESTMD(v.bits(uint64(bit)), j, k)
		return k
	}
	// Move the bit to the sign, which is all VBLENDVPS reads.
	m := YMM()
	VPSLLD(U8(31-trailingZeros(bit)), j, m)
	return m
}

func trailingZeros(b uint32) uint8 {
	n := uint8(0)
	for b&1 == 0 {
		b >>= 1
		n++
	}
	return n
}

func expF64(v vm, x reg.VecVirtual, fast bool) Op {
	if fast { // |x| ≤ 708
		v.s.slowIfAny(v.cmp(cmpNLE, v.and(x, v.absMask()), v.k(708)))
		return expCoreF64(v, x)
	}
	v.s.bailIfAny(v.s.orCond(v.between(x, expZeroF64, true, -708, false), v.between(x, 708, false, expInfF64, true)))
	scale, u := expKernelF64(v, x)
	r := v.mul(v.sub(v.reg(1), u), scale)
	r = v.blend(v.cmp(cmpGT, x, v.k(expInfF64)), v.k(math.Inf(1)), r)
	r = v.blend(v.cmp(cmpLT, x, v.k(expZeroF64)), v.k(0), r)
	return v.nanLanes(x, r)
}

// expKernelF64 returns 2**k and u, e**x = 2**k·(1 − u).
func expKernelF64(v vm, x Op) (scale, u reg.VecVirtual) {
	k := v.roundEven(v.mul(x, v.k(log2e)))
	hi := v.sub(x, v.mul(k, v.k(ln2HiF64)))
	lo := v.mul(k, v.k(ln2LoF64))
	r := v.sub(hi, lo)
	t := v.mul(r, r)
	p := v.hornerFMA(t, expPF64...)
	c := v.sub(r, v.mul(t, p))
	q := v.div(v.mul(r, c), v.sub(v.reg(2), c))
	u = v.sub(v.sub(lo, q), hi)
	return v.pow2(k), u
}

// logF64 scales subnormal lanes by 2**54 (taking 54 off k), and settles
// the special lanes by blends: it never stops.
func logF64(v vm, x0 reg.VecVirtual, fast bool) Op {
	var sub reg.Register
	x := x0
	if fast { // x positive, normal and finite
		v.s.slowIfAny(v.notNormalPositive(x0))
	} else {
		sub = v.between(x0, 0, false, 0x1p-1022, false)
		x = v.blend(sub, v.mul(x0, v.k(0x1p54)), x0)
	}
	// k = float64(exponent field) − 1022 − scale, exactly, via the 2**52
	// trick.
	e := v.r()
	VPSRLQ(U8(52), x, e)
	k := v.sub(v.or(e, v.bits(0x4330000000000000)), v.k(0x1p52))
	k = v.sub(k, v.k(1022))
	if !fast {
		k = v.blend(sub, v.sub(k, v.k(54)), k)
	}
	m := v.or(v.and(x, v.bits(1<<52-1)), v.bits(0x3fe0000000000000))
	lt := v.cmp(cmpLT, m, v.k(math.Sqrt2/2))
	m = v.blend(lt, v.add(m, m), m)
	k = v.blend(lt, v.sub(k, v.k(1)), k)
	f := v.sub(m, v.k(1))
	s := v.div(f, v.add(f, v.k(2)))
	s2 := v.mul(s, s)
	s4 := v.mul(s2, s2)
	L := logLF64
	odd := v.hornerFMA(s4, L[6], L[4], L[2], L[0])
	even := v.hornerFMA(s4, L[5], L[3], L[1])
	R := v.add(v.mul(s2, odd), v.mul(s4, even))
	hfsq := v.mul(v.mul(f, v.k(0.5)), f)
	inner := v.add(v.mul(s, v.add(hfsq, R)), v.mul(k, v.k(ln2LoF64)))
	r := v.sub(v.mul(k, v.k(ln2HiF64)), v.sub(v.sub(hfsq, inner), f))
	if fast {
		return r
	}
	r = v.blend(v.cmp(cmpEQ, x0, v.k(0)), v.k(math.Inf(-1)), r)
	r = v.blend(v.cmp(cmpLT, x0, v.k(0)), v.bits(0x7ff8000000000001), r)
	return v.blend(v.cmp(cmpNLT, x0, v.k(math.Inf(1))), v.add(x0, x0), r) // +Inf, NaN
}

func tanhF64(v vm, x reg.VecVirtual, fast bool) Op {
	sign := v.and(x, v.signBit())
	z := v.and(x, v.absMask())
	if fast { // |x| ≤ 20
		v.s.slowIfAny(v.cmp(cmpNLE, z, v.k(20)))
	} else {
		z = v.min(z, v.k(20))
	}
	s := expCoreF64(v, v.add(z, z))
	big := v.sub(v.reg(1), v.div(v.reg(2), v.add(s, v.k(1))))
	s2 := v.mul(z, z)
	p := v.hornerFMA(s2, tanhPF64...)
	q := v.add(s2, v.k(tanhQF64[0]))
	q = v.fma(q, s2, v.k(tanhQF64[1]))
	q = v.fma(q, s2, v.k(tanhQF64[2]))
	small := v.add(z, v.div(v.mul(v.mul(z, s2), p), q))
	t := v.or(v.blend(v.cmp(cmpGE, z, v.k(0.625)), big, small), sign)
	if fast {
		return t
	}
	return v.nanLanes(x, t)
}

func expCoreF64(v vm, x Op) reg.VecVirtual {
	scale, u := expKernelF64(v, x)
	return v.mul(v.sub(v.reg(1), u), scale)
}

func logisticF64(v vm, x0 reg.VecVirtual, fast bool) Op {
	if fast { // x ≥ −708
		v.s.slowIfAny(v.cmp(cmpNGE, x0, v.k(-708)))
	} else {
		v.s.bailIfAny(v.between(x0, expZeroF64, true, -708, false))
	}
	x := v.min(x0, v.k(40))
	scale, u := expKernelF64(v, v.neg(x))
	s1, t1 := v.twoSum(v.reg(1), scale)
	s2, t2 := v.twoSum(s1, v.neg(v.mul(scale, u)))
	dl := v.add(t1, t2)
	q := v.div(v.reg(1), s2)
	e := v.fnma(q, s2, v.k(1))
	e = v.fnma(q, dl, e)
	r := v.fma(q, e, q)
	if fast {
		return r
	}
	r = v.blend(v.cmp(cmpLT, x0, v.k(expZeroF64)), v.k(0), r)
	return v.nanLanes(x0, r)
}

// sinCosF64: j in int32 lanes of a half-width register, the reduction as a
// double-double with FMA-exact products, both polynomials, pick per lane.
func sinCosF64(v vm, x reg.VecVirtual, cos, fast bool) Op {
	s := v.s
	ax := v.and(x, v.absMask())
	if fast { // |x| ≤ 2**30
		s.slowIfAny(v.cmp(cmpNLE, ax, v.k(1<<30)))
	} else {
		s.bailIfAny(v.between(ax, 1<<30, false, math.Inf(1), false))
	}
	j := sized(s.bytes / 2)
	if s.evex {
		VCVTTPD2DQ(v.mul(ax, v.k(fourOverPi)), j)
	} else {
		VCVTTPD2DQY(v.mul(ax, v.k(fourOverPi)), j)
	}
	VPADDD(c32("b32_00000001", 1), j, j)
	s.and(c32("b32_fffffffe", 0xfffffffe), j, j)
	y := v.r()
	VCVTDQ2PD(j, y)
	// hi + lo = ax − y·π/4
	ph := v.mul(y, v.k(pio4A64))
	pl := v.fms(y, v.k(pio4A64), ph)
	h, l := v.twoSum(v.sub(ax, ph), v.neg(pl))
	qh := v.mul(y, v.k(pio4B64))
	ql := v.fms(y, v.k(pio4B64), qh)
	h, l2 := v.twoSum(h, v.neg(qh))
	l = v.sub(v.sub(v.add(l, l2), ql), v.mul(y, v.k(pio4C64)))
	hi := v.add(h, l)
	lo := v.sub(l, v.sub(hi, h))
	// The quadrant bits, widened to the 64-bit lanes.
	if cos {
		VPADDD(c32("b32_00000002", 2), j, j)
	}
	jq := v.r()
	VPMOVZXDQ(j, jq)
	sign := v.r()
	VPSLLQ(U8(61), jq, sign)
	sign = v.and(sign, v.signBit())
	if !cos {
		sign = v.xor(sign, v.and(x, v.signBit()))
	}
	z := v.mul(hi, hi)
	sp := v.add(hi, v.add(v.mul(v.mul(hi, z), v.hornerFMA(z, sinPF64...)), lo))
	hz := v.mul(v.k(0.5), z)
	w := v.sub(v.reg(1), hz)
	corr := v.sub(v.mul(v.mul(z, z), v.hornerFMA(z, cosPF64...)), v.mul(hi, lo))
	cp := v.add(w, v.add(v.sub(v.sub(v.reg(1), w), hz), corr))
	var sel reg.Register
	if s.evex {
		k := K()
		VPTESTMQ(v.bits(2), jq, k)
		sel = k
	} else {
		m := YMM()
		VPSLLQ(U8(62), jq, m)
		sel = m
	}
	r := v.xor(v.blend(sel, cp, sp), sign)
	if fast {
		return r
	}
	r = v.blend(v.cmp(cmpEQ, ax, v.k(math.Inf(1))), v.bits(0x7ff8000000000001), r)
	return v.nanLanes(x, r)
}
