package opencl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A numCase is a program checked on the OpenCL backend against the
// reference evaluator and the CPU backend (bit for bit, except outputs
// that depend on a transcendental op: within a few ulps), and against
// hand-computed values where given.
type numCase struct {
	name   string
	cfg    promote.Config
	inputs []*tensor.Array
	weak   []bool
	fn     func(a []trace.Value) []trace.Value
	want   []*tensor.Array // hand-computed, optional
}

func one(f func(a []trace.Value) trace.Value) func(a []trace.Value) []trace.Value {
	return func(a []trace.Value) []trace.Value { return []trace.Value{f(a)} }
}

func arr[T tensor.Elem](t testing.TB, data []T, shape ...int) *tensor.Array {
	t.Helper()
	if shape == nil {
		shape = []int{len(data)}
	}
	a, err := tensor.FromSlice(data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (c numCase) abstract() []trace.Abstract {
	out := make([]trace.Abstract, len(c.inputs))
	for i, a := range c.inputs {
		typ := promote.Strong(a.DType())
		if c.weak != nil && c.weak[i] {
			typ = promote.WeakOf(a.DType())
		}
		out[i] = trace.Abstract{Type: typ, Shape: a.Shape()}
	}
	return out
}

// dependsOnTranscendental reports whether v is computed through a
// transcendental op (whose bits are each backend's own, docs/SPEC.md §3).
func dependsOnTranscendental(p *trace.Program, v *trace.Var) bool {
	def := map[*trace.Var]*trace.Eqn{}
	for _, e := range p.Eqns {
		def[e.Out] = e
	}
	seen := map[*trace.Var]bool{}
	var walk func(v *trace.Var) bool
	walk = func(v *trace.Var) bool {
		e := def[v]
		if e == nil || seen[v] {
			return false
		}
		seen[v] = true
		if e.Op.Info().Transcendental {
			return true
		}
		for _, a := range e.Args {
			if walk(a) {
				return true
			}
		}
		return false
	}
	return walk(v)
}

func runCase(t *testing.T, b *Backend, c numCase) {
	t.Helper()
	p, err := trace.Trace(c.cfg, c.abstract(), c.fn)
	if err != nil {
		t.Fatal(err)
	}
	want, err := reference.Eval(p, c.inputs, reference.Options{Transcendental: kernels.Transcendental})
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	for _, fused := range []bool{true, false} {
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoFusion: !fused})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := b.Compile(m)
		if err != nil {
			t.Fatalf("compile (fused=%v): %v\n%s", fused, err, m.FusedString())
		}
		got, err := exe.Run(c.inputs)
		if err != nil {
			t.Fatalf("run (fused=%v): %v", fused, err)
		}
		cpuExe, err := kernels.DefaultCPU().Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		cpu, err := cpuExe.Run(c.inputs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			ulps := 0
			if dependsOnTranscendental(p, p.Outputs[i]) {
				ulps = 4
			}
			if msg := conformance.Compare(got[i], want[i], ulps); msg != "" {
				t.Errorf("fused=%v output %d vs reference: %s", fused, i, msg)
			}
			if msg := conformance.Compare(got[i], cpu[i], ulps); msg != "" {
				t.Errorf("fused=%v output %d vs CPU backend: %s", fused, i, msg)
			}
			if c.want != nil {
				if msg := conformance.Compare(got[i], c.want[i], 0); msg != "" {
					t.Errorf("fused=%v output %d vs hand-computed: %s", fused, i, msg)
				}
			}
		}
	}
}

func randF32(seed uint64, n int, scale float64) []float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, n)
	for i := range out {
		out[i] = float32((r.Float64()*2 - 1) * scale)
	}
	return out
}

