package lower_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// heatStep is E8's stencil step: u + α·((roll(u, 1) + roll(u, −1)) − 2u),
// the rolls written as slices and a concatenate.
func heatStep(u trace.Value) trace.Value {
	n := u.Shape()[0]
	l := trace.Concatenate(0, u.Slice(0, n-1, n, 1), u.Slice(0, 0, n-1, 1))
	r := trace.Concatenate(0, u.Slice(0, 1, n, 1), u.Slice(0, 0, 1, 1))
	return u.Add(trace.Float(0.25).Mul(l.Add(r).Sub(u.Mul(trace.Float(2)))))
}

// E8's step compiles to one loop fusion holding its slices and
// concatenates (no copy kernel, no intermediate buffer), in three regions
// whose leaves read u at offsets −1, 0 and +1 of the output index.
func TestHeatStepIsOneMappedLoop(t *testing.T) {
	const n = 1000
	m := compile(t, []trace.Abstract{abs(tensor.F32, n)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		return []trace.Value{heatStep(a[0])}
	})
	if len(m.Fusions) != 1 || m.Fusions[0].Kind != lower.FusionLoop || !m.Fusions[0].Mapped() {
		t.Fatalf("want one mapped loop fusion:\n%s", m.FusedString())
	}
	rs, err := lower.Regions(m.Fusions[0])
	if err != nil {
		t.Fatal(err)
	}
	var boxes []string
	for _, r := range rs {
		var offs []int
		for _, l := range r.Leaves {
			if l.Src.Op == trace.OpParam {
				offs = append(offs, l.Base)
				if l.Strides[0] != 1 {
					t.Errorf("region %v reads u with stride %d", r.Lo, l.Strides[0])
				}
			}
		}
		slices.Sort(offs)
		boxes = append(boxes, fmt.Sprintf("[%d,%d) %v", r.Lo[0], r.Hi[0], offs))
	}
	// Region 0 reads u[n-1] for roll(u, 1) (offset n-1), region 2 reads
	// u[0] for roll(u, -1) (offset 1-n); between them the offsets are
	// -1, 0 and +1.
	want := []string{"[0,1) [0 1 999]", "[1,999) [-1 0 1]", "[999,1000) [-999 -1 0]"}
	if !slices.Equal(boxes, want) {
		t.Errorf("regions %q, want %q", boxes, want)
	}
}

// The loop body of a fori_loop over the step is the same one fusion.
func TestHeatLoopBodyIsOneMappedLoop(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 64)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		return trace.ForiLoop(trace.Int(0), trace.Int(10), func(_ trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{heatStep(c[0])}
		}, a[0])
	})
	var body *lower.Module
	for _, in := range m.Instrs {
		if in.Op == trace.OpWhile {
			body = in.Subs[1]
		}
	}
	if body == nil {
		t.Fatalf("no while:\n%s", m.FusedString())
	}
	mapped, copies := 0, 0
	for _, f := range body.Fusions {
		if f.Mapped() {
			mapped++
		}
		if f.Kind == lower.FusionCopy {
			copies++
		}
	}
	if mapped != 1 || copies != 0 {
		t.Errorf("the body has %d mapped loops and %d copies, want 1 and 0:\n%s", mapped, copies, body.FusedString())
	}
}

// Without fusion every slice and concatenate is a copy of its own.
func TestNoFusionKeepsCopies(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 16)}, lower.Options{NoFusion: true}, func(a []trace.Value) []trace.Value {
		return []trace.Value{heatStep(a[0])}
	})
	copies := 0
	for _, f := range m.Fusions {
		if f.Mapped() {
			t.Errorf("fusion %d is mapped with fusion off", f.ID)
		}
		if f.Kind == lower.FusionCopy {
			copies++
		}
	}
	if copies != 6 {
		t.Errorf("%d copy kernels, want 6 (4 slices, 2 concatenates):\n%s", copies, m.FusedString())
	}
}

// Regions splits a concatenate read backwards (rev of a concatenate) and a
// transposed concatenate where their operands change, and its regions
// cover the output once.
func TestRegionsCover(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 3, 5), abs(tensor.F32, 2, 5)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		c := trace.Concatenate(0, a[0], a[1]) // [5,5]
		return []trace.Value{trace.Rev(c, 0).Transpose().Add(c)}
	})
	var f *lower.Fusion
	for _, g := range m.Fusions {
		if g.Mapped() {
			f = g
		}
	}
	if f == nil {
		t.Fatalf("no mapped fusion:\n%s", m.FusedString())
	}
	rs, err := lower.Regions(f)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, 25)
	for _, r := range rs {
		for i := r.Lo[0]; i < r.Hi[0]; i++ {
			for j := r.Lo[1]; j < r.Hi[1]; j++ {
				seen[i*5+j]++
			}
		}
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("element %d is in %d regions", k, c)
		}
	}
	if len(rs) != 4 { // rows {0-2, 3-4} × cols {0-1, 2-4}
		t.Errorf("%d regions, want 4", len(rs))
	}
}

// iotaKernels counts a module's fusions rooted at an iota (its own kernel,
// writing a buffer), and its mapped loop fusions computing one inside.
func iotaKernels(m *lower.Module) (own, fused int) {
	for _, f := range m.Fusions {
		if f.Outputs[0].Op == trace.OpIota {
			own++
			continue
		}
		for _, in := range f.Instrs {
			if in.Op == trace.OpIota && f.Mapped() {
				fused++
			}
		}
	}
	return own, fused
}

