package ort_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewPackedRefused: a program with a packed i4 input on ONNX
// Runtime is refused with a typed error (the narrow dtypes are not
// exported), the same for the packed and the unpacked array; a program
// that widens a packed input at the boundary is not possible either.
func TestReviewPackedRefused(t *testing.T) {
	b := backend(t)
	u := tensor.Must(tensor.FromSlice([]int8{1, -2, 3, -4, 5}, 5)).Astype(tensor.I4)
	p, err := u.Pack()
	if err != nil {
		t.Fatal(err)
	}
	f := kiln.Jit(func(w kiln.Value) kiln.Value { return w.Astype(tensor.F32).Mul(kiln.Float(2)) }, kiln.WithBackend(b))
	_, errU := f.Run(u)
	got, errP := f.Run(p)
	if errU == nil || errP == nil {
		want, _ := kiln.Jit(func(w kiln.Value) kiln.Value { return w.Astype(tensor.F32).Mul(kiln.Float(2)) }).Run(u)
		if errP != nil || !tensor.Equal(got, want) {
			t.Fatalf("ORT: unpacked err %v, packed %v err %v, want %v", errU, got, errP, want)
		}
		return
	}
	t.Logf("refused: %T %v", errP, errP)
}
