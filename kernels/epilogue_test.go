package kernels_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// epilogueCase is a product followed by elementwise consumers: x·w (or a
// batched, transposed dot_general) then the chain.
type epilogueCase struct {
	name string
	fn   func(y, bias trace.Value) trace.Value // y: the product
}

var epilogues = []epilogueCase{
	{"bias", func(y, b trace.Value) trace.Value { return y.Add(b) }},
	{"scale", func(y, _ trace.Value) trace.Value { return y.Mul(trace.Float(0.125)) }},
	{"relu-max", func(y, b trace.Value) trace.Value { return y.Add(b).Maximum(trace.Int(0)) }},
	{"relu-where", func(y, b trace.Value) trace.Value { return nn.Relu(y.Add(b)) }},
	{"tanh", func(y, b trace.Value) trace.Value { return y.Add(b).Tanh() }},
	{"logistic", func(y, b trace.Value) trace.Value { return y.Mul(trace.Float(0.5)).Add(b).Logistic() }},
	{"gelu", func(y, b trace.Value) trace.Value { return nn.Gelu(y.Add(b), true) }},
	{"gelu-erf", func(y, b trace.Value) trace.Value { return nn.Gelu(y.Add(b), false) }},
	{"silu", func(y, _ trace.Value) trace.Value { return nn.Silu(y) }},
}

// epilogueProgram traces x·w (shapes per layout) with epilogue e, the
// bias a row of the product's columns; the product is computed at dot
// (with preferred_element_type when it differs from the inputs' dtype)
// and the result converted to out.
func epilogueProgram(t *testing.T, layout string, in, dot, out tensor.DType, m, k, n int, e epilogueCase) (*trace.Program, []*tensor.Array) {
	t.Helper()
	var shapes [3][]int
	var dims trace.DotDims
	switch layout {
	case "plain":
		shapes = [3][]int{{m, k}, {k, n}, {n}}
		dims = trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}
	case "transposed": // x stored k×m, w stored n×k
		shapes = [3][]int{{k, m}, {n, k}, {n}}
		dims = trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}
	case "batched": // [2, m, k] · [2, k, n]
		shapes = [3][]int{{2, m, k}, {2, k, n}, {n}}
		dims = trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}
	}
	abs := []trace.Abstract{{Type: promote.Strong(in), Shape: shapes[0]}, {Type: promote.Strong(in), Shape: shapes[1]}, {Type: promote.Strong(dot), Shape: shapes[2]}}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		var opts []trace.DotOption
		if dot != in {
			opts = append(opts, trace.PreferredElementType(dot))
		}
		y := e.fn(trace.DotGeneral(a[0], a[1], dims, opts...), a[2])
		if y.DType() != out {
			y = y.Astype(out)
		}
		return []trace.Value{y}
	})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []*tensor.Array{randomInput(in, 1, shapes[0]...), randomInput(in, 2, shapes[1]...), randomInput(dot, 3, shapes[2]...)}
	return p, inputs
}

// randomInput is an array of dtype d: normal values (small integers for
// integer dtypes), one in 2000 an infinity or NaN. (conformance.Input starts
// with 0, which would make a one-element product 0.)
func randomInput(d tensor.DType, seed uint64, shape ...int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, 99))
	vals := make([]float64, trace.ShapeSize(shape))
	for i := range vals {
		vals[i] = r.NormFloat64()
		if d.IsInteger() {
			vals[i] = float64(r.IntN(41) - 20)
		} else if r.IntN(2000) == 0 {
			vals[i] = [...]float64{math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(3)]
		}
	}
	a, err := tensor.FromSlice(vals, shape...)
	if err != nil {
		panic(err)
	}
	return a.Astype(d)
}

// epilogueCPUs run the fused form: one worker, two (parallel GEMM
// pieces), and three with tiny blocks (every epilogue on the GEMM's
// finished blocks, block tails). unfusedCPU runs the unfused form.
var (
	epilogueCPUs = []*kernels.CPU{
		kernels.NewCPU(kernels.CPUOptions{Workers: 1}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 3, ParallelMin: 1, Block: 5}),
	}
	unfusedCPU = kernels.NewCPU(kernels.CPUOptions{Workers: 1})
)

