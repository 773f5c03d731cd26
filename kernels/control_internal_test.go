package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A scan's stacked outputs are updated in place: the loop kernel gives
// each of them one buffer (the carry it reads is the one it writes), so a
// step writes its slice instead of copying every earlier one; the other
// carries keep two buffers. The results match the reference's
// (conformance's scan cases) either way.
func TestScanOutputsInPlace(t *testing.T) {
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{50, 4}}}, func(a []trace.Value) []trace.Value {
		c, ys := trace.Scan(func(c, x []trace.Value) ([]trace.Value, []trace.Value) {
			n := c[0].Add(x[0])
			return []trace.Value{n}, []trace.Value{n, n.Mul(n)}
		}, []trace.Value{trace.Zeros([]int{4}, tensor.F32)}, []trace.Value{a[0]})
		return append(c, ys...)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := DefaultCPU().Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	var k *controlKernel
	for _, kk := range e.(*cpuExec).kernels {
		if c, ok := kk.(*controlKernel); ok {
			k = c
		}
	}
	if k == nil {
		t.Fatal("no loop kernel")
	}
	// The carries: the counter, the running sum, then the two stacks.
	want := []bool{false, false, true, true}
	if len(k.inPlace) != len(want) {
		t.Fatalf("in place %v, want %v", k.inPlace, want)
	}
	for i := range want {
		if k.inPlace[i] != want[i] {
			t.Errorf("carry %d in place: %v, want %v", i, k.inPlace[i], want[i])
		}
	}
	x := tensor.Must(tensor.Must(tensor.Arange(tensor.F32, 200)).Reshape(50, 4))
	out, err := e.Run([]*tensor.Array{x})
	if err != nil {
		t.Fatal(err)
	}
	ys, _ := tensor.Data[float32](out[1])
	sum := make([]float32, 4)
	xs, _ := tensor.Data[float32](x)
	for i := range 50 {
		for j := range 4 {
			sum[j] += xs[i*4+j]
			if ys[i*4+j] != sum[j] {
				t.Fatalf("ys[%d][%d] = %v, want %v", i, j, ys[i*4+j], sum[j])
			}
		}
	}
}

// In a scan's gradient program every carry the length of the sequence —
// the primal loop's stored carries and stacked outputs, the reverse
// loop's cotangents of the stacked outputs and of xs — is updated in
// place, so no step copies a whole sequence (BenchmarkScanGradXs: the
// time per step does not grow with the length).
func TestScanGradientInPlace(t *testing.T) {
	const steps = 50
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{steps, 4}}}, func(a []trace.Value) []trace.Value {
		return trace.Grad(func(x []trace.Value) []trace.Value {
			_, ys := trace.Scan(func(c, e []trace.Value) ([]trace.Value, []trace.Value) {
				n := c[0].Mul(trace.Float(0.5)).Add(e[0])
				return []trace.Value{n}, []trace.Value{n}
			}, []trace.Value{trace.Zeros([]int{4}, tensor.F32)}, []trace.Value{x[0]})
			return []trace.Value{ys[0].Sum()}
		}, trace.GradOptions{})(a...)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := DefaultCPU().Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	loops := 0
	for _, k := range e.(*cpuExec).kernels {
		c, ok := k.(*controlKernel)
		if !ok {
			continue
		}
		loops++
		for i, n := range c.bytes {
			if n >= steps*4 && !c.inPlace[i] {
				t.Errorf("%s: carry %d (%d bytes) is copied every step", c.root.Name(), i, n)
			}
		}
	}
	if loops < 2 {
		t.Errorf("%d loops in the gradient program, want the primal one and the reverse one", loops)
	}
}

// A carry's reader recomputed in several kernels of the body (lower's
// duplication rule: u = p*2 in both reductions) keeps the carry out of
// place when one of those kernels runs after the dynamic_update_slice —
// in place, the second reduction read the updated carry: 243176 for
// 123232 here.
func TestLoopCarryReadAfterUpdate(t *testing.T) {
	abs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{8}}, {Type: promote.Strong(tensor.F32), Shape: []int{1}}}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value {
			u := c[0].Mul(trace.Float(2))
			r1 := u.Sum()
			o := trace.DynamicUpdateSlice(c[0], a[1], []trace.Value{i})
			r2 := u.Mul(u).Sum()
			return []trace.Value{o, c[1].Add(r1).Add(r2)}
		}, a[0], trace.Zeros(nil, tensor.F32))
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := DefaultCPU().Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 8))
	upd := tensor.Must(tensor.FromSlice([]float32{100}, 1))
	out, err := e.Run([]*tensor.Array{x, upd})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: the sums of 2p and 4p² over the three steps' carries
	// (1..8, then 100 written at 0, 1).
	if got, _ := tensor.Data[float32](out[1]); got[0] != 123232 {
		t.Errorf("acc = %v, want 123232", got[0])
	}
}
