package tensor

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

var packedDTypes = []DType{I4, U4, I2, U2}

// packedValues is n values of format f cycling through all of them, the
// cycle shifted by off so each value lands in every field of a byte.
func packedValues(f IntFormat, n, off int) []int8 {
	span := int(f.Max() - f.Min() + 1)
	out := make([]int8, n)
	for i := range out {
		out[i] = int8(f.Min() + int64((i+off)%span))
	}
	return out
}

// fieldAt decodes element i of packed bytes from the layout's definition:
// field i%per of byte i/per, the first field in the lowest bits, two's
// complement for the signed formats.
func fieldAt(d DType, b []byte, i int) int64 {
	bits := map[DType]int{I4: 4, U4: 4, I2: 2, U2: 2}[d]
	per := 8 / bits
	v := int64(b[i/per]>>(bits*(i%per))) & (1<<bits - 1)
	if (d == I4 || d == I2) && v >= 1<<(bits-1) {
		v -= 1 << bits
	}
	return v
}

// Every value of each format, at odd and even lengths, round-trips
// unpacked → Pack → Unpack; the packed bytes are the layout's and number
// ⌈n·bits/8⌉; Data, FormatElem, String, Equal, Clone, Reshape and Astype
// of the packed array agree with the unpacked one; nothing is written
// into an input.
func TestPackedRoundTrip(t *testing.T) {
	for _, d := range packedDTypes {
		f, _ := d.IntFormat()
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 9, 15, 16, 17, 31, 33, 65} {
			for off := range 4 {
				name := fmt.Sprintf("%v n=%d off=%d", d, n, off)
				u := Must(FromSlice(packedValues(f, n, off))).Astype(d)
				uBefore := u.Clone()
				p, err := u.Pack()
				if err != nil {
					t.Fatalf("%s: Pack: %v", name, err)
				}
				if !p.IsPacked() || u.IsPacked() || !Equal(u, uBefore) {
					t.Fatalf("%s: IsPacked %v/%v, input changed %v", name, p.IsPacked(), u.IsPacked(), !Equal(u, uBefore))
				}
				want := (n*f.Bits() + 7) / 8
				if got := len(p.PackedBytes()); got != want || p.NBytes() != want {
					t.Fatalf("%s: %d packed bytes, NBytes %d, want %d", name, got, p.NBytes(), want)
				}
				if u.NBytes() != n {
					t.Fatalf("%s: unpacked NBytes %d, want %d", name, u.NBytes(), n)
				}
				if sz, err := PackedSize(d, n); err != nil || sz != want {
					t.Fatalf("%s: PackedSize = %d, %v", name, sz, err)
				}
				pb := p.PackedBytes()
				ref := make([]byte, want)
				if err := PackInts(f, ref, packedValues(f, n, off)); err != nil || !slices.Equal(ref, pb) {
					t.Fatalf("%s: packed % x, PackInts % x (%v)", name, pb, ref, err)
				}
				vals := packedValues(f, n, off)
				for i := range n {
					if got := fieldAt(d, pb, i); got != int64(vals[i]) {
						t.Fatalf("%s: field %d = %d, want %d", name, i, got, vals[i])
					}
				}
				if bits := (n * f.Bits()) % 8; bits != 0 && pb[len(pb)-1]>>bits != 0 {
					t.Fatalf("%s: padding bits of the last byte %08b not zero", name, pb[len(pb)-1])
				}
				back := p.Unpack()
				if back.IsPacked() || !Equal(back, u) || !Equal(p, u) || !Equal(u, p) {
					t.Fatalf("%s: Unpack %v, want %v", name, back, u)
				}
				dataCopy, _, _ := narrowBytes(p.Data())
				orig, _, _ := narrowBytes(u.Data())
				if !slices.Equal(dataCopy, orig) {
					t.Fatalf("%s: Data() of the packed array % x, want % x", name, dataCopy, orig)
				}
				if p.String() != u.String() {
					t.Fatalf("%s: String %q, want %q", name, p.String(), u.String())
				}
				for i := range n {
					if p.FormatElem(i) != u.FormatElem(i) {
						t.Fatalf("%s: FormatElem(%d) %q, want %q", name, i, p.FormatElem(i), u.FormatElem(i))
					}
				}
				c := p.Clone()
				if !c.IsPacked() || !Equal(c, u) || (n > 0 && &c.PackedBytes()[0] == &pb[0]) {
					t.Fatalf("%s: Clone %v", name, c)
				}
				if n > 0 {
					r := Must(p.Reshape(1, n))
					if !r.IsPacked() || !Equal(r, Must(u.Reshape(1, n))) {
						t.Fatalf("%s: Reshape %v", name, r)
					}
				}
				for to := DType(0); to < NumDTypes; to++ {
					if got, want := p.Astype(to), u.Astype(to); got.IsPacked() || !Equal(got, want) {
						t.Fatalf("%s: Astype(%v) = %v, want %v", name, to, got, want)
					}
				}
				if !slices.Equal(p.PackedBytes(), ref) {
					t.Fatalf("%s: a reader wrote into the packed bytes", name)
				}
				p2, err := p.Pack()
				if err != nil || p2 != p {
					t.Fatalf("%s: Pack of a packed array = %p, %v; want itself", name, p2, err)
				}
			}
		}
	}
}

