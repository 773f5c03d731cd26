package opencl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestEpilogue runs dot fusions with epilogues (lower.FuseEpilogues) in
// the tiled kernel's store: each result is bit-identical to the unfused
// form on this device (the product's kernel, then a loop kernel reading
// it), and the generated source has the chain in the dot's kernel.
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
	for _, d := range []dtypes{{tensor.F32, tensor.F32, tensor.F32}, {tensor.F16, tensor.F32, tensor.F16}, {tensor.F16, tensor.F16, tensor.F16}, {tensor.I32, tensor.I32, tensor.F32}} {
		for name, chain := range chains {
			for _, batch := range []int{0, 3} {
				label := fmt.Sprintf("%s→%s→%s/%s/batch=%d", d.in, d.dot, d.out, name, batch)
				lhs, rhs := []int{19, 33}, []int{33, 21}
				dims := trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}
				if batch > 0 {
					lhs, rhs = []int{batch, 19, 33}, []int{batch, 33, 21}
					dims = trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}
				}
				abs := []trace.Abstract{{Type: promote.Strong(d.in), Shape: lhs}, {Type: promote.Strong(d.in), Shape: rhs}, {Type: promote.Strong(d.dot), Shape: []int{21}}}
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
				var outs [2]*tensor.Array
				for i, off := range []bool{false, true} {
					m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoEpilogues: off, Verify: true})
					if err != nil {
						t.Fatal(err)
					}
					exe, err := b.CompileModule(m)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					if !off {
						src := exe.Source()
						if last := m.Fusions[len(m.Fusions)-1]; !last.Epilogue() || !strings.Contains(src, "acc_r") {
							t.Fatalf("%s: no epilogue in the dot's kernel:\n%s\n%s", label, m.FusedString(), src)
						}
					}
					got, err := exe.Run(inputs)
					exe.Close()
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					outs[i] = got[0]
				}
				if diff := conformance.Compare(outs[0], outs[1], 0); diff != "" {
					t.Errorf("%s: fused differs from unfused: %s", label, diff)
				}
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
			abs := []trace.Abstract{{Type: promote.Strong(d), Shape: c.lhs}, {Type: promote.Strong(d), Shape: c.rhs}, {Type: promote.Strong(d), Shape: c.bias}}
			p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
				return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], c.opts).Add(a[2]).Tanh()}
			})
			if err != nil {
				t.Fatal(err)
			}
			inputs := []*tensor.Array{conformance.Input(d, 4, c.lhs...), conformance.Input(d, 5, c.rhs...), conformance.Input(d, 6, c.bias...)}
			var outs [2]*tensor.Array
			for i, off := range []bool{false, true} {
				m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoEpilogues: off, Verify: true})
				if err != nil {
					t.Fatal(err)
				}
				exe, err := b.CompileModule(m)
				if err != nil {
					t.Fatalf("%s/%s: %v", c.name, d, err)
				}
				if !off && (!m.Fusions[len(m.Fusions)-1].Epilogue() || !strings.Contains(exe.Source(), "acc_r")) {
					t.Fatalf("%s/%s: no epilogue in the conv's kernel:\n%s\n%s", c.name, d, m.FusedString(), exe.Source())
				}
				got, err := exe.Run(inputs)
				exe.Close()
				if err != nil {
					t.Fatalf("%s/%s: %v", c.name, d, err)
				}
				outs[i] = got[0]
			}
			if diff := conformance.Compare(outs[0], outs[1], 0); diff != "" {
				t.Errorf("%s/%s: fused differs from unfused: %s", c.name, d, diff)
			}
		}
	}
}

// TestSharedEpilogue: a product other kernels read too is stored by the
// epilogue's kernel as its second output; every output bit-identical to
// the unfused form.
func TestSharedEpilogue(t *testing.T) {
	b := testBackend(t)
	abs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{19, 33}}, {Type: promote.Strong(tensor.F32), Shape: []int{33, 21}},
		{Type: promote.Strong(tensor.F32), Shape: []int{21}}, {Type: promote.Strong(tensor.F32), Shape: []int{19, 21}}}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		y := a[0].MatMul(a[1])
		z := y.Add(a[2])
		return []trace.Value{z.Maximum(trace.Int(0)), trace.Where(z.Gt(trace.Int(0)), a[3], trace.Int(0)), y.Sum(0)}
	})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []*tensor.Array{conformance.Input(tensor.F32, 1, 19, 33), conformance.Input(tensor.F32, 2, 33, 21), conformance.Input(tensor.F32, 3, 21), conformance.Input(tensor.F32, 4, 19, 21)}
	var outs [2][]*tensor.Array
	for i, off := range []bool{false, true} {
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoEpilogues: off, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := b.CompileModule(m)
		if err != nil {
			t.Fatal(err)
		}
		if !off {
			shared := false
			for _, f := range m.Fusions {
				shared = shared || f.Epilogue() && len(f.Outputs) == 2
			}
			if !shared {
				t.Fatalf("no epilogue fusion storing its product:\n%s", m.FusedString())
			}
		}
		outs[i], err = exe.Run(inputs)
		exe.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for o := range outs[0] {
		if diff := conformance.Compare(outs[0][o], outs[1][o], 0); diff != "" {
			t.Errorf("output %d: fused differs from unfused: %s", o, diff)
		}
	}
}
