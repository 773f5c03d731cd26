package opencl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// checkFusedSame compiles p with epilogues fused and without and fails
// unless the fused plan satisfies fused, the generated source runs the
// epilogue in the product's kernel (acc_r), and every output on device b
// has the unfused form's bits.
func checkFusedSame(t *testing.T, b *Backend, label string, p *trace.Program, inputs []*tensor.Array, fused func(*lower.Module) bool) {
	t.Helper()
	var outs [2][]*tensor.Array
	for i, off := range []bool{false, true} {
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoEpilogues: off, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := b.CompileModule(m)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if !off && (!fused(m) || !strings.Contains(exe.Source(), "acc_r")) {
			t.Fatalf("%s: no epilogue in the product's kernel:\n%s\n%s", label, m.FusedString(), exe.Source())
		}
		outs[i], err = exe.Run(inputs)
		exe.Close()
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
	}
	for o := range outs[0] {
		if diff := conformance.Compare(outs[0][o], outs[1][o], 0); diff != "" {
			t.Errorf("%s, output %d: fused differs from unfused: %s", label, o, diff)
		}
	}
}

func lastIsEpilogue(m *lower.Module) bool { return m.Fusions[len(m.Fusions)-1].Epilogue() }

func strong(d tensor.DType, shapes ...[]int) []trace.Abstract {
	out := make([]trace.Abstract, len(shapes))
	for i, s := range shapes {
		out[i] = trace.Abstract{Type: promote.Strong(d), Shape: s}
	}
	return out
}

// TestEpilogue runs dot fusions with epilogues (lower.FuseEpilogues) in
// the tiled kernel's store: each result is bit-identical to the unfused
// form on this device (the product's kernel, then a loop kernel reading
// it). By default each dtype triple runs every chain in one of the two
// batch forms, alternating (every combination with KILN_LONG=1).
func TestEpilogue(t *testing.T) {
	b := testBackend(t)
	chains := map[string]func(y, bias trace.Value) trace.Value{
		"bias-tanh": func(y, b trace.Value) trace.Value { return y.Add(b).Tanh() },
		"scale-relu": func(y, b trace.Value) trace.Value {
			return y.Mul(trace.Float(0.25)).Add(b).Maximum(trace.Int(0))
		},
		"logistic": func(y, b trace.Value) trace.Value { return y.Add(b).Logistic() },
	}
	type dtypes struct{ in, dot, out tensor.DType }
	for di, d := range []dtypes{{tensor.F32, tensor.F32, tensor.F32}, {tensor.F16, tensor.F32, tensor.F16}, {tensor.F16, tensor.F16, tensor.F16}, {tensor.I32, tensor.I32, tensor.F32}} {
		for name, chain := range chains {
			for _, batch := range []int{0, 3} {
				if !longtest.Enabled() && (batch == 0) != (di%2 == 0) {
					continue
				}
				lhs, rhs := []int{19, 33}, []int{33, 21}
				dims := trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}
				if batch > 0 {
					lhs, rhs = []int{batch, 19, 33}, []int{batch, 33, 21}
					dims = trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}
				}
				abs := append(strong(d.in, lhs, rhs), strong(d.dot, []int{21})...)
				p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
					var opts []trace.DotOption
					if d.dot != d.in {
						opts = append(opts, trace.PreferredElementType(d.dot))
					}
					return []trace.Value{chain(trace.DotGeneral(a[0], a[1], dims, opts...), a[2]).Astype(d.out)}
				})
				if err != nil {
					t.Fatal(err)
				}
				inputs := []*tensor.Array{conformance.Input(d.in, 1, lhs...), conformance.Input(d.in, 2, rhs...), conformance.Input(d.dot, 3, 21)}
				checkFusedSame(t, b, fmt.Sprintf("%s→%s→%s/%s/batch=%d", d.in, d.dot, d.out, name, batch), p, inputs, lastIsEpilogue)
			}
		}
	}
}

