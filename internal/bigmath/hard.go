package bigmath

import (
	"math"
	"math/big"
	"sort"
)

// NearHalfPiMultiples returns doubles M·2**e (M a 53-bit integer, so the
// binade [2**(e+52), 2**(e+53))) that lie closest to a multiple of π/2:
// the hardest arguments for the range reduction of sin, cos and tan, whose
// remainder is then as small as 2**−60 or so. They come from the
// continued fraction of α = frac(2**e·2/π): a convergent p/q gives
// |q·α − p| < 1/q, so M = c·q, the multiple of q in [2**52, 2**53), makes
// M·2**e·2/π within c/q of an integer. The closest few are returned,
// closest first; none below e = −52, where x < 1.
func NearHalfPiMultiples(e int) []float64 {
	wp := uint(max(e, 0) + 400)
	v := Pi(wp)
	v.Quo(big.NewFloat(2).SetPrec(wp), v)
	v.SetMantExp(v, e) // 2**e·2/π
	ip, _ := v.Int(nil)
	alpha := newP(wp).Sub(v, newP(wp).SetInt(ip)) // in [0, 1)
	const lo, hi = 1 << 52, 1 << 53
	type cand struct {
		x    float64
		dist *big.Float // |M·α − nearest integer|
	}
	var cands []cand
	add := func(q *big.Int) {
		if q.Sign() <= 0 || !q.IsUint64() || q.Uint64() >= hi {
			return
		}
		qq := q.Uint64()
		c := (lo + qq - 1) / qq
		if m := c * qq; m >= lo && m < hi {
			d := newP(wp).Mul(alpha, newP(wp).SetUint64(m))
			d.Add(d, big.NewFloat(0.5))
			f, _ := d.Int(nil)
			d.Sub(d, newP(wp).SetInt(f))
			d.Sub(d, big.NewFloat(0.5))
			cands = append(cands, cand{math.Ldexp(float64(m), e), d.Abs(d)})
		}
	}
	// convergents p(n)/q(n) of α = [0; a1, a2, …]
	q0, q1 := big.NewInt(1), big.NewInt(0) // q(−1), q(−2)
	x := alpha
	for range 200 {
		if x.Sign() == 0 {
			break
		}
		x = newP(wp).Quo(big.NewFloat(1), x)
		a, _ := x.Int(nil)
		x.Sub(x, newP(wp).SetInt(a))
		q := new(big.Int).Mul(a, q0)
		q.Add(q, q1)
		q0, q1 = q, q0
		if q.Cmp(big.NewInt(hi)) >= 0 {
			break
		}
		add(q)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].dist.Cmp(cands[j].dist) < 0 })
	var out []float64
	for i, c := range cands {
		if i == 6 {
			break
		}
		out = append(out, c.x)
	}
	return out
}
