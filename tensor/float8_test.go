package tensor

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFloatFormatTable checks the descriptor of every format against the
// second definition.
func TestFloatFormatTable(t *testing.T) {
	for i, r := range refFormats {
		f := FloatFormat(i)
		if f.String() != r.name || f.JAXName() != "float"+r.name[1:2]+"_"+r.name[2:] {
			t.Errorf("format %d: names %s %s, want %s", i, f, f.JAXName(), r.name)
		}
		if f.ExpBits() != r.e || f.MantBits() != r.m || f.Bias() != r.bias || f.Bits() != r.width {
			t.Errorf("%s: e%d m%d bias %d bits %d, want e%d m%d bias %d bits %d", f,
				f.ExpBits(), f.MantBits(), f.Bias(), f.Bits(), r.e, r.m, r.bias, r.width)
		}
		if got := float64(f.MaxFinite()); got != r.maxFinite {
			t.Errorf("%s: MaxFinite %v, want %v", f, got, r.maxFinite)
		}
		smallest := math.Inf(1)
		for b := range 1 << r.width {
			if v := float64(f.ToFloat32(uint8(b))); v > 0 && v < smallest {
				smallest = v
			}
		}
		if smallest != r.minSubnormal {
			t.Errorf("%s: smallest positive %v, want %v", f, smallest, r.minSubnormal)
		}
		hasInf := r.inf(0x7c) || r.inf(0x78) || r.inf(0x70)
		if f.HasInf() != hasInf || f.HasNaN() != (r.nan(0x80) || r.nan(0x7f) || r.nan(0xff)) || f.Signed() != (r.name != "f8e8m0fnu") {
			t.Errorf("%s: HasInf %v HasNaN %v Signed %v", f, f.HasInf(), f.HasNaN(), f.Signed())
		}
	}
	// The MX 4-bit format's every value, as ml_dtypes' README lists them.
	var f4 []float32
	for b := range 8 {
		f4 = append(f4, FormatF4E2M1FN.ToFloat32(uint8(b)))
	}
	if want := []float32{0, 0.5, 1, 1.5, 2, 3, 4, 6}; !equalF32(f4, want) {
		t.Errorf("f4e2m1fn values %v, want %v", f4, want)
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestFloatFormatEveryEncoding decodes every encoding of every format
// against the simple decoder, and round-trips it through float32 and
// float64: bits → value → bits is the identity on every non-NaN encoding,
// and a NaN stays NaN.
func TestFloatFormatEveryEncoding(t *testing.T) {
	for i, r := range refFormats {
		f := FloatFormat(i)
		for b := range 1 << r.width {
			want, nan := r.value(b)
			got := f.ToFloat32(uint8(b))
			if nan {
				if got == got || !f.IsNaN(uint8(b)) {
					t.Errorf("%s %#02x: %v, want NaN", f, b, got)
				}
				if !f.IsNaN(f.FromFloat32(got)) || !f.IsNaN(f.FromFloat64(float64(got))) {
					t.Errorf("%s %#02x: NaN → %#02x, not NaN", f, b, f.FromFloat32(got))
				}
				continue
			}
			if math.Float64bits(float64(got)) != math.Float64bits(want) || f.IsNaN(uint8(b)) || f.IsInf(uint8(b)) != math.IsInf(want, 0) {
				t.Errorf("%s %#02x: %v, want %v", f, b, got, want)
			}
			if f.ToFloat64(uint8(b)) != want {
				t.Errorf("%s %#02x: ToFloat64 %v, want %v", f, b, f.ToFloat64(uint8(b)), want)
			}
			if back := f.FromFloat32(got); int(back) != b {
				t.Errorf("%s %#02x → %v → %#02x", f, b, got, back)
			}
			if back := f.FromFloat64(want); int(back) != b {
				t.Errorf("%s %#02x → %v (f64) → %#02x", f, b, want, back)
			}
		}
		// High bits beyond the format's width are ignored.
		if r.width < 8 && f.ToFloat32(0xff) != f.ToFloat32(uint8(1<<r.width-1)) {
			t.Errorf("%s: high bits not ignored", f)
		}
	}
}

// classFloats are, for a format, float32 inputs from every class: the
// exact midpoints between adjacent values and their float32 neighbours,
// every value and its neighbours, around the largest finite and the
// overflow threshold, ±Inf, NaNs with payloads, ±0, float32 subnormals,
// both signs of each.
func classFloats(rr *refRounder) []float32 {
	var xs []float32
	add := func(x float32) {
		xs = append(xs, x, math.Nextafter32(x, 0), math.Nextafter32(x, float32(math.Inf(1))))
	}
	for i, v := range rr.vals {
		add(float32(v))
		hi := rr.next
		if i+1 < len(rr.vals) {
			hi = rr.vals[i+1]
		}
		add(float32((v + hi) / 2))
		add(float32(v + (hi-v)/4))
		add(float32(v + 3*(hi-v)/4))
	}
	add(float32(rr.next))
	add(float32(2 * rr.next))
	for _, u := range []uint32{0, 1, 2, 3, 0x7fffff, 0x800000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff, 0x7fa00000, 0x00400000, 0x00400001, 0x00600000} {
		xs = append(xs, math.Float32frombits(u))
	}
	for _, e := range []int{-149, -140, -130, -127, -126, -20, -10, 0, 10, 20, 100, 127} {
		add(float32(math.Ldexp(1, e)))
		add(float32(math.Ldexp(1.5, e)))
		add(float32(math.Ldexp(1.25, e)))
	}
	n := len(xs)
	for _, x := range xs[:n] {
		xs = append(xs, math.Float32frombits(math.Float32bits(x)^0x80000000))
	}
	return xs
}

// TestFloatFormatFromFloat32Classes checks conversion from float32 of
// every class against the nearest-value reference, and from float64 of
// the same values and of neighbours of every midpoint in float64 (which
// float32 cannot hold: rounding once from float64 must see them).
func TestFloatFormatFromFloat32Classes(t *testing.T) {
	for i, rr := range refRounders {
		f := FloatFormat(i)
		for _, x := range classFloats(rr) {
			if got, want := f.FromFloat32(x), rr.round(float64(x)); int(got) != want {
				t.Fatalf("%s.FromFloat32(%v = %#08x) = %#02x, want %#02x", f, x, math.Float32bits(x), got, want)
			}
			if got, want := f.FromFloat64(float64(x)), rr.round(float64(x)); int(got) != want {
				t.Fatalf("%s.FromFloat64(%v) = %#02x, want %#02x", f, x, got, want)
			}
		}
		for j := range len(rr.vals) - 1 {
			mid := (rr.vals[j] + rr.vals[j+1]) / 2
			for _, x := range []float64{math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1))} {
				for _, s := range []float64{x, -x} {
					if got, want := f.FromFloat64(s), rr.round(s); int(got) != want {
						t.Fatalf("%s.FromFloat64(%v) = %#02x, want %#02x", f, s, got, want)
					}
				}
			}
		}
	}
}

