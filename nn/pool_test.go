package nn_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestAvgPoolCount: AvgPool without padding in the count divides by a
// window sum of ones over the spatial dims only, broadcast — the bits of
// the window sum of ones of x's whole shape (the formula it replaced,
// spelled out here), for the values and for the derivative, in every
// float dtype and for integers (divided in the default float), with SAME
// and VALID padding and strides.
func TestAvgPoolCount(t *testing.T) {
	type pool struct {
		window, strides []int
		padding         string
	}
	pools := []pool{{[]int{3, 3}, []int{2, 2}, "SAME"}, {[]int{2, 3}, nil, "SAME"}, {[]int{3, 2}, []int{1, 2}, "VALID"}, {[]int{4, 4}, []int{3, 1}, "SAME"}}
	shape := []int{2, 7, 6, 3}
	n := 2 * 7 * 6 * 3
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = r.NormFloat64() * 100
		if i%13 == 0 {
			vals[i] = math.Copysign(0, -1)
		}
	}
	base, _ := tensor.FromSlice(vals, shape...)
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I32, tensor.U8} {
		x := base.Astype(d)
		for _, p := range pools {
			avg := func(x kiln.Value) kiln.Value { return nn.AvgPool(x, p.window, p.strides, p.padding, false) }
			old := func(x kiln.Value) kiln.Value {
				w := append(append([]int{1}, p.window...), 1)
				o := trace.WindowOptions{PaddingMode: p.padding}
				if p.strides != nil {
					o.Strides = append(append([]int{1}, p.strides...), 1)
				}
				return trace.ReduceWindowSum(x, w, o).Div(trace.ReduceWindowSum(trace.FullLike(x, trace.Int(1)), w, o))
			}
			fns := map[string][2]any{"value": {avg, old}}
			if d.IsFloat() {
				grad := func(f func(kiln.Value) kiln.Value) func(x kiln.Value) kiln.Value {
					return func(x kiln.Value) kiln.Value {
						y, pull := kiln.VJP(f, x)
						g := trace.Arange(0, trace.ShapeSize(y[0].Shape()), 1).Reshape(y[0].Shape()...).Sin().Astype(y[0].DType())
						return pull(g)[0]
					}
				}
				fns["gradient"] = [2]any{grad(avg), grad(old)}
			}
			for what, fs := range fns {
				var outs [2][]byte
				for i, f := range fs {
					out, err := kiln.Jit(f).Run(x)
					if err != nil {
						t.Fatalf("%s %v %s: %v", d, p, what, err)
					}
					outs[i] = raw(out)
				}
				if !bytes.Equal(outs[0], outs[1]) {
					t.Errorf("%s %v: the %s differs from the whole-shape count's", d, p, what)
				}
			}
		}
	}
}

func raw(a *tensor.Array) []byte {
	v := reflect.ValueOf(a.Data())
	return bytes.Clone(unsafe.Slice((*byte)(v.UnsafePointer()), v.Len()*int(v.Type().Elem().Size())))
}
