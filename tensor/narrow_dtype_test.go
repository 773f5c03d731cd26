package tensor

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// Every encoding of every narrow float dtype, held in an Array, widens to
// f32 (and f64) through Astype to the value the format's definition gives,
// and narrows back to the same encoding — NaN to the format's NaN.
func TestNarrowDTypeRoundTrip(t *testing.T) {
	for _, d := range NarrowDTypes() {
		f, ok := d.FloatFormat()
		if !ok {
			continue
		}
		n := 1 << f.Bits()
		enc := make([]byte, n)
		for i := range enc {
			enc[i] = byte(i)
		}
		a, err := New(d, []int{n}, narrowTypes[d-NumStandardDTypes].view(enc))
		if err != nil {
			t.Fatal(err)
		}
		for _, wide := range []DType{F32, F64} {
			w := a.Astype(wide)
			back := w.Astype(d)
			got, _, _ := narrowBytes(back.Data())
			for i := range n {
				var x float64
				if wide == F32 {
					x = float64(w.Data().([]float32)[i])
				} else {
					x = w.Data().([]float64)[i]
				}
				want := float64(f.decode(uint8(i)))
				if math.Float64bits(x) != math.Float64bits(want) && !(x != x && want != want) {
					t.Errorf("%s 0x%02x → %s = %v, want %v", d, i, wide, x, want)
				}
				wantBack := uint8(i)
				if f.IsNaN(uint8(i)) {
					wantBack = f.FromFloat64(math.Copysign(math.NaN(), x))
				}
				if got[i] != wantBack {
					t.Errorf("%s 0x%02x → %s → %s = 0x%02x, want 0x%02x", d, i, wide, d, got[i], wantBack)
				}
			}
		}
	}
}

// f32 values of each bit-pattern class convert through Astype as the
// format's FromFloat32 does: normals, subnormals, the halfway points
// between neighbouring encodings (and a hair either side), overflow,
// NaN, ±Inf and ±0.
func TestNarrowDTypeFromF32Classes(t *testing.T) {
	for _, d := range NarrowDTypes() {
		f, ok := d.FloatFormat()
		if !ok {
			continue
		}
		var xs []float32
		xs = append(xs, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
			float32(math.NaN()), -float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32,
			math.SmallestNonzeroFloat32, 1e-30, 2*f.MaxFinite(), -2*f.MaxFinite(), f.MaxFinite()*1.0625)
		for b := range 1 << f.Bits() {
			v := f.ToFloat32(uint8(b))
			if v != v || math.IsInf(float64(v), 0) {
				continue
			}
			xs = append(xs, v)
			for c := range 1 << f.Bits() {
				w := f.ToFloat32(uint8(c))
				if w != w || math.IsInf(float64(w), 0) || w <= v {
					continue
				}
				mid := float32((float64(v) + float64(w)) / 2) // exact in f32: both have ≤ 8 significant bits
				xs = append(xs, mid, math.Nextafter32(mid, float32(math.Inf(1))), math.Nextafter32(mid, float32(math.Inf(-1))))
			}
		}
		a := Must(FromSlice(xs))
		got, _, _ := narrowBytes(a.Astype(d).Data())
		for i, x := range xs {
			if want := f.FromFloat32(x); got[i] != want {
				t.Fatalf("%s of f32 %g (0x%08x) = 0x%02x, want 0x%02x", d, x, math.Float32bits(x), got[i], want)
			}
		}
	}
}

// Sub-byte integers: integers wrap into their bits, floats truncate and
// saturate (NaN → 0), and every value reads back as itself.
func TestNarrowIntDTypes(t *testing.T) {
	src := Must(FromSlice([]int32{-9, -8, -3, -1, 0, 1, 3, 7, 8, 15, 16, 100}))
	f := Must(FromSlice([]float32{-100, -8.9, -2.5, -0.5, 0.7, 3.9, 7.9, 100, float32(math.NaN()), float32(math.Inf(1))}))
	cases := []struct {
		d         DType
		ints, flt string
	}{
		{I4, "i4[12] [7 -8 -3 -1 0 1 3 7 -8 -1 0 4]", "i4[10] [-8 -8 -2 0 0 3 7 7 0 7]"},
		{U4, "u4[12] [7 8 13 15 0 1 3 7 8 15 0 4]", "u4[10] [0 0 0 0 0 3 7 15 0 15]"},
		{I2, "i2[12] [-1 0 1 -1 0 1 -1 -1 0 -1 0 0]", "i2[10] [-2 -2 -2 0 0 1 1 1 0 1]"},
		{U2, "u2[12] [3 0 1 3 0 1 3 3 0 3 0 0]", "u2[10] [0 0 0 0 0 3 3 3 0 3]"},
	}
	for _, c := range cases {
		if got := src.Astype(c.d).String(); got != c.ints {
			t.Errorf("i32 → %s = %s, want %s", c.d, got, c.ints)
		}
		if got := f.Astype(c.d).String(); got != c.flt {
			t.Errorf("f32 → %s = %s, want %s", c.d, got, c.flt)
		}
		fm, _ := c.d.IntFormat()
		all := Must(Arange(I64, int(fm.Max()-fm.Min()+1)))
		for i, v := range all.Data().([]int64) {
			all.Data().([]int64)[i] = v + fm.Min()
		}
		if back := all.Astype(c.d).Astype(I64); !Equal(back, all) {
			t.Errorf("%s range → %s → i64 = %s", c.d, c.d, back)
		}
	}
	if _, err := FromSlice([]Int4{3, 9}); err == nil || !strings.Contains(err.Error(), "outside -8 … 7") {
		t.Errorf("FromSlice of Int4 9: %v", err)
	}
	if _, err := FromSlice([]Float4E2M1FN{0x1f}); err == nil || !strings.Contains(err.Error(), "high bits zero") {
		t.Errorf("FromSlice of Float4E2M1FN 0x1f: %v", err)
	}
}

