package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// paramNames name the weights in a safetensors file, in Params' order.
var paramNames = []string{"w1", "b1", "w2", "b2"}

// save writes the master weights to a safetensors file, with the model's
// shape and dtypes as metadata.
func (m *model) save(path string) error {
	weights := m.weights()
	tensors := make([]tensor.NamedArray, len(weights))
	for i, p := range weights {
		tensors[i] = tensor.NamedArray{Name: paramNames[i], Array: p}
	}
	meta := map[string]string{
		"model":   fmt.Sprintf("%d-%d-%d MLP", m.state.Params.W1.Dim(0), m.cfg.hidden, classes),
		"compute": m.cfg.compute.String(),
		"master":  m.cfg.master().String(),
	}
	return tensor.WriteSafetensorsFile(path, tensors, meta)
}

// load replaces the weights with a file's that save wrote for a model of
// the same shape and master dtype. The arrays are copied out of the
// file's mapping: training releases old weights to the step's buffer
// pool, which writes into them, and a mapping is read-only.
func (m *model) load(path string) error {
	f, err := tensor.OpenSafetensors(path)
	if err != nil {
		return err
	}
	defer f.Close()
	weights := m.weights()
	leaves := make([]*tensor.Array, len(weights))
	for i, name := range paramNames {
		a, ok := f.Lookup(name)
		switch {
		case !ok:
			return fmt.Errorf("%s: no tensor %s (have %v)", path, name, f.Names())
		case a.DType() != weights[i].DType() || !a.HasShape(weights[i].Shape()):
			return fmt.Errorf("%s: %s is %s%v, the model's is %s%v", path, name, a.DType(), a.Shape(), weights[i].DType(), weights[i].Shape())
		}
		leaves[i] = a.Clone()
	}
	_, def, err := kiln.TreeFlatten[*tensor.Array](&m.state.Params)
	if err != nil {
		return err
	}
	m.state.Params, err = kiln.TreeUnflatten[Params[*tensor.Array]](def, leaves)
	return err
}
