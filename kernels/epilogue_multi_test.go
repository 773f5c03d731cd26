package kernels_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// multiResultFused reports whether m has a dot fusion whose epilogue
// computes several results.
func multiResultFused(m *lower.Module) bool {
	for _, f := range m.Fusions {
		if f.Epilogue() && len(f.EpilogueResults()) > 1 {
			return true
		}
	}
	return false
}

// checkOpByOp holds p's outputs on every epilogue CPU, fused, to the
// op-by-op (NoFusion) module's bits: checkFusedSame compares with the
// unfused epilogue, which a multi-output loop computes by the same
// per-block scheme, so a fault of that scheme would pass it.
func checkOpByOp(t *testing.T, label string, p *trace.Program, inputs []*tensor.Array) {
	t.Helper()
	off, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoFusion: true})
	if err != nil {
		t.Fatal(err)
	}
	on, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	want := runModule(t, label, unfusedCPU, off, inputs)
	for i, cpu := range epilogueCPUs {
		for o, got := range runModule(t, label, cpu, on, inputs) {
			if diff := conformance.Compare(got, want[o], 0); diff != "" {
				t.Fatalf("%s, cpu %d, output %d: fused differs from op-by-op: %s\n%s", label, i, o, diff, on.FusedString())
			}
		}
	}
}

// TestMultiResultEpilogueShapes: multi-result epilogues whose later
// results read earlier ones (elementwise, and through a transpose of a
// square product), mix dtypes (an f16 convert with an f32 result, a bool
// mask), and whose product is a module output too, on products of
// f32, f64, f16, bf16 (f32 accumulation) and int8 (i32) operands, each
// bit-identical to the unfused and the op-by-op forms on 1-3 workers.
func TestMultiResultEpilogueShapes(t *testing.T) {
	type layout struct {
		name   string
		dims   trace.DotDims
		shapes func(m, k, n int) [2][]int
	}
	layouts := []layout{
		{"plain", trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}, func(m, k, n int) [2][]int { return [2][]int{{m, k}, {k, n}} }},
		{"transposed", trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}, func(m, k, n int) [2][]int { return [2][]int{{k, m}, {n, k}} }},
		{"batched", trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}},
			func(m, k, n int) [2][]int { return [2][]int{{2, m, k}, {2, k, n}} }},
	}
	type dtypes struct{ in, dot tensor.DType }
	paths := []dtypes{{tensor.F32, tensor.F32}, {tensor.F64, tensor.F64}, {tensor.F16, tensor.F16},
		{tensor.BF16, tensor.F32}, {tensor.F16, tensor.F32}, {tensor.I8, tensor.I32}, {tensor.I32, tensor.I32}}
	cases := map[string]func(y, b trace.Value) []trace.Value{
		"later-reads-earlier": func(y, b trace.Value) []trace.Value {
			r := y.Add(b).Maximum(trace.Int(0))
			return []trace.Value{r, r.Mul(y).Sub(b)}
		},
		"transpose-of-earlier": func(y, b trace.Value) []trace.Value {
			r := y.Add(b)
			perm := []int{1, 0}
			if len(r.Shape()) == 3 {
				perm = []int{0, 2, 1}
			}
			return []trace.Value{r, r.Transpose(perm...).Mul(y)}
		},
		"convert-and-mask": func(y, b trace.Value) []trace.Value {
			z := y.Add(b)
			return []trace.Value{z.Astype(tensor.F16), z.Gt(trace.Int(0)), z.Mul(z)}
		},
		"repeated-outputs": func(y, b trace.Value) []trace.Value {
			z := y.Add(b)
			r := z.Maximum(trace.Int(0))
			return []trace.Value{r, z.Gt(trace.Int(0)), r.Reshape(-1), r, y.Reshape(-1)}
		},
		"product-output": func(y, b trace.Value) []trace.Value {
			z := y.Sub(b)
			return []trace.Value{z.Maximum(trace.Int(0)), z.Gt(trace.Int(0)), y}
		},
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, d := range paths {
			// 128×40×10: transposed, the product runs swapped (narrow n).
			for si, s := range [][3]int{{37, 300, 37}, {64, 40, 64}, {5, 40, 1100}, {128, 40, 10}, {6, 0, 6}, {0, 5, 7}, {1, 1, 1}} {
				for name, fn := range cases {
					if name == "transpose-of-earlier" && s[0] != s[2] {
						continue
					}
					label := fmt.Sprintf("%v/%s→%s/%dx%dx%d/%s", tier, d.in, d.dot, s[0], s[1], s[2], name)
					layout := layouts[(si+len(label))%len(layouts)]
					if s == [3]int{128, 40, 10} {
						layout = layouts[1] // x stored transposed, n narrow: swapped
					}
					label += "/" + layout.name
					shapes := layout.shapes(s[0], s[1], s[2])
					abs := []trace.Abstract{{Type: promote.Strong(d.in), Shape: shapes[0]}, {Type: promote.Strong(d.in), Shape: shapes[1]},
						{Type: promote.Strong(d.dot), Shape: []int{s[2]}}}
					p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
						var opts []trace.DotOption
						if d.dot != d.in {
							opts = append(opts, trace.PreferredElementType(d.dot))
						}
						return fn(trace.DotGeneral(a[0], a[1], layout.dims, opts...), a[2])
					})
					if err != nil {
						t.Fatal(err)
					}
					inputs := []*tensor.Array{randomInput(d.in, 7, shapes[0]...), randomInput(d.in, 8, shapes[1]...), randomInput(d.dot, 9, s[2])}
					on, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
					if err != nil {
						t.Fatal(err)
					}
					if multiResultFused(on) {
						checkFusedSame(t, label, p, inputs, multiResultFused)
					}
					checkOpByOp(t, label, p, inputs)
				}
			}
		}
		restore()
	}
}

