package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// controlCases are programs with loops and branches (issue 14): every
// dtype through a fori_loop, a while_loop with an integer counter, cond
// and switch (the index clamped), scan forwards and in reverse with its
// stacked outputs, nested loops, bodies closing over outer values, a loop
// and a scan that run no step, and the gradients of a fori_loop, a scan and a cond.
func controlCases() []Case {
	var cs []Case
	for _, d := range tensor.AllDTypes() {
		in := func(seed uint64, shape ...int) *tensor.Array { return Input(d, seed, shape...) }
		cs = append(cs,
			Case{Name: fmt.Sprintf("fori_loop/%s", d), Inputs: []*tensor.Array{in(40, 3, 4), in(41, 4)}, Fn: func(a []trace.Value) []trace.Value {
				return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
					return []trace.Value{c[0].Mul(a[1]).Add(c[1]), c[1].Add(a[1])}
				}, a[0], a[1])
			}},
			Case{Name: fmt.Sprintf("while_loop/%s", d), Inputs: []*tensor.Array{in(42, 5)}, Fn: func(a []trace.Value) []trace.Value {
				return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[1].Lt(trace.Int(4)) },
					func(c []trace.Value) []trace.Value { return []trace.Value{c[0].Add(c[0]), c[1].Add(trace.Int(1))} }, a[0], trace.Int(0))
			}},
			Case{Name: fmt.Sprintf("switch/%s", d), Inputs: []*tensor.Array{in(43, 2, 3), Input(tensor.I32, 44, 3)}, Fn: func(a []trace.Value) []trace.Value {
				var out []trace.Value
				for k := range 3 { // indices -20…20 from Input: clamped
					out = append(out, trace.Switch(a[1].Index(k), []func([]trace.Value) []trace.Value{
						func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(o[0])} },
						func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Add(o[0])} },
						func(o []trace.Value) []trace.Value { return []trace.Value{o[0]} },
					}, a[0])...)
				}
				return out
			}},
			Case{Name: fmt.Sprintf("scan/%s", d), Inputs: []*tensor.Array{in(45, 4, 3), in(46, 3)}, Fn: func(a []trace.Value) []trace.Value {
				f := func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
					n := c[0].Add(x[0].Mul(a[1]))
					return []trace.Value{n}, []trace.Value{n, x[0]}
				}
				c1, ys1 := trace.Scan(f, []trace.Value{a[1]}, []trace.Value{a[0]})
				c2, ys2 := trace.Scan(f, []trace.Value{a[1]}, []trace.Value{a[0]}, trace.ScanOptions{Reverse: true})
				return append(append(append(c1, ys1...), c2...), ys2...)
			}},
		)
	}
	f32 := func(seed uint64, shape ...int) *tensor.Array { return Input(tensor.F32, seed, shape...) }
	f64 := func(seed uint64, shape ...int) *tensor.Array { return Input(tensor.F64, seed, shape...) }
	cs = append(cs,
		Case{Name: "cond/f32 false", Inputs: []*tensor.Array{f32(47, 6), tensor.Scalar(float32(-0.5))}, Fn: func(a []trace.Value) []trace.Value {
			return trace.Cond(a[1].Gt(trace.Float(0)), func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(a[1])} },
				func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg()} }, a[0])
		}},
		Case{Name: "cond/f32", Inputs: []*tensor.Array{f32(47, 6), tensor.Scalar(float32(0.75))}, Fn: func(a []trace.Value) []trace.Value {
			return trace.Cond(a[1].Gt(trace.Float(0)), func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(a[1]), o[0].Sum()} },
				func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg(), o[0].Max()} }, a[0])
		}},
		Case{Name: "fori_loop/nested", Inputs: []*tensor.Array{f32(49, 4), f32(50, 4)}, Fn: func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
				inner := trace.ForiLoop(trace.Int(0), i, func(j trace.Value, d []trace.Value) []trace.Value {
					return []trace.Value{d[0].Mul(a[1]).Sub(j.Astype(tensor.F32))}
				}, c[0])
				return trace.Cond(i.Eq(trace.Int(1)), func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg()} },
					func(o []trace.Value) []trace.Value { return o }, inner[0])
			}, a[0])
		}},
		Case{Name: "fori_loop/no steps", Inputs: []*tensor.Array{f32(51, 3)}, Fn: func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(5), trace.Int(2), func(i trace.Value, c []trace.Value) []trace.Value { return []trace.Value{c[0].Neg()} }, a[0])
		}},
		Case{Name: "scan/no steps", Inputs: []*tensor.Array{f32(55, 0, 3), f32(56, 3)}, Fn: func(a []trace.Value) []trace.Value {
			// issue 25: over xs of leading dimension 0, and Length 0 given
			f := func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
				return []trace.Value{c[0].Add(x[0])}, []trace.Value{c[0].Mul(x[0]), x[0].Astype(tensor.F64)}
			}
			c1, ys1 := trace.Scan(f, []trace.Value{a[1]}, []trace.Value{a[0]})
			c2, ys2 := trace.Scan(func(c, _ []trace.Value) ([]trace.Value, []trace.Value) {
				return []trace.Value{c[0].Neg()}, []trace.Value{c[0]}
			}, []trace.Value{a[1]}, nil, trace.ScanOptions{HasLength: true, Reverse: true})
			return append(append(append(c1, ys1...), c2...), ys2...)
		}},
		Case{Name: "fori_loop/traced bound", Inputs: []*tensor.Array{f32(52, 3), tensor.Scalar(int32(4))}, Fn: func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), a[1], func(i trace.Value, c []trace.Value) []trace.Value {
				return []trace.Value{c[0].Mul(trace.Float(0.5)).Add(i.Astype(tensor.F32))}
			}, a[0])
		}},
		Case{Name: "grad/control/f64", Inputs: []*tensor.Array{f64(53, 3), f64(54, 3)}, Tolerance: 1e-12, Fn: func(a []trace.Value) []trace.Value {
			loss := func(x []trace.Value) []trace.Value {
				r := trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
					return []trace.Value{c[0].Mul(x[1]).Add(x[0])}
				}, x[0])
				c, ys := trace.Scan(func(c, e []trace.Value) ([]trace.Value, []trace.Value) {
					n := c[0].Mul(e[0])
					return []trace.Value{n}, []trace.Value{n.Add(e[0])}
				}, []trace.Value{x[1].Index(0)}, []trace.Value{r[0]})
				k := trace.Cond(c[0].Gt(trace.Float(0)), func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Mul(o[0])} },
					func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg()} }, ys[0].Sum())
				return []trace.Value{k[0]}
			}
			return trace.Grad(loss, trace.GradOptions{Argnums: []int{0, 1}})(a...)
		}},
	)
	return cs
}
