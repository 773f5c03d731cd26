package main

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// paramNames name the weights in a safetensors file, in m.params' order.
var paramNames = []string{"w1", "b1", "w2", "b2"}

// save writes the master weights to a safetensors file, with the model's
// shape and dtypes as metadata.
func (m *model) save(path string) error {
	tensors := make([]tensor.NamedArray, len(m.params))
	for i, p := range m.params {
		tensors[i] = tensor.NamedArray{Name: paramNames[i], Array: p}
	}
	meta := map[string]string{
		"model":   fmt.Sprintf("%d-%d-%d MLP", m.params[0].Dim(0), m.cfg.hidden, classes),
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
	params := make([]*tensor.Array, len(m.params))
	for i, name := range paramNames {
		a, ok := f.Lookup(name)
		switch {
		case !ok:
			return fmt.Errorf("%s: no tensor %s (have %v)", path, name, f.Names())
		case a.DType() != m.params[i].DType() || !a.HasShape(m.params[i].Shape()):
			return fmt.Errorf("%s: %s is %s%v, the model's is %s%v", path, name, a.DType(), a.Shape(), m.params[i].DType(), m.params[i].Shape())
		}
		params[i] = a.Clone()
	}
	m.params = params
	return nil
}