// TestFloatFormatRules pins each format's documented special cases by
// their bits.
func TestFloatFormatRules(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negNaN := math.Float32frombits(0xffc00001)
	negZero := float32(math.Copysign(0, -1))
	cases := []struct {
		f    FloatFormat
		x    float32
		want uint8
		why  string
	}{
		{FormatF8E4M3FN, 448, 0x7e, "largest finite"},
		{FormatF8E4M3FN, 464, 0x7e, "tie above the largest rounds to its even mantissa"},
		{FormatF8E4M3FN, 465, 0x7f, "overflow is NaN (no inf)"},
		{FormatF8E4M3FN, -1e30, 0xff, "overflow keeps the sign on the NaN"},
		{FormatF8E4M3FN, inf, 0x7f, "+Inf is NaN"},
		{FormatF8E4M3FN, negNaN, 0xff, "NaN keeps its sign"},
		{FormatF8E4M3FN, negZero, 0x80, "−0 kept"},
		{FormatF8E5M2, 61440, 0x7c, "tie above the largest goes to Inf"},
		{FormatF8E5M2, 61439, 0x7b, "below the tie stays finite"},
		{FormatF8E5M2, -inf, 0xfc, "−Inf"},
		{FormatF8E5M2, nan, 0x7e, "quiet NaN"},
		{FormatF8E5M2, math.Float32frombits(0x7f800001), 0x7e, "signalling NaN: payload not kept"},
		{FormatF8E4M3FNUZ, negZero, 0x00, "no −0"},
		{FormatF8E4M3FNUZ, -0x1p-20, 0x00, "underflow of a negative: +0"},
		{FormatF8E4M3FNUZ, 248, 0x80, "tie above the largest (odd): overflow, the NaN"},
		{FormatF8E4M3FNUZ, 247.99998, 0x7f, "below that tie: the largest"},
		{FormatF8E4M3FNUZ, 1e5, 0x80, "overflow is the NaN"},
		{FormatF8E4M3FNUZ, -inf, 0x80, "−Inf is the NaN"},
		{FormatF8E4M3FNUZ, negNaN, 0x80, "the one NaN"},
		{FormatF8E5M2FNUZ, 57344, 0x7f, "largest finite"},
		{FormatF8E4M3B11FNUZ, 30, 0x7f, "largest finite"},
		{FormatF8E4M3B11FNUZ, 31, 0x80, "overflow is the NaN"},
		{FormatF8E3M4, 15.5, 0x6f, "largest finite"},
		{FormatF8E3M4, 15.75, 0x70, "tie above the largest: Inf"},
		{FormatF8E3M4, nan, 0x78, "quiet NaN"},
		{FormatF8E4M3, 240, 0x77, "largest finite"},
		{FormatF8E4M3, 248, 0x78, "tie above the largest: Inf"},
		{FormatF8E4M3, negNaN, 0xfc, "−NaN"},
		{FormatF8E8M0FNU, 1, 0x7f, "2^0"},
		{FormatF8E8M0FNU, 1.5, 0x80, "tie: up"},
		{FormatF8E8M0FNU, 1.4999999, 0x7f, "below the tie"},
		{FormatF8E8M0FNU, 0, 0xff, "no zero: NaN"},
		{FormatF8E8M0FNU, -1, 0xff, "no negatives: NaN"},
		{FormatF8E8M0FNU, inf, 0xff, "no inf: NaN"},
		{FormatF8E8M0FNU, math.MaxFloat32, 0xff, "overflow: NaN"},
		{FormatF8E8M0FNU, 0x1p-149, 0x00, "below the smallest: 2^-127"},
		{FormatF8E8M0FNU, 0x1.2p-127, 0x01, "ml_dtypes' lowest-binade quirk"},
		{FormatF6E2M3FN, 7.5, 0x1f, "largest finite"},
		{FormatF6E2M3FN, 100, 0x1f, "overflow saturates"},
		{FormatF6E2M3FN, -inf, 0x3f, "−Inf saturates"},
		{FormatF6E2M3FN, nan, 0x20, "NaN: −0 (ml_dtypes: −quiet_NaN())"},
		{FormatF6E2M3FN, negNaN, 0x00, "−NaN: +0"},
		{FormatF6E2M3FN, negZero, 0x20, "−0 kept"},
		{FormatF6E3M2FN, 28, 0x1f, "largest finite"},
		{FormatF6E3M2FN, 1e9, 0x1f, "overflow saturates"},
		{FormatF4E2M1FN, 5, 0x06, "tie between 4 and 6: even (4)"},
		{FormatF4E2M1FN, 7, 0x07, "above the largest: saturate"},
		{FormatF4E2M1FN, 0.25, 0x00, "tie between 0 and 0.5: even (0)"},
		{FormatF4E2M1FN, 0.75, 0x02, "tie between 0.5 and 1: even (1)"},
		{FormatF4E2M1FN, nan, 0x08, "NaN: −0"},
	}
	for _, c := range cases {
		if got := c.f.FromFloat32(c.x); got != c.want {
			t.Errorf("%s.FromFloat32(%v): %#02x, want %#02x (%s)", c.f, c.x, got, c.want, c.why)
		}
	}
}

