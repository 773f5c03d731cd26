// Package gorgonia moves arrays between Kiln and gorgonia.org/tensor,
// sharing memory where the layouts allow. It lives outside package tensor
// so that programs using Kiln alone do not link gorgonia and its
// dependencies.
package gorgonia

import (
	"fmt"
	"reflect"

	gt "gorgonia.org/tensor"

	"github.com/kiln-go/kiln/tensor"
)

// FromDense wraps a gorgonia.org/tensor Dense as an Array. The data is
// shared, not copied, when the Dense is contiguous and row-major; a view or
// a lazily transposed Dense is copied in its logical row-major order. A
// gorgonia scalar (shape ()) becomes a rank-0 array.
func FromDense(t *gt.Dense) (*tensor.Array, error) {
	if t == nil {
		return nil, fmt.Errorf("gorgonia: FromDense: nil Dense")
	}
	if !t.IsNativelyAccessible() {
		return nil, fmt.Errorf("gorgonia: FromDense: the Dense's memory is not accessible from Go")
	}
	if !t.DataOrder().IsRowMajor() {
		return nil, fmt.Errorf("gorgonia: FromDense: column-major Dense is not supported; make it row-major first")
	}
	src := t
	if t.IsMaterializable() { // a view, or lazily transposed: copy in logical order
		src = t.Materialize().(*gt.Dense)
	}
	data := src.Data()
	shape := []int(src.Shape())
	if src.IsScalar() {
		// gorgonia keeps a scalar's value unboxed; box it in a slice.
		v := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(data)), 1, 1)
		v.Index(0).Set(reflect.ValueOf(data))
		data, shape = v.Interface(), []int{}
	}
	d, ok := tensor.SliceDType(data)
	if !ok {
		return nil, fmt.Errorf("gorgonia: FromDense: gorgonia dtype %v has no Kiln dtype", t.Dtype())
	}
	return tensor.New(d, shape, data)
}

// ToDense wraps a as a gorgonia Dense sharing its data (no copy). gorgonia
// stores f16 and bf16 as their Go types; its own arithmetic does not know
// them, but the data round-trips. A rank-0 array becomes a gorgonia scalar.
func ToDense(a *tensor.Array) (*gt.Dense, error) {
	if a == nil {
		return nil, fmt.Errorf("gorgonia: ToDense: nil array")
	}
	if a.Rank() == 0 {
		return gt.New(gt.FromScalar(tensor.Index(a.Data(), 0))), nil
	}
	return gt.New(gt.WithShape(a.Shape()...), gt.WithBacking(a.Data())), nil
}
