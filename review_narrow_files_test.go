package kiln_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// safetensors F8_E4M3 / F8_E5M2 / F8_E8M0 round-trip every encoding bit
// for bit (NaN and −0 included); the formats safetensors cannot name and
// every narrow dtype in .npy are refused with a *tensor.FileError.
func TestReviewNarrowFiles(t *testing.T) {
	for _, d := range tensor.NarrowDTypes() {
		b := make([]byte, 16)
		if f, ok := d.FloatFormat(); ok {
			b = make([]byte, 1<<f.Bits())
			for i := range b {
				b[i] = byte(i)
			}
		} else {
			b = b[:0]
			f, _ := d.IntFormat()
			for v := f.Min(); v <= f.Max(); v++ {
				b = append(b, byte(v))
			}
		}
		data, err := tensor.NarrowSlice(d, b)
		if err != nil {
			t.Fatal(err)
		}
		a := tensor.Must(tensor.New(d, []int{len(b)}, data))
		var buf bytes.Buffer
		err = tensor.WriteSafetensors(&buf, []tensor.NamedArray{{Name: "w", Array: a}}, nil)
		switch d {
		case tensor.F8E4M3FN, tensor.F8E5M2, tensor.F8E8M0FNU:
			if err != nil {
				t.Errorf("%s: safetensors write: %v", d, err)
				continue
			}
			got, _, err := tensor.ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil || len(got) != 1 || got[0].Array.DType() != d {
				t.Errorf("%s: safetensors read: %v %v", d, got, err)
				continue
			}
			gb, _, _ := tensor.NarrowBytes(got[0].Array.Data())
			if !bytes.Equal(gb, b) {
				t.Errorf("%s: round trip changed the bytes", d)
			}
		default:
			var fe *tensor.FileError
			if !errors.As(err, &fe) {
				t.Errorf("%s: safetensors write gave %T %v, want a *tensor.FileError", d, err, err)
			}
		}
		var fe *tensor.FileError
		if err := tensor.WriteNPY(&bytes.Buffer{}, a); !errors.As(err, &fe) {
			t.Errorf("%s: .npy write gave %T %v, want a *tensor.FileError", d, err, err)
		}
	}
}

// fp8 × fp8 with preferred_element_type f32 is exact products summed in
// f32 (no rounding to fp8); without it, the f32 sum rounds once to fp8.
func TestReviewNarrowDotPreferred(t *testing.T) {
	// 448·448·2 = 401408 is past f8e4m3fn's range: NaN in f8, exact in f32.
	x := tensor.Must(tensor.FromSlice([]float32{448, 448})).Astype(tensor.F8E4M3FN)
	// 1 + 1/16·… : 1·1 + 0.0625·1 = 1.0625 → the tie 1|1.125 → 1 in f8, 1.0625 in f32.
	y := tensor.Must(tensor.FromSlice([]float32{1, 0.0625})).Astype(tensor.F8E4M3FN)
	run := func(a, b *tensor.Array, opts ...kiln.DotOption) *tensor.Array {
		out, err := kiln.Jit(func(p, q kiln.Value) kiln.Value { return kiln.Dot(p, q, opts...) }).Run(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if o := run(x, x, kiln.PreferredElementType(tensor.F32)); o.DType() != tensor.F32 || o.Data().([]float32)[0] != 401408 {
		t.Errorf("f8 · f8 → f32 = %v, want f32 401408", o)
	}
	if o := run(x, x); o.DType() != tensor.F8E4M3FN || !math.IsNaN(float64(f32Of(t, o)[0])) {
		t.Errorf("f8 · f8 = %v, want f8e4m3fn NaN", o)
	}
	ones := tensor.Must(tensor.FromSlice([]float32{1, 1})).Astype(tensor.F8E4M3FN)
	if o := run(y, ones); f32Of(t, o)[0] != 1 {
		t.Errorf("f8 dot 1.0625 = %v, want 1 (one rounding, tie to even)", o)
	}
	if o := run(y, ones, kiln.PreferredElementType(tensor.BF16)); o.DType() != tensor.BF16 || f32Of(t, o)[0] != 1.0625 {
		t.Errorf("f8 dot → bf16 = %v, want bf16 1.0625", o)
	}
	// i4 · i4 wraps into i4; preferred i32 does not.
	i := tensor.Must(tensor.FromSlice([]int32{7, 7})).Astype(tensor.I4)
	if o := run(i, i); o.DType() != tensor.I4 || o.Astype(tensor.I32).Data().([]int32)[0] != 2 { // 98 mod 16 = 2
		t.Errorf("i4 · i4 = %v, want i4 2 (98 wrapped)", o)
	}
	if o := run(i, i, kiln.PreferredElementType(tensor.I32)); o.DType() != tensor.I32 || o.Data().([]int32)[0] != 98 {
		t.Errorf("i4 · i4 → i32 = %v, want 98", o)
	}
}
