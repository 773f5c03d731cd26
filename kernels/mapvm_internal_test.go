package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// vmInput is f32 data of shape with the values that tell IEEE
// implementations apart: NaNs of several payloads (quiet and signaling,
// both signs), infinities, signed zeros, subnormals and huge values, among
// ordinary ones.
func vmInput(seed uint64, shape ...int) *tensor.Array {
	n := trace.ShapeSize(shape)
	r := rand.New(rand.NewPCG(seed, 32))
	special := []uint32{0x7fc00000, 0xffc00001, 0x7fa00005, 0xff800003, 0x7f800000, 0xff800000, 0x80000000, 0, 1, 0x80000007, 0x7f7fffff, 0xff7ffffe, 0x00800000}
	vals := make([]float32, n)
	for i := range vals {
		if r.IntN(5) == 0 {
			vals[i] = math.Float32frombits(special[r.IntN(len(special))])
		} else {
			vals[i] = float32(r.NormFloat64() * 3)
		}
	}
	a, _ := tensor.FromSlice(vals, shape...)
	return a
}

// The mapped regions' tile programs (mapvm.go) give the bits of the
// regions' step-by-step bodies — NaN payloads included — over rows long
// enough for several tiles and a partial one, for every op and operand
// form they run (buffer and scalar operands on either side, affine steps),
// and the reference evaluator's values; and the programs do run.
func TestMapVMBits(t *testing.T) {
	n := 5*vmTile + 13
	roll := func(u trace.Value, s int) trace.Value {
		m := u.Shape()[len(u.Shape())-1]
		ax := len(u.Shape()) - 1
		return trace.Concatenate(ax, u.Slice(ax, m-s, m, 1), u.Slice(ax, 0, m-s, 1))
	}
	cases := []struct {
		name  string
		shape []int
		fn    func(u, v trace.Value) trace.Value
	}{
		{"heat", []int{n}, func(u, _ trace.Value) trace.Value {
			return u.Add(trace.Float(0.25).Mul(roll(u, 1).Add(roll(u, n-1)).Sub(u.Mul(trace.Float(2)))))
		}},
		{"ops", []int{n}, func(u, v trace.Value) trace.Value {
			a := roll(u, 3).Div(v).Sub(roll(v, 7).Mul(u))
			return a.Add(roll(u, 5)).Div(roll(v, 2).Sub(u))
		}},
		{"scalar-left", []int{n}, func(u, v trace.Value) trace.Value {
			a := trace.Float(3).Sub(roll(u, 1))
			b := trace.Float(-1.5).Div(roll(u, 9).Add(v))
			return trace.Float(0.5).Add(a.Mul(b))
		}},
		{"affine", []int{n}, func(u, v trace.Value) trace.Value {
			x := roll(u, 1).Add(roll(u, 3))
			a := x.Mul(trace.Float(3)).Sub(trace.Float(2))
			b := trace.Float(5).Sub(x.Mul(trace.Float(-0.5)))
			return a.Mul(b)
		}},
		{"rows", []int{3, n}, func(u, v trace.Value) trace.Value {
			return roll(u, 2).Sub(v.Slice(0, 0, 3, 1)).Mul(roll(v, 1)).Add(trace.Float(1))
		}},
		{"square", []int{n}, func(u, v trace.Value) trace.Value {
			t := roll(u, 1).Sub(v)
			w := t.Mul(t)
			return v.Div(w.Sub(roll(u, 6).Div(w)))
		}},
		{"nan-scalar", []int{n}, func(u, v trace.Value) trace.Value {
			nan := trace.Float(math.NaN())
			x := roll(u, 1).Add(roll(u, 2))
			return x.Add(nan).Mul(x).Sub(nan.Mul(x))
		}},
	}
	// The step forms the programs ran, by kind and label.
	ran := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inputs := []*tensor.Array{vmInput(1, c.shape...), vmInput(2, c.shape...)}
			abs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: c.shape}, {Type: promote.Strong(tensor.F32), Shape: c.shape}}
			p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return []trace.Value{c.fn(a[0], a[1])} })
			if err != nil {
				t.Fatal(err)
			}
			m, err := lower.Compile(p, lower.Options{Fold: Fold, Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2} {
				e, err := NewCPU(CPUOptions{Workers: workers, ParallelMin: 1, Block: 128}).Compile(m)
				if err != nil {
					t.Fatal(err)
				}
				programs := 0
				for _, k := range e.(*cpuExec).kernels {
					if mk, ok := k.(*mappedKernel); ok {
						for _, r := range mk.regions {
							if r.vm != nil {
								programs++
								for _, s := range r.body.steps {
									ran[fmt.Sprintf("%d:%s", s.kind, s.label)] = true
								}
							}
						}
					}
				}
				if programs == 0 {
					t.Fatalf("no mapped region compiled to a program:\n%s", m.FusedString())
				}
				run := func(off bool) []uint32 {
					mapVMOff = off
					defer func() { mapVMOff = false }()
					out, err := e.Run(inputs)
					if err != nil {
						t.Fatal(err)
					}
					v, _ := tensor.Data[float32](out[0])
					bits := make([]uint32, len(v))
					for i, x := range v {
						bits[i] = math.Float32bits(x)
					}
					return bits
				}
				got, want := run(false), run(true)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("workers %d: element %d: %#08x with the programs, %#08x step by step", workers, i, got[i], want[i])
					}
				}
				ref, err := reference.Eval(p, inputs, reference.Options{Transcendental: Transcendental})
				if err != nil {
					t.Fatal(err)
				}
				rv, _ := tensor.Data[float32](ref[0])
				for i, r := range rv {
					g := math.Float32frombits(got[i])
					if r != r && g == g || r == r && got[i] != math.Float32bits(r) {
						t.Fatalf("workers %d: element %d: %v (%#08x), reference %v", workers, i, g, got[i], r)
					}
				}
				t.Logf("workers %d: %d region programs, available %v", workers, programs, mapVMAvailable())
			}
		})
	}
	for _, want := range []string{
		fmt.Sprintf("%d:add.f32", stepBinary), fmt.Sprintf("%d:sub.f32", stepBinary), fmt.Sprintf("%d:mul.f32", stepBinary), fmt.Sprintf("%d:div.f32", stepBinary),
		fmt.Sprintf("%d:add.f32", stepScalar), fmt.Sprintf("%d:mul.f32", stepScalar), fmt.Sprintf("%d:rsub.f32", stepScalar), fmt.Sprintf("%d:rdiv.f32", stepScalar),
		fmt.Sprintf("%d:affine.f32", stepAffine),
	} {
		if !ran[want] {
			t.Errorf("no program ran step form %s (ran %v)", want, ran)
		}
	}
}