// checkFusedSame compiles p with epilogues fused (verified, and the plan
// must satisfy fused, so the test fails if fusion silently stops
// happening) and without, and fails unless every output of the fused
// module on each of epilogueCPUs has the unfused module's bits.
func checkFusedSame(t *testing.T, label string, p *trace.Program, inputs []*tensor.Array, fused func(*lower.Module) bool) {
	t.Helper()
	checkFusedSameOn(t, label, p, inputs, fused, epilogueCPUs)
}

// checkFusedSameOn is checkFusedSame on the CPUs cpus.
func checkFusedSameOn(t *testing.T, label string, p *trace.Program, inputs []*tensor.Array, fused func(*lower.Module) bool, cpus []*kernels.CPU) {
	t.Helper()
	run := func(cpu *kernels.CPU, m *lower.Module) []*tensor.Array { return runModule(t, label, cpu, m, inputs) }
	on, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if !fused(on) {
		t.Fatalf("%s: not the fused plan expected:\n%s", label, on.FusedString())
	}
	off, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoEpilogues: true})
	if err != nil {
		t.Fatal(err)
	}
	want := run(unfusedCPU, off)
	for i, cpu := range cpus {
		for o, got := range run(cpu, on) {
			if diff := conformance.Compare(got, want[o], 0); diff != "" {
				t.Fatalf("%s, cpu %d, output %d: fused differs from unfused: %s", label, i, o, diff)
			}
		}
	}
}

// runModule compiles m on cpu and runs it on inputs.
func runModule(t *testing.T, label string, cpu *kernels.CPU, m *lower.Module, inputs []*tensor.Array) []*tensor.Array {
	t.Helper()
	exe, err := cpu.Compile(m)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	outs, err := exe.Run(inputs)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	return outs
}

// TestEpilogueBitIdentical holds every fused epilogue to its unfused form
// (the product in a kernel of its own, the chain a loop fusion reading
// it): the same bits, for every epilogue kind, dtype path (f32, f64, f16
// products of operands read as stored, and an f32 product of f16/bf16
// operands converted back), layout, size class, SIMD tier and worker
// count. The fused module must really have the epilogue in the dot's
// kernel, so the test fails if fusion silently stops happening. Every
// combination runs with KILN_LONG=1; by default (and with -short) the
// lower tiers and the large size class run the tanh epilogue only.
func TestEpilogueBitIdentical(t *testing.T) {
	type dtypes struct{ in, dot, out tensor.DType }
	paths := []dtypes{
		{tensor.F32, tensor.F32, tensor.F32},
		{tensor.F64, tensor.F64, tensor.F64},
		{tensor.F32, tensor.F32, tensor.F16},   // output convert
		{tensor.F16, tensor.F32, tensor.F16},   // preferred_element_type=f32, converted back
		{tensor.BF16, tensor.F32, tensor.BF16}, // likewise
		{tensor.F16, tensor.F16, tensor.F16},   // an f16 product: each block rounded to f16, then the epilogue
		{tensor.I32, tensor.I32, tensor.F32},   // the integer loop, then the epilogue
		{tensor.I8, tensor.I32, tensor.F32},    // int8 products summed in int32 (VNNI where present)
	}
	sizes := [][3]int{{1, 1, 1}, {13, 7, 17}, {37, 600, 53}, {5, 40, 1100}}
	for _, tier := range simd.Modes() {
		restore := tier.Set()
		for _, d := range paths {
			if strings.HasSuffix(tier.String(), "-novnni") && d.in != tensor.I8 {
				continue // hiding VNNI changes only the int8 path
			}
			for _, layout := range []string{"plain", "transposed", "batched"} {
				for si, s := range sizes {
					for _, e := range epilogues {
						if (testing.Short() || !longtest.Enabled()) && (si == 2 || tier.Tier != simd.Level()) && e.name != "tanh" {
							continue
						}
						name := fmt.Sprintf("%v/%s→%s→%s/%s/%dx%dx%d/%s", tier, d.in, d.dot, d.out, layout, s[0], s[1], s[2], e.name)
						p, inputs := epilogueProgram(t, layout, d.in, d.dot, d.out, s[0], s[1], s[2], e)
						checkFusedSame(t, name, p, inputs, hasEpilogue)
					}
				}
			}
		}
		restore()
	}
}

