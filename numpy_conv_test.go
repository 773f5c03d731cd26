package kiln_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestNumPyConv holds conv_general_dilated to a NumPy definition written
// with explicit loops over the dilated, padded input (the conv helper of
// numpyPrelude), bit for bit, in every layout and window parameter and
// dtype class (the random programs of TestNumPy draw convolutions too);
// and the pooling compositions of package nn and trace.ReduceWindow*.
func TestNumPyConv(t *testing.T) {
	numpyOrSkip(t)
	// The conformance suite's configurations up to its empty ones: NCHW,
	// NHWC, 1-D groups, 3-D, depthwise, negative padding, a scrambled layout.
	configs := conformance.ConvConfigs(7)
	var cases []numpyCase
	for i, c := range configs {
		for j, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I8, tensor.U8, tensor.I32} {
			x := conformance.Input(d, uint64(100+10*i+j), c.Lhs...)
			w := conformance.Input(d, uint64(200+10*i+j), c.Rhs...)
			opts := c.Opts
			cases = append(cases, numpyCase{fmt.Sprintf("conv %s %s", c.Name, d), &progen.Case{
				Inputs: []trace.Abstract{{Type: promote.Strong(d), Shape: c.Lhs}, {Type: promote.Strong(d), Shape: c.Rhs}},
				Arrays: []*tensor.Array{x, w},
				Fn: func(a []trace.Value) []trace.Value {
					return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], opts)}
				},
			}})
		}
	}
	pools := []struct {
		name string
		f    func(x trace.Value) trace.Value
	}{
		{"max_pool same", func(x trace.Value) trace.Value { return nn.MaxPool(x, []int{3, 2}, []int{2, 1}, "SAME") }},
		{"avg_pool exclude pad", func(x trace.Value) trace.Value { return nn.AvgPool(x, []int{2, 3}, nil, "SAME", false) }},
		{"sum_pool", func(x trace.Value) trace.Value { return nn.SumPool(x, []int{2, 2}, []int{2, 2}, "VALID") }},
		{"reduce_window min dilated", func(x trace.Value) trace.Value {
			return trace.ReduceWindowMin(x, []int{1, 2, 2, 1}, trace.WindowOptions{WindowDilation: []int{1, 2, 1, 1}, Padding: [][2]int{{0, 0}, {1, -1}, {2, 0}, {0, 0}}})
		}},
	}
	for i, pl := range pools {
		for j, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I8} {
			x := conformance.Input(d, uint64(300+10*i+j), 2, 7, 6, 3)
			f := pl.f
			cases = append(cases, numpyCase{fmt.Sprintf("%s %s", pl.name, d), &progen.Case{
				Inputs: []trace.Abstract{{Type: promote.Strong(d), Shape: x.Shape()}},
				Arrays: []*tensor.Array{x},
				Fn:     func(a []trace.Value) []trace.Value { return []trace.Value{f(a[0])} },
			}})
		}
	}
	runNumPyBatch(t, cases)
}
