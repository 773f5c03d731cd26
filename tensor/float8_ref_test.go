package tensor

import (
	"math"
	"sort"
	"strings"
)

// refFormat is each narrow float format written down a second time, from
// the definitions (OCP 8-bit FP and MX v1.0 specs, Graphcore's fnuz
// paper, ml_dtypes' README), with nothing shared with float8.go.
type refFormat struct {
	name         string
	e, m, bias   int
	width        int
	nan          func(b int) bool // which encodings are NaN
	inf          func(b int) bool // which encodings are ±Inf
	maxFinite    float64          // published largest finite value
	minSubnormal float64          // published smallest positive value
}

var refFormats = []refFormat{
	{"f8e4m3fn", 4, 3, 7, 8, func(b int) bool { return b&0x7f == 0x7f }, none, 448, 0x1p-9},
	{"f8e5m2", 5, 2, 15, 8, func(b int) bool { return b&0x7c == 0x7c && b&3 != 0 }, func(b int) bool { return b&0x7f == 0x7c }, 57344, 0x1p-16},
	{"f8e4m3fnuz", 4, 3, 8, 8, func(b int) bool { return b == 0x80 }, none, 240, 0x1p-10},
	{"f8e5m2fnuz", 5, 2, 16, 8, func(b int) bool { return b == 0x80 }, none, 57344, 0x1p-17},
	{"f8e4m3b11fnuz", 4, 3, 11, 8, func(b int) bool { return b == 0x80 }, none, 30, 0x1p-13},
	{"f8e3m4", 3, 4, 3, 8, func(b int) bool { return b&0x70 == 0x70 && b&0xf != 0 }, func(b int) bool { return b&0x7f == 0x70 }, 15.5, 0x1p-6},
	{"f8e4m3", 4, 3, 7, 8, func(b int) bool { return b&0x78 == 0x78 && b&7 != 0 }, func(b int) bool { return b&0x7f == 0x78 }, 240, 0x1p-9},
	{"f8e8m0fnu", 8, 0, 127, 8, func(b int) bool { return b == 0xff }, none, 0x1p127, 0x1p-127},
	{"f6e2m3fn", 2, 3, 1, 6, none, none, 7.5, 0.125},
	{"f6e3m2fn", 3, 2, 3, 6, none, none, 28, 0.0625},
	{"f4e2m1fn", 2, 1, 1, 4, none, none, 6, 0.5},
}

func none(int) bool { return false }

// value decodes an encoding the simple way: sign·2^(e−bias)·(1 + m/2^M),
// or sign·2^(1−bias)·(m/2^M) for a zero exponent field; f8e8m0fnu has no
// sign and no subnormals, 2^(e−127).
func (r refFormat) value(b int) (v float64, nan bool) {
	if r.nan(b) {
		return 0, true
	}
	if r.name == "f8e8m0fnu" {
		return math.Pow(2, float64(b-127)), false
	}
	sign := 1.0
	if b>>(r.width-1) == 1 {
		sign = -1
	}
	if r.inf(b) {
		return sign * math.Inf(1), false
	}
	e := b >> r.m & (1<<r.e - 1)
	m := float64(b & (1<<r.m - 1))
	frac := m / math.Pow(2, float64(r.m))
	if e == 0 {
		return sign * math.Pow(2, float64(1-r.bias)) * frac, false
	}
	return sign * math.Pow(2, float64(e-r.bias)) * (1 + frac), false
}

// finite returns the format's finite non-negative values in increasing
// order with their encodings: 0 (if the format has it) to the largest.
func (r refFormat) finite() (vals []float64, encs []int) {
	for b := range 1 << r.width {
		v, nan := r.value(b)
		if nan || math.IsInf(v, 0) || math.Signbit(v) || (v == 0 && b != 0) {
			continue
		}
		vals = append(vals, v)
		encs = append(encs, b)
	}
	sort.Sort(byValue{vals, encs})
	return vals, encs
}

type byValue struct {
	v []float64
	e []int
}

