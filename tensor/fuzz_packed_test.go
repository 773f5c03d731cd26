package tensor_test

import (
	"errors"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// FuzzFromPacked: FromPacked on any dtype, shape and bytes either returns
// a typed error (*PackedError, *SizeError, *ShapeError) or an array
// whose Unpack/Pack round trip gives the same values and the same bytes
// with the padding bits cleared, leaving the caller's bytes untouched.
func FuzzFromPacked(f *testing.F) {
	f.Add(uint8(tensor.I4), 3, 1, []byte{0x21, 0xf3})
	f.Add(uint8(tensor.U2), 5, 0, []byte{0xff, 0xff})
	f.Add(uint8(tensor.I2), 0, 4, []byte{})
	f.Add(uint8(tensor.F32), 1, 0, []byte{1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, dt uint8, d0, d1 int, b []byte) {
		d := tensor.DType(dt % uint8(len(tensor.NarrowDTypes())+tensor.NumStandardDTypes))
		shape := []int{d0}
		if d1 != 0 {
			shape = append(shape, d1)
		}
		orig := append([]byte(nil), b...)
		a, err := tensor.FromPacked(d, shape, b)
		if err != nil {
			var pe *tensor.PackedError
			var se *tensor.SizeError
			var she *tensor.ShapeError
			if !errors.As(err, &pe) && !errors.As(err, &se) && !errors.As(err, &she) {
				t.Fatalf("FromPacked(%s, %v, %d bytes): untyped error %T: %v", d, shape, len(b), err, err)
			}
			return
		}
		u := a.Unpack()
		if u.IsPacked() || !tensor.Equal(a, u) {
			t.Fatalf("%s%v: Unpack differs from the packed array", d, shape)
		}
		p, err := u.Pack()
		if err != nil {
			t.Fatalf("%s%v: Pack: %v", d, shape, err)
		}
		f, _ := d.IntFormat()
		n := u.Size()
		got := p.PackedBytes()
		for i := range n {
			per := f.PerByte()
			bits := 8 / per
			mask := byte(1)<<bits - 1
			sh := uint(i%per) * uint(bits)
			if got[i/per]>>sh&mask != b[i/per]>>sh&mask {
				t.Fatalf("%s%v: element %d's bits changed in the round trip", d, shape, i)
			}
		}
		if n%f.PerByte() != 0 && got[len(got)-1]>>(uint(n%f.PerByte())*uint(8/f.PerByte())) != 0 {
			t.Fatalf("%s%v: Pack left padding bits set: %#x", d, shape, got[len(got)-1])
		}
		if string(orig) != string(b) {
			t.Fatalf("%s%v: the caller's bytes were written", d, shape)
		}
	})
}
