package trace_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestVmapWhilePredicateProperty draws while loops whose predicate
// depends on the example (so each example stops after its own number of
// steps, at most five), with bodies of random binary ops of the carry and
// a closed-over value, an inner cond on the example's data and a nested
// counted loop, switch, scan or while, and random in_axes among 0, 1, −1 and NoAxis: the vmapped
// loop equals the stacked examples bit for bit (TestVmapProperty's random
// programs count their whiles' steps, so their predicates are not
// batched).
func TestVmapWhilePredicateProperty(t *testing.T) {
	ops := []struct {
		name string
		f    func(x, y V) V
	}{
		{"add", V.Add}, {"sub", V.Sub}, {"mul", V.Mul}, {"max", V.Maximum}, {"min", V.Minimum},
		{"atan2", V.Atan2}, {"hypot", V.Hypot},
	}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 77))
		d := []tensor.DType{tensor.F32, tensor.F64}[r.IntN(2)]
		shape := [][]int{{}, {3}, {2, 3}}[r.IntN(3)]
		size := 1 + r.IntN(4)
		// Arguments: the carry's start, a closed-over value and a limit.
		per := [][]int{shape, shape, {}}
		axes := make([]int, 3)
		ins := make([]*tensor.Array, 3)
		for i, s := range per {
			choices := []int{0, -1, none}
			if len(s) > 0 {
				choices = append(choices, 1)
			}
			axes[i] = choices[r.IntN(len(choices))]
			bs := append([]int{}, s...)
			if axes[i] != none {
				at := axes[i]
				if at < 0 {
					at += len(s) + 1
				}
				bs = append(bs[:at], append([]int{size}, bs[at:]...)...)
			}
			ins[i] = randArray(r, d, bs...)
		}
		if axes[0] == none && axes[1] == none && axes[2] == none {
			axes[2] = 0
			ins[2] = randArray(r, d, size)
		}
		body := make([]int, 1+r.IntN(3))
		for i := range body {
			body[i] = r.IntN(len(ops))
		}
		inner, nested := r.IntN(2) == 0, r.IntN(5)
		name := fmt.Sprintf("seed %d %s%v in_axes %s body %v cond %v nested %d", seed, d, shape, axesText(axes), body, inner, nested)
		fn := func(a []V) []V {
			return trace.WhileLoop(func(c []V) V {
				return c[1].Lt(trace.Int(5)).And(c[0].Sum().Lt(a[2].Mul(trace.Float(4))))
			}, func(c []V) []V {
				x := c[0]
				for _, k := range body {
					x = ops[k].f(x, a[1])
				}
				if inner {
					x = trace.Cond(x.Sum().Gt(a[2]), func(o []V) []V { return []V{o[0].Abs()} },
						func(o []V) []V { return []V{o[0].Sub(a[1])} }, x)[0]
				}
				switch nested {
				case 1: // a counted loop
					x = trace.ForiLoop(trace.Int(0), trace.Int(2), func(i V, f []V) []V { return []V{f[0].Add(a[1].Mul(f[0]))} }, x)[0]
				case 2: // a switch on the example's data
					n := x.Gt(a[1]).Astype(tensor.I32).Sum()
					x = trace.Switch(n, []func([]V) []V{
						func(o []V) []V { return []V{o[0].Neg()} },
						func(o []V) []V { return []V{o[0].Mul(a[1])} },
						func(o []V) []V { return o },
					}, x)[0]
				case 3: // a scan over a closed-over value
					if len(shape) > 0 {
						_, ys := trace.Scan(func(c, e []V) ([]V, []V) {
							return []V{c[0].Add(e[0])}, []V{c[0].Mul(e[0])}
						}, []V{x.Index(0)}, []V{a[1].Add(x)})
						x = ys[0]
					}
				case 4: // a while whose predicate depends on the example too
					x = trace.WhileLoop(func(w []V) V { return w[1].Lt(trace.Int(3)).And(w[0].Sum().Lt(a[2])) },
						func(w []V) []V { return []V{w[0].Add(a[1]), w[1].Add(trace.Int(1))} }, x, trace.Int(0).Astype(tensor.I32))[0]
				}
				return []V{x, c[1].Add(trace.Int(1))}
			}, a[0], trace.Int(0).Astype(tensor.I32))
		}
		t.Run(name, func(t *testing.T) { checkVmap(t, fn, trace.VmapOptions{InAxes: axes}, ins...) })
	}
}
