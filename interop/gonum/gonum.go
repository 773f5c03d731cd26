// Package gonum moves f64 matrices and vectors between Kiln and
// gonum.org/v1/gonum/mat, sharing memory where the layouts allow. It lives
// outside package tensor so that programs using Kiln alone do not link
// gonum.
package gonum

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kiln-go/kiln/tensor"
)

// FromMatDense wraps a gonum *mat.Dense as an f64 array of shape [r, c],
// without copying when the matrix is contiguous (stride == columns).
func FromMatDense(m *mat.Dense) (*tensor.Array, error) {
	if m == nil {
		return nil, fmt.Errorf("gonum: FromMatDense: nil matrix")
	}
	raw := m.RawMatrix()
	shape := []int{raw.Rows, raw.Cols}
	if raw.Stride == raw.Cols || raw.Rows <= 1 {
		return tensor.New(tensor.F64, shape, raw.Data[:raw.Rows*raw.Cols])
	}
	data := make([]float64, 0, raw.Rows*raw.Cols)
	for i := range raw.Rows {
		data = append(data, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols]...)
	}
	return tensor.New(tensor.F64, shape, data)
}

// ToMatDense wraps a rank-2 f64 array as a gonum *mat.Dense sharing its
// data. gonum has no empty matrices, so both dimensions must be positive.
func ToMatDense(a *tensor.Array) (*mat.Dense, error) {
	if a == nil || a.DType() != tensor.F64 || a.Rank() != 2 || a.Dim(0) == 0 || a.Dim(1) == 0 {
		return nil, fmt.Errorf("gonum: ToMatDense: need a non-empty f64 matrix, have %s", describe(a))
	}
	return mat.NewDense(a.Dim(0), a.Dim(1), a.Data().([]float64)), nil
}

// FromVecDense wraps a gonum *mat.VecDense as a 1-D f64 array, without
// copying when its increment is 1.
func FromVecDense(v *mat.VecDense) (*tensor.Array, error) {
	if v == nil {
		return nil, fmt.Errorf("gonum: FromVecDense: nil vector")
	}
	raw := v.RawVector()
	if raw.Inc == 1 {
		return tensor.New(tensor.F64, []int{raw.N}, raw.Data[:raw.N])
	}
	data := make([]float64, raw.N)
	for i := range data {
		data[i] = raw.Data[i*raw.Inc]
	}
	return tensor.New(tensor.F64, []int{raw.N}, data)
}

// ToVecDense wraps a 1-D f64 array as a gonum *mat.VecDense sharing its
// data.
func ToVecDense(a *tensor.Array) (*mat.VecDense, error) {
	if a == nil || a.DType() != tensor.F64 || a.Rank() != 1 || a.Dim(0) == 0 {
		return nil, fmt.Errorf("gonum: ToVecDense: need a non-empty 1-D f64 array, have %s", describe(a))
	}
	return mat.NewVecDense(a.Dim(0), a.Data().([]float64)), nil
}

// describe names a's dtype and shape for an error message.
func describe(a *tensor.Array) string {
	if a == nil {
		return "a nil array"
	}
	return fmt.Sprintf("%s%v", a.DType(), a.Shape())
}
