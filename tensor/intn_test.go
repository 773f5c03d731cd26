package tensor

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestIntFormatTable(t *testing.T) {
	want := []struct {
		name, jax string
		bits      int
		lo, hi    int64
	}{{"i4", "int4", 4, -8, 7}, {"u4", "uint4", 4, 0, 15}, {"i2", "int2", 2, -2, 1}, {"u2", "uint2", 2, 0, 3}}
	for i, w := range want {
		f := IntFormat(i)
		if f.String() != w.name || f.JAXName() != w.jax || f.Bits() != w.bits || f.Min() != w.lo || f.Max() != w.hi || f.PerByte() != 8/w.bits {
			t.Errorf("%d: %s %s %d [%d, %d] %d per byte, want %+v", i, f, f.JAXName(), f.Bits(), f.Min(), f.Max(), f.PerByte(), w)
		}
		for _, s := range []string{w.name, w.jax, strings.ToUpper(w.jax)} {
			if g, err := ParseIntFormat(s); err != nil || g != f {
				t.Errorf("ParseIntFormat(%q) = %v, %v", s, g, err)
			}
		}
	}
	if _, err := ParseIntFormat("int3"); err == nil || !strings.Contains(err.Error(), "i4 u4 i2 u2") {
		t.Errorf("ParseIntFormat(int3): %v", err)
	}
	if s := IntFormat(9).String(); s != "IntFormat(9)" {
		t.Errorf("invalid format prints %q", s)
	}
}

// TestIntFormatWraps converts every int16 and a spread of int64 and uint64
// values: the result is the value minus a multiple of 2^Bits, in range.
func TestIntFormatWraps(t *testing.T) {
	vals := []int64{math.MinInt64, math.MaxInt64, math.MinInt64 + 1, 1 << 40, -(1 << 40) - 3}
	for v := int64(math.MinInt16); v <= math.MaxInt16; v++ {
		vals = append(vals, v)
	}
	for i := range NumIntFormats {
		f := IntFormat(i)
		mod := int64(1) << f.Bits()
		for _, v := range vals {
			got := f.Int64(f.FromInt64(v))
			if got < f.Min() || got > f.Max() || (v-got)%mod != 0 {
				t.Fatalf("%s.FromInt64(%d) = %d", f, v, got)
			}
			if g := f.Int64(f.FromUint64(uint64(v))); g != got {
				t.Fatalf("%s.FromUint64(%d) = %d, FromInt64 %d", f, uint64(v), g, got)
			}
		}
		// Int64 reads only the low bits: every byte decodes as its field.
		for b := range 256 {
			if f.Int64(uint8(b)) != f.Int64(uint8(b)&uint8(mod-1)) {
				t.Fatalf("%s.Int64(%#02x) reads high bits", f, b)
			}
		}
	}
	if got := FormatI4.Int64(FormatI4.FromInt64(9)); got != -7 {
		t.Errorf("int4(9) = %d, want -7", got)
	}
	if got := FormatU4.Int64(FormatU4.FromInt64(-1)); got != 15 {
		t.Errorf("uint4(-1) = %d, want 15", got)
	}
}

// TestIntFormatFromFloat truncates toward zero and saturates, NaN → 0,
// as Kiln's other float → int converts (FloatToInt).
func TestIntFormatFromFloat(t *testing.T) {
	xs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 0.5, -0.5, 0.99, -0.99,
		1.5, -1.5, 2.5, -2.5, 3.7, -3.7, 7, 7.99, 8, -8, -8.99, -9, 15, 15.5, 16, 1e30, -1e30, math.SmallestNonzeroFloat64}
	for x := -20.0; x <= 20; x += 0.125 {
		xs = append(xs, x)
	}
	for i := range NumIntFormats {
		f := IntFormat(i)
		for _, x := range xs {
			want := int64(0)
			if x == x {
				want = int64(max(min(math.Trunc(x), float64(f.Max())), float64(f.Min())))
			}
			if got := f.Int64(f.FromFloat64(x)); got != want {
				t.Errorf("%s.FromFloat64(%v) = %d, want %d", f, x, got, want)
			}
			if got := f.Int64(f.FromFloat32(float32(x))); float64(float32(x)) == x && got != want {
				t.Errorf("%s.FromFloat32(%v) = %d, want %d", f, x, got, want)
			}
		}
		// The same rule as FloatToInt for int8, clamped further.
		for _, x := range xs {
			want := max(min(int64(FloatToInt[int8](x)), f.Max()), f.Min())
			if got := f.Int64(f.FromFloat64(x)); got != want {
				t.Errorf("%s.FromFloat64(%v) = %d, FloatToInt[int8] clamped %d", f, x, got, want)
			}
		}
	}
}