func hasEpilogue(m *lower.Module) bool {
	for _, f := range m.Fusions {
		if f.Epilogue() {
			return true
		}
	}
	return false
}

// TestConvEpilogueBitIdentical holds conv epilogues to their unfused
// form: an NHWC output, whose workers run the epilogue on each block of
// positions (several blocks and batch elements, feature groups), and
// layouts and dtypes computed whole first (NCHW, f16), on every tier and
// worker count.
func TestConvEpilogueBitIdentical(t *testing.T) {
	type conv struct {
		name     string
		lhs, rhs []int
		bias     []int // the bias's shape, broadcast against the output
		opts     trace.ConvOptions
	}
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	convs := []conv{
		{"nhwc-blocks", []int{2, 24, 25, 3}, []int{3, 3, 3, 8}, []int{8}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}},
		{"nhwc-groups", []int{1, 7, 6, 4}, []int{3, 2, 2, 6}, []int{6}, trace.ConvOptions{FeatureGroupCount: 2, WindowStrides: []int{2, 1}, DimensionNumbers: nhwc}},
		{"nchw", []int{2, 3, 9, 8}, []int{5, 3, 3, 3}, []int{5, 1, 1}, trace.ConvOptions{PaddingMode: "SAME"}},
		{"one-element", []int{1, 3, 3, 2}, []int{3, 3, 2, 1}, []int{1}, trace.ConvOptions{DimensionNumbers: nhwc}},
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, c := range convs {
			for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I32} {
				for _, e := range epilogues[:5] { // bias, scale, both relus, tanh
					name := fmt.Sprintf("%v/%s/%s/%s", tier, c.name, d, e.name)
					abs := []trace.Abstract{{Type: promote.Strong(d), Shape: c.lhs}, {Type: promote.Strong(d), Shape: c.rhs}, {Type: promote.Strong(d), Shape: c.bias}}
					p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
						return []trace.Value{e.fn(trace.ConvGeneralDilated(a[0], a[1], c.opts), a[2])}
					})
					if err != nil {
						t.Fatal(err)
					}
					inputs := []*tensor.Array{randomInput(d, 4, c.lhs...), randomInput(d, 5, c.rhs...), randomInput(d, 6, c.bias...)}
					checkFusedSame(t, name, p, inputs, hasEpilogue)
				}
			}
		}
		restore()
	}
}

// TestSharedEpilogueBitIdentical: a product other kernels read too is the
// epilogue fusion's last output — stored whole for them while the
// epilogue runs on its blocks — in the patterns that make it so (a module
// output, a reduction of another function of it),
// bit-identical to the unfused form for every output, at every tier and
// worker count.
func TestSharedEpilogueBitIdentical(t *testing.T) {
	shared := map[string]func(y, b, g trace.Value) []trace.Value{
		"output": func(y, b, _ trace.Value) []trace.Value { return []trace.Value{y.Add(b).Tanh(), y} },
		"reduce": func(y, b, _ trace.Value) []trace.Value { return []trace.Value{y.Add(b).Tanh(), y.Sum(1)} },
		"relu-and-reduced-mask": func(y, b, g trace.Value) []trace.Value {
			z := y.Add(b)
			return []trace.Value{z.Maximum(trace.Int(0)), trace.Where(z.Gt(trace.Int(0)), g, trace.Int(0)).Sum(0)}
		},
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I32} {
			for _, s := range [][3]int{{1, 1, 1}, {37, 300, 53}} {
				for name, fn := range shared {
					label := fmt.Sprintf("%v/%s/%dx%dx%d/%s", tier, d, s[0], s[1], s[2], name)
					abs := []trace.Abstract{{Type: promote.Strong(d), Shape: []int{s[0], s[1]}}, {Type: promote.Strong(d), Shape: []int{s[1], s[2]}},
						{Type: promote.Strong(d), Shape: []int{s[2]}}, {Type: promote.Strong(d), Shape: []int{s[0], s[2]}}}
					p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return fn(a[0].MatMul(a[1]), a[2], a[3]) })
					if err != nil {
						t.Fatal(err)
					}
					inputs := []*tensor.Array{randomInput(d, 7, s[0], s[1]), randomInput(d, 8, s[1], s[2]), randomInput(d, 9, s[2]), randomInput(d, 10, s[0], s[2])}
					checkFusedSame(t, label, p, inputs, func(m *lower.Module) bool {
						for _, f := range m.Fusions {
							if f.Epilogue() && f.SharesProduct() {
								return true
							}
						}
						return false
					})
				}
			}
		}
		restore()
	}
}