// BenchmarkMapVM times E8's heat step (a mapped loop fusion over a
// periodic rod) on one worker as a tile program ("program") and as the
// body's step kernels ("steps"), beside one SIMD add of two shifted views
// of the rod ("add", a single pass: a floor): at 2^16 elements the rod
// and the output stay in L2, at 2^20 (8 MiB) they come from the outer
// caches or memory.
func BenchmarkMapVM(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20} {
		abs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{n}}}
		p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
			u := a[0]
			l := trace.Concatenate(0, u.Slice(0, n-1, n, 1), u.Slice(0, 0, n-1, 1))
			r := trace.Concatenate(0, u.Slice(0, 1, n, 1), u.Slice(0, 0, 1, 1))
			return []trace.Value{u.Add(trace.Float(0.25).Mul(l.Add(r).Sub(u.Mul(trace.Float(2)))))}
		})
		if err != nil {
			b.Fatal(err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: Fold})
		if err != nil {
			b.Fatal(err)
		}
		e, err := NewCPU(CPUOptions{Workers: 1}).Compile(m)
		if err != nil {
			b.Fatal(err)
		}
		rod := make([]float32, n) // ordinary values: subnormals would time the CPU's microcode
		for i := range rod {
			rod[i] = float32(i%1000) / 7
		}
		in := []*tensor.Array{tensor.Must(tensor.FromSlice(rod, n))}
		out, err := e.Run(in)
		if err != nil {
			b.Fatal(err)
		}
		for _, off := range []bool{false, true} {
			name := "program"
			if off {
				name = "steps"
			}
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				mapVMOff = off
				defer func() { mapVMOff = false }()
				b.SetBytes(int64(n) * 8)
				for b.Loop() {
					if err := e.RunInto(out, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		u := make([]float32, n+1)
		o := make([]float32, n)
		b.Run(fmt.Sprintf("add/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n) * 8)
			for b.Loop() {
				simd.AddF32(o, u[:n], u[1:])
			}
		})
	}
}
