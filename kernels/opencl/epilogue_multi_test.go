package opencl

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestMultiResultEpilogueMixed: multi-result epilogues whose later result
// reads an earlier one, with results of different dtypes (f16, bool, the
// product's) and the product itself an output, on f32, f16 and i32
// products and on a conv, each output bit-identical to the unfused form.
func TestMultiResultEpilogueMixed(t *testing.T) {
	b := testBackend(t)
	cases := map[string]func(y, bias trace.Value) []trace.Value{
		"later-reads-earlier": func(y, bias trace.Value) []trace.Value {
			r := y.Add(bias).Maximum(trace.Int(0))
			return []trace.Value{r, r.Mul(y).Sub(bias)}
		},
		"convert-mask-square": func(y, bias trace.Value) []trace.Value {
			z := y.Add(bias)
			return []trace.Value{z.Astype(tensor.F16), z.Gt(trace.Int(0)), z.Mul(z)}
		},
		"product-output": func(y, bias trace.Value) []trace.Value {
			z := y.Sub(bias)
			return []trace.Value{z.Maximum(trace.Int(0)), z.Gt(trace.Int(0)), y}
		},
	}
	for _, d := range []tensor.DType{tensor.F32, tensor.F16, tensor.I32} {
		for name, fn := range cases {
			label := fmt.Sprintf("%s/%s", d, name)
			p, err := trace.Trace(promote.Config{}, strong(d, []int{19, 33}, []int{33, 21}, []int{21}), func(a []trace.Value) []trace.Value {
				return fn(a[0].MatMul(a[1]), a[2])
			})
			if err != nil {
				t.Fatal(err)
			}
			inputs := []*tensor.Array{conformance.Input(d, 1, 19, 33), conformance.Input(d, 2, 33, 21), conformance.Input(d, 3, 21)}
			checkFusedSame(t, b, label, p, inputs, multiResult)
		}
		label := fmt.Sprintf("%s/conv", d)
		nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
		p, err := trace.Trace(promote.Config{}, strong(d, []int{2, 9, 8, 3}, []int{3, 3, 3, 5}, []int{5}), func(a []trace.Value) []trace.Value {
			z := trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}).Add(a[2])
			r := z.Maximum(trace.Int(0))
			return []trace.Value{r, z.Gt(trace.Int(0)), r.Mul(z)}
		})
		if err != nil {
			t.Fatal(err)
		}
		inputs := []*tensor.Array{conformance.Input(d, 4, 2, 9, 8, 3), conformance.Input(d, 5, 3, 3, 3, 5), conformance.Input(d, 6, 5)}
		checkFusedSame(t, b, label, p, inputs, multiResult)
	}
}