// TestConvEpilogue: a conv's epilogue in its kernel's store, bit-identical
// to the unfused form on this device, in NHWC and NCHW.
func TestConvEpilogue(t *testing.T) {
	b := testBackend(t)
	for _, c := range []struct {
		name           string
		lhs, rhs, bias []int
		opts           trace.ConvOptions
	}{
		{"nhwc", []int{2, 7, 6, 3}, []int{3, 3, 3, 5}, []int{5}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}},
		{"nchw", []int{2, 3, 7, 6}, []int{5, 3, 3, 3}, []int{5, 1, 1}, trace.ConvOptions{WindowStrides: []int{2, 1}}},
	} {
		for _, d := range []tensor.DType{tensor.F32, tensor.F16} {
			p, err := trace.Trace(promote.Config{}, strong(d, c.lhs, c.rhs, c.bias), func(a []trace.Value) []trace.Value {
				return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], c.opts).Add(a[2]).Tanh()}
			})
			if err != nil {
				t.Fatal(err)
			}
			inputs := []*tensor.Array{conformance.Input(d, 4, c.lhs...), conformance.Input(d, 5, c.rhs...), conformance.Input(d, 6, c.bias...)}
			checkFusedSame(t, b, c.name+"/"+d.String(), p, inputs, lastIsEpilogue)
		}
	}
}

// TestSharedEpilogue: a product other kernels read too is stored by the
// epilogue's kernel as its last output; every output bit-identical to
// the unfused form.
func TestSharedEpilogue(t *testing.T) {
	b := testBackend(t)
	p, err := trace.Trace(promote.Config{}, strong(tensor.F32, []int{19, 33}, []int{33, 21}, []int{21}, []int{19, 21}), func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		z := y.Add(a[2])
		return []trace.Value{z.Maximum(trace.Int(0)), trace.Where(z.Gt(trace.Int(0)), a[3], trace.Int(0)).Sum(0), y}
	})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []*tensor.Array{conformance.Input(tensor.F32, 1, 19, 33), conformance.Input(tensor.F32, 2, 33, 21), conformance.Input(tensor.F32, 3, 21), conformance.Input(tensor.F32, 4, 19, 21)}
	checkFusedSame(t, b, "relu-mask-sum", p, inputs, func(m *lower.Module) bool {
		for _, f := range m.Fusions {
			if f.Epilogue() && f.SharesProduct() {
				return true
			}
		}
		return false
	})
}

// TestMultiResultEpilogue: sibling loops reading one product (a relu and
// its derivative's mask; two functions of the product, the product also
// summed) join its kernel whole, which stores every result, each
// bit-identical to the unfused form.
func TestMultiResultEpilogue(t *testing.T) {
	b := testBackend(t)
	cases := map[string]func(y, bias trace.Value) []trace.Value{
		"relu-and-mask": func(y, bias trace.Value) []trace.Value {
			z := y.Add(bias)
			return []trace.Value{trace.Where(z.Gt(trace.Int(0)), z, trace.Int(0)), z.Gt(trace.Int(0))}
		},
		"tanh-exp-sum": func(y, bias trace.Value) []trace.Value { return []trace.Value{y.Add(bias).Tanh(), y.Exp(), y.Sum(1)} },
	}
	for name, fn := range cases {
		p, err := trace.Trace(promote.Config{}, strong(tensor.F32, []int{19, 33}, []int{33, 21}, []int{21}), func(a []trace.Value) []trace.Value {
			return fn(a[0].MatMul(a[1]), a[2])
		})
		if err != nil {
			t.Fatal(err)
		}
		inputs := []*tensor.Array{conformance.Input(tensor.F32, 1, 19, 33), conformance.Input(tensor.F32, 2, 33, 21), conformance.Input(tensor.F32, 3, 21)}
		checkFusedSame(t, b, name, p, inputs, multiResult)
	}
}

// multiResult reports whether m has a dot fusion whose epilogue computes
// more than one result.
func multiResult(m *lower.Module) bool {
	for _, f := range m.Fusions {
		if f.Epilogue() && len(f.EpilogueResults()) > 1 {
			return true
		}
	}
	return false
}
