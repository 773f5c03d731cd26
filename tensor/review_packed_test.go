package tensor_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestReviewPackedEdges: zero-size, overflowing and malformed packed arrays
// give typed errors or correct values, never a panic; padding is ignored.
func TestReviewPackedEdges(t *testing.T) {
	for _, d := range []tensor.DType{tensor.I4, tensor.U4, tensor.I2, tensor.U2} {
		// zero-size
		for _, shape := range [][]int{{0}, {3, 0}, {0, 5}} {
			for _, b := range [][]byte{nil, {}} {
				a, err := tensor.FromPacked(d, shape, b)
				if err != nil {
					t.Fatalf("%v %v: %v", d, shape, err)
				}
				if !a.IsPacked() || a.NBytes() != 0 || a.Size() != 0 {
					t.Fatalf("%v %v: packed %v nbytes %d", d, shape, a.IsPacked(), a.NBytes())
				}
				u := a.Unpack()
				if u.Data() == nil {
					t.Fatalf("%v %v: Unpack of a zero-size packed array has nil data (a zero Array)", d, shape)
				}
				if s := u.String(); strings.Contains(s, "invalid") {
					t.Fatalf("%v %v: Unpack().String() = %s", d, shape, s)
				}
				if s := a.String(); strings.Contains(s, "invalid") {
					t.Fatalf("%v %v: String() = %s", d, shape, s)
				}
				z := tensor.Must(tensor.Zeros(d, shape...))
				if !tensor.Equal(a, z) || !tensor.Equal(z, a) {
					t.Fatalf("%v %v: not Equal to Zeros", d, shape)
				}
				p, err := z.Pack()
				if err != nil || !p.IsPacked() || p.NBytes() != 0 {
					t.Fatalf("%v %v: Pack of zero-size: %v %v", d, shape, p, err)
				}
				if c := a.Clone(); !c.IsPacked() || !tensor.Equal(c, a) {
					t.Fatalf("Clone")
				}
				_ = a.Astype(tensor.F32)
				if _, err := tensor.Data[tensor.Int4](a); err == nil {
					t.Fatalf("Data[T] of packed: no error")
				}
			}
		}
		// a scalar
		a, err := tensor.FromPacked(d, nil, []byte{0xff})
		if err != nil || a.Size() != 1 || a.NBytes() != 1 {
			t.Fatalf("%v scalar: %v %v", d, a, err)
		}
		f, _ := d.IntFormat()
		want := byte(0xff) & byte(1<<f.Bits()-1)
		if s, w := a.String(), a.Unpack().String(); s != w {
			t.Fatalf("%v scalar String %q vs unpacked %q", d, s, w)
		}
		if got := a.Astype(tensor.I64).Data().([]int64)[0]; got != f.Int64(want) {
			t.Fatalf("%v scalar value %d want %d", d, got, f.Int64(want))
		}
		// wrong byte counts
		for _, nb := range []int{0, 1, 3, 4} {
			shape := []int{5}
			need := f.PackedLen(5)
			if nb == need {
				continue
			}
			_, err := tensor.FromPacked(d, shape, make([]byte, nb))
			var pe *tensor.PackedError
			if !errors.As(err, &pe) {
				t.Fatalf("%v %d bytes: %v", d, nb, err)
			}
		}
		// overflowing and negative shapes
		for _, shape := range [][]int{{math.MaxInt, 2}, {math.MaxInt / 2, 3}, {-1}, {-2, -3}, {1 << 32, 1 << 32}} {
			if _, err := tensor.FromPacked(d, shape, []byte{1}); err == nil {
				t.Fatalf("%v %v: no error", d, shape)
			}
			if _, err := tensor.PackedSize(d, shape...); err == nil {
				t.Fatalf("PackedSize %v %v: no error", d, shape)
			}
		}
		// near the int limit: the element count fits, PackedLen must not overflow
		if n, err := tensor.PackedSize(d, math.MaxInt); err != nil || n != f.PackedLen(math.MaxInt) || n <= 0 {
			t.Fatalf("PackedSize(%v, MaxInt) = %d, %v", d, n, err)
		}
		// Reshape
		p, _ := tensor.Must(tensor.FromSlice([]int8{1, 0, 1, 1, 0, 1}, 2, 3)).Astype(d).Pack()
		r, err := p.Reshape(3, 2)
		if err != nil || !r.IsPacked() || !tensor.Equal(r, tensor.Must(p.Unpack().Reshape(3, 2))) {
			t.Fatalf("Reshape: %v %v", r, err)
		}
		if _, err := p.Reshape(4, 2); err == nil {
			t.Fatalf("Reshape to a wrong size: no error")
		}
		// Pack of a non-sub-byte dtype
		var pe *tensor.PackedError
		if _, err := tensor.Must(tensor.Zeros(tensor.I8, 3)).Pack(); !errors.As(err, &pe) {
			t.Fatalf("Pack i8: %v", err)
		}
		if _, err := tensor.FromPacked(tensor.F8E4M3FN, []int{2}, []byte{1, 2}); !errors.As(err, &pe) {
			t.Fatalf("FromPacked f8: %v", err)
		}
		// padding ignored, caller bytes never written
		b := []byte{0x21, 0xf3}
		if d == tensor.I2 || d == tensor.U2 {
			b = []byte{0b11_10_01_00, 0b1111_11_01}
		}
		n := 3
		if d == tensor.I2 || d == tensor.U2 {
			n = 6
		}
		saved := slices.Clone(b)
		q := tensor.Must(tensor.FromPacked(d, []int{n}, b))
		c := q.Clone()
		if c.PackedBytes()[1]>>(uint(n%f.PerByte())*uint(f.Bits())) != 0 {
			t.Fatalf("%v Clone kept padding bits: %08b", d, c.PackedBytes()[1])
		}
		rp, _ := q.Unpack().Pack()
		if !slices.Equal(rp.PackedBytes(), c.PackedBytes()) || !tensor.Equal(q, rp) || !tensor.Equal(q, c) {
			t.Fatalf("%v repack %v vs clone %v", d, rp.PackedBytes(), c.PackedBytes())
		}
		if q.String() != q.Unpack().String() {
			t.Fatalf("String")
		}
		for _, dd := range []tensor.DType{tensor.F32, tensor.I8, tensor.U8, tensor.Bool, tensor.BF16, tensor.I4, tensor.U2, d} {
			if !tensor.Equal(q.Astype(dd), q.Unpack().Astype(dd)) {
				t.Fatalf("%v Astype %v", d, dd)
			}
		}
		if !slices.Equal(b, saved) {
			t.Fatalf("%v: caller bytes written", d)
		}
	}
}