// Every byte value read packed gives the fields the layout defines, and
// the unused bits of a last, partial byte are ignored on read and zero
// after Clone and Pack.
func TestPackedEveryByte(t *testing.T) {
	for _, d := range packedDTypes {
		f, _ := d.IntFormat()
		per := f.PerByte()
		all := make([]byte, 256)
		for i := range all {
			all[i] = byte(i)
		}
		p := Must(FromPacked(d, []int{256 * per}, all))
		u := p.Unpack()
		ub, _, _ := narrowBytes(u.Data())
		for i := range 256 * per {
			if got, want := int64(int8(ub[i])), fieldAt(d, all, i); (d == U4 || d == U2) && int64(ub[i]) != want || (d == I4 || d == I2) && got != want {
				t.Fatalf("%v element %d (byte 0x%02x): %d, want %d", d, i, all[i/per], ub[i], want)
			}
		}
		if err := validNarrow("test", d, ub); err != nil {
			t.Fatalf("%v: unpacked storage invalid: %v", d, err)
		}
		// One element short of a whole last byte: its high field(s) are padding.
		for _, n := range []int{1, per + 1, 2*per - 1} {
			if n%per == 0 {
				continue
			}
			for pad := range 256 {
				raw := make([]byte, (n+per-1)/per)
				for i := range raw {
					raw[i] = byte(37*i + 11)
				}
				raw[len(raw)-1] = byte(pad)
				saved := slices.Clone(raw)
				q := Must(FromPacked(d, []int{n}, raw))
				clean := slices.Clone(raw)
				keep := uint((n % per) * f.Bits())
				clean[len(clean)-1] &= byte(1)<<keep - 1
				qc := Must(FromPacked(d, []int{n}, clean))
				if !Equal(q, qc) || q.String() != qc.String() || !Equal(q.Unpack(), qc.Unpack()) {
					t.Fatalf("%v n=%d last byte 0x%02x: padding bits read: %v vs %v", d, n, pad, q, qc)
				}
				if c := q.Clone(); !slices.Equal(c.PackedBytes(), clean) {
					t.Fatalf("%v n=%d: Clone % x, want % x", d, n, c.PackedBytes(), clean)
				}
				if r := Must(q.Unpack().Pack()); !slices.Equal(r.PackedBytes(), clean) {
					t.Fatalf("%v n=%d: Pack % x, want % x", d, n, r.PackedBytes(), clean)
				}
				if !slices.Equal(raw, saved) {
					t.Fatalf("%v n=%d: the caller's bytes were written", d, n)
				}
			}
		}
	}
}

