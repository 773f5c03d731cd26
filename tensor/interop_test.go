package tensor

import (
	"reflect"
	"testing"

	"github.com/x448/float16"
	"gonum.org/v1/gonum/mat"
	gorgonia "gorgonia.org/tensor"
)

func TestGorgoniaRoundTripZeroCopy(t *testing.T) {
	for _, a := range []*Array{
		mustSlice(FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)),
		mustSlice(FromSlice([]int8{-1, 2, 3}, 3)),
		mustSlice(FromSlice([]float16.Float16{Float64ToF16(0.5), Float64ToF16(2)}, 2)),
		mustSlice(FromSlice([]BFloat16{Float64ToBF16(1.5)}, 1)),
		mustSlice(FromSlice([]complex128{1 + 2i, 3}, 1, 2)),
		mustSlice(FromSlice([]bool{true, false}, 2)),
	} {
		t.Run(a.DType().String(), func(t *testing.T) {
			d := a.ToDense()
			back, err := FromDense(d)
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(a, back) {
				t.Fatalf("round trip: %s → %s", a, back)
			}
			// Zero copy both ways: one backing array throughout.
			p := reflect.ValueOf(a.Data()).Pointer()
			if reflect.ValueOf(d.Data()).Pointer() != p || reflect.ValueOf(back.Data()).Pointer() != p {
				t.Error("ToDense/FromDense copied a contiguous array")
			}
		})
	}
}

func mustSlice(a *Array, err error) *Array {
	if err != nil {
		panic(err)
	}
	return a
}

func TestGorgoniaViewsAndScalars(t *testing.T) {
	d := gorgonia.New(gorgonia.WithShape(2, 3), gorgonia.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	if err := d.T(); err != nil {
		t.Fatal(err)
	}
	a, err := FromDense(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "f64[3,2] [[1 4] [2 5] [3 6]]" {
		t.Errorf("transposed Dense = %s", got)
	}
	s, err := FromDense(gorgonia.New(gorgonia.FromScalar(float32(2.5))))
	if err != nil || s.String() != "f32[] 2.5" {
		t.Errorf("scalar = %v, %v", s, err)
	}
	if back := Scalar(int16(7)).ToDense(); back.Data() != int16(7) {
		t.Errorf("rank-0 ToDense = %v", back.Data())
	}
	if _, err := FromDense(nil); err == nil {
		t.Error("FromDense(nil): want an error")
	}
}

func TestGonumZeroCopy(t *testing.T) {
	m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	a := FromMatDense(m)
	m.Set(0, 0, 9)
	if a.FormatElem(0) != "9" {
		t.Error("FromMatDense copied a contiguous matrix")
	}
	back, err := a.ToMatDense()
	if err != nil || back.At(1, 0) != 3 {
		t.Fatalf("ToMatDense = %v, %v", back, err)
	}
	back.Set(1, 1, -1)
	if a.FormatElem(3) != "-1" {
		t.Error("ToMatDense copied")
	}
	// A sub-matrix has stride ≠ columns and is copied, correctly.
	big := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	sub := FromMatDense(big.Slice(1, 3, 1, 3).(*mat.Dense))
	if sub.String() != "f64[2,2] [[5 6] [8 9]]" {
		t.Errorf("sub-matrix = %s", sub)
	}
	v := FromVecDense(mat.NewVecDense(3, []float64{1, 2, 3}))
	vd, err := v.ToVecDense()
	if err != nil || vd.AtVec(2) != 3 {
		t.Errorf("vector round trip: %v, %v", vd, err)
	}
	if _, err := Arange(F32, 4).ToMatDense(); err == nil {
		t.Error("ToMatDense of f32: want an error")
	}
	col := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}).ColView(1).(*mat.VecDense)
	if got := FromVecDense(col).String(); got != "f64[3] [2 4 6]" {
		t.Errorf("strided column = %s", got)
	}
}
