package opencl

import (
	"math"
	"math/big"
)

// Arbitrary-precision exp, log, sin, cos for the accuracy test: the ulp
// bounds of docs/SPEC.md §3 are measured against the exact result, not against
// another libm. 256 bits leave room for the cancellation in reducing
// arguments up to 1e15 modulo pi.

const bigPrec = 256

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

func bigInt(n int64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetInt64(n) }

var bigLn2, bigPi = func() (*big.Float, *big.Float) {
	// ln 2 = 2 atanh(1/3); pi = 16 atan(1/5) − 4 atan(1/239) (Machin).
	ln2 := new(big.Float).Mul(bigInt(2), bigAtanh(new(big.Float).Quo(bigInt(1), bigInt(3))))
	pi := new(big.Float).Sub(new(big.Float).Mul(bigInt(16), bigAtan(new(big.Float).Quo(bigInt(1), bigInt(5)))),
		new(big.Float).Mul(bigInt(4), bigAtan(new(big.Float).Quo(bigInt(1), bigInt(239)))))
	return ln2, pi
}()

// series sums term_k·z^(2k+1)/(2k+1) with alternating signs if alt.
func oddSeries(z *big.Float, alt bool) *big.Float {
	sum := new(big.Float).SetPrec(bigPrec)
	pow := new(big.Float).Set(z)
	z2 := new(big.Float).Mul(z, z)
	eps := new(big.Float).SetMantExp(bigInt(1), -bigPrec-8)
	for k := int64(0); ; k++ {
		t := new(big.Float).Quo(pow, bigInt(2*k+1))
		if alt && k%2 == 1 {
			sum.Sub(sum, t)
		} else {
			sum.Add(sum, t)
		}
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			return sum
		}
		pow.Mul(pow, z2)
	}
}

func bigAtanh(z *big.Float) *big.Float { return oddSeries(z, false) }
func bigAtan(z *big.Float) *big.Float  { return oddSeries(z, true) }

// bigLog is ln x for x > 0: x = m·2^e with m in [0.5, 1), ln m = 2 atanh((m−1)/(m+1)).
func bigLog(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(bigPrec)
	e := x.MantExp(m)
	z := new(big.Float).Quo(new(big.Float).Sub(m, bigInt(1)), new(big.Float).Add(m, bigInt(1)))
	r := new(big.Float).Mul(bigInt(2), bigAtanh(z))
	return r.Add(r, new(big.Float).Mul(bigInt(int64(e)), bigLn2))
}

// bigExp is e^x: x = k ln2 + r, e^r by its Taylor series.
func bigExp(x *big.Float) *big.Float {
	q, _ := new(big.Float).Quo(x, bigLn2).Float64()
	k := math.Round(q)
	r := new(big.Float).Sub(x, new(big.Float).Mul(bf(k), bigLn2))
	sum, term := bigInt(1), bigInt(1)
	eps := new(big.Float).SetMantExp(bigInt(1), -bigPrec-8)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, bigInt(n))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// bigSinCos reduces x modulo 2pi and sums both Taylor series.
func bigSinCos(x *big.Float) (*big.Float, *big.Float) {
	twoPi := new(big.Float).Mul(bigInt(2), bigPi)
	q, _ := new(big.Float).Quo(x, twoPi).Int(nil)
	r := new(big.Float).Sub(x, new(big.Float).Mul(new(big.Float).SetPrec(bigPrec).SetInt(q), twoPi))
	sin, cos := new(big.Float).SetPrec(bigPrec), bigInt(1)
	term := bigInt(1)
	eps := new(big.Float).SetMantExp(bigInt(1), -bigPrec-8)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, bigInt(n))
		switch n % 4 {
		case 1:
			sin.Add(sin, term)
		case 2:
			cos.Sub(cos, term)
		case 3:
			sin.Sub(sin, term)
		case 0:
			cos.Add(cos, term)
		}
		if n > 10 && new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sin, cos
}

// exactOp is the exact value of a transcendental op (rounded to bigPrec).
func exactOp(name string, x, y float64) *big.Float {
	X := bf(x)
	one := bigInt(1)
	switch name {
	case "exp":
		return bigExp(X)
	case "log":
		return bigLog(X)
	case "log1p":
		return bigLog(new(big.Float).Add(one, X))
	case "expm1":
		return new(big.Float).Sub(bigExp(X), one)
	case "sin":
		s, _ := bigSinCos(X)
		return s
	case "cos":
		_, c := bigSinCos(X)
		return c
	case "tan":
		s, c := bigSinCos(X)
		return new(big.Float).Quo(s, c)
	case "tanh":
		e := bigExp(new(big.Float).Mul(bigInt(2), X))
		return new(big.Float).Quo(new(big.Float).Sub(e, one), new(big.Float).Add(e, one))
	case "logistic":
		return new(big.Float).Quo(one, new(big.Float).Add(one, bigExp(new(big.Float).Neg(X))))
	case "rsqrt":
		return new(big.Float).Quo(one, new(big.Float).Sqrt(X))
	case "pow":
		return bigExp(new(big.Float).Mul(bf(y), bigLog(X)))
	}
	panic("exactOp: " + name)
}

// ulpError is |got − exact| in units of the last place of the float with
// mant significand bits nearest to exact.
func ulpError(got float64, exact *big.Float, mant int) float64 {
	e, _ := exact.Float64()
	if mant == 24 {
		e = float64(float32(e)) // ±Inf beyond float's range
	}
	if math.IsInf(e, 0) && got == e {
		return 0 // overflow, rightly
	}
	if got != got || math.IsInf(got, 0) {
		return math.Inf(1)
	}
	if e == 0 {
		return math.Abs(got) // exact zeros do not occur in the samples
	}
	_, exp := math.Frexp(e)
	ulp := math.Ldexp(1, exp-mant)
	if mant == 24 {
		ulp = math.Max(ulp, 0x1p-149)
	} else {
		ulp = math.Max(ulp, 0x1p-1074)
	}
	diff := new(big.Float).Sub(bf(got), exact)
	d, _ := diff.Float64()
	return math.Abs(d) / ulp
}