// TestPackInts pins the byte layout (first value in the low bits) and
// round-trips random slices of every length up to 40.
func TestPackInts(t *testing.T) {
	layouts := []struct {
		f    IntFormat
		in   []int8
		want []byte
	}{
		{FormatI4, []int8{1, -2, 3}, []byte{0xe1, 0x03}},
		{FormatU4, []int8{0xa, 0x5}, []byte{0x5a}},
		{FormatI4, []int8{9}, []byte{0x09}}, // wraps to −7, field 1001
		{FormatU2, []int8{0, 1, 2, 3, 3}, []byte{0xe4, 0x03}},
		{FormatI2, []int8{-1, 0, 1, -2}, []byte{0b10_01_00_11}},
		{FormatI4, nil, []byte{}},
	}
	for _, c := range layouts {
		dst := bytes.Repeat([]byte{0xff}, len(c.want)+1)
		if err := PackInts(c.f, dst, c.in); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dst[:len(c.want)], c.want) || dst[len(c.want)] != 0xff {
			t.Errorf("PackInts(%s, %v) = % x, want % x and the byte after untouched", c.f, c.in, dst, c.want)
		}
	}
	r := rand.New(rand.NewPCG(4, 27))
	for i := range NumIntFormats {
		f := IntFormat(i)
		for n := range 41 {
			vals := make([]int64, n)
			for j := range vals {
				vals[j] = f.Min() + r.Int64N(f.Max()-f.Min()+1)
			}
			packed := make([]byte, f.PackedLen(n))
			if n*f.Bits() > 8*len(packed) || 8*len(packed)-n*f.Bits() >= 8 {
				t.Fatalf("%s.PackedLen(%d) = %d", f, n, len(packed))
			}
			if err := PackInts(f, packed, vals); err != nil {
				t.Fatal(err)
			}
			back := make([]int16, n)
			if err := UnpackInts(f, back, packed); err != nil {
				t.Fatal(err)
			}
			for j := range vals {
				if int64(back[j]) != vals[j] {
					t.Fatalf("%s n=%d: %v → % x → %v", f, n, vals, packed, back)
				}
			}
		}
	}
}

func TestPackIntsErrors(t *testing.T) {
	dst := []byte{7}
	err := PackInts(FormatI4, dst, []int8{1, 2, 3})
	var se *ShapeError
	if !errors.As(err, &se) || se.Op != "PackInts" || !strings.Contains(err.Error(), "3 i4 values pack into 2 bytes; dst has 1") {
		t.Errorf("short dst: %v", err)
	}
	if dst[0] != 7 {
		t.Errorf("a failed PackInts wrote dst: % x", dst)
	}
	out := []int8{5, 5, 5, 5, 5}
	err = UnpackInts(FormatU2, out, []byte{0xff})
	if !errors.As(err, &se) || se.Op != "UnpackInts" || !strings.Contains(err.Error(), "5 u2 values need 2 packed bytes; src has 1") {
		t.Errorf("short src: %v", err)
	}
	if !slices.Equal(out, []int8{5, 5, 5, 5, 5}) {
		t.Errorf("a failed UnpackInts wrote dst: %v", out)
	}
	if err := PackInts(IntFormat(4), dst, []int8{1}); err == nil || !strings.Contains(err.Error(), "PackInts: invalid IntFormat(4)") {
		t.Errorf("invalid format: %v", err)
	}
	if err := UnpackInts(IntFormat(4), out, dst); err == nil || !strings.Contains(err.Error(), "UnpackInts: invalid IntFormat(4)") {
		t.Errorf("invalid format: %v", err)
	}
}
