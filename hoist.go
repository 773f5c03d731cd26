package kiln

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// hoistWeakScalars runs trace's HoistWeakScalars pass and gives, per
// input, the dtype its argument is converted to at Run (or -1). With
// verify it checks the program the pass returns.
func hoistWeakScalars(p *trace.Program, verify bool) (*trace.Program, []int, error) {
	q, hoisted, err := trace.HoistWeakScalars(p)
	if err == nil && verify {
		err = q.CheckAfter(trace.HoistPass)
	}
	if err != nil {
		return nil, nil, err
	}
	conv := make([]int, len(p.Inputs))
	for i := range conv {
		conv[i] = -1
	}
	for _, h := range hoisted {
		conv[h.Input] = int(h.DType)
	}
	return q, conv, nil
}

// convertArg applies a hoisted convert to an argument.
func convertArg(a *tensor.Array, to int) *tensor.Array {
	if to < 0 || a.DType() == tensor.DType(to) {
		return a
	}
	return a.Astype(tensor.DType(to))
}