// An iota read by elementwise ops, directly or through data movement, is
// computed from the index inside its readers' loop fusion: no iota
// kernel, no buffer, one mapped loop — in a step and in a loop body.
func TestIotaFusesIntoItsReaders(t *testing.T) {
	progs := map[string]func(x trace.Value) trace.Value{
		"add": func(x trace.Value) trace.Value { return x.Add(trace.Iota(tensor.F32, []int{8, 6}, 1)) },
		"two-readers": func(x trace.Value) trace.Value {
			i := trace.Iota(tensor.F32, []int{8, 6}, 0)
			return x.Mul(i).Add(i)
		},
		"rolled": func(x trace.Value) trace.Value {
			return x.Sub(trace.Roll(trace.Iota(tensor.F32, []int{8, 6}, 1), 2, 1))
		},
		"converted-strided": func(x trace.Value) trace.Value {
			return x.Mul(trace.Iota(tensor.I32, []int{16, 6}, 0).Slice(0, 1, 16, 2).Astype(tensor.F32))
		},
	}
	for name, f := range progs {
		t.Run(name, func(t *testing.T) {
			m := compile(t, []trace.Abstract{abs(tensor.F32, 8, 6)}, lower.Options{}, func(a []trace.Value) []trace.Value {
				return []trace.Value{f(a[0])}
			})
			own, fused := iotaKernels(m)
			if len(m.Fusions) != 1 || own != 0 || fused == 0 {
				t.Errorf("%d fusions, %d iota kernels, %d fused iotas; want 1, 0, ≥1:\n%s", len(m.Fusions), own, fused, m.FusedString())
			}
			body := compile(t, []trace.Abstract{abs(tensor.F32, 8, 6)}, lower.Options{}, func(a []trace.Value) []trace.Value {
				return trace.ForiLoop(trace.Int(0), trace.Int(3), func(_ trace.Value, c []trace.Value) []trace.Value {
					return []trace.Value{f(c[0])}
				}, a[0])
			})
			for _, in := range body.Instrs {
				if in.Op != trace.OpWhile {
					continue
				}
				b := in.Subs[1]
				own, fused := iotaKernels(b)
				arrays := 0 // fusions of the carry's shape (the counter's is scalar)
				for _, f := range b.Fusions {
					if len(f.Outputs[0].Shape) > 0 {
						arrays++
					}
				}
				if arrays != 1 || own != 0 || fused == 0 {
					t.Errorf("loop body: %d array fusions, %d iota kernels, %d fused iotas; want 1, 0, ≥1:\n%s", arrays, own, fused, b.FusedString())
				}
			}
		})
	}
}

// An iota a reduction (or any reader that is not a loop fusion) reads
// keeps its own kernel; a loop fusion reading it too computes it itself.
func TestIotaReadFromABufferKeepsItsKernel(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 8, 6)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		i := trace.Iota(tensor.F32, []int{8, 6}, 1)
		return []trace.Value{i.Mul(i).Sum(1), a[0].Add(i)}
	})
	if own, fused := iotaKernels(m); own != 1 || fused != 1 {
		t.Errorf("%d iota kernels and %d fused iotas, want 1 and 1:\n%s", own, fused, m.FusedString())
	}
}

// A roll whose readers are duplicable arithmetic computed only in the
// consumer's fusion joins that fusion: roll(u,1)·c − c2 combined with
// c − roll(u,4)·c3, and (roll(u,1) + NaN)·v − NaN·roll(v,2), are each one
// mapped loop, no copy (growFusion used to refuse a roll any of whose
// readers was duplicable, recomputed elsewhere or not).
func TestRollUnderDuplicableReadersFuses(t *testing.T) {
	progs := map[string]func(u, v trace.Value) trace.Value{
		"scaled-rolls": func(u, v trace.Value) trace.Value {
			c, c2, c3 := trace.Float(0.5), trace.Float(3), trace.Float(-2)
			a := trace.Roll(u, 1, 0).Mul(c).Sub(c2)
			b := c.Sub(trace.Roll(u, 4, 0).Mul(c3))
			return a.Mul(b).Add(v)
		},
		"nan-rolls": func(u, v trace.Value) trace.Value {
			nan := trace.Float(math.NaN())
			return trace.Roll(u, 1, 0).Add(nan).Mul(v).Sub(nan.Mul(trace.Roll(v, 2, 0)))
		},
	}
	for name, f := range progs {
		t.Run(name, func(t *testing.T) {
			m := compile(t, []trace.Abstract{abs(tensor.F32, 64), abs(tensor.F32, 64)}, lower.Options{}, func(a []trace.Value) []trace.Value {
				return []trace.Value{f(a[0], a[1])}
			})
			if len(m.Fusions) != 1 || !m.Fusions[0].Mapped() {
				t.Errorf("want one mapped loop fusion:\n%s", m.FusedString())
			}
		})
	}
}

// A loop reading a product stays the product's epilogue: its iotas (a
// causal mask's) are kernels of their own rather than making it a mapped
// loop, which no epilogue is.
func TestIotaBesideProductKeepsEpilogue(t *testing.T) {
	m := compile(t, []trace.Abstract{abs(tensor.F32, 8, 8), abs(tensor.F32, 8, 8)}, lower.Options{}, func(a []trace.Value) []trace.Value {
		s := trace.MatMul(a[0], a[1])
		causal := trace.Iota(tensor.I32, []int{8, 8}, 0).Ge(trace.Iota(tensor.I32, []int{8, 8}, 1))
		return []trace.Value{trace.Where(causal, s, trace.Float(-1e9))}
	})
	epilogues := 0
	for _, f := range m.Fusions {
		if f.Mapped() {
			t.Errorf("fusion %d is mapped", f.ID)
		}
		if f.Epilogue() {
			epilogues++
		}
	}
	if epilogues != 1 {
		t.Errorf("%d epilogues, want 1:\n%s", epilogues, m.FusedString())
	}
}
