package tensor

import (
	"fmt"
	"reflect"

	"gonum.org/v1/gonum/mat"
	gorgonia "gorgonia.org/tensor"
)

// FromDense wraps a gorgonia.org/tensor Dense as an Array. The data is
// shared, not copied, when the Dense is contiguous and row-major; a view or
// a lazily transposed Dense is copied in its logical row-major order. A gorgonia scalar (shape ()) becomes a rank-0 array.
func FromDense(t *gorgonia.Dense) (*Array, error) {
	if t == nil {
		return nil, fmt.Errorf("tensor: FromDense: nil Dense")
	}
	if !t.IsNativelyAccessible() {
		return nil, fmt.Errorf("tensor: FromDense: the Dense's memory is not accessible from Go")
	}
	if !t.DataOrder().IsRowMajor() {
		return nil, fmt.Errorf("tensor: FromDense: column-major Dense is not supported; make it row-major first")
	}
	src := t
	if t.IsMaterializable() { // a view, or lazily transposed: copy in logical order
		src = t.Materialize().(*gorgonia.Dense)
	}
	data := src.Data()
	shape := []int(src.Shape())
	if src.IsScalar() {
		// gorgonia keeps a scalar's value unboxed; box it in a slice.
		v := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(data)), 1, 1)
		v.Index(0).Set(reflect.ValueOf(data))
		data, shape = v.Interface(), []int{}
	}
	d, ok := sliceDType(data)
	if !ok {
		return nil, fmt.Errorf("tensor: FromDense: gorgonia dtype %v has no Kiln dtype", t.Dtype())
	}
	return New(d, shape, data)
}

// ToDense wraps a as a gorgonia Dense sharing its data (no copy). gorgonia
// stores f16 and bf16 as their Go types; its own arithmetic does not know
// them, but the data round-trips. A rank-0 array becomes a gorgonia scalar.
func (a *Array) ToDense() *gorgonia.Dense {
	if a.Rank() == 0 {
		return gorgonia.New(gorgonia.FromScalar(Index(a.data, 0)))
	}
	return gorgonia.New(gorgonia.WithShape(a.Shape()...), gorgonia.WithBacking(a.data))
}

// FromMatDense wraps a gonum *mat.Dense as an f64 array of shape [r, c],
// without copying when the matrix is contiguous (stride == columns).
func FromMatDense(m *mat.Dense) *Array {
	raw := m.RawMatrix()
	if raw.Stride == raw.Cols || raw.Rows <= 1 {
		return &Array{dtype: F64, shape: []int{raw.Rows, raw.Cols}, data: raw.Data[:raw.Rows*raw.Cols]}
	}
	data := make([]float64, 0, raw.Rows*raw.Cols)
	for i := 0; i < raw.Rows; i++ {
		data = append(data, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols]...)
	}
	return &Array{dtype: F64, shape: []int{raw.Rows, raw.Cols}, data: data}
}

// ToMatDense wraps a rank-2 f64 array as a gonum *mat.Dense sharing its
// data. gonum has no empty matrices, so both dimensions must be positive.
func (a *Array) ToMatDense() (*mat.Dense, error) {
	if a.dtype != F64 || a.Rank() != 2 || a.shape[0] == 0 || a.shape[1] == 0 {
		return nil, fmt.Errorf("tensor: ToMatDense: need a non-empty f64 matrix, have %s[%s]", a.dtype, joinDims(a.shape))
	}
	return mat.NewDense(a.shape[0], a.shape[1], a.data.([]float64)), nil
}

// FromVecDense wraps a gonum *mat.VecDense as a 1-D f64 array, without
// copying when its increment is 1.
func FromVecDense(v *mat.VecDense) *Array {
	raw := v.RawVector()
	if raw.Inc == 1 {
		return &Array{dtype: F64, shape: []int{raw.N}, data: raw.Data[:raw.N]}
	}
	data := make([]float64, raw.N)
	for i := range data {
		data[i] = raw.Data[i*raw.Inc]
	}
	return &Array{dtype: F64, shape: []int{raw.N}, data: data}
}

// ToVecDense wraps a 1-D f64 array as a gonum *mat.VecDense sharing its
// data.
func (a *Array) ToVecDense() (*mat.VecDense, error) {
	if a.dtype != F64 || a.Rank() != 1 || a.shape[0] == 0 {
		return nil, fmt.Errorf("tensor: ToVecDense: need a non-empty 1-D f64 array, have %s[%s]", a.dtype, joinDims(a.shape))
	}
	return mat.NewVecDense(a.shape[0], a.data.([]float64)), nil
}