func (s byValue) Len() int           { return len(s.v) }
func (s byValue) Less(i, j int) bool { return s.v[i] < s.v[j] }
func (s byValue) Swap(i, j int)      { s.v[i], s.v[j] = s.v[j], s.v[i]; s.e[i], s.e[j] = s.e[j], s.e[i] }

// refRounder rounds by searching the format's values for the nearest:
// each x is compared with the exact midpoint of the two values around it.
type refRounder struct {
	r    refFormat
	vals []float64
	encs []int
	next float64 // the value one step above the largest finite, were the format wider
}

func newRefRounder(r refFormat) *refRounder {
	vals, encs := r.finite()
	n := len(vals)
	next := 2 * vals[n-1] // f8e8m0fnu: the next power of two
	if r.m > 0 {
		next = vals[n-1] + (vals[n-1] - vals[n-2]) // the same binade's step
	}
	return &refRounder{r, vals, encs, next}
}

// round is what the format's conversion should give for x: the nearest
// value, ties to the even encoding (f8e8m0fnu: to the larger), beyond the
// largest finite the format's overflow, and its own rules for NaN, ±Inf,
// zero and (f8e8m0fnu) negative numbers.
func (rr *refRounder) round(x float64) int {
	r := rr.r
	signBit := 1 << (r.width - 1)
	e8m0 := r.name == "f8e8m0fnu"
	fnuz := strings.HasSuffix(r.name, "fnuz")
	mx := r.name[1] != '8'
	maxEnc := rr.encs[len(rr.encs)-1]
	overflow := func(neg bool) int {
		s := 0
		if neg {
			s = signBit
		}
		for b := range 1 << r.width { // IEEE-like: ±Inf
			if r.inf(b) && b&signBit == s {
				return b
			}
		}
		switch {
		case e8m0:
			return 0xff
		case fnuz:
			return 0x80
		case mx:
			return s | maxEnc // saturate
		}
		return s | 0x7f // fn: NaN
	}
	neg := math.Signbit(x)
	switch {
	case math.IsNaN(x):
		switch {
		case e8m0:
			return 0xff
		case fnuz:
			return 0x80
		case mx: // ml_dtypes: minus quiet_NaN(), whose encoding is −0
			if neg {
				return 0
			}
			return signBit
		case r.name == "f8e4m3fn":
			return map[bool]int{true: 0xff, false: 0x7f}[neg]
		}
		q := (1<<r.e-1)<<r.m | 1<<(r.m-1) // IEEE-like quiet NaN
		if neg {
			q |= signBit
		}
		return q
	case e8m0 && (neg || x == 0):
		return 0xff
	case math.IsInf(x, 0):
		return overflow(neg)
	}
	a := math.Abs(x)
	var enc int
	switch i := sort.SearchFloat64s(rr.vals, a); {
	case a >= rr.next:
		return overflow(neg)
	case i < len(rr.vals) && rr.vals[i] == a:
		enc = rr.encs[i]
	case i == 0: // below the smallest (f8e8m0fnu only: no zero)
		enc = rr.encs[0]
	default:
		lo, hi := rr.vals[i-1], rr.next
		hiEnc := maxEnc + 1 // the overflow, if x rounds past the largest
		if i < len(rr.vals) {
			hi, hiEnc = rr.vals[i], rr.encs[i]
		}
		mid := (lo + hi) / 2 // exact: the values have few significant bits
		switch {
		case a < mid:
			enc = rr.encs[i-1]
		case a > mid:
			enc = hiEnc
		case e8m0 || rr.encs[i-1]&1 == 1:
			enc = hiEnc // tie: to the even encoding, f8e8m0fnu up
		default:
			enc = rr.encs[i-1]
		}
		if e8m0 && a > 0x1p-127 && a < 0x1p-126 {
			enc = 0x01 // ml_dtypes' quirk in its lowest binade (e8m0Round's doc)
		}
	}
	if enc > maxEnc {
		return overflow(neg)
	}
	if neg && !e8m0 && !(fnuz && enc == 0) {
		enc |= signBit
	}
	return enc
}

var refRounders = func() []*refRounder {
	out := make([]*refRounder, len(refFormats))
	for i, r := range refFormats {
		out[i] = newRefRounder(r)
	}
	return out
}()
