package xmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
)

// TestTwoOverPiTable checks the table against 2/π computed with math/big.
func TestTwoOverPiTable(t *testing.T) {
	bits := uint(64 * (len(twoOverPi) - 1))
	v := bigmath.Pi(bits + 256)
	v.Quo(new(big.Float).SetPrec(bits+256).SetInt64(2), v)
	v.SetMantExp(v, int(bits))
	n, _ := v.Int(nil) // ⌊2/π · 2**bits⌋
	for i := len(twoOverPi) - 1; i >= 0; i-- {
		w := new(big.Int).And(n, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
		if w != twoOverPi[i] {
			t.Errorf("twoOverPi[%d] = %#016x, want %#016x", i, twoOverPi[i], w)
		}
		n.Rsh(n, 64)
	}
}

// exactReduce returns x − q·π/2 for the integer q nearest x·2/π, and q mod 4.
func exactReduce(x float64) (*big.Float, int) {
	wp := uint(max(0, math.Ilogb(x)) + 400)
	halfPi := bigmath.Pi(wp)
	halfPi.SetMantExp(halfPi, -1)
	X := new(big.Float).SetPrec(wp).SetFloat64(x)
	t := new(big.Float).SetPrec(wp).Quo(X, halfPi)
	t.Add(t, big.NewFloat(0.5))
	q, _ := t.Int(nil) // x > 0: floor
	r := new(big.Float).SetPrec(wp).Mul(new(big.Float).SetPrec(wp).SetInt(q), halfPi)
	r.Sub(X, r)
	return r, int(new(big.Int).And(q, big.NewInt(3)).Int64())
}

// relErr is |(hi + lo) − r| / |r| as a power of two (−Inf when exact).
func relErr(hi, lo float64, r *big.Float) float64 {
	got := new(big.Float).SetPrec(2000).SetFloat64(hi)
	got.Add(got, new(big.Float).SetFloat64(lo))
	d := new(big.Float).SetPrec(2000).Sub(got, r)
	if d.Sign() == 0 {
		return math.Inf(-1)
	}
	d.Quo(d, r)
	f, _ := d.Float64()
	return math.Log2(math.Abs(f))
}

// TestPayneHanek holds the reduction to a relative error below 2**−75 on
// random arguments of every binade from 2**−4 up and on the doubles
// closest to multiples of π/2 (bigmath.NearHalfPiMultiples), where the
// remainder is as small as 2**−61.
func TestPayneHanek(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for e := -56; e <= 971; e++ {
		for range 4 {
			xs = append(xs, math.Ldexp(float64(1<<52|r.Uint64()>>12), e))
		}
	}
	step := 1
	if testing.Short() {
		step = 16
	}
	for e := -56; e <= 971; e += step {
		for _, x := range bigmath.NearHalfPiMultiples(e) {
			xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		}
	}
	worst := math.Inf(-1)
	for _, x := range xs {
		hi, lo, j := PayneHanek(x)
		want, ok := exactFor(x, j)
		if !ok {
			t.Fatalf("PayneHanek(%g) = %g + %g, j = %d: not the nearest quadrant", x, hi, lo, j)
		}
		if math.Abs(lo) > math.Abs(hi)*0x1p-52 {
			t.Errorf("PayneHanek(%g) = %g + %g: not normalized", x, hi, lo)
		}
		if e := relErr(hi, lo, want); e > worst {
			worst = e
			if e > -75 {
				t.Errorf("PayneHanek(%g) = %g + %g, want %s: relative error 2**%.1f", x, hi, lo, want.Text('g', 30), e)
			}
		}
	}
	t.Logf("worst relative error 2**%.1f over %d arguments", worst, len(xs))
}

// exactFor returns x − j'·π/4 for the j' ≡ j (mod 8) nearest x·4/π, if
// that remainder is within [−π/4 − 0.07, π/4 + 0.07]: below 2**48, j is
// ⌊x·4/π⌋ rounded up to even with x·4/π rounded to float64 first, an error
// of up to 1/16 there.
func exactFor(x float64, j int32) (*big.Float, bool) {
	r, q := exactReduce(x)
	halfPi := bigmath.Pi(r.Prec())
	halfPi.SetMantExp(halfPi, -1)
	switch (int(j)&7 - 2*q + 8) & 7 {
	case 0:
		return r, true
	case 2: // one quadrant up
		r.Sub(r, halfPi)
	case 6:
		r.Add(r, halfPi)
	default:
		return r, false
	}
	f, _ := r.Float64()
	return r, math.Abs(f) < math.Pi/4+0.07
}

// TestTrigReduce: the three ranges agree with the exact reduction: relative
// error below 2**−58 up to 2**48 (where the remainder can be as small as
// 2**−57), below 2**−75 beyond.
func TestTrigReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var xs []float64
	for range 20000 {
		xs = append(xs, math.Ldexp(1+r.Float64(), r.IntN(80)-20))
	}
	for k := int64(1); k < 1<<60; k = k*3 + int64(r.IntN(3)) {
		x := bigmath.PiOver4Times(k)
		xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
	}
	for e := -52; e <= 30; e++ {
		xs = append(xs, bigmath.NearHalfPiMultiples(e)...)
	}
	worst := math.Inf(-1)
	for _, x := range xs {
		hi, lo, j := TrigReduce(x)
		want, ok := exactFor(x, j)
		if !ok {
			t.Fatalf("TrigReduce(%g) = %g + %g, j = %d: not the nearest quadrant", x, hi, lo, j)
		}
		if e := relErr(hi, lo, want); e > worst {
			worst = e
			if e > -58 || x >= PayneHanekMin && e > -75 {
				// Cody–Waite: π/4 in three float64s leaves an absolute
				// error up to 2**−115 at 2**48, and remainders there go
				// down to 2**−57: still 2**−6 of an ulp.
				t.Errorf("TrigReduce(%g) = %g + %g, want %s: relative error 2**%.1f", x, hi, lo, want.Text('g', 30), e)
			}
		}
	}
	t.Logf("worst relative error 2**%.1f over %d arguments", worst, len(xs))
}
