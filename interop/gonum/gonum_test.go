package gonum_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kiln-go/kiln/interop/gonum"
	"github.com/kiln-go/kiln/tensor"
)

func TestZeroCopy(t *testing.T) {
	m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	a, err := gonum.FromMatDense(m)
	if err != nil {
		t.Fatal(err)
	}
	m.Set(0, 0, 9)
	if a.FormatElem(0) != "9" {
		t.Error("FromMatDense copied a contiguous matrix")
	}
	back, err := gonum.ToMatDense(a)
	if err != nil || back.At(1, 0) != 3 {
		t.Fatalf("ToMatDense = %v, %v", back, err)
	}
	back.Set(1, 1, -1)
	if a.FormatElem(3) != "-1" {
		t.Error("ToMatDense copied")
	}
}

func TestStridedAreCopied(t *testing.T) {
	// A sub-matrix has stride ≠ columns and is copied, correctly.
	big := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	sub, err := gonum.FromMatDense(big.Slice(1, 3, 1, 3).(*mat.Dense))
	if err != nil || sub.String() != "f64[2,2] [[5 6] [8 9]]" {
		t.Errorf("sub-matrix = %v, %v", sub, err)
	}
	v, err := gonum.FromVecDense(mat.NewVecDense(3, []float64{1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	vd, err := gonum.ToVecDense(v)
	if err != nil || vd.AtVec(2) != 3 {
		t.Errorf("vector round trip: %v, %v", vd, err)
	}
	col := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}).ColView(1).(*mat.VecDense)
	if got, err := gonum.FromVecDense(col); err != nil || got.String() != "f64[3] [2 4 6]" {
		t.Errorf("strided column = %v, %v", got, err)
	}
}

func TestRefusals(t *testing.T) {
	if _, err := gonum.ToMatDense(tensor.Must(tensor.Arange(tensor.F32, 4))); err == nil {
		t.Error("ToMatDense of f32: want an error")
	}
	if _, err := gonum.ToVecDense(nil); err == nil {
		t.Error("ToVecDense(nil): want an error")
	}
	if _, err := gonum.FromMatDense(nil); err == nil {
		t.Error("FromMatDense(nil): want an error")
	}
}