// TestFloatFormatSampledSweep converts every 4099th float32 bit pattern to
// every format and checks it against the reference. (All 2³² patterns are
// held to ml_dtypes by TestFloatFormatMLDtypesFull under KILN_LONG=1.)
func TestFloatFormatSampledSweep(t *testing.T) {
	for i, rr := range refRounders {
		f := FloatFormat(i)
		for u := uint64(0); u < 1<<32; u += 4099 {
			x := math.Float32frombits(uint32(u))
			if got, want := f.FromFloat32(x), rr.round(float64(x)); int(got) != want {
				t.Fatalf("%s.FromFloat32(%#08x) = %#02x, want %#02x", f, u, got, want)
			}
		}
	}
}

// TestFloatFormatRandomFloat64 checks float64 inputs, which round once.
func TestFloatFormatRandomFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 3))
	for i, rr := range refRounders {
		f := FloatFormat(i)
		for range 20000 {
			x := math.Ldexp(r.Float64()+0.5, r.IntN(300)-150)
			if r.IntN(2) == 0 {
				x = -x
			}
			if got, want := f.FromFloat64(x), rr.round(x); int(got) != want {
				t.Fatalf("%s.FromFloat64(%v) = %#02x, want %#02x", f, x, got, want)
			}
		}
	}
}

