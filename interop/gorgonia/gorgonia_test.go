package gorgonia_test

import (
	"reflect"
	"testing"

	gt "gorgonia.org/tensor"

	"github.com/kiln-go/kiln/interop/gorgonia"
	"github.com/kiln-go/kiln/tensor"
)

func must(a *tensor.Array, err error) *tensor.Array {
	if err != nil {
		panic(err)
	}
	return a
}

func TestRoundTripZeroCopy(t *testing.T) {
	for _, a := range []*tensor.Array{
		must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)),
		must(tensor.FromSlice([]int8{-1, 2, 3}, 3)),
		tensor.Scalar(int16(7)),
		must(tensor.New(tensor.F16, []int{2}, tensor.MakeSlice(tensor.F16, 2))),
		must(tensor.FromSlice([]tensor.BFloat16{tensor.Float64ToBF16(1.5)}, 1)),
		must(tensor.FromSlice([]complex128{1 + 2i, 3}, 1, 2)),
		must(tensor.FromSlice([]bool{true, false}, 2)),
	} {
		t.Run(a.DType().String(), func(t *testing.T) {
			d, err := gorgonia.ToDense(a)
			if err != nil {
				t.Fatal(err)
			}
			back, err := gorgonia.FromDense(d)
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.Equal(a, back) {
				t.Fatalf("round trip: %s → %s", a, back)
			}
			if a.Rank() == 0 {
				return // gorgonia keeps scalars unboxed: a copy by design
			}
			// Zero copy both ways: one backing array throughout.
			p := reflect.ValueOf(a.Data()).Pointer()
			if reflect.ValueOf(d.Data()).Pointer() != p || reflect.ValueOf(back.Data()).Pointer() != p {
				t.Error("ToDense/FromDense copied a contiguous array")
			}
		})
	}
}

func TestViewsAndScalars(t *testing.T) {
	d := gt.New(gt.WithShape(2, 3), gt.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	if err := d.T(); err != nil {
		t.Fatal(err)
	}
	a, err := gorgonia.FromDense(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "f64[3,2] [[1 4] [2 5] [3 6]]" {
		t.Errorf("transposed Dense = %s", got)
	}
	s, err := gorgonia.FromDense(gt.New(gt.FromScalar(float32(2.5))))
	if err != nil || s.String() != "f32[] 2.5" {
		t.Errorf("scalar = %v, %v", s, err)
	}
	back, err := gorgonia.ToDense(tensor.Scalar(int16(7)))
	if err != nil || back.Data() != int16(7) {
		t.Errorf("rank-0 ToDense = %v, %v", back, err)
	}
	if _, err := gorgonia.FromDense(nil); err == nil {
		t.Error("FromDense(nil): want an error")
	}
	if _, err := gorgonia.ToDense(nil); err == nil {
		t.Error("ToDense(nil): want an error")
	}
}