func TestNarrowDTypeNames(t *testing.T) {
	for _, d := range NarrowDTypes() {
		for _, s := range []string{d.String(), d.LongName(), strings.ToUpper(d.LongName())} {
			if got, err := ParseDType(s); err != nil || got != d {
				t.Errorf("ParseDType(%q) = %v, %v; want %s", s, got, err, d)
			}
		}
		if d.Size() != 1 || !d.IsNarrow() || d.Kind() == KindComplex {
			t.Errorf("%s: size %d, narrow %v, kind %s", d, d.Size(), d.IsNarrow(), d.Kind())
		}
		if got := MakeSlice(d, 3); sliceLen(got) != 3 {
			t.Errorf("MakeSlice(%s, 3) has %d elements", d, sliceLen(got))
		} else if sd, ok := SliceDType(got); !ok || sd != d {
			t.Errorf("SliceDType(MakeSlice(%s)) = %v, %v", d, sd, ok)
		}
	}
	want := map[string]DType{"int4": I4, "i4": I4, "uint2": U2, "float8_e4m3fn": F8E4M3FN, "f4e2m1fn": F4E2M1FN}
	for s, d := range want {
		if got, _ := ParseDType(s); got != d {
			t.Errorf("ParseDType(%q) = %s, want %s", s, got, d)
		}
	}
	for _, d := range StandardDTypes() {
		if d.IsNarrow() {
			t.Errorf("%s is not narrow", d)
		}
	}
	a := Must(FromSlice([]float32{0.1, 1, -448, 500, float32(math.NaN())})).Astype(F8E4M3FN)
	// The shortest decimal that reads back, as f16 prints: -450 is -448.
	if got, want := a.String(), "f8e4m3fn[5] [0.1 1 -450 nan nan]"; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

// The narrow dtypes with a safetensors name (F8_E4M3, F8_E5M2, F8_E8M0)
// round-trip through it; the others, and every narrow dtype in .npy, are a
// *FileError that names the dtype.
func TestNarrowFiles(t *testing.T) {
	for _, d := range NarrowDTypes() {
		a := Must(FromSlice([]float32{1, 2, 0.5})).Astype(d)
		var buf bytes.Buffer
		err := WriteNPY(&buf, a)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), d.String()) {
			t.Errorf("WriteNPY(%s): %v, want a *FileError naming it", d, err)
		}
		buf.Reset()
		err = WriteSafetensors(&buf, []NamedArray{{Name: "x", Array: a}}, nil)
		switch d {
		case F8E4M3FN, F8E5M2, F8E8M0FNU:
			if err != nil {
				t.Fatalf("WriteSafetensors(%s): %v", d, err)
			}
			got, _, err := ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil || len(got) != 1 || !Equal(got[0].Array, a) {
				t.Errorf("safetensors %s: read %v, %v", d, got, err)
			}
		default:
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), d.String()) {
				t.Errorf("WriteSafetensors(%s): %v, want a *FileError naming it", d, err)
			}
		}
	}
}

// NextAfter steps to the adjacent value of the format, checked against a
// sorted list of every finite value of each format.
func TestNarrowNextAfter(t *testing.T) {
	for f := range FloatFormat(NumFloatFormats) {
		var vals []float32
		seen := map[float32]bool{}
		for b := range 1 << f.Bits() {
			v := f.ToFloat32(uint8(b))
			if v == v && !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		for i, v := range vals {
			x := f.FromFloat32(v)
			if i+1 < len(vals) {
				if got := f.ToFloat32(f.NextAfter(x, f.FromFloat32(vals[len(vals)-1]))); got != vals[i+1] {
					t.Errorf("%s: nextafter(%v, up) = %v, want %v", f, v, got, vals[i+1])
				}
			}
			if i > 0 {
				if got := f.ToFloat32(f.NextAfter(x, f.FromFloat32(vals[0]))); got != vals[i-1] {
					t.Errorf("%s: nextafter(%v, down) = %v, want %v", f, v, got, vals[i-1])
				}
			}
			if got := f.NextAfter(x, x); got != x {
				t.Errorf("%s: nextafter(x, x) = 0x%02x, want 0x%02x", f, got, x)
			}
		}
		if f.HasNaN() {
			nan := f.FromFloat32(float32(math.NaN()))
			if got := f.NextAfter(nan, 0); !f.IsNaN(got) {
				t.Errorf("%s: nextafter(NaN, 0) = 0x%02x", f, got)
			}
		}
	}
}