// TestMultiResultConvEpilogue: a conv whose product sibling loops read
// (a relu and its mask, a later result reading the relu) computes them as
// one epilogue, on each block of positions for NHWC and after the product
// for NCHW and f16, bit-identical to the unfused and op-by-op forms.
func TestMultiResultConvEpilogue(t *testing.T) {
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	type conv struct {
		name     string
		lhs, rhs []int
		bias     []int
		opts     trace.ConvOptions
	}
	convs := []conv{
		{"nhwc-blocks", []int{2, 24, 25, 3}, []int{3, 3, 3, 8}, []int{8}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}},
		{"nchw", []int{2, 3, 9, 8}, []int{5, 3, 3, 3}, []int{5, 1, 1}, trace.ConvOptions{PaddingMode: "SAME"}},
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, c := range convs {
			for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I32} {
				label := fmt.Sprintf("%v/%s/%s", tier, c.name, d)
				abs := []trace.Abstract{{Type: promote.Strong(d), Shape: c.lhs}, {Type: promote.Strong(d), Shape: c.rhs}, {Type: promote.Strong(d), Shape: c.bias}}
				p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
					z := trace.ConvGeneralDilated(a[0], a[1], c.opts).Add(a[2])
					r := z.Maximum(trace.Int(0))
					return []trace.Value{r, z.Gt(trace.Int(0)), r.Mul(z)}
				})
				if err != nil {
					t.Fatal(err)
				}
				inputs := []*tensor.Array{randomInput(d, 4, c.lhs...), randomInput(d, 5, c.rhs...), randomInput(d, 6, c.bias...)}
				checkFusedSame(t, label, p, inputs, multiResultFused)
				checkOpByOp(t, label, p, inputs)
			}
		}
		restore()
	}
}

// TestMultiResultEpilogueMLPGrad: the value and gradients of a two-layer
// MLP (relu's forward value and its derivative's mask are siblings reading
// the hidden pre-activation; an Adam-like update reads each weight
// gradient several ways) hold the op-by-op bits at every tier, 1-3
// workers, with multi-result epilogues in the plan.
func TestMultiResultEpilogueMLPGrad(t *testing.T) {
	loss := func(a []trace.Value) []trace.Value {
		h := a[0].MatMul(a[1]).Add(a[2]).Maximum(trace.Int(0))
		d := h.MatMul(a[3]).Sub(a[4])
		return []trace.Value{d.Mul(d).Sum()}
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, d := range []tensor.DType{tensor.F32, tensor.F64} {
			shapes := [][]int{{64, 50}, {50, 128}, {128}, {128, 10}, {64, 10}, {50, 128}, {50, 128}}
			var abs []trace.Abstract
			for _, s := range shapes {
				abs = append(abs, trace.Abstract{Type: promote.Strong(d), Shape: s})
			}
			p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
				g := trace.ValueAndGrad(loss, trace.GradOptions{Argnums: []int{1, 2, 3}})(a[:5]...)
				gw := g[1]
				m := a[5].Mul(trace.Float(0.9)).Add(gw.Mul(trace.Float(0.1)))
				v := a[6].Mul(trace.Float(0.999)).Add(gw.Mul(gw).Mul(trace.Float(0.001)))
				w := a[1].Sub(m.Div(v.Sqrt().Add(trace.Float(1e-8))).Mul(trace.Float(0.01)))
				return []trace.Value{g[0], w, m, v, g[2], g[3]}
			})
			if err != nil {
				t.Fatal(err)
			}
			var inputs []*tensor.Array
			for i, s := range shapes {
				inputs = append(inputs, randomInput(d, uint64(20+i), s...))
			}
			label := fmt.Sprintf("%v/%s", tier, d)
			on, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if !multiResultFused(on) {
				t.Fatalf("%s: no multi-result epilogue in the MLP step:\n%s", label, on.FusedString())
			}
			checkFusedSame(t, label, p, inputs, multiResultFused)
			checkOpByOp(t, label, p, inputs)
		}
		restore()
	}
}