// TestMultiResultEpilogueBitIdentical: sibling loops reading one product
// (E7's relu and its derivative's mask; two functions of the product,
// which a reduction reads too) join its kernel as one epilogue computing
// each result in turn on every block, bit-identical to the unfused form
// for every output, at every tier, size class, layout-free dtype path and
// worker count.
func TestMultiResultEpilogueBitIdentical(t *testing.T) {
	cases := map[string]func(y, b trace.Value) []trace.Value{
		"relu-and-mask": func(y, b trace.Value) []trace.Value {
			z := y.Add(b)
			return []trace.Value{trace.Where(z.Gt(trace.Int(0)), z, trace.Int(0)), z.Gt(trace.Int(0))}
		},
		"mask-and-relu": func(y, b trace.Value) []trace.Value {
			z := y.Add(b)
			return []trace.Value{z.Gt(trace.Int(0)), z.Maximum(trace.Int(0))}
		},
		"tanh-exp-sum": func(y, b trace.Value) []trace.Value { return []trace.Value{y.Add(b).Tanh(), y.Exp(), y.Sum(1)} },
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.I32} {
			for _, s := range [][3]int{{37, 300, 53}, {5, 40, 1100}} { // big enough to be siblings
				for name, fn := range cases {
					label := fmt.Sprintf("%v/%s/%dx%dx%d/%s", tier, d, s[0], s[1], s[2], name)
					abs := []trace.Abstract{{Type: promote.Strong(d), Shape: []int{s[0], s[1]}}, {Type: promote.Strong(d), Shape: []int{s[1], s[2]}},
						{Type: promote.Strong(d), Shape: []int{s[2]}}}
					p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return fn(a[0].MatMul(a[1]), a[2]) })
					if err != nil {
						t.Fatal(err)
					}
					inputs := []*tensor.Array{randomInput(d, 7, s[0], s[1]), randomInput(d, 8, s[1], s[2]), randomInput(d, 9, s[2])}
					checkFusedSame(t, label, p, inputs, func(m *lower.Module) bool {
						for _, f := range m.Fusions {
							if f.Epilogue() && len(f.EpilogueResults()) > 1 {
								return true
							}
						}
						return false
					})
				}
			}
		}
		restore()
	}
}

// TestEpilogueBlocksPastNC holds the fused epilogue to its unfused form
// on products wider than the GEMM's column block (NC: 2048 f32 and f64
// columns on AVX-512 with a 1 MiB L2, 1024 or fewer on the other tiers),
// whose finished blocks are parts of rows — the finisher then runs the
// body row by row from mid-row offsets, a path no other size reaches —
// on every tier, for f32, f64 and f16 products, one and two workers, the
// body on every block (a CPU block under the default size).
func TestEpilogueBlocksPastNC(t *testing.T) {
	cpus := []*kernels.CPU{
		kernels.NewCPU(kernels.CPUOptions{Workers: 1, Block: 5}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1, Block: 7}),
	}
	type dtypes struct{ in, dot, out tensor.DType }
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, d := range []dtypes{{tensor.F32, tensor.F32, tensor.F32}, {tensor.F64, tensor.F64, tensor.F64}, {tensor.F16, tensor.F16, tensor.F16}} {
			for _, layout := range []string{"plain", "batched"} {
				const m, k, n = 13, 3, 4200 // past NC with an L2 of up to 2 MiB
				label := fmt.Sprintf("%v/%s/%s/%dx%dx%d", tier, d.dot, layout, m, k, n)
				p, inputs := epilogueProgram(t, layout, d.in, d.dot, d.out, m, k, n, epilogues[4])
				checkFusedSameOn(t, label, p, inputs, hasEpilogue, cpus)
			}
		}
		restore()
	}
}