func TestParseFloatFormat(t *testing.T) {
	for i := range NumFloatFormats {
		f := FloatFormat(i)
		for _, s := range []string{f.String(), f.JAXName(), strings.ToUpper(f.JAXName()), " " + f.String() + " "} {
			if g, err := ParseFloatFormat(s); err != nil || g != f {
				t.Errorf("ParseFloatFormat(%q) = %v, %v; want %v", s, g, err, f)
			}
		}
	}
	for _, s := range []string{"", "f8", "float8", "e4m3fn", "f8e4m3fnu", "bf16", "int4"} {
		if _, err := ParseFloatFormat(s); err == nil || !strings.Contains(err.Error(), "f8e4m3fn") {
			t.Errorf("ParseFloatFormat(%q): error %v, want one listing the formats", s, err)
		}
	}
	if s := FloatFormat(200).String(); s != "FloatFormat(200)" {
		t.Errorf("invalid format prints %q", s)
	}
}

// FuzzFloat8FromFloat32 holds the conversion of any float32 to any format
// to the nearest-value reference, and the float64 path to the float32 one.
func FuzzFloat8FromFloat32(f *testing.F) {
	for _, u := range []uint32{0, 0x80000000, 0x43e00000, 0x43e80000, 0x7f800000, 0x7fc00001, 0x00000001, 0x3fc00000} {
		for k := range NumFloatFormats {
			f.Add(u, uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, u uint32, k uint8) {
		ff := FloatFormat(k % NumFloatFormats)
		x := math.Float32frombits(u)
		got := ff.FromFloat32(x)
		if want := refRounders[ff].round(float64(x)); int(got) != want {
			t.Fatalf("%s.FromFloat32(%#08x) = %#02x, want %#02x", ff, u, got, want)
		}
		if g64 := ff.FromFloat64(float64(x)); g64 != got {
			t.Fatalf("%s: FromFloat64 %#02x, FromFloat32 %#02x for %#08x", ff, g64, got, u)
		}
	})
}
