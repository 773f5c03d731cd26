package opencl

import (
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Control flow runs on the device, driven by the host, with results
// bit-identical to the CPU backend's (exact ops only: transcendentals may
// differ within docs/SPEC.md §3's bounds): loops (fori_loop, while_loop, scan
// with its in-place stacked outputs), conds and switches, nested.
func TestControlFlowMatchesCPU(t *testing.T) {
	b := testBackend(t)
	f32 := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	for _, tc := range []struct {
		name string
		fn   func(a []trace.Value) []trace.Value
	}{
		{"fori", func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(9), func(i trace.Value, c []trace.Value) []trace.Value {
				return []trace.Value{c[0].Mul(a[1]).Add(i.Astype(tensor.F32)).Abs().Sub(trace.Float(1)), c[1].Add(c[0].Sum()), c[2]}
			}, a[0], trace.Float(0), a[1])
		}},
		{"while swap", func(a []trace.Value) []trace.Value {
			return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[2].Lt(trace.Int(5)) },
				func(c []trace.Value) []trace.Value {
					return []trace.Value{c[1], c[0].Add(c[1]), c[2].Add(trace.Int(1))}
				}, a[0], a[1], trace.Int(0))
		}},
		{"scan", func(a []trace.Value) []trace.Value {
			c, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
				n := c[0].Mul(trace.Float(0.5)).Add(x[0])
				return []trace.Value{n}, []trace.Value{n.Mul(n)}
			}, []trace.Value{a[1].Reshape(3, 2).Sum(0)}, []trace.Value{a[0].Reshape(3, 2)}, trace.ScanOptions{Reverse: true})
			return append(c, ys...)
		}},
		{"cond nested", func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(4), func(i trace.Value, c []trace.Value) []trace.Value {
				return trace.Switch(i, []func([]trace.Value) []trace.Value{
					func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg()} },
					func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(a[1])} },
					func(o []trace.Value) []trace.Value {
						return []trace.Value{trace.Full([]int{6}, trace.Float(2), tensor.F32)}
					},
				}, c[0])
			}, a[0])
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := trace.Trace(promote.Config{}, []trace.Abstract{f32(6), f32(6)}, tc.fn)
			if err != nil {
				t.Fatal(err)
			}
			m, err := lower.Compile(p, lower.Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			x := tensor.Must(tensor.FromSlice([]float32{0.5, -1.25, 2, 0.125, 3, -0.75}))
			y := tensor.Must(tensor.FromSlice([]float32{0.75, 1.5, 0.25, 1, 2, 0.5}))
			in := []*tensor.Array{x, y}
			cpu, err := kernels.DefaultCPU().Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			want, err := cpu.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			e, err := b.CompileModule(m)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			for run := range 2 { // twice: the loop's buffers are reused
				got, err := e.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !tensor.Equal(got[i], want[i]) {
						t.Errorf("run %d, output %d: OpenCL %v, CPU %v", run, i, got[i], want[i])
					}
				}
			}
		})
	}
}