// Wrong byte counts, dtypes that do not pack, shapes past the int range
// and typed access to packed storage are typed errors.
func TestPackedErrors(t *testing.T) {
	var pe *PackedError
	for _, d := range packedDTypes {
		f, _ := d.IntFormat()
		for _, n := range []int{0, 1, 5, 8} {
			need := f.PackedLen(n)
			for _, got := range []int{need - 1, need + 1} {
				if got < 0 {
					continue
				}
				_, err := FromPacked(d, []int{n}, make([]byte, got))
				if !errors.As(err, &pe) || pe.Len != got || pe.DType != d {
					t.Errorf("%v n=%d with %d bytes: %v, want a *PackedError", d, n, got, err)
				}
			}
		}
		_, err := FromPacked(d, []int{1 << 40, 1 << 40}, nil)
		var se *SizeError
		if !errors.As(err, &se) {
			t.Errorf("%v overflowing shape: %v, want a *SizeError", d, err)
		}
		if _, err := FromPacked(d, []int{-1}, nil); err == nil {
			t.Errorf("%v negative dim: no error", d)
		}
		p := Must(FromPacked(d, []int{3}, make([]byte, f.PackedLen(3))))
		if _, err := Data[Int4](p); !errors.As(err, &pe) {
			t.Errorf("%v Data[Int4] of a packed array: %v, want a *PackedError", d, err)
		}
	}
	for _, d := range []DType{I8, U8, F32, Bool, F8E4M3FN, F4E2M1FN} {
		if _, err := FromPacked(d, []int{2}, []byte{0}); !errors.As(err, &pe) {
			t.Errorf("FromPacked(%v): %v, want a *PackedError", d, err)
		}
		if _, err := Must(Zeros(d, 2)).Pack(); !errors.As(err, &pe) {
			t.Errorf("Pack of %v: %v, want a *PackedError", d, err)
		}
		if _, err := PackedSize(d, 2); !errors.As(err, &pe) {
			t.Errorf("PackedSize(%v): %v, want a *PackedError", d, err)
		}
	}
	// Data[T] of an unpacked array is unchanged: the storage itself.
	u := Must(FromSlice([]Int4{1, -2, 3}))
	s, err := Data[Int4](u)
	if err != nil || &s[0] != &u.Data().([]Int4)[0] {
		t.Errorf("Data[Int4] of an unpacked array: %v, %v", s, err)
	}
	// Data() of a packed array is a copy: writing into it changes nothing.
	p := Must(u.Pack())
	p.Data().([]Int4)[0] = 7
	if !Equal(p, u) {
		t.Errorf("writing into Data() of a packed array changed it: %v", p)
	}
}

// A packed i4 array of n elements occupies ⌈n/2⌉ bytes, an i2 one
// ⌈n/4⌉: a 4096×4096 int4 weight matrix takes 8 MiB, not 16.
func TestPackedMemory(t *testing.T) {
	const rows, cols = 4096, 4095
	w := Must(Zeros(I4, rows, cols))
	p := Must(w.Pack())
	if got, want := p.NBytes(), (rows*cols+1)/2; got != want || len(p.PackedBytes()) != want || cap(p.PackedBytes()) != want {
		t.Errorf("packed i4 %dx%d: %d bytes (cap %d), want %d", rows, cols, got, cap(p.PackedBytes()), want)
	}
	q := Must(Must(Zeros(U2, 1001)).Pack())
	if q.NBytes() != 251 {
		t.Errorf("packed u2[1001]: %d bytes, want 251", q.NBytes())
	}
}

// The file writers refuse a packed sub-byte array for its dtype, as they
// refuse the unpacked one (no .npy or safetensors dtype is a sub-byte
// integer), not as an array no constructor made.
func TestPackedFileWriters(t *testing.T) {
	for _, d := range packedDTypes {
		u := Must(Zeros(d, 3))
		p := Must(u.Pack())
		for _, a := range []*Array{u, p} {
			var fe *FileError
			err := WriteNPY(io.Discard, a)
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "dtype "+d.String()) {
				t.Errorf("WriteNPY(%v packed=%v): %v", d, a.IsPacked(), err)
			}
			err = WriteSafetensors(io.Discard, []NamedArray{{Name: "w", Array: a}}, nil)
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "no "+d.String()+" dtype") {
				t.Errorf("WriteSafetensors(%v packed=%v): %v", d, a.IsPacked(), err)
			}
		}
	}
}