func TestNumerics(t *testing.T) {
	b := testBackend(t)
	nan32 := float32(math.NaN())
	argData := randF32(5, 3*5000, 10)
	argData[17], argData[4000] = nan32, nan32         // row 0: first NaN at 17
	argData[5000+9], argData[5000+2000] = 1e6, 1e6    // row 1: tie, the first wins
	argData[10000+7], argData[10000+4999] = -1e6, 1e6 // row 2
	cases := []numCase{
		{name: "e2-int8-f16", inputs: []*tensor.Array{arr(t, []int8{1, 2, 3}), arr(t, []float32{0.5, 1, 2}).Astype(tensor.F16)},
			fn:   one(func(a []trace.Value) trace.Value { return a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5)) }),
			want: []*tensor.Array{arr(t, []float32{1.25, 2.5, 4}).Astype(tensor.F16)}},
		{name: "e1-axpb", inputs: []*tensor.Array{arr(t, []float32{2}, []int{}...), arr(t, randF32(1, 1000, 100)), arr(t, randF32(2, 1000, 100))},
			fn: one(func(a []trace.Value) trace.Value { return a[0].Mul(a[1]).Add(a[2]) })},
		{name: "int32-edges", inputs: []*tensor.Array{arr(t, []int32{math.MinInt32, math.MinInt32, 7, 7, -7, 5, math.MaxInt32}), arr(t, []int32{-1, 0, -2, 2, 2, 0, -1})},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].FloorDiv(a[1]), a[0].Rem(a[1]), a[0].Add(a[0]), a[0].Mul(a[1])}
			},
			want: []*tensor.Array{
				arr(t, []int32{math.MinInt32, 0, -4, 3, -4, 0, -math.MaxInt32}),
				arr(t, []int32{0, 0, -1, 1, 1, 0, 0}),
				arr(t, []int32{0, 0, 14, 14, -14, 10, -2}),
				arr(t, []int32{math.MinInt32, 0, -14, 14, -14, 0, -math.MaxInt32}),
			}},
		{name: "int8-wrap", inputs: []*tensor.Array{arr(t, []int8{100, -128, -128, 127})},
			fn:   func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Add(a[0]), a[0].Neg(), a[0].Abs()} },
			want: []*tensor.Array{arr(t, []int8{-56, 0, 0, -2}), arr(t, []int8{-100, -128, -128, -127}), arr(t, []int8{100, -128, -128, 127})}},
		{name: "shifts", inputs: []*tensor.Array{arr(t, []int16{1, 1, -1, 5, -8, 3}), arr(t, []int16{16, 15, 20, 20, 1, -1})},
			fn:   func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Shl(a[1]), a[0].Shr(a[1])} },
			want: []*tensor.Array{arr(t, []int16{0, -32768, 0, 0, -16, 0}), arr(t, []int16{0, 0, -1, 0, -4, 0})}},
		{name: "int-pow", inputs: []*tensor.Array{arr(t, []int32{2, 3, 1, -1, -1, 0, 7}), arr(t, []int32{31, -1, -5, -3, -4, 0, 2})},
			fn:   one(func(a []trace.Value) trace.Value { return a[0].Pow(a[1]) }),
			want: []*tensor.Array{arr(t, []int32{math.MinInt32, 0, 1, -1, 1, 1, 49})}},
		{name: "float-to-int", inputs: []*tensor.Array{arr(t, []float32{nan32, 1e10, -1e10, 3.9, -3.9, 2147483520, -0.5})},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Astype(tensor.I32), a[0].Astype(tensor.U8), a[0].Astype(tensor.U64)}
			},
			want: []*tensor.Array{
				arr(t, []int32{0, math.MaxInt32, math.MinInt32, 3, -3, 2147483520, 0}),
				arr(t, []uint8{0, 255, 0, 3, 0, 255, 0}),
				arr(t, []uint64{0, 10000000000, 0, 3, 0, 2147483520, 0}),
			}},
		{name: "one-step-narrowing", inputs: []*tensor.Array{arr(t, []int64{1<<24 + 1<<16 + 1, 1<<60 + 1<<36 + 1}), arr(t, []float64{1 + 0x1p-11 + 0x1p-40, 65520})},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Astype(tensor.BF16), a[0].Astype(tensor.F32), a[1].Astype(tensor.F16)}
			},
			want: []*tensor.Array{
				arr(t, []float32{1<<24 + 1<<17, 1 << 60}).Astype(tensor.BF16),
				arr(t, []float32{1<<24 + 1<<16, 1<<60 + 1<<37}),
				arr(t, []float32{1 + 0x1p-10, float32(math.Inf(1))}).Astype(tensor.F16),
			}},
		{name: "weak-literals", inputs: []*tensor.Array{arr(t, []int8{1, -2, 3}), arr(t, []uint8{250, 3, 4})},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Add(trace.Int(3)), a[1].Mul(trace.Float(0.5)), a[0].Mul(trace.Complex(2i)), a[1].Add(trace.Int(10))}
			}},
		{name: "rank0-and-broadcast", inputs: []*tensor.Array{arr(t, []float64{2.5}, []int{}...), arr(t, []float64{1, 2, 3, 4, 5, 6}, 2, 1, 3), arr(t, []float64{10, 20}, 2, 1)},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Mul(a[1]).Add(a[2]), a[0].Add(trace.Int(1))}
			}},
		{name: "zero-size", inputs: []*tensor.Array{tensor.Must(tensor.Arange(tensor.F32, 0)).Astype(tensor.F32)},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Add(trace.Int(1)), a[0].Sum(), a[0].Prod()}
			}},
		{name: "sum-1M-f32", inputs: []*tensor.Array{arr(t, randF32(3, 1<<20+77, 1000))},
			fn: one(func(a []trace.Value) trace.Value { return a[0].Sum() })},
		{name: "sum-rows-serial", inputs: []*tensor.Array{arr(t, randF32(4, 4096*300, 1), 4096, 300)},
			fn: one(func(a []trace.Value) trace.Value { return a[0].Sum(1) })},
		{name: "sum-cols-strided", inputs: []*tensor.Array{arr(t, randF32(5, 300*5000, 1), 300, 5000)},
			fn: one(func(a []trace.Value) trace.Value { return a[0].Sum(0) })},
		{name: "variance-f64", inputs: []*tensor.Array{arr(t, randF32(6, 3*100003, 5), 3, 100003).Astype(tensor.F64)},
			fn: one(func(a []trace.Value) trace.Value {
				x := a[0]
				d := x.Sub(trace.ReduceMean(x, []int{1}, true))
				return d.Mul(d).Sum(1)
			})},
		{name: "prod-c64", inputs: []*tensor.Array{arr(t, randF32(7, 2*1000, 1.2), 2, 1000).Astype(tensor.C64)},
			fn: one(func(a []trace.Value) trace.Value { return a[0].Prod(1) })},
		{name: "argmax-nan-ties", inputs: []*tensor.Array{arr(t, argData, 3, 5000)},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].ArgMax(1), a[0].ArgMin(1), a[0].ArgMax(0)}
			},
		},
		{name: "max-f16-large", inputs: []*tensor.Array{arr(t, randF32(8, 70000, 100)).Astype(tensor.F16)},
			fn: func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Max(), a[0].Min(), a[0].Sum()} }},
		{name: "sum-int8-wraps", inputs: []*tensor.Array{arr(t, randF32(9, 50000, 127)).Astype(tensor.I8)},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Sum(), a[0].Astype(tensor.U8).Prod(), trace.Reduce(trace.OpReduceSum, a[0].Mul(a[0]), []int{0}, true)}
			}},
		{name: "matmul-ragged-batch", inputs: []*tensor.Array{arr(t, randF32(10, 3*37*53, 1), 3, 37, 53), arr(t, randF32(11, 3*53*29, 1), 3, 53, 29)},
			fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })},
		{name: "matmul-f16-int32", inputs: []*tensor.Array{arr(t, randF32(12, 20*40, 4), 20, 40), arr(t, randF32(13, 40*17, 4), 40, 17)},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Astype(tensor.F16).MatMul(a[1].Astype(tensor.F16)), a[0].Mul(trace.Int(1000)).Astype(tensor.I32).MatMul(a[1].Mul(trace.Int(1e6)).Astype(tensor.I32))}
			}},
		{name: "dot-general-multi-contract", inputs: []*tensor.Array{arr(t, randF32(14, 4*3*5*2, 1), 4, 3, 5, 2), arr(t, randF32(15, 2*5*3*6, 1), 2, 5, 3, 6)},
			fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{2}, LhsContract: []int{3, 2}, RhsContract: []int{0, 1}})
			})},
		{name: "copies", inputs: []*tensor.Array{arr(t, randF32(16, 2*3*4*5, 1), 2, 3, 4, 5), arr(t, randF32(17, 2*3*4*2, 1), 2, 3, 4, 2)},
			fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Transpose(3, 1, 0, 2), a[0].Slice(3, 1, 5, 3).Slice(1, 0, 3, 2),
					trace.Concatenate(3, a[0], a[1], a[0]), a[0].Transpose(1, 0, 2, 3).Reshape(6, 20).Sum(0)}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runCase(t, b, c) })
	}
}
